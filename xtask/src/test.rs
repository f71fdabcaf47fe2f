//! `cargo xtask test`: everything CI runs, in one command, for both workspaces: the main one
//! (`polyval` 0.7, `ghash` 0.6, `aes-gcm` 0.11) and `aead-0.5/` (`polyval` 0.6, `ghash` 0.5,
//! `aes-gcm` 0.10), which share `target/`.
//!
//! 0. `cargo fmt --check`, `cargo clippy -D warnings` (all targets; every crate of the main
//!    workspace but the benches, whose peers take minutes to build; `aead-0.5/` with default
//!    and with all features) and `cargo doc` with warnings denied, in both workspaces;
//! 1. `cargo test --workspace` in both (every backend and engine this CPU has, against the
//!    portable code, the oracles, published vectors and the published crates), and
//!    `aead-0.5/`'s API and doc tests once more with all features (`stream`, `heapless`, ...);
//! 2. the same with the portable backend forced (`--cfg polyval_backend="soft"`, and for
//!    `aead-0.5/` upstream's `--cfg polyval_force_soft` too, in `target/soft`);
//! 3. `cargo xtask upstream-tests` (the published crates' own suites against ours, and
//!    cookie's) and `cargo xtask patch-recipe` (README's `[patch]` block, by git and path);
//! 4. `cargo xtask ct --quick`: the constant-time checks on a subset of the operations, on
//!    every backend and engine this CPU has, with their seeded leaks: Valgrind (the shipped
//!    build), MemorySanitizer, and the disassembly check of the release binary; MSan is
//!    skipped with a note only if the nightly toolchain cannot be installed;
//! 5. `cargo xtask mca --install --check`: every loop of ours through llvm-mca's models of the
//!    CPUs we tune for but do not have (ARM's, Intel's client cores), failing if one models
//!    slower than docs/BENCHMARKS.md records;
//! 6. `cargo xtask cross-test --quick --install` (big-endian s390x, both workspaces; aarch64
//!    with PMULL and ARMv8 AES with and without SHA3, the main workspace; the aarch64_be build
//!    check; the x86 dispatch ladder under QEMU; Miri and the other rows run in the full
//!    `cargo xtask cross-test` only).
//!
//! Step 0 also runs clippy over the two crates with their own workspaces, `ct/` and `fuzz/`,
//! and builds the four libraries of both workspaces for `thumbv6m-none-eabi` and
//! `wasm32-unknown-unknown` without their default features (no `std`), as the published
//! crates build.

use std::{path::Path, process::Command};

use crate::proc::{target_dir, workspace_root};

const HELP: &str = "\
cargo xtask test [--no-cross] [--no-upstream] [--no-ct] [--keep-builds]

Runs, in the main workspace and in aead-0.5/: fmt, clippy, doc, the tests, and the
forced-portable build's tests; then the published crates' test suites against ours, the
[patch] recipe check, the quick constant-time checks (`cargo xtask ct --quick`), the
modelled loops against the recorded ones (`cargo xtask mca --check`; with --no-cross, not run)
and the quick cross-test (installing QEMU, cross linkers, llvm-19 and valgrind with apt-get
when missing, and the nightly toolchain with rustup; needs root for apt-get).

Each step's own build directory (target/soft, upstream-check, patch-recipe, ct,
the cross targets', ...) is deleted once the step is done, so the disk holds the
main build and one other at a time; --keep-builds keeps them for a faster rerun.
";

/// `RUSTFLAGS` of the forced-portable runs: ours and upstream polyval 0.6's `cfg`, the same in
/// both workspaces so that they share `target/soft`.
pub const SOFT_RUSTFLAGS: &str = r#"--cfg polyval_backend="soft" --cfg polyval_force_soft"#;

pub struct Steps {
    pub cross: bool,
    pub upstream: bool,
    pub ct: bool,
    /// Keep each step's own build directory instead of deleting it when the step is done.
    pub keep_builds: bool,
}

pub fn parse(args: &[String]) -> Result<Option<Steps>, String> {
    let mut steps = Steps {
        cross: true,
        upstream: true,
        ct: true,
        keep_builds: false,
    };
    for a in args {
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--no-cross" => steps.cross = false,
            "--no-upstream" => steps.upstream = false,
            "--no-ct" => steps.ct = false,
            "--keep-builds" => steps.keep_builds = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(Some(steps))
}

pub fn help() -> &'static str {
    HELP
}

