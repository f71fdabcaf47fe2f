//! `cargo xtask ct`: constant-time validation of every kernel and engine, by three checkers.
//!
//! The harness `ct/` (its own workspace) runs the same operations on every hash backend, the
//! generic AES-GCM path on each GHASH backend, and every fused engine; AES-GCM-SIV on the
//! generic path (each POLYVAL backend) and every fused engine; and the aead 0.5 generation's
//! aes-gcm 0.10 the same way (see `ct/src/main.rs`):
//!
//! 1. **Valgrind memcheck**, on the release build as shipped (`target/ct/default`) and once
//!    more with the `aes` crate's software AES (`--cfg aes_backend="soft"`, for the generic
//!    path on CPUs without AES-NI). Valgrind 3.19 to 3.27 decode neither AVX-512 (EVEX) nor
//!    256-bit VAES/VPCLMULQDQ and hide them from the CPUID they report, so the AVX2 and
//!    AVX-512 GHASH and the VAES engines are "n/a" in this column: one run per target, with
//!    `ct/verdict.supp` for the branches on the public verdict.
//! 2. **MemorySanitizer**, nightly `-Zsanitizer=memory -Zbuild-std` with `--cfg ct_taint`
//!    (`target/ct/msan`): every target this CPU has, natively, the wide ones included. The
//!    reports are counted per operation from MSan's report stream (`-Zsanitizer-recover`,
//!    `halt_on_error=0`), and every output that depends on a secret must still carry its
//!    marking.
//! 3. **The disassembly check** ([`crate::disasm`]) on the release binary of step 1: every
//!    kernel symbol, by rules on the machine code.
//!
//! Each checker first runs seeded leaks that it must report (or flag), or the check fails.
//! The output is one table, kernel/engine x checker, each cell `operations / reports`, then the
//! notes; any report, lost marking, missed seeded leak, missing kernel symbol or crash fails
//! the command.
//!
//! `--quick` (what `cargo xtask test` runs) runs Valgrind (shipped build only) and MSan on a
//! subset of the operations, with AES-GCM-SIV and aes-gcm 0.10 on one backend and one engine
//! (`ct-check --quick --list`); the disassembly check is the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::disasm;
use crate::{proc, tools};

/// Help text for `cargo xtask ct --help`.
pub const HELP: &str = "\
cargo xtask ct [--quick] [--only-default] [--target NAME]... [--no-valgrind] [--no-msan]
               [--no-disasm]

Constant-time validation of every backend and engine this CPU has: Valgrind memcheck (the
shipped build), MemorySanitizer (nightly, installed with rustup when missing) and a check of
the release binary's disassembly; seeded leaks must be caught by each. Prints one table
(kernel/engine x checker: operations / reports) and fails on any report.

Options:
  --quick          Valgrind (shipped build only) and MSan on a subset of the operations, and
                   the disassembly check (what `cargo xtask test` runs)
  --only-default   skip Valgrind's second build with the aes crate's software AES
  --target NAME    check only this target (repeatable; see `ct-check --list`)
  --no-valgrind, --no-msan, --no-disasm
                   leave that checker out
";

/// What to run.
pub struct Options {
    pub quick: bool,
    pub only_default: bool,
    pub targets: Vec<String>,
    pub valgrind: bool,
    pub msan: bool,
    pub disasm: bool,
    /// Skip MSan with a note, instead of failing, when the nightly toolchain cannot be
    /// installed (`cargo xtask test` on a machine without rustup).
    pub msan_optional: bool,
}

impl Options {
    pub fn parse(args: &[String]) -> Result<Option<Options>, String> {
        let mut o = Options {
            quick: false,
            only_default: false,
            targets: Vec::new(),
            valgrind: true,
            msan: true,
            disasm: true,
            msan_optional: false,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "-h" | "--help" => return Ok(None),
                "--quick" => o.quick = true,
                "--only-default" => o.only_default = true,
                "--no-valgrind" => o.valgrind = false,
                "--no-msan" => o.msan = false,
                "--no-disasm" => o.disasm = false,
                "--target" => o
                    .targets
                    .push(it.next().ok_or("--target needs a name")?.clone()),
                other => return Err(format!("unknown option `{other}`\n\n{HELP}")),
            }
        }
        Ok(Some(o))
    }
}

