//! `cargo xtask bench`: the criterion benchmarks against RustCrypto, ring and aws-lc-rs, and
//! the README's benchmark section (tables and SVG charts) regenerated from their results.
//!
//! Runs, in order: the POLYVAL/GHASH bench and the AES-GCM bench in the normal build, and the
//! POLYVAL/GHASH bench with `--cfg polyval_backend="soft"` in `target/soft` (the only way to
//! run RustCrypto's portable backend, so that ours is compared with it in the same run). Then
//! `benches`' `report` tool turns criterion's medians into markdown (GB/s, cycles/byte from
//! the core clock the benches measure, ratios) and SVG charts, which replace the text between
//! the `<!-- bench:start -->` and `<!-- bench:end -->` markers of README.md. The aead 0.5
//! generation's groups (`gen010-*`: our `aes-gcm` 0.10, `polyval` 0.6, `ghash` 0.5 against
//! RustCrypto's 0.10.3, 0.6.2, 0.5.1) get a section of their own.

use std::{fs, path::Path, process::Command};

use crate::upstream::{target_dir, workspace_root};

const HELP: &str = "\
cargo xtask bench [--quick] [--pin] [--no-run-benches] [-- <criterion args>]

Runs the criterion benches (ours vs RustCrypto, ring, aws-lc-rs) and rewrites the benchmark
section of README.md and docs/*.svg from the results.

  --quick           shorter measurements (0.5 s warm-up, 1 s measurement)
  --pin             run each bench pinned to CPU 1 at real-time priority (taskset, chrt;
                    needs root) to cut the noise of a shared machine
  --no-run-benches  only regenerate the README section from existing results
";

/// The prefix of the aead 0.5 generation's groups.
const GEN010: &str = "gen010-";

const START: &str = "<!-- bench:start -->";
const END: &str = "<!-- bench:end -->";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut pin = false;
    let mut run_benches = true;
    let mut extra: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            "--quick" => quick = true,
            "--pin" => pin = true,
            "--no-run-benches" => run_benches = false,
            "--" => extra.extend(it.by_ref().cloned()),
            other => return Err(format!("unknown option `{other}`\n{HELP}")),
        }
    }
    let root = workspace_root()?;
    let target = target_dir(&root);
    let soft = target.join("soft");
    let mut criterion_args: Vec<String> = if quick {
        ["--warm-up-time", "0.5", "--measurement-time", "1"]
            .map(String::from)
            .to_vec()
    } else {
        Vec::new()
    };
    criterion_args.extend(extra);

    if run_benches {
        bench(&root, &target, "uhf", &[], pin, &criterion_args)?;
        bench(&root, &target, "aead", &[], pin, &criterion_args)?;
        bench(
            &root,
            &soft,
            "uhf",
            &[("RUSTFLAGS", "--cfg polyval_backend=\"soft\"")],
            pin,
            &criterion_args,
        )?;
    }

    let normal = target.join("criterion");
    let soft_dir = soft.join("criterion");
    let docs = root.join("docs");
    fs::create_dir_all(&docs).map_err(|e| format!("{}: {e}", docs.display()))?;
    let mut md = String::new();
    md.push_str(&format!(
        "Measured with `cargo xtask bench` on {}. Medians of criterion runs; ratios are against \
         RustCrypto at the same size, or against the named peer.\n\n",
        machine()
    ));
    md.push_str("![AES-128-GCM encryption throughput](docs/bench-aes128gcm-encrypt.svg)\n\n");
    md.push_str("![POLYVAL throughput](docs/bench-polyval-update.svg)\n\n");
    md.push_str("#### AES-GCM (ratios against aws-lc-rs)\n\n");
    md.push_str(&report(
        &root,
        &target,
        &normal,
        &[
            "--group",
            "gcm",
            "--exclude",
            GEN010,
            "--baseline",
            "aws-lc-rs",
        ],
    )?);
    md.push_str("\n#### POLYVAL and GHASH (ratios against RustCrypto)\n\n");
    md.push_str(&report(
        &root,
        &target,
        &normal,
        &[
            "--group",
            "polyval",
            "--group",
            "ghash",
            "--exclude",
            GEN010,
        ],
    )?);
    md.push_str(
        "\n#### The aead 0.5 generation: aes-gcm 0.10, polyval 0.6, ghash 0.5 (ratios against \
         RustCrypto 0.10.3, 0.6.2, 0.5.1)\n\n",
    );
    md.push_str(&report(&root, &target, &normal, &["--group", GEN010])?);
    md.push_str(
        "\n#### Portable backend against RustCrypto's forced soft build \
         (`--cfg polyval_backend=\"soft\"`)\n\n",
    );
    md.push_str(&report(
        &root,
        &target,
        &soft_dir,
        &[
            "--group",
            "polyval/new",
            "--group",
            "polyval/clone",
            "--group",
            "polyval/kept",
            "--group",
            "ghash/clone",
            "--exclude",
            GEN010,
        ],
    )?);
    for (group, file) in [
        ("aes128gcm/encrypt", "bench-aes128gcm-encrypt.svg"),
        ("polyval/kept", "bench-polyval-update.svg"),
    ] {
        let svg = report(&root, &target, &normal, &["--svg", group])?;
        fs::write(docs.join(file), svg).map_err(|e| format!("{file}: {e}"))?;
    }

    let readme = root.join("README.md");
    let text = fs::read_to_string(&readme).map_err(|e| format!("README.md: {e}"))?;
    let (a, b) = match (text.find(START), text.find(END)) {
        (Some(a), Some(b)) if a < b => (a + START.len(), b),
        _ => return Err(format!("README.md lacks the {START} ... {END} markers")),
    };
    let new = format!("{}\n{}\n{}", &text[..a], md.trim_end(), &text[b..]);
    fs::write(&readme, new).map_err(|e| format!("README.md: {e}"))?;
    println!("bench: README.md and docs/*.svg updated");
    Ok(())
}

fn bench(
    root: &Path,
    target: &Path,
    name: &str,
    env: &[(&str, &str)],
    pin: bool,
    criterion_args: &[String],
) -> Result<(), String> {
    // Build first (unpinned), then run the bench binary through cargo, pinned if asked.
    let mut build = Command::new("cargo");
    build
        .args(["bench", "-p", "benches", "--bench", name, "--no-run"])
        .current_dir(root);
    build.env("CARGO_TARGET_DIR", target);
    for (k, v) in env {
        build.env(k, v);
    }
    status(&mut build)?;
    let mut cmd = if pin {
        let mut c = Command::new("chrt");
        c.args(["-f", "1", "taskset", "-c", "1", "cargo"]);
        c
    } else {
        Command::new("cargo")
    };
    cmd.args(["bench", "-p", "benches", "--bench", name, "--"])
        .args(criterion_args);
    cmd.current_dir(root).env("CARGO_TARGET_DIR", target);
    for (k, v) in env {
        cmd.env(k, v);
    }
    status(&mut cmd)
}

fn report(root: &Path, target: &Path, dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("cargo")
        .args(["run", "--quiet", "-p", "benches", "--bin", "report", "--"])
        .args(args)
        .arg(dir)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .map_err(|e| format!("report: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "report failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn status(cmd: &mut Command) -> Result<(), String> {
    let s = cmd.status().map_err(|e| format!("{cmd:?}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} exited with {s}"))
    }
}

/// "model name" from /proc/cpuinfo, and the core count.
fn machine() -> String {
    let info = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, m)| m.trim())
        })
        .unwrap_or("an unknown CPU");
    let cores = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{model} ({cores} cores, shared)")
}
