//! `cargo xtask bench`: the headline comparison, and with `--full` the criterion benchmarks
//! against RustCrypto, ring and aws-lc-rs; the benchmark sections (README.md's headline,
//! docs/BENCHMARKS.md's others) regenerated from
//! their results.
//!
//! By default it runs `benches/benches/headline.rs` (about a minute once built): ours
//! against ring, aws-lc-rs and RustCrypto on the README's short table (records with their
//! AAD, a fresh key per message, AES-GCM-SIV, and `cookie`'s private jar with our `aes-gcm`
//! 0.10 patched in against the published crate, whose two builds `bench_cookie` makes),
//! interleaved so that a shared machine's load falls on every implementation alike, and
//! replaces the text between `<!-- headline:start -->` and `<!-- headline:end -->` with the
//! table. `--lto` runs the same table with `lto = "fat"` and `codegen-units = 1` (through
//! Cargo's `CARGO_PROFILE_*` variables, in `target/lto` so that the default build stays) into
//! `<!-- headline-lto:start -->` ... `<!-- headline-lto:end -->`, and the interleaved
//! POLYVAL/GHASH table (`uhf_paired.rs`) in that profile into `<!-- uhf-paired-lto:... -->`
//! (one per CPU family, as the headline's).
//!
//! `--full` runs, in order: the POLYVAL/GHASH bench and the AES-GCM bench in the normal build, and the
//! POLYVAL/GHASH bench with `--cfg polyval_backend="soft" --cfg polyval_force_soft` in
//! `target/soft` (the only way to run RustCrypto's portable backends, the first for
//! `polyval` 0.7, the second for 0.6, so that ours is compared with them in the same run). Then
//! `benches`' `report` tool turns criterion's medians into markdown (GB/s, cycles/byte from
//! the core clock the benches measure, ratios) and SVG charts, which replace the text between
//! the `<!-- bench:start -->` and `<!-- bench:end -->` markers of docs/BENCHMARKS.md. The aead 0.5
//! generation's groups (`gen010-*`: our `aes-gcm` 0.10, `polyval` 0.6, `ghash` 0.5 against
//! RustCrypto's 0.10.3, 0.6.2, 0.5.1) get a section of their own.

use std::{fs, path::Path, process::Command};

use crate::proc::{self, target_dir, workspace_root};
use crate::table::splice;

const HELP: &str = "\
cargo xtask bench [--lto | --full] [--quick] [--pin] [--no-run-benches] [-- <criterion args>]