/// Entry point: `args` are the arguments after `ct`.
pub fn run(args: &[String]) -> Result<(), String> {
    match Options::parse(args)? {
        Some(o) => run_with(&o),
        None => {
            print!("{HELP}");
            Ok(())
        }
    }
}

/// The checkers, in table order.
const CHECKERS: [&str; 4] = ["valgrind", "valgrind soft-aes", "msan", "disasm"];

/// The results gathered so far: one cell per (row, checker), notes, and failures.
#[derive(Default)]
struct Report {
    rows: Vec<String>,
    cells: BTreeMap<(String, &'static str), String>,
    notes: Vec<String>,
    failed: Vec<String>,
}

impl Report {
    fn cell(&mut self, row: &str, checker: &'static str, text: String) {
        if !self.rows.iter().any(|r| r == row) {
            self.rows.push(row.to_owned());
        }
        self.cells.insert((row.to_owned(), checker), text);
    }
    fn fail(&mut self, what: String) {
        self.failed.push(what);
    }
    fn table(&self) -> String {
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                std::iter::once(r.clone())
                    .chain(CHECKERS.iter().map(|c| {
                        self.cells
                            .get(&(r.clone(), *c))
                            .cloned()
                            .unwrap_or_else(|| "-".into())
                    }))
                    .collect()
            })
            .collect();
        let head = [
            "kernel/engine",
            "valgrind ops/reports",
            "valgrind soft-aes",
            "msan ops/reports",
            "disasm fns/findings",
        ];
        crate::table::render(&head, &rows, 0, true)
    }
}

/// Runs the checkers `opts` asks for and prints the table.
pub fn run_with(opts: &Options) -> Result<(), String> {
    let root = crate::proc::workspace_root()?;
    let mut report = Report::default();
    let bin = build(&root, &VARIANTS[0])?;
    let list: &[&str] = if opts.quick {
        &["--quick", "--list"]
    } else {
        &["--list"]
    };
    let native = lines(&run_capture(Command::new(&bin).args(list))?.stdout);
    let wanted = |t: &str| opts.targets.is_empty() || opts.targets.iter().any(|x| x == t);
    let mut targets: Vec<String> = native.iter().filter(|t| wanted(t)).cloned().collect();
    for k in disasm::KERNELS {
        // The quick subset leaves out the AES-GCM-SIV and 0.10 rows it does not run: their
        // kernel symbols are the engines' and backends', read for the other rows.
        let skipped =
            opts.quick && (k.target.starts_with("siv-") || k.target.starts_with("gcm010-"));
        if wanted(k.target) && !skipped && !targets.iter().any(|t| t == k.target) {
            targets.push(k.target.to_owned());
        }
    }
    for t in &targets {
        report.cell(t, "valgrind", "-".into());
    }
    if opts.disasm {
        disasm_check(&bin, &targets, &mut report)?;
    }
    if opts.valgrind {
        valgrind_checks(&root, opts, list, &native, &targets, &mut report)?;
    }
    if opts.msan {
        msan_checks(&root, opts, &native, &targets, &mut report)?;
    }
    print!("{}", report.table());
    for n in &report.notes {
        println!("note: {n}");
    }
    if report.failed.is_empty() {
        println!("ct: OK (no report on any kernel; every seeded leak caught)");
        Ok(())
    } else {
        Err(format!("FAILED: {}", report.failed.join("; ")))
    }
}

/// One Valgrind build of the harness.
struct Variant {
    name: &'static str,
    checker: &'static str,
    rustflags: &'static str,
}

