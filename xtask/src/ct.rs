//! `cargo xtask ct`: constant-time validation under Valgrind memcheck.
//!
//! Builds the `ct/` harness (its own workspace, release profile with debug info) twice: as
//! shipped, and with `--cfg aes_backend="soft"` so that the `aes` crate's bitsliced software
//! AES (used by the generic AES-GCM path on CPUs without AES-NI) is checked too. Then, per
//! build:
//!
//! 1. the **leak self-test**: `ct-check --leak-selftest` runs a branch on a secret bit and a
//!    table lookup at a secret index; memcheck must report both (and must not report the
//!    constant-time select next to them), or the whole check is void;
//! 2. **one Valgrind run per target** (hash backend, generic AES-GCM path per GHASH backend,
//!    fused engine), so that counts are per backend, with `--track-origins=yes`,
//!    `--error-exitcode=1` and `ct/verdict.supp` (the three branches on a public verdict).
//!
//! Targets the CPU has but Valgrind cannot run are listed as such: Valgrind 3.19's synthetic
//! CPUID hides VPCLMULQDQ, VAES and AVX-512, and executing their 256-/512-bit forms raises
//! SIGILL under it, so the `avx2` and `avx512` hash backends and the `vaes512` engine are not
//! checkable this way.
//!
//! Prints a table (build x target x operation x runs x reports) and exits non-zero if any
//! target has an unsuppressed report, crashed, or if the self-test was not caught.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Help text for `cargo xtask ct --help`.
pub const HELP: &str = "\
cargo xtask ct [--only-default] [--target NAME]...

Runs the constant-time validation harness (ct/) under Valgrind memcheck, one run per
backend/engine, plus the leak self-test, and prints backend x operation x reports.

Options:
  --only-default   skip the second build with the aes crate's software AES
  --target NAME    check only this target (repeatable; see `ct-check --list`)
";

/// One harness build.
struct Variant {
    name: &'static str,
    rustflags: &'static str,
}

const VARIANTS: &[Variant] = &[
    Variant {
        name: "default",
        rustflags: "",
    },
    Variant {
        name: "soft-aes",
        rustflags: "--cfg aes_backend=\"soft\"",
    },
];

