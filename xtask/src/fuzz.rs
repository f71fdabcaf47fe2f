//! `cargo xtask fuzz --time N`: runs every cargo-fuzz target in `fuzz/` for N seconds each.
//!
//! It first makes sure the tools are there: the nightly toolchain (installed with rustup) and
//! `cargo fuzz` (installed with `cargo install cargo-fuzz --locked`); if one cannot be
//! installed it stops with one line naming it and how to get it. Then it builds every target
//! (a build failure prints the compiler's errors) and runs each from its working corpus
//! `fuzz/corpus/<target>/` (git-ignored, grows across runs) plus the committed seeds
//! `fuzz/seeds/<target>/` (read only). A finding is reported with the check that failed and
//! its reproducer in `fuzz/artifacts/<target>/`; copy that into `fuzz/seeds/<target>/` and
//! `cargo test -p interop-tests --test fuzz_regressions` replays it from then on
//! (`aead_diff_010`'s: `cargo test -p interop-tests-05 --test fuzz_regressions` in
//! `aead-0.5/`; `aead_siv`'s: `cargo test -p interop-tests --test siv_fuzz_regressions`).
//! Prints target x seconds x executions x result; exits non-zero if any target failed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{proc, tools};

/// Help text for `cargo xtask fuzz --help`.
pub const HELP: &str = "\
cargo xtask fuzz [--time SECONDS] [--target NAME]...

Runs the cargo-fuzz targets for SECONDS each (default 60): uhf_backends, aead_diff,
aead_tamper, aead_diff_010, aead_siv. Installs the nightly toolchain and cargo-fuzz when
missing.
";

/// The targets, in the order they run.
pub const TARGETS: &[&str] = &[
    "uhf_backends",
    "aead_diff",
    "aead_tamper",
    "aead_diff_010",
    "aead_siv",
];