const VARIANTS: &[Variant] = &[
    Variant {
        name: "default",
        checker: "valgrind",
        rustflags: "",
    },
    Variant {
        name: "soft-aes",
        checker: "valgrind soft-aes",
        rustflags: "--cfg aes_backend=\"soft\" --cfg aes_force_soft",
    },
];

/// Builds the harness for `v` into `target/ct/<variant>` and returns the binary's path.
fn build(root: &Path, v: &Variant) -> Result<PathBuf, String> {
    let target_dir = build_dir(root).join(v.name);
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--release", "--manifest-path"])
        .arg(root.join("ct/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .env("RUSTFLAGS", v.rustflags)
        .env_remove("CARGO_TARGET_DIR");
    if !proc::run_plain(&mut cmd) {
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
    eprintln!("$ {}", proc::display(cmd));
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    Ok(Output {
        success: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// The target names of a `--list` output.
fn lines(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| !l.starts_with("checker "))
        .map(str::to_owned)
        .collect()
}

/// Writes a run's stderr to `target/ct/logs/<name>.log` and returns the path.
fn save_log(name: &str, text: &str) -> PathBuf {
    let root = crate::proc::workspace_root().unwrap_or_default();
    let log = root.join(format!("target/ct/logs/{name}.log"));
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&log, text);
    log
}

/// One `op <target> <operation> <reports> <unmarked>` line.
#[derive(Debug, PartialEq)]
struct Op {
    name: String,
    /// Reports counted by the harness (Valgrind), `None` under MSan.
    reports: Option<usize>,
    /// Output bytes found without the secret marking (MSan), `None` under Valgrind.
    unmarked: Option<usize>,
}

fn parse_ops(stdout: &str) -> Vec<Op> {
    stdout
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["op", _target, name, reports, unmarked] => Some(Op {
                name: name.to_owned(),
                reports: reports.parse().ok(),
                unmarked: unmarked.parse().ok(),
            }),
            _ => None,
        })
        .collect()
}

/// The seeded-leak conventions of `ct-check --selftest`: `leak-*` must be reported, `clean-*`
/// must not, `lost-*` must show unmarked bytes. Returns (caught, expected, failures).
fn judge_selftest(ops: &[Op], reports: impl Fn(&Op) -> usize) -> (usize, usize, Vec<String>) {
    let (mut caught, mut expected, mut bad) = (0, 0, Vec::new());
    for op in ops {
        let r = reports(op);
        let ok = if op.name.starts_with("leak-") {
            r > 0
        } else if op.name.starts_with("clean-") {
            r == 0
        } else if op.name.starts_with("lost-") {
            op.unmarked.is_some_and(|n| n > 0)
        } else {
            continue;
        };
        expected += 1;
        if ok {
            caught += 1;
        } else {
            bad.push(op.name.clone());
        }
    }
    (caught, expected, bad)
}

// ---------------------------------------------------------------------------------------
// Valgrind

/// Valgrind on each target it can run, for each build.
fn valgrind_checks(
    root: &Path,
    opts: &Options,
    list: &[&str],
    native: &[String],
    targets: &[String],
    report: &mut Report,
) -> Result<(), String> {
    if let Err(e) = tools::ensure_apt("valgrind", "valgrind") {
        report.fail(e);
        return Ok(());
    }
    let supp = root.join("ct/verdict.supp");
    let verdict_lines = verdict_lines(root)?;
    let variants = if opts.only_default || opts.quick {
        1
    } else {
        VARIANTS.len()
    };
    for v in &VARIANTS[..variants] {
        let bin = build(root, v)?;
        // The seeded leaks first: if they are not caught, nothing below means anything.
        let st = valgrind(root, &bin, &["--selftest"], None)?;
        save_log(&format!("{}-selftest", v.name), &st.stderr);
        let ops = parse_ops(&st.stdout);
        let (caught, expected, bad) = judge_selftest(&ops, |o| o.reports.unwrap_or(0));
        report.cell(
            "self-test: seeded leaks",
            v.checker,
            format!("{caught}/{expected} as expected"),
        );
        if !bad.is_empty() || expected == 0 {
            report.fail(format!("{}: seeded leaks not caught: {bad:?}", v.checker));
        }
        let under_vg = lines(&valgrind(root, &bin, list, None)?.stdout);
        for t in targets {
            // The software-AES build only changes the generic paths.
            let generic = ["gcm-generic-", "siv-generic-", "gcm010-generic-"];
            if v.name != "default" && !generic.iter().any(|g| t.starts_with(g)) {
                continue;
            }
            if !native.contains(t) {
                report.cell(t, v.checker, "n/a: not on this CPU".into());
                continue;
            }
            if !under_vg.contains(t) {
                report.cell(t, v.checker, "n/a: Valgrind lacks it".into());
                continue;
            }
            let args: &[&str] = if opts.quick { &["--quick", t] } else { &[t] };
            let r = valgrind(root, &bin, args, Some(&supp))?;
            let log = save_log(&format!("{}-{t}", v.name), &r.stderr);
            let ops = parse_ops(&r.stdout);
            // Reports are error contexts outside the allowed verdict branches (the per-operation
            // counts include those where the suppression by name missed an inlined frame).
            let (verdicts, others) = classify(&r.stderr, &verdict_lines);
            let summary = error_summary(&r.stderr);
            let crashed = r.stderr.contains("unhandled instruction")
                || r.stderr.contains("SIGILL")
                || r.code.is_none();
            report.cell(t, v.checker, format!("{} / {others}", ops.len()));
            for s in suppressions_used(&r.stderr) {
                report
                    .notes
                    .push(format!("{}: {t}: verdict branch suppressed {s}", v.checker));
            }
            if verdicts > 0 {
                report.notes.push(format!(
                    "{}: {t}: {verdicts} report(s) at an inlined verdict branch (allowed, see \
                     ct/verdict.supp)",
                    v.checker
                ));
            }
            if others > 0
                || crashed
                || ops.is_empty()
                || (verdicts == 0 && (!r.success || summary != Some(0)))
            {
                report.fail(format!(
                    "{}: {t} ({others} report contexts, summary {summary:?}, log {})",
                    v.checker,
                    log.display()
                ));
            }
        }
    }
    Ok(())
}

/// Runs the harness under memcheck. Source locations are printed as paths relative to the
/// workspace `root` (`crates/aead-engines/src/fused.rs:12`, not `fused.rs:12`: two files may
/// share a name), the standard library's in full (`/rustc/<hash>/library/...`).
fn valgrind(root: &Path, bin: &Path, args: &[&str], supp: Option<&Path>) -> Result<Output, String> {
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "-v",
        "--tool=memcheck",
        "--error-exitcode=1",
        "--track-origins=yes",
    ]);
    cmd.arg(format!("--fullpath-after={}/", root.display()));
    if let Some(s) = supp {
        cmd.arg(format!("--suppressions={}", s.display()));
    }
    cmd.arg(bin).args(args);
    run_capture(&mut cmd)
}