/// Entry point: `args` are the arguments after `ct`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut only_default = false;
    let mut only: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            "--only-default" => only_default = true,
            "--target" => only.push(it.next().ok_or("--target needs a name")?.clone()),
            other => return Err(format!("unknown option `{other}`\n\n{HELP}")),
        }
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Err("valgrind not found (apt-get install valgrind)".into());
    }
    let root = workspace_root();
    let supp = root.join("ct/verdict.supp");
    let verdict_lines = verdict_lines(&root)?;

    let mut failed = Vec::new();
    let mut rows: Vec<[String; 5]> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for v in VARIANTS
        .iter()
        .take(if only_default { 1 } else { VARIANTS.len() })
    {
        let bin = build(&root, v)?;

        // The self-test first: if it is not caught, nothing below means anything.
        let st = valgrind(&bin, &["--leak-selftest"], None)?;
        let ops = parse_ops(&st.stdout);
        let caught = |name: &str| ops.get(name).is_some_and(|&(_, e)| e > 0);
        let ok = !st.success
            && caught("leaky-branch")
            && caught("leaky-lookup")
            && !caught("constant-time-select");
        for (name, (n, e)) in &ops {
            rows.push([
                v.name.into(),
                "leak-selftest".into(),
                name.clone(),
                n.to_string(),
                e.to_string(),
            ]);
        }
        notes.push(format!(
            "{}: leak self-test {} (valgrind exit {})",
            v.name,
            if ok { "CAUGHT" } else { "NOT CAUGHT" },
            st.code.map_or("signal".into(), |c| c.to_string())
        ));
        if !ok {
            failed.push(format!("{}: leak self-test", v.name));
        }

        let native = lines(&run_capture(Command::new(&bin).arg("--list"))?.stdout);
        let under_vg = lines(&valgrind(&bin, &["--list"], None)?.stdout);
        for t in &native {
            if !only.is_empty() && !only.contains(t) {
                continue;
            }
            if !under_vg.contains(t) {
                rows.push([
                    v.name.into(),
                    t.clone(),
                    "(all)".into(),
                    "-".into(),
                    "not checkable under valgrind".into(),
                ]);
                continue;
            }
            let r = valgrind(&bin, &[t], Some(&supp))?;
            let log = root.join(format!("target/ct/logs/{}-{t}.log", v.name));
            if let Some(dir) = log.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&log, &r.stderr);
            let ops = parse_ops(&r.stdout);
            let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
            for (name, (n, e)) in &ops {
                let k = by_kind.entry(op_kind(name)).or_default();
                k.0 += n;
                k.1 += e;
            }
            let (verdicts, others) = classify(&r.stderr, &verdict_lines);
            for (kind, (n, e)) in by_kind {
                rows.push([v.name.into(), t.clone(), kind, n.to_string(), e.to_string()]);
            }
            if verdicts > 0 {
                notes.push(format!(
                    "{}: {t}: {verdicts} report context(s) at an inlined verdict branch \
                     (allowed, see ct/verdict.supp)",
                    v.name
                ));
            }
            let summary = error_summary(&r.stderr);
            let crashed = r.stderr.contains("unhandled instruction")
                || r.stderr.contains("SIGILL")
                || r.code.is_none();
            for s in suppressions_used(&r.stderr) {
                notes.push(format!("{}: {t}: suppressed {s}", v.name));
            }
            if others > 0 || crashed || (verdicts == 0 && (!r.success || summary != Some(0))) {
                failed.push(format!(
                    "{}: {t} ({others} report contexts, summary {summary:?}, log {})",
                    v.name,
                    log.display()
                ));
            }
        }
    }

    print_table(&rows);
    for n in &notes {
        println!("{n}");
    }
    if failed.is_empty() {
        println!("ct: OK (zero unsuppressed reports on every checkable target)");
        Ok(())
    } else {
        Err(format!("ct: FAILED: {}", failed.join("; ")))
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// Builds the harness for `v` into `target/ct/<variant>` and returns the binary's path.
fn build(root: &Path, v: &Variant) -> Result<PathBuf, String> {
    let target_dir = root.join("target/ct").join(v.name);
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--release", "--manifest-path"])
        .arg(root.join("ct/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .env("RUSTFLAGS", v.rustflags)
        .env_remove("CARGO_TARGET_DIR");
    eprintln!("$ RUSTFLAGS='{}' {cmd:?}", v.rustflags);
    let st = cmd.status().map_err(|e| format!("cargo: {e}"))?;
    if !st.success() {
        return Err(format!("building the ct harness ({}) failed", v.name));
    }
    Ok(target_dir.join("release/ct-check"))
}

struct Output {
    success: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run_capture(cmd: &mut Command) -> Result<Output, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    Ok(Output {
        success: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Runs the harness under memcheck.
fn valgrind(bin: &Path, args: &[&str], supp: Option<&Path>) -> Result<Output, String> {
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "-v",
        "--tool=memcheck",
        "--error-exitcode=1",
        "--track-origins=yes",
    ]);
    if let Some(s) = supp {
        cmd.arg(format!("--suppressions={}", s.display()));
    }
    cmd.arg(bin).args(args);
    eprintln!("$ {cmd:?}");
    run_capture(&mut cmd)
}

fn lines(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| !l.starts_with("valgrind "))
        .map(str::to_owned)
        .collect()
}

/// The source locations (`file.rs:line`) of the branches on a public verdict that
/// `ct/verdict.supp` allows. The suppressions match by function name, which fails when
/// the function is inlined into the harness (Valgrind then names the frame
/// `UnknownInlinedFun`); reports at exactly these lines are allowed in that case too. The lines
/// are found by their text, so edits elsewhere in the files do not break the check.
fn verdict_lines(root: &Path) -> Result<Vec<String>, String> {
    let sites: [(&str, &str); 3] = [
        (
            "crates/gcm/src/generic.rs",
            "if tag_matches(&expected, tag)",
        ),
        ("crates/gcm/src/fused.rs", "tag_matches(&expected, tag)"),
        ("crates/gcm/src/x86/aesni.rs", ".then_some(keys)"),
    ];
    let mut out = Vec::new();
    for (file, needle) in sites {
        let text = std::fs::read_to_string(root.join(file)).map_err(|e| format!("{file}: {e}"))?;
        let name = Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let before = out.len();
        for (i, l) in text.lines().enumerate() {
            if l.contains(needle) {
                out.push(format!("{name}:{}", i + 1));
            }
        }
        if out.len() == before {
            return Err(format!("ct: verdict site `{needle}` not found in {file}"));
        }
    }
    Ok(out)
}

/// Splits the error contexts Valgrind printed into (at an allowed verdict line, elsewhere).
fn classify(stderr: &str, verdict_lines: &[String]) -> (usize, usize) {
    let (mut verdicts, mut others) = (0, 0);
    let mut lines = stderr.lines();
    while let Some(l) = lines.next() {
        let is_error = l.contains("depends on uninitialised value")
            || l.contains("Use of uninitialised value")
            || l.contains("Syscall param")
            || l.contains("Invalid read")
            || l.contains("Invalid write");
        if !is_error {
            continue;
        }
        let top = lines.find(|x| x.contains(" at 0x")).unwrap_or_default();
        let loc = top
            .rsplit_once('(')
            .map(|(_, r)| r.trim_end_matches(')'))
            .unwrap_or_default();
        if verdict_lines.iter().any(|v| loc.ends_with(v.as_str())) {
            verdicts += 1;
        } else {
            others += 1;
        }
    }
    (verdicts, others)
}

/// `op <target> <operation> <errors>` lines: operation -> (runs, errors).
fn parse_ops(stdout: &str) -> BTreeMap<String, (usize, usize)> {
    let mut m: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for l in stdout.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if let ["op", _target, name, errs] = f[..] {
            let e = m.entry(name.to_owned()).or_default();
            e.0 += 1;
            e.1 += errs.parse::<usize>().unwrap_or(usize::MAX / 2);
        }
    }
    m
}

/// `aes128-decrypt-badtag-a13-p255` -> `aes128-decrypt-badtag`; `polyval-update-7blocks` ->
/// `polyval-update`.
fn op_kind(name: &str) -> String {
    let parts: Vec<&str> = name
        .split('-')
        .filter(|p| {
            let sized = p.strip_prefix('a').or_else(|| p.strip_prefix('p'));
            !(sized.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                || p.ends_with("blocks") && p.as_bytes().first().is_some_and(u8::is_ascii_digit))
        })
        .collect();
    parts.join("-")
}

/// The N of Valgrind's final "ERROR SUMMARY: N errors".
fn error_summary(stderr: &str) -> Option<usize> {
    stderr
        .lines()
        .rev()
        .find_map(|l| l.split("ERROR SUMMARY: ").nth(1))
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// "used_suppression:    552 gcm-verdict-generic-open ..." -> "gcm-verdict-generic-open x552".
fn suppressions_used(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.split("used_suppression:").nth(1))
        .filter_map(|s| {
            let mut w = s.split_whitespace();
            let n = w.next()?;
            let name = w.next()?;
            Some(format!("{name} x{n}"))
        })
        .collect()
}

fn print_table(rows: &[[String; 5]]) {
    let rows: Vec<Vec<String>> = rows.iter().cloned().map(Vec::from).collect();
    let head = ["build", "target", "operation", "runs", "errors"];
    print!("{}", crate::table::render(&head, &rows, 2, false));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_kinds() {
        assert_eq!(
            op_kind("aes128-decrypt-badtag-a13-p255"),
            "aes128-decrypt-badtag"
        );
        assert_eq!(op_kind("polyval-update-17blocks"), "polyval-update");
        assert_eq!(op_kind("aes256-encrypt-nonce16"), "aes256-encrypt-nonce16");
        assert_eq!(
            op_kind("ghash-update_padded-0..=80"),
            "ghash-update_padded-0..=80"
        );
    }

    #[test]
    fn parsing() {
        let err = "--1-- used_suppression:    552 gcm-verdict-generic-open verdict.supp:11\n\
                   ==1== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 552 from 4)\n";
        assert_eq!(error_summary(err), Some(0));
        assert_eq!(suppressions_used(err), ["gcm-verdict-generic-open x552"]);
        let ops = parse_ops("valgrind true\nop t a-encrypt-a0-p1 0\nop t a-encrypt-a0-p1 2\n");
        assert_eq!(ops["a-encrypt-a0-p1"], (2, 2));
    }
}
