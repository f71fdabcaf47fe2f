//! `cargo xtask fuzz --time N`: runs every cargo-fuzz target in `fuzz/` for N seconds each.
//!
//! Each target starts from its working corpus `fuzz/corpus/<target>/` (git-ignored, grows
//! across runs) plus the committed seeds `fuzz/seeds/<target>/` (read only). A crash leaves
//! its reproducer in `fuzz/artifacts/<target>/`; copy it into `fuzz/seeds/<target>/` and
//! `cargo test -p interop-tests --test fuzz_regressions` replays it from then on
//! (`aead_diff_010`'s: `cargo test -p interop-tests-05 --test fuzz_regressions` in
//! `aead-0.5/`; `aead_siv`'s: `cargo test -p interop-tests --test siv_fuzz_regressions`).
//! Prints target x seconds x executions x result; exits non-zero if any target failed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Help text for `cargo xtask fuzz --help`.
pub const HELP: &str = "\
cargo xtask fuzz [--time SECONDS] [--target NAME]...

Runs the cargo-fuzz targets (nightly; `cargo install cargo-fuzz`) for SECONDS each
(default 60): uhf_backends, aead_diff, aead_tamper, aead_diff_010, aead_siv.
";

/// The targets, in the order they run.
pub const TARGETS: &[&str] = &[
    "uhf_backends",
    "aead_diff",
    "aead_tamper",
    "aead_diff_010",
    "aead_siv",
];

/// Entry point: `args` are the arguments after `fuzz`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut secs: u64 = 60;
    let mut only: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            "--time" => {
                secs = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--time needs a number of seconds")?;
            }
            "--target" => only.push(it.next().ok_or("--target needs a name")?.clone()),
            other => return Err(format!("unknown option `{other}`\n\n{HELP}")),
        }
    }
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf();
    let fuzz = root.join("fuzz");
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for &t in TARGETS {
        if !only.is_empty() && !only.iter().any(|o| o == t) {
            continue;
        }
        let corpus = fuzz.join("corpus").join(t);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let mut cmd = Command::new("cargo");
        cmd.current_dir(&fuzz)
            .args(["+nightly", "fuzz", "run", "-O", t])
            .arg(&corpus)
            .arg(fuzz.join("seeds").join(t))
            .args([
                "--",
                &format!("-max_total_time={secs}"),
                "-max_len=4096",
                "-print_final_stats=1",
            ]);
        eprintln!("$ {cmd:?}");
        let out = cmd
            .output()
            .map_err(|e| format!("cargo fuzz: {e} (cargo install cargo-fuzz)"))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let execs = stderr
            .lines()
            .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
            .map_or("?".to_owned(), |s| s.trim().to_owned());
        let ok = out.status.success();
        if !ok {
            let tail: Vec<&str> = stderr.lines().rev().take(30).collect();
            for l in tail.iter().rev() {
                eprintln!("{l}");
            }
            failed.push(t);
        }
        rows.push((t, secs, execs, if ok { "ok" } else { "FAILED" }));
    }
    println!(
        "{:<14} {:>8} {:>14}  result",
        "target", "seconds", "executions"
    );
    for (t, s, e, r) in &rows {
        println!("{t:<14} {s:>8} {e:>14}  {r}");
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "fuzz: {} failed; reproducers in fuzz/artifacts/",
            failed.join(", ")
        ))
    }
}