/// The source locations (`crates/.../file.rs:line`, relative to `root`) of the branches on a
/// public verdict that `ct/verdict.supp` allows. The suppressions match by function name,
/// which fails when the function is inlined into the harness (Valgrind then names the frame
/// `UnknownInlinedFun`); reports at exactly these lines are allowed in that case too. The
/// lines are found by their text in any source file under `crates/` and `aead-0.5/` (the 0.10
/// generation's generic path), so edits elsewhere, and moves of the code between files and
/// crates, do not break the check.
fn verdict_lines(root: &Path) -> Result<Vec<String>, String> {
    // The generic path's and the fused engines' `if tag_matches(..)` (both generations), the
    // AES-GCM-SIV rules' (`aead_engines::siv::open`, in place and out of place). (The fused
    // key setups' check of a cipher not known to be AES, `ct_verdict(E_K(0), H)`, runs in no
    // harness here, whose ciphers are the `aes` crate's; ct/verdict.supp names its functions.)
    let needles = [
        "if tag_matches(&expected, tag)",
        "tag_matches(&expected, tag)",
        "tag_matches(&self::tag(msg, s, nonce), tag)",
    ];
    let mut files = Vec::new();
    let mut dirs = vec![root.join("crates"), root.join("aead-0.5")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .flatten()
        {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "target") {
                    continue;
                }
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for needle in needles {
        let before = out.len();
        for f in &files {
            let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
            let name = f
                .strip_prefix(root)
                .unwrap_or(f)
                .to_string_lossy()
                .into_owned();
            for (i, l) in text.lines().enumerate() {
                if l.contains(needle) {
                    out.push(format!("{name}:{}", i + 1));
                }
            }
        }
        if out.len() == before {
            return Err(format!(
                "ct: verdict site `{needle}` not found under crates/ or aead-0.5/"
            ));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Splits the error contexts Valgrind printed into (at an allowed verdict line, elsewhere).
/// The line of a context is that of its first frame outside the standard library: the
/// key-schedule check's branch is in `bool::then_some`, inlined into the verdict's line.
fn classify(stderr: &str, verdict_lines: &[String]) -> (usize, usize) {
    let (mut verdicts, mut others) = (0, 0);
    let mut lines = stderr.lines().peekable();
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
        let location = |frame: &str| {
            frame
                .rsplit_once('(')
                .map(|(_, r)| r.trim_end_matches(')').to_owned())
                .unwrap_or_default()
        };
        let mut loc = location(top);
        while in_std(&loc) {
            match lines.next_if(|x| x.contains(" by 0x")) {
                Some(frame) => loc = location(frame),
                None => break,
            }
        }
        if verdict_lines.iter().any(|v| loc.ends_with(v.as_str())) {
            verdicts += 1;
        } else {
            others += 1;
        }
    }
    (verdicts, others)
}

/// Whether a frame's location is the standard library's: `/rustc/<hash>/library/...` as
/// `valgrind` prints it, or `library/...` (the file name alone).
fn in_std(loc: &str) -> bool {
    loc.starts_with("library/") || (loc.starts_with("/rustc/") && loc.contains("/library/"))
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

// ---------------------------------------------------------------------------------------
// MemorySanitizer

/// The MSan build's flags: the sanitizer, recovery so that one run counts every report,
/// origins for readable logs, no eager checks (rustc marks by-value parameters `noundef`, and
/// MSan would report a secret passed to a function that is not inlined, a false alarm), the
/// checker's cfg (the exact swaps of what MSan models strictly), and the `aes` crate's
/// software AES for the generic path (its AES-NI key expansion uses `aeskeygenassist`, which
/// MSan models strictly; Valgrind checks that code). `aes_force_soft` is the same switch for
/// the `aes` crate 0.8 of the aead 0.5 generation (aes-gcm 0.10).
const MSAN_RUSTFLAGS: &str = "-Zsanitizer=memory -Zsanitizer-recover=memory \
     -Zsanitizer-memory-track-origins -Cllvm-args=-msan-eager-checks=0 --cfg ct_taint \
     --cfg aes_backend=\"soft\" --cfg aes_force_soft";

/// The host's target triple (MSan needs an explicit `--target` with `-Zbuild-std`).
fn host_triple() -> Result<String, String> {
    let out = proc::output(Command::new("rustc").arg("-vV")).ok_or("cannot run `rustc -vV`")?;
    out.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "`rustc -vV` names no host".to_owned())
}

/// Builds the MSan harness into `target/ct/msan`.
fn build_msan(root: &Path) -> Result<PathBuf, String> {
    let host = host_triple()?;
    let target_dir = build_dir(root).join("msan");
    let mut cmd = tools::nightly_cargo();
    cmd.args(["build", "--release", "-Zbuild-std", "--target", &host])
        .arg("--manifest-path")
        .arg(root.join("ct/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .env("RUSTFLAGS", MSAN_RUSTFLAGS)
        // No debug info: reports are counted by their `WARNING` lines and name their frames
        // by symbol; the instrumented standard library then builds in about 100 s, not 140.
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env_remove("CARGO_TARGET_DIR");
    if !proc::run_plain(&mut cmd) {
        return Err("building the ct harness with MemorySanitizer failed".into());
    }
    Ok(target_dir.join(host).join("release/ct-check"))
}

/// Runs the MSan harness with reports counted, not fatal.
fn msan_run(bin: &Path, args: &[&str]) -> Result<Output, String> {
    let mut cmd = Command::new(bin);
    cmd.args(args).env("MSAN_OPTIONS", "halt_on_error=0");
    run_capture(&mut cmd)
}

/// MSan's reports per operation (between the harness's `ct-op-begin`/`ct-op-end` lines on
/// stderr), and those outside any operation.
fn msan_reports(stderr: &str) -> (BTreeMap<String, usize>, usize) {
    let mut per_op: BTreeMap<String, usize> = BTreeMap::new();
    let (mut current, mut outside) = (None::<String>, 0);
    for l in stderr.lines() {
        let words: Vec<&str> = l.split_whitespace().collect();
        match words[..] {
            ["ct-op-begin", _, name] => {
                per_op.entry(name.to_owned()).or_insert(0);
                current = Some(name.to_owned());
            }
            ["ct-op-end", ..] => current = None,
            _ if l.contains("WARNING: MemorySanitizer:") => match &current {
                Some(op) => *per_op.entry(op.clone()).or_insert(0) += 1,
                None => outside += 1,
            },
            _ => {}
        }
    }
    (per_op, outside)
}

/// MSan on every target this CPU has.
fn msan_checks(
    root: &Path,
    opts: &Options,
    native: &[String],
    targets: &[String],
    report: &mut Report,
) -> Result<(), String> {
    if let Err(e) = tools::ensure_nightly(&["rust-src"]) {
        if opts.msan_optional {
            println!("xtask ct: MSan check SKIPPED: {e}");
            report.notes.push(format!("msan skipped: {e}"));
            return Ok(());
        }
        report.fail(format!("msan: {e}"));
        return Ok(());
    }
    let bin = build_msan(root)?;
    let st = msan_run(&bin, &["--selftest"])?;
    save_log("msan-selftest", &st.stderr);
    let ops = parse_ops(&st.stdout);
    let (per_op, _) = msan_reports(&st.stderr);
    let (caught, expected, bad) =
        judge_selftest(&ops, |o| per_op.get(&o.name).copied().unwrap_or(0));
    report.cell(
        "self-test: seeded leaks",
        "msan",
        format!("{caught}/{expected} as expected"),
    );
    if !bad.is_empty() || expected == 0 {
        report.fail(format!("msan: seeded leaks not caught: {bad:?}"));
    }
    let quick = if opts.quick { vec!["--quick"] } else { vec![] };
    for t in targets {
        if !native.contains(t) {
            report.cell(t, "msan", "n/a: not on this CPU".into());
            continue;
        }
        let mut args = quick.clone();
        args.push(t);
        let r = msan_run(&bin, &args)?;
        let log = save_log(&format!("msan-{t}"), &r.stderr);
        let ops = parse_ops(&r.stdout);
        let (per_op, outside) = msan_reports(&r.stderr);
        let reports: usize = per_op.values().sum::<usize>() + outside;
        let unmarked: usize = ops.iter().map(|o| o.unmarked.unwrap_or(0)).sum();
        let mut cell = format!("{} / {reports}", ops.len());
        if unmarked > 0 {
            cell.push_str(&format!(", {unmarked} B unmarked"));
            let which: Vec<&str> = ops
                .iter()
                .filter(|o| o.unmarked.unwrap_or(0) > 0)
                .map(|o| o.name.as_str())
                .take(5)
                .collect();
            report.notes.push(format!(
                "msan: {t}: outputs lost their secret marking in {which:?}: the checker lost \
                 track of a secret (an instruction MSan models strictly, or `asm!`)"
            ));
        }
        report.cell(t, "msan", cell);
        if reports > 0 || unmarked > 0 || !r.success || ops.is_empty() {
            report.fail(format!(
                "msan: {t} ({reports} reports, {unmarked} bytes unmarked, exit {:?}, log {})",
                r.code,
                log.display()
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Disassembly

/// The disassembly check of every kernel symbol of `bin`, and of the seeded bad functions.
fn disasm_check(bin: &Path, targets: &[String], report: &mut Report) -> Result<(), String> {
    if let Err(e) = tools::ensure_apt("objdump", "binutils") {
        report.fail(e);
        return Ok(());
    }
    // `objdump` with `args` on the binary: its output.
    let objdump = |args: &[&str]| -> Result<String, String> {
        let mut cmd = Command::new("objdump");
        cmd.args(args).arg(bin);
        let out = run_capture(&mut cmd)?;
        if !out.success {
            return Err(format!(
                "objdump {} failed: {}",
                args.join(" "),
                out.stderr.trim()
            ));
        }
        Ok(out.stdout)
    };
    let mut funcs = disasm::parse_objdump(&objdump(&[
        "-d",
        "-C",
        "--no-show-raw-insn",
        "-M",
        "intel",
    ])?);
    // The global offset table's slots and the functions they hold (a position-independent
    // binary calls other crates' functions, the panic entry points among them, through it).
    disasm::mark_noreturn(&mut funcs, &disasm::got_slots(&objdump(&["-R"])?));

    // The seeded bad functions must be flagged, each by its rule.
    let (mut flagged, mut expected) = (0, 0);
    for (symbol, kind, rule) in disasm::SEEDED {
        expected += 1;
        let hits = disasm::matching(&funcs, symbol);
        let found = hits.iter().any(|f| {
            disasm::analyse(f, *kind, &[])
                .findings
                .iter()
                .any(|x| x.rule == *rule)
        });
        if found {
            flagged += 1;
        } else {
            report.fail(format!(
                "disasm: seeded bad function {symbol} not flagged for {} ({} symbols found)",
                rule.name(),
                hits.len()
            ));
        }
    }
    report.cell(
        "self-test: seeded leaks",
        "disasm",
        format!("{flagged}/{expected} flagged"),
    );

    for k in disasm::KERNELS {
        if !targets.iter().any(|t| t == k.target) {
            continue;
        }
        let (mut fns, mut findings) = (0, 0);
        for g in k.groups {
            for symbol in g.symbols {
                let hits = disasm::matching(&funcs, symbol);
                if hits.is_empty() {
                    report.fail(format!(
                        "disasm: {}: no symbol matches `{symbol}` (renamed or inlined? update \
                         disasm::KERNELS)",
                        k.target
                    ));
                }
                for f in hits {
                    let allowed: Vec<&disasm::Allow> = disasm::ALLOWED
                        .iter()
                        .filter(|a| {
                            let name = disasm::normalize(&f.name);
                            a.symbols.iter().any(|s| name.ends_with(s))
                        })
                        .collect();
                    let a = disasm::analyse(f, g.kind, &allowed);
                    fns += 1;
                    findings += a.findings.len();
                    for x in a.findings.iter().take(5) {
                        report.notes.push(format!(
                            "disasm: {}: {} {:#x}: {}: `{}`",
                            k.target,
                            f.name,
                            x.addr,
                            x.rule.name(),
                            x.text
                        ));
                    }
                    if !a.allowed.is_empty() {
                        let note = format!(
                            "disasm: {}: {} allowed instruction(s) like `{}`: {}",
                            f.name,
                            a.allowed.len(),
                            a.allowed[0].0,
                            a.allowed[0].1
                        );
                        if !report.notes.contains(&note) {
                            report.notes.push(note);
                        }
                    }
                }
            }
        }
        report.cell(k.target, "disasm", format!("{fns} / {findings}"));
        if findings > 0 {
            report.fail(format!("disasm: {}: {findings} findings", k.target));
        }
    }
    Ok(())
}

/// Where the checks build their binaries, one directory per variant (`cargo xtask test`
/// deletes it after its quick run).
pub fn build_dir(root: &Path) -> PathBuf {
    root.join("target/ct")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing() {
        let err = "--1-- used_suppression:    552 gcm-verdict-generic-open verdict.supp:11\n\
                   ==1== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 552 from 4)\n";
        assert_eq!(error_summary(err), Some(0));
        assert_eq!(suppressions_used(err), ["gcm-verdict-generic-open x552"]);
        let ops = parse_ops("checker msan\nop t a-encrypt-a0-p1 - 0\nop t leak-x 2 -\n");
        assert_eq!(
            ops,
            [
                Op {
                    name: "a-encrypt-a0-p1".into(),
                    reports: None,
                    unmarked: Some(0)
                },
                Op {
                    name: "leak-x".into(),
                    reports: Some(2),
                    unmarked: None
                }
            ]
        );
    }

    /// A verdict branch inlined from the standard library (`bool::then_some` at the key
    /// check's line) is allowed by its first frame outside it; a report elsewhere is not,
    /// even with the same standard-library top frame.
    #[test]
    fn verdict_through_std_frames() {
        let verdicts = ["crates/aead-engines/src/engine.rs:347".to_owned()];
        let err = "==1== Conditional jump or move depends on uninitialised value(s)\n\
                   ==1==    at 0x1: UnknownInlinedFun (/rustc/0123abcd/library/core/src/bool.rs:37)\n\
                   ==1==    by 0x1: UnknownInlinedFun (crates/aead-engines/src/engine.rs:347)\n\
                   ==1==    by 0x1: aead_engines::siv::fused::FusedSiv::new (fused.rs:73)\n\
                   ==1== Conditional jump or move depends on uninitialised value(s)\n\
                   ==1==    at 0x2: UnknownInlinedFun (/rustc/0123abcd/library/core/src/bool.rs:37)\n\
                   ==1==    by 0x2: UnknownInlinedFun (crates/aead-engines/src/engine.rs:348)\n";
        assert_eq!(classify(err, &verdicts), (1, 1));
    }

    /// Allowed lines are matched by their path: the same line number in another file of the
    /// same name is not allowed (the two `fused.rs` of aead-engines).
    #[test]
    fn verdict_lines_by_path() {
        let verdicts = ["crates/aead-engines/src/fused.rs:77".to_owned()];
        let report = |file: &str| {
            format!(
                "==1== Conditional jump or move depends on uninitialised value(s)\n\
                 ==1==    at 0x1: f ({file}:77)\n"
            )
        };
        let at = |file: &str| classify(&report(file), &verdicts);
        assert_eq!(at("crates/aead-engines/src/fused.rs"), (1, 0));
        assert_eq!(at("/work/x/crates/aead-engines/src/fused.rs"), (1, 0));
        assert_eq!(at("crates/aead-engines/src/siv/fused.rs"), (0, 1));
        assert_eq!(at("fused.rs"), (0, 1));
    }

    #[test]
    fn msan_stream() {
        let err = "ct-op-begin s leak-a\n==1==WARNING: MemorySanitizer: use-of-uninitialized-value\n\
                   ct-op-end s leak-a\nct-op-begin s clean-b\nct-op-end s clean-b\n\
                   ==1==WARNING: MemorySanitizer: use-of-uninitialized-value\n";
        let (per_op, outside) = msan_reports(err);
        assert_eq!(per_op["leak-a"], 1);
        assert_eq!(per_op["clean-b"], 0);
        assert_eq!(outside, 1);
        let ops = parse_ops("op s leak-a - 0\nop s clean-b - 0\nop s lost-c - 0\n");
        let (caught, expected, bad) =
            judge_selftest(&ops, |o| per_op.get(&o.name).copied().unwrap_or(0));
        assert_eq!((caught, expected), (2, 3));
        assert_eq!(bad, ["lost-c"]);
    }
}