/// A `cargo` command in `dir`.
fn cargo(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("cargo");
    c.args(args).current_dir(dir);
    c
}

/// Runs the local steps (0-4); the caller runs the cross-test step.
pub fn run_local(steps: &Steps) -> Result<(), String> {
    let root = workspace_root()?;
    let old = root.join("aead-0.5");
    let target = target_dir(&root);

    // 0. Formatting, lints, docs.
    status(
        "cargo fmt --check",
        &mut cargo(&root, &["fmt", "--all", "--check"]),
    )?;
    status(
        "cargo fmt --check (aead-0.5)",
        &mut cargo(&old, &["fmt", "--all", "--check"]),
    )?;
    let clippy = ["clippy", "--workspace", "--all-targets"];
    let deny = ["--", "-D", "warnings"];
    status(
        "cargo clippy",
        cargo(&root, &clippy)
            .args(["--exclude", "benches"])
            .args(deny),
    )?;
    status("cargo clippy (aead-0.5)", cargo(&old, &clippy).args(deny))?;
    status(
        "cargo clippy --all-features (aead-0.5)",
        cargo(&old, &clippy).arg("--all-features").args(deny),
    )?;
    // The crates with their own workspaces: the constant-time harness and the fuzz targets.
    // The fuzz targets with `--cfg polyval_backend="soft"`, which leaves out aws-lc-rs (see
    // fuzz/Cargo.toml: its C build took 70 s of this step; the code calling it is linted in
    // `crates/interop`'s tests, which include it) and lints the forced-portable build of our
    // crates besides.
    for dir in ["ct", "fuzz"] {
        let mut c = cargo(&root, &clippy[..2]);
        c.arg("--manifest-path")
            .arg(root.join(dir).join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target.join(format!("{dir}-clippy")))
            .args(deny);
        if dir == "fuzz" {
            c.env("RUSTFLAGS", r#"--cfg polyval_backend="soft""#);
            // Clippy links nothing, so libfuzzer-sys's build script need not compile
            // libFuzzer's C++ sources (half of this step): pointed at a library of its own,
            // it only prints where to link it from, and nothing here links.
            c.env(
                "CUSTOM_LIBFUZZER_PATH",
                target.join("fuzz-clippy/unlinked/libfuzzer.a"),
            );
        }
        status(&format!("cargo clippy ({dir}/)"), &mut c)?;
        discard(steps, &target.join(format!("{dir}-clippy")));
    }
    let doc = ["doc", "--no-deps", "--all-features"];
    let mut d = cargo(&root, &doc);
    d.args([
        "-p",
        "clmul-core",
        "-p",
        "polyval",
        "-p",
        "ghash",
        "-p",
        "aes-gcm",
        "-p",
        "aes-gcm-siv",
    ])
    .args(["-p", "aead-engines", "--document-private-items"])
    .env("RUSTDOCFLAGS", "-D warnings");
    status("cargo doc", &mut d)?;
    let mut d = cargo(&old, &doc);
    d.args([
        "-p",
        "polyval",
        "-p",
        "ghash",
        "-p",
        "aes-gcm",
        "-p",
        "aes-gcm-siv",
    ])
    .env("RUSTDOCFLAGS", "-D warnings");
    status("cargo doc (aead-0.5)", &mut d)?;
    no_std_builds(steps, &root, &target)?;

    // 1. The tests.
    status(
        "cargo test --workspace",
        &mut cargo(&root, &["test", "--workspace", "--exclude", "benches"]),
    )?;
    status(
        "cargo test --workspace (aead-0.5)",
        &mut cargo(&old, &["test", "--workspace"]),
    )?;
    for only in ["--test api", "--doc"] {
        let mut t = cargo(&old, &["test", "-p", "aes-gcm", "--all-features"]);
        t.args(only.split(' '));
        status(
            &format!("cargo test -p aes-gcm --all-features {only} (aead-0.5)"),
            &mut t,
        )?;
    }

    // 2. Forced portable.
    // `aead-engines`' unit tests force each engine by name, so the cfg changes nothing in them
    // (about 40 s of this step's build): of that package only the detection test runs, which
    // checks that the cfg picks the portable engine.
    let soft = target.join("soft");
    let mut s = cargo(&root, &["test", "--workspace"]);
    s.args(["--exclude", "benches", "--exclude", "xtask"])
        .args(["--exclude", "aead-engines"])
        .env("CARGO_TARGET_DIR", &soft)
        .env("RUSTFLAGS", SOFT_RUSTFLAGS);
    status(
        &format!("cargo test --workspace --exclude aead-engines ({SOFT_RUSTFLAGS})"),
        &mut s,
    )?;
    let mut s = cargo(
        &root,
        &["test", "-p", "aead-engines", "--test", "detection"],
    );
    s.env("CARGO_TARGET_DIR", &soft)
        .env("RUSTFLAGS", SOFT_RUSTFLAGS);
    status(
        &format!("cargo test -p aead-engines --test detection ({SOFT_RUSTFLAGS})"),
        &mut s,
    )?;
    let mut s = cargo(&old, &["test", "--workspace"]);
    s.env("CARGO_TARGET_DIR", &soft)
        .env("RUSTFLAGS", SOFT_RUSTFLAGS);
    status(
        &format!("cargo test --workspace (aead-0.5, {SOFT_RUSTFLAGS})"),
        &mut s,
    )?;
    discard(steps, &soft);

    // 3. The published suites, and the patch recipe.
    if steps.upstream {
        timed("cargo xtask upstream-tests", || crate::upstream::run(&[]))?;
        discard(steps, &target.join("upstream-check"));
        timed("cargo xtask patch-recipe", || crate::patch_recipe::run(&[]))?;
        discard(steps, &target.join("patch-recipe"));
    }

    // 4. Constant time, the quick run.
    if steps.ct {
        let opts = crate::ct::Options {
            msan_optional: true,
            ..crate::ct::Options::parse(&["--quick".to_owned()])?.expect("not --help")
        };
        timed("cargo xtask ct --quick", || crate::ct::run_with(&opts))?;
        discard(steps, &crate::ct::build_dir(&root));
    }
    Ok(())
}

/// Targets without `std` that the published crates build for with their default features off:
/// a 32-bit Cortex-M0 (atomic loads and stores only, no compare-and-swap) and WebAssembly.
const NO_STD_TARGETS: [&str; 2] = ["thumbv6m-none-eabi", "wasm32-unknown-unknown"];

/// Step 0's build check of the four libraries of both workspaces
/// ([`PACKAGES`](crate::patch_recipe::PACKAGES)) on [`NO_STD_TARGETS`]
/// (`--no-default-features`, with the `aes` aliases for the AEADs), where a user patching us
/// in must still build; the targets' standard libraries are installed with `rustup` first.
fn no_std_builds(steps: &Steps, root: &Path, target: &Path) -> Result<(), String> {
    status(
        "rustup target add (no_std targets)",
        Command::new("rustup")
            .args(["target", "add"])
            .args(NO_STD_TARGETS),
    )?;
    let dir = target.join("no-std");
    for t in NO_STD_TARGETS {
        for &(name, _, _, krate) in crate::patch_recipe::PACKAGES {
            let mut c = cargo(root, &["build", "--target", t, "--no-default-features"]);
            c.arg("--manifest-path")
                .arg(root.join(krate).join("Cargo.toml"))
                .env("CARGO_TARGET_DIR", &dir);
            // The AEADs' `Aes128Gcm`-style aliases, behind their `aes` feature.
            if name.starts_with("aes-gcm") {
                c.args(["--features", "aes"]);
            }
            status(&format!("cargo build --target {t} ({krate})"), &mut c)?;
        }
    }
    discard(steps, &dir);
    Ok(())
}

/// Runs a step (a command through [`status`], or a step of this program itself), printing its
/// name and, when it passes, its time, so that a CI log says where its minutes went.
pub(crate) fn timed(what: &str, step: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    println!("xtask test: {what}");
    let start = std::time::Instant::now();
    step()?;
    println!(
        "xtask test: {what}: ok in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Deletes a step's own build directory once the step has passed, unless `--keep-builds`.
fn discard(steps: &Steps, dir: &Path) {
    if !steps.keep_builds {
        crate::tools::discard(dir);
    }
}

fn status(what: &str, cmd: &mut Command) -> Result<(), String> {
    timed(what, || {
        let s = cmd.status().map_err(|e| format!("{what}: {e}"))?;
        if s.success() {
            Ok(())
        } else {
            Err(format!("{what}: exited with {s}"))
        }
    })
}
