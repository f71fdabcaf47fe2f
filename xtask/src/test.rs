//! `cargo xtask test`: everything CI runs, in one command.
//!
//! 0. `cargo fmt --check`, `cargo clippy -D warnings` (all targets, every crate but the
//!    benches, whose peers take minutes to build) and `cargo doc` with warnings denied;
//! 1. `cargo test --workspace` (every backend and engine this CPU has, against the portable
//!    code, the oracles, published vectors and the published crates);
//! 2. the same with `--cfg polyval_backend="soft"` (in `target/soft`);
//! 3. `cargo xtask upstream-tests` (the published crates' own suites against ours);
//! 4. `cargo xtask ct --quick`: the constant-time checks on a subset of the operations, on
//!    every backend and engine this CPU has, with their seeded leaks: Valgrind (the shipped
//!    build), MemorySanitizer, and the disassembly check of the release binary; MSan is
//!    skipped with a note only if the nightly toolchain cannot be installed;
//! 5. `cargo xtask cross-test --quick --install` (big-endian s390x, aarch64 with PMULL and
//!    ARMv8 AES and forced-portable, the x86 dispatch ladder under QEMU, Miri on s390x).
//!
//! Step 0 also runs clippy over the two crates with their own workspaces, `ct/` and `fuzz/`.

use std::process::Command;

use crate::upstream::{target_dir, workspace_root};

const HELP: &str = "\
cargo xtask test [--no-cross] [--no-upstream] [--no-ct]

Runs the workspace tests, the forced-portable build's tests, the published crates' test
suites against ours, the quick constant-time checks (`cargo xtask ct --quick`), and the
quick cross-test (installing QEMU and cross linkers with apt-get when missing, and the
nightly toolchain with rustup; needs root for apt-get).
";

pub struct Steps {
    pub cross: bool,
    pub upstream: bool,
    pub ct: bool,
}

pub fn parse(args: &[String]) -> Result<Option<Steps>, String> {
    let mut steps = Steps {
        cross: true,
        upstream: true,
        ct: true,
    };
    for a in args {
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--no-cross" => steps.cross = false,
            "--no-upstream" => steps.upstream = false,
            "--no-ct" => steps.ct = false,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(Some(steps))
}

pub fn help() -> &'static str {
    HELP
}

/// Runs the local steps (0-4); the caller runs the cross-test step.
pub fn run_local(steps: &Steps) -> Result<(), String> {
    let root = workspace_root()?;
    let target = target_dir(&root);

    let mut fmt = Command::new("cargo");
    fmt.args(["fmt", "--all", "--check"]).current_dir(&root);
    status("cargo fmt --check", &mut fmt)?;
    let mut clippy = Command::new("cargo");
    clippy
        .args([
            "clippy",
            "--workspace",
            "--exclude",
            "benches",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])
        .current_dir(&root);
    status("cargo clippy", &mut clippy)?;
    // The crates with their own workspaces: the constant-time harness and the fuzz targets
    // (aws-lc-sys with its plain C build, as `cargo xtask fuzz` builds it).
    for (dir, sub) in [("ct", "ct-clippy"), ("fuzz", "fuzz-clippy")] {
        let mut c = Command::new("cargo");
        c.args(["clippy", "--all-targets", "--manifest-path"])
            .arg(root.join(dir).join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target.join(sub))
            .args(["--", "-D", "warnings"])
            .env("AWS_LC_SYS_CMAKE_BUILDER", "0")
            .current_dir(&root);
        status(&format!("cargo clippy ({dir}/)"), &mut c)?;
    }
    let mut doc = Command::new("cargo");
    doc.args(["doc", "--no-deps", "--all-features"])
        .args([
            "-p",
            "clmul-core",
            "-p",
            "polyval",
            "-p",
            "ghash",
            "-p",
            "aes-gcm",
        ])
        .current_dir(&root)
        .env("RUSTDOCFLAGS", "-D warnings");
    status("cargo doc", &mut doc)?;

    let mut t = Command::new("cargo");
    t.args(["test", "--workspace", "--exclude", "benches"])
        .current_dir(&root);
    status("cargo test --workspace", &mut t)?;

    let mut s = Command::new("cargo");
    s.args([
        "test",
        "--workspace",
        "--exclude",
        "benches",
        "--exclude",
        "xtask",
    ])
    .current_dir(&root)
    .env("CARGO_TARGET_DIR", target.join("soft"))
    .env("RUSTFLAGS", "--cfg polyval_backend=\"soft\"");
    status("cargo test --workspace (polyval_backend=\"soft\")", &mut s)?;

    if steps.upstream {
        crate::upstream::run(&[])?;
    }
    if steps.ct {
        println!("xtask test: cargo xtask ct --quick");
        let opts = crate::ct::Options {
            msan_optional: true,
            ..crate::ct::Options::parse(&["--quick".to_owned()])?.expect("not --help")
        };
        crate::ct::run_with(&opts)?;
    }
    Ok(())
}

fn status(what: &str, cmd: &mut Command) -> Result<(), String> {
    println!("xtask test: {what}");
    let s = cmd.status().map_err(|e| format!("{what}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{what}: exited with {s}"))
    }
}