Runs the headline comparison (ours vs ring, aws-lc-rs and RustCrypto, interleaved: AES-GCM
records with their AAD, a fresh key per message, AES-GCM-SIV, and cookie's private jar with
our aes-gcm 0.10 patched in vs published; about a minute once built) and rewrites README.md's
headline table. With --full, also the criterion benches (ours vs RustCrypto, ring,
aws-lc-rs: POLYVAL/GHASH, AES-GCM, AES-GCM-SIV, both generations, the portable build) and
the long tables and docs/*.svg.

  --lto             the headline with lto = \"fat\", codegen-units = 1 (in target/lto),
                    into docs/BENCHMARKS.md's LTO headline table instead, and the
                    interleaved POLYVAL/GHASH table in that profile
  --full            the criterion matrix too (half an hour and more on two cores)
  --quick           with --full: shorter measurements (0.5 s warm-up, 1 s measurement)
  --pin             run each bench pinned to CPU 1 at real-time priority (taskset, chrt;
                    needs root) to cut the noise of a shared machine
  --no-run-benches  only regenerate the benchmark sections from existing results
  --only STEP       with --full: run only this step of the matrix (repeatable): uhf,
                    uhf-paired (POLYVAL/GHASH interleaved with RustCrypto), aead, siv,
                    siv-polyval (RustCrypto's aes-gcm-siv with our polyval), soft,
                    soft-paired, soft-fresh (the headline's fresh-key rows in the
                    forced-portable build); the benchmark sections are regenerated from
                    all results
";

const HEADLINE_START: &str = "<!-- headline:start -->";
const HEADLINE_END: &str = "<!-- headline:end -->";
const HEADLINE_LTO_START: &str = "<!-- headline-lto:start -->";
const HEADLINE_LTO_END: &str = "<!-- headline-lto:end -->";

/// `--lto`: the profile many release builds use, set through Cargo's variables for the
/// headline (profile `bench`) and the cookie builds (`release`).
const LTO_ENV: [(&str, &str); 4] = [
    ("CARGO_PROFILE_BENCH_LTO", "fat"),
    ("CARGO_PROFILE_BENCH_CODEGEN_UNITS", "1"),
    ("CARGO_PROFILE_RELEASE_LTO", "fat"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1"),
];

/// The prefix of the aead 0.5 generation's groups.
const GEN010: &str = "gen010-";
/// The prefix of the aead 0.5 generation's AES-GCM-SIV groups.
const GEN011: &str = "gen011-";
/// The prefix of the groups of RustCrypto's AES-GCM-SIV with our polyval patched in.
const PATCHED: &str = "polyval-patched-";

/// The interleaved POLYVAL/GHASH tables (`uhf_paired.rs`): step name, documentation section
/// markers, and whether the build is the forced-portable one (in `target/soft`).
const PAIRED: [(&str, &str, &str, bool); 2] = [
    (
        "uhf-paired",
        "<!-- uhf-paired:start -->",
        "<!-- uhf-paired:end -->",
        false,
    ),
    (
        "soft-paired",
        "<!-- soft-paired:start -->",
        "<!-- soft-paired:end -->",
        true,
    ),
];

/// The headline's fresh-key rows (`KeyInit::new` + one message, AES-GCM and AES-GCM-SIV, both
/// generations) in the forced-portable build (`target/soft`), where ours runs the generic
/// path on the portable backend against RustCrypto's forced soft build: the step's name, the
/// headline's filter, the table's file in the build directory and the section markers.
const SOFT_FRESH: (&str, &str, &str, (&str, &str)) = (
    "soft-fresh",
    "fresh key",
    "headline-fresh.md",
    ("<!-- soft-fresh:start -->", "<!-- soft-fresh:end -->"),
);

/// The interleaved POLYVAL/GHASH table in the LTO profile (`--lto`): where RustCrypto's
/// code is inlined across crates as ours is, the short messages' rows change most.
const PAIRED_LTO: (&str, &str) = (
    "<!-- uhf-paired-lto:start -->",
    "<!-- uhf-paired-lto:end -->",
);

const START: &str = "<!-- bench:start -->";
const END: &str = "<!-- bench:end -->";

/// Runs `uhf_paired` built in `dir` (with `env`), writing its table with `note` to
/// `dir/uhf-paired.md`.
fn run_paired(
    root: &Path,
    dir: &Path,
    env: &[(&str, &str)],
    pin: bool,
    note: String,
) -> Result<(), String> {
    let md = dir.join("uhf-paired.md").display().to_string();
    let args = ["--markdown".to_string(), md, "--note".to_string(), note];
    bench(root, dir, "uhf_paired", env, pin, &args)
}

/// Splices `dir/uhf-paired.md` (from [`run_paired`]) between the markers `start` and `end`,
/// or says that the section is left as it was when there is no such table.
fn splice_paired(root: &Path, dir: &Path, start: &str, end: &str) -> Result<(), String> {
    splice_file(root, &dir.join("uhf-paired.md"), start, end)
}

/// Splices the table at `path` between the markers `start` and `end`, or says that the
/// section is left as it was when there is no such file.
fn splice_file(root: &Path, path: &Path, start: &str, end: &str) -> Result<(), String> {
    match fs::read_to_string(path) {
        Ok(table) => splice(root, start, end, &table),
        Err(e) => {
            println!("bench: {}: {e}; its section left as it was", path.display());
            Ok(())
        }
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut full = false;
    let mut lto = false;
    let mut pin = false;
    let mut run_benches = true;
    let mut only: Vec<String> = Vec::new();
    let mut extra: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            "--quick" => quick = true,
            "--full" => full = true,
            "--lto" => lto = true,
            "--pin" => pin = true,
            "--no-run-benches" => run_benches = false,
            "--only" => only.push(it.next().ok_or("--only takes a step name")?.clone()),
            "--" => extra.extend(it.by_ref().cloned()),
            other => return Err(format!("unknown option `{other}`\n{HELP}")),
        }
    }
    if lto && full {
        return Err("--lto runs the headline table only; run --full without it".into());
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

    // The headline, in the default profile or (--lto) the LTO one, in a build directory of
    // its own so that neither build replaces the other.
    let (headline_target, env, markers, command, profile): (_, &[(&str, &str)], _, _, _) = if lto {
        (
            target.join("lto"),
            &LTO_ENV,
            (HEADLINE_LTO_START, HEADLINE_LTO_END),
            "cargo xtask bench --lto",
            "profile `bench` with `lto = \"fat\"`, `codegen-units = 1`",
        )
    } else {
        (
            target.clone(),
            &[],
            (HEADLINE_START, HEADLINE_END),
            "cargo xtask bench",
            "profile `bench` as Cargo.toml leaves it (`opt-level = 3`, `lto = false`, 16 codegen units)",
        )
    };
    // Each CPU family keeps a table of its own: the markers carry the family's name (AMD's
    // Zen 4 and 5, the first measured, keep the plain ones).
    let family = cpu_family();
    let markers = family_markers(markers, family);
    let headline_md = headline_target.join("headline.md");
    if run_benches {
        let (ours, published) = crate::bench_cookie::build(&root, &headline_target, env)?;
        let note = format!("{}; {profile}", measured(&root, command, pin));
        let args = [
            "--markdown".to_string(),
            headline_md.display().to_string(),
            "--note".to_string(),
            note,
            "--cookie".to_string(),
            ours,
            published,
        ];
        bench(&root, &headline_target, "headline", env, pin, &args)?;
    }
    let table = fs::read_to_string(&headline_md).map_err(|e| {
        format!(
            "{}: {e} (run without --no-run-benches)",
            headline_md.display()
        )
    })?;
    let (after, suffix) = if lto {
        (HEADLINE_LTO_END, ", LTO profile")
    } else {
        (HEADLINE_END, "")
    };
    ensure_section(&root, &markers, family.title, after, suffix)?;
    splice(&root, &markers.0, &markers.1, &table)?;
    println!(
        "bench: {}headline table for {} updated",
        if lto { "LTO " } else { "" },
        family.title
    );
    // `--lto`'s second table: the interleaved POLYVAL/GHASH one, built in the LTO profile.
    if lto {
        if run_benches {
            let note = format!("{}; {profile}", measured(&root, command, pin));
            run_paired(&root, &headline_target, env, pin, note)?;
        }
        // One table per CPU family, as the headline's.
        let paired = family_markers(PAIRED_LTO, family);
        let suffix = ", LTO profile, POLYVAL/GHASH interleaved";
        ensure_section(&root, &paired, family.title, PAIRED_LTO.1, suffix)?;
        splice_paired(&root, &headline_target, &paired.0, &paired.1)?;
    }
    if !full {
        return Ok(());
    }

    let step = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if run_benches && step("uhf") {
        bench(&root, &target, "uhf", &[], pin, &criterion_args)?;
    }
    let paired_dir = |soft_build: bool| if soft_build { &soft } else { &target };
    for (name, _, _, soft_build) in PAIRED {
        if run_benches && step(name) {
            let dir = paired_dir(soft_build);
            let env: &[(&str, &str)] = if soft_build {
                &[("RUSTFLAGS", crate::test::SOFT_RUSTFLAGS)]
            } else {
                &[]
            };
            let note = measured(&root, "cargo xtask bench --full", pin);
            run_paired(&root, dir, env, pin, note)?;
        }
    }
    if run_benches && step("aead") {
        bench(&root, &target, "aead", &[], pin, &criterion_args)?;
    }
    if run_benches && step("siv") {
        bench(&root, &target, "siv", &[], pin, &criterion_args)?;
    }
    if run_benches && step("siv-polyval") {
        crate::bench_siv::run(&root, &target, pin, &criterion_args)?;
    }
    if run_benches && step("soft") {
        bench(
            &root,
            &soft,
            "uhf",
            &[("RUSTFLAGS", crate::test::SOFT_RUSTFLAGS)],
            pin,
            &criterion_args,
        )?;
    }
    let (fresh_step, fresh_filter, fresh_file, (fresh_start, fresh_end)) = SOFT_FRESH;
    if run_benches && step(fresh_step) {
        let note = format!(
            "{}; the forced-portable build (`RUSTFLAGS='{}'`, both sides)",
            measured(&root, "cargo xtask bench --full", pin),
            crate::test::SOFT_RUSTFLAGS
        );
        let args = [
            fresh_filter.to_string(),
            "--markdown".to_string(),
            soft.join(fresh_file).display().to_string(),
            "--note".to_string(),
            note,
        ];
        bench(
            &root,
            &soft,
            "headline",
            &[("RUSTFLAGS", crate::test::SOFT_RUSTFLAGS)],
            pin,
            &args,
        )?;
    }

    for (_, start, end, soft_build) in PAIRED {
        splice_paired(&root, paired_dir(soft_build), start, end)?;
    }
    splice_file(&root, &soft.join(fresh_file), fresh_start, fresh_end)?;

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
            "--exclude",
            "gcmsiv",
            "--baseline",
            "aws-lc-rs",
        ],
    )?);
    md.push_str("\n#### AES-GCM-SIV (ratios against aws-lc-rs)\n\n");
    md.push_str(&report(
        &root,
        &target,
        &normal,
        &[
            "--group",
            "gcmsiv",
            "--exclude",
            GEN011,
            "--exclude",
            PATCHED,
            "--baseline",
            "aws-lc-rs",
        ],
    )?);
    md.push_str("\n#### AES-GCM-SIV (ratios against RustCrypto 0.12.1, unpatched)\n\n");
    md.push_str(&report(
        &root,
        &target,
        &normal,
        &[
            "--group",
            "gcmsiv",
            "--exclude",
            GEN011,
            "--exclude",
            PATCHED,
            "--metric",
            "ratio",
        ],
    )?);
    md.push_str(
        "\n#### RustCrypto's aes-gcm-siv 0.12.1 and 0.11.1 with our polyval patched in \
         (ratios against the same crates unpatched)\n\n",
    );
    md.push_str(&report(
        &root,
        &target,
        &normal,
        &[
            "--group",
            PATCHED,
            "--baseline",
            crate::bench_siv::UNPATCHED,
        ],
    )?);
    md.push_str(
        "\n#### The aead 0.5 generation's aes-gcm-siv: ours 0.11 (ratios against RustCrypto \
         0.11.1)\n\n",
    );
    md.push_str(&report(&root, &target, &normal, &["--group", GEN011])?);
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
            "--exclude",
            PATCHED,
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
            "polyval/pieces",
            "--group",
            "ghash/new",
            "--group",
            "ghash/clone",
            "--group",
            "ghash/pieces",
            "--exclude",
            GEN010,
        ],
    )?);
    md.push_str(
        "\n#### Portable backend, aead 0.5 generation: polyval 0.6 / ghash 0.5 against \
         RustCrypto 0.6.2 / 0.5.1 forced soft (`--cfg polyval_force_soft`)\n\n",
    );
    md.push_str(&report(
        &root,
        &target,
        &soft_dir,
        &[
            "--group",
            "gen010-polyval/new",
            "--group",
            "gen010-polyval/clone",
            "--group",
            "gen010-polyval/kept",
            "--group",
            "gen010-polyval/pieces",
            "--group",
            "gen010-ghash/new",
            "--group",
            "gen010-ghash/clone",
            "--group",
            "gen010-ghash/pieces",
        ],
    )?);
    for (group, file) in [
        ("aes128gcm/encrypt", "bench-aes128gcm-encrypt.svg"),
        ("polyval/kept", "bench-polyval-update.svg"),
    ] {
        let svg = report(&root, &target, &normal, &["--svg", group])?;
        fs::write(docs.join(file), svg).map_err(|e| format!("{file}: {e}"))?;
    }

    splice(&root, START, END, &md)?;
    println!("bench: docs/BENCHMARKS.md and docs/*.svg updated");
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
    proc::status(&mut build)?;
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
    proc::status(&mut cmd)
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

/// The note above an interleaved table: the command, the code measured, the machine, and
/// whether it was pinned.
fn measured(root: &Path, command: &str, pin: bool) -> String {
    format!(
        "Measured with `{command}`{} on {}{}",
        revision(root),
        machine(),
        if pin { ", pinned to CPU 1" } else { "" }
    )
}

/// `" at commit <hash>"`, and whether the measured crates had uncommitted changes; empty
/// outside a git checkout.
fn revision(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let Some(hash) = git(&["rev-parse", "--short=7", "HEAD"]) else {
        return String::new();
    };
    let dirty =
        git(&["status", "--porcelain", "--", "crates", "aead-0.5"]).is_some_and(|s| !s.is_empty());
    format!(
        " at commit {hash}{}",
        if dirty {
            " with uncommitted changes to crates/ or aead-0.5/"
        } else {
            ""
        }
    )
}

/// A CPU family with a headline table of its own (README.md; docs/BENCHMARKS.md for LTO): the
/// engine it runs and the peer that family's targets are set against differ (see the targets
/// table in docs/BENCHMARKS.md).
#[derive(Clone, Copy)]
struct Family {
    /// In the markers: `<!-- headline-SLUG:start -->` (none for Zen 4/5's, the plain markers).
    slug: &'static str,
    /// The section's title.
    title: &'static str,
}

/// This machine's family, from /proc/cpuinfo's vendor and flags.
fn cpu_family() -> Family {
    let info = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = info
        .lines()
        .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim() == "flags"))
        .map(|(_, v)| v.split_whitespace().collect())
        .unwrap_or_default();
    let has = |f: &str| flags.contains(&f);
    let amd = info.contains("AuthenticAMD");
    let intel = info.contains("GenuineIntel");
    let (slug, title) = match (amd, intel, has("avx512f") && has("vaes"), has("vaes")) {
        (true, _, true, _) => ("", "AMD Zen 4/5 (VAES on 512 bits)"),
        (true, _, false, true) => ("zen3", "AMD Zen 3 (VAES on 256 bits, no AVX-512)"),
        (_, true, true, _) => ("intel-avx512", "Intel Xeon with AVX-512 (VAES on 512 bits)"),
        (_, true, false, true) => ("intel-vaes256", "Intel with VAES on 256 bits (no AVX-512)"),
        _ => ("aesni", "CPUs with AES-NI and PCLMULQDQ only"),
    };
    Family { slug, title }
}

/// The markers of `family`'s table, from the plain ones (`<!-- headline:start -->` becomes
/// `<!-- headline-SLUG:start -->`; for LTO, `<!-- headline-lto-SLUG:start -->`).
fn family_markers((start, end): (&str, &str), family: Family) -> (String, String) {
    if family.slug.is_empty() {
        return (start.to_string(), end.to_string());
    }
    let add = |m: &str| {
        m.replace(":start", &format!("-{}:start", family.slug))
            .replace(":end", &format!("-{}:end", family.slug))
    };
    (add(start), add(end))
}

/// Adds a section for the family's table (headed by `title` and `suffix`) after the plain
/// table's end marker `after` (in the page that has it: README.md for the default profile's
/// headline, `docs/BENCHMARKS.md` for the LTO tables), if no page has markers for it yet.
fn ensure_section(
    root: &Path,
    markers: &(String, String),
    title: &str,
    after: &str,
    suffix: &str,
) -> Result<(), String> {
    if crate::table::marked_page(root, &markers.0).is_ok() {
        return Ok(());
    }
    let (page, text) = crate::table::marked_page(root, after)?;
    let at = text
        .find(after)
        .map(|i| i + after.len())
        .unwrap_or(text.len());
    let section = format!("\n\n#### {title}{suffix}\n\n{}\n{}", markers.0, markers.1);
    let new = format!("{}{section}{}", &text[..at], &text[at..]);
    fs::write(&page, new).map_err(|e| format!("{}: {e}", page.display()))
}

/// "model name", "cpu family" and "model" from /proc/cpuinfo (with the core's name where
/// the family and model say it: AMD's Zen generations), and the core count.
fn machine() -> String {
    let info = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim())
        })
    };
    let model_name = field("model name").unwrap_or("an unknown CPU");
    let family = field("cpu family").and_then(|f| f.parse::<u32>().ok());
    let model = field("model").and_then(|m| m.parse::<u32>().ok());
    let cores = info.lines().filter(|l| l.starts_with("processor")).count();
    let id = match (family, model) {
        (Some(f), Some(m)) => {
            let core = match (model_name.contains("AMD"), f, m) {
                (true, 0x17, _) => ": Zen/Zen+/Zen 2",
                (true, 0x19, 0x00..=0x0f | 0x20..=0x5f) => ": Zen 3",
                (true, 0x19, 0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf) => ": Zen 4",
                (true, 0x1a, _) => ": Zen 5",
                _ => "",
            };
            format!("family {f:#x}, model {m:#x}{core}; ")
        }
        _ => String::new(),
    };
    format!("{model_name} ({id}{cores} cores, shared)")
}