/// How one target's run ended.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Ran for the time given without a finding.
    Ok,
    /// A check failed or the target crashed: the message and the reproducer.
    Finding {
        message: String,
        reproducer: Option<String>,
    },
    /// It did not run (the reason, e.g. the last lines of its output).
    Broken(String),
}

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
    let targets: Vec<&str> = TARGETS
        .iter()
        .copied()
        .filter(|t| only.is_empty() || only.iter().any(|o| o == t))
        .collect();
    if targets.is_empty() {
        return Err(format!("no such target: {only:?} (targets: {TARGETS:?})"));
    }

    tools::ensure_nightly(&[])?;
    tools::ensure_cargo_tool("fuzz", "cargo-fuzz")?;

    // Build first, so that a compile error is reported as one, with the compiler's messages.
    eprintln!("xtask fuzz: building the targets (minutes on a first run: ring, aws-lc, ASan)");
    for t in &targets {
        let mut build = fuzz_cmd(&fuzz);
        build.args(["build", "-O", t]);
        eprintln!("$ {}", proc::display(&build));
        let out = build
            .output()
            .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            eprintln!("{}", compiler_errors(&stderr));
            return Err(format!(
                "building the fuzz target {t} failed (compiler output above)"
            ));
        }
    }

    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for t in targets {
        let corpus = fuzz.join("corpus").join(t);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let mut cmd = fuzz_cmd(&fuzz);
        cmd.args(["run", "-O", t])
            .arg(&corpus)
            .arg(fuzz.join("seeds").join(t))
            .args([
                "--",
                &format!("-max_total_time={secs}"),
                "-max_len=4096",
                "-print_final_stats=1",
            ]);
        eprintln!("$ {}", proc::display(&cmd));
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let execs = stderr
            .lines()
            .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
            .map_or("?".to_owned(), |s| s.trim().to_owned());
        let outcome = classify(out.status.success(), &format!("{stdout}\n{stderr}"));
        let result = match &outcome {
            Outcome::Ok => "ok".to_owned(),
            Outcome::Finding {
                message,
                reproducer,
            } => {
                eprintln!(
                    "fuzz: {t}: FINDING: {message}\n  reproducer: {}\n  replay: cargo +nightly \
                     fuzz run {t} {0}\n  keep it as a regression test: copy it into \
                     fuzz/seeds/{t}/",
                    reproducer.as_deref().unwrap_or("(none written)")
                );
                failed.push(format!("{t}: finding: {message}"));
                "FINDING".to_owned()
            }
            Outcome::Broken(why) => {
                eprintln!("fuzz: {t}: did not run:\n{why}");
                failed.push(format!("{t}: did not run"));
                "BROKEN".to_owned()
            }
        };
        rows.push(vec![t.to_owned(), secs.to_string(), execs, result]);
    }
    print!(
        "{}",
        crate::table::render(
            &["target", "seconds", "executions", "result"],
            &rows,
            3,
            false
        )
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// `cargo +nightly fuzz` in `fuzz/`. aws-lc-sys (a peer of `aead_diff`) is built with its
/// plain C build, as in the test suite, not the CMake one (which a fresh machine lacks).
fn fuzz_cmd(fuzz: &Path) -> Command {
    let mut cmd = tools::nightly_cargo();
    cmd.current_dir(fuzz)
        .arg("fuzz")
        .env("AWS_LC_SYS_CMAKE_BUILDER", "0");
    cmd
}

/// The `error...` blocks of a failed cargo build (each up to the next blank line), or the
/// last lines of its output if there are none.
fn compiler_errors(stderr: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for l in stderr.lines() {
        if l.starts_with("error") {
            inside = true;
        }
        if inside {
            out.push(l);
            if l.trim().is_empty() {
                inside = false;
            }
        }
    }
    if out.is_empty() {
        let all: Vec<&str> = stderr.lines().collect();
        out = all[all.len().saturating_sub(30)..].to_vec();
    }
    out.join("\n")
}

/// How a `cargo fuzz run` ended, from its exit status and output: a finding (libFuzzer's
/// crash report, the panic message of the check that failed, and the artifact it wrote), or
/// a target that did not run at all.
fn classify(success: bool, output: &str) -> Outcome {
    if success {
        return Outcome::Ok;
    }
    let reproducer = output
        .lines()
        .find_map(|l| l.split("Test unit written to ").nth(1))
        .map(|p| p.trim().to_owned());
    let crashed = reproducer.is_some()
        || output.contains("==ERROR: libFuzzer")
        || output.contains("ERROR: AddressSanitizer");
    if !crashed {
        let all: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
        return Outcome::Broken(all[all.len().saturating_sub(20)..].join("\n"));
    }
    // Rust's panic message: the line(s) after "panicked at <location>:".
    let lines: Vec<&str> = output.lines().collect();
    let message = lines
        .iter()
        .position(|l| l.contains("panicked at"))
        .map(|i| {
            let at = &lines[i][lines[i].find("panicked at").unwrap_or(0)..];
            let msg: Vec<&str> = lines[i + 1..]
                .iter()
                .take_while(|l| {
                    !l.starts_with("note:")
                        && !l.starts_with("==")
                        && !l.starts_with("stack backtrace")
                })
                .take(6)
                .copied()
                .collect();
            format!("{at} {}", msg.join(" ").trim())
        })
        .or_else(|| {
            lines
                .iter()
                .find(|l| l.contains("ERROR: AddressSanitizer") || l.contains("==ERROR: libFuzzer"))
                .map(|l| l.trim().to_owned())
        })
        .unwrap_or_else(|| "the target crashed".to_owned());
    Outcome::Finding {
        message,
        reproducer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_runs() {
        assert_eq!(classify(true, "anything"), Outcome::Ok);
        let crash = "\
thread '<unnamed>' (7) panicked at src/lib.rs:300:9:
assertion `left == right` failed: AesNi tag
  left: [1]
 right: [2]
stack backtrace:
   0: __rustc::rust_begin_unwind
==1== ERROR: libFuzzer: deadly signal
artifact_prefix='/w/fuzz/artifacts/aead_diff/'; Test unit written to /w/fuzz/artifacts/aead_diff/crash-ab12
";
        match classify(false, crash) {
            Outcome::Finding {
                message,
                reproducer,
            } => {
                assert!(
                    message.starts_with("panicked at src/lib.rs:300:9"),
                    "{message}"
                );
                assert!(!message.contains("backtrace"), "{message}");
                assert!(message.contains("AesNi tag"), "{message}");
                assert_eq!(
                    reproducer.as_deref(),
                    Some("/w/fuzz/artifacts/aead_diff/crash-ab12")
                );
            }
            other => panic!("{other:?}"),
        }
        let broken = "error: no such command: `fuzz`\n";
        assert!(
            matches!(classify(false, broken), Outcome::Broken(w) if w.contains("no such command"))
        );
        assert!(
            compiler_errors(
                "   Compiling x\nerror[E0425]: cannot find\n  --> a.rs\n\nwarning: y\n"
            )
            .starts_with("error[E0425]")
        );
    }
}
