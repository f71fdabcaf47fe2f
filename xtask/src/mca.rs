//! `cargo xtask mca`: the steady-state loop of every fused AES-GCM engine through `llvm-mca`,
//! on the CPU models we tune for but cannot all run, and each engine's machine-code size.
//!
//! 1. Builds `aead-engines` in release mode (the shipped code, with v0 symbol mangling so that
//!    the two shapes of one generic entry point have different names) for x86_64 and for
//!    aarch64, into `target/mca`.
//! 2. Disassembles each engine's GCM entry point (`llvm-objdump`), builds its control-flow
//!    graph, and finds the loop whose body holds the most AES and carry-less multiply
//!    instructions: the stitched loop. The round count is data, so that loop has two or four
//!    extra AES rounds behind branches; the path through it with the fewest AES instructions
//!    is the AES-128 iteration, the one with the most the AES-256 iteration (ties: the
//!    shortest, which also skips the rare counter-carry block).
//! 3. Feeds each path, branches removed, to `llvm-mca -mcpu=<model>` and reports cycles per
//!    64 bytes (cycles per iteration x 64 / bytes per iteration, counted from the final-round
//!    instructions and the register width) and the busiest resource (the highest pressure per
//!    iteration).
//! 4. Sums each engine's function sizes (`llvm-nm`, every symbol of its module).
//!
//! 5. Does the same for the peers' own loops, from the assembly their crates ship (in cargo's
//!    registry once the workspace's dependencies are fetched): ring's VAES-AVX2, AES-NI and
//!    ARMv8 kernels (`pregenerated/`), aws-lc-sys's AVX-512 and ARMv8 `unroll8` kernels
//!    (`generated-src/`), each assembled with the C compiler of its architecture, and prints
//!    ours / peer for the loop each CPU model runs (the peer that CPU's users get).
//!
//! Prints the tables; `--check` compares our loops' cells with the ones docs/BENCHMARKS.md
//! records and fails on any more than [`CHECK_TOLERANCE`] slower (the ARM standalone GHASH loop
//! once went from 21.5 to 26.3 cycles per 64 bytes on Neoverse N1 for three days, unseen: no
//! ARM machine runs our benches). `--readme` also replaces the `<!-- mca:start -->` ...
//! `<!-- mca:end -->` section of docs/BENCHMARKS.md with them, and README.md's ARM table
//! (`<!-- mca-arm:start -->` ... `<!-- mca-arm:end -->`: ours against the peers on the ARM
//! models, and the GHASH loop). `--install` gets Debian's `llvm-19` (llvm-mca, llvm-objdump,
//! llvm-nm) with apt-get when they are missing, and the aarch64 Rust target with rustup.
//!
//! The submodules: `loops` (disassembly, the paths through a loop, llvm-mca) and `peers` (the
//! peers' assembly and the GHASH loops).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::proc;
use crate::proc::{target_dir, workspace_root};

mod floor;
mod loops;
mod peers;

use floor::*;
use loops::*;
use peers::*;

const HELP: &str = "\
cargo xtask mca [--install] [--readme | --check] [--cpu MODEL]... [--no-build] [--no-peers] [--show ENGINE]

Runs the steady-state loop of every AES-GCM engine through llvm-mca (LLVM 19 or newer) on
the CPU models znver4, znver3, sapphirerapids, alderlake, skylake, neoverse-n1, neoverse-v1
and neoverse-v2, and reports cycles per 64 bytes, the busiest resource and each engine's code
size; then the peers' own loops (ring's and aws-lc-sys's assembly from cargo's registry,
assembled with cc / aarch64-linux-gnu-gcc) and ours / peer for the loop each model runs.

  --install      install llvm-19 with apt-get and the aarch64 Rust target when missing
  --readme       also rewrite the mca section of docs/BENCHMARKS.md (<!-- mca:start/end -->)
                 and README.md's ARM table (<!-- mca-arm:start/end -->)
  --check        fail if any loop of ours models more than 3% slower than the section
                 docs/BENCHMARKS.md records (a regression guard for the CPUs we cannot run)
  --cpu MODEL    only these models (repeatable)
  --no-build     reuse target/mca from the last run
  --no-peers     leave out the peers' loops
  --show ENGINE  print the AES-128 and AES-256 loops of ENGINE (a name from the table) as fed
                 to llvm-mca
";

/// The CPU models, in table order, and the architecture each belongs to.
const MODELS: &[(&str, Arch)] = &[
    ("znver4", Arch::X86),
    ("znver3", Arch::X86),
    ("sapphirerapids", Arch::X86),
    ("alderlake", Arch::X86),
    ("skylake", Arch::X86),
    ("neoverse-n1", Arch::Arm),
    ("neoverse-v1", Arch::Arm),
    ("neoverse-v2", Arch::Arm),
];

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Arch {
    X86,
    Arm,
}

impl Arch {
    fn triple(self) -> &'static str {
        match self {
            Arch::X86 => "x86_64-unknown-linux-gnu",
            Arch::Arm => "aarch64-unknown-linux-gnu",
        }
    }
}

/// One engine's entry point: the table name, the architecture, the demangled symbol (prefix)
/// of its GCM entry point, and what names its code: the engine module's path or its register
/// type in a generic instantiation (empty: counted with the previous row).
struct EngineFn {
    name: &'static str,
    arch: Arch,
    symbol: &'static str,
    module: &'static str,
    /// What the models need for its instructions: `None` runs everywhere on `arch`.
    needs: Option<&'static [&'static str]>,
}

const ENGINES: &[EngineFn] = &[
    EngineFn {
        name: "VAES-512, Karatsuba (AMD)",
        arch: Arch::X86,
        symbol: "aead_engines::x86::vaes512::run::<aead_engines::engine::Gcm<false>, true>",
        module: "vaes512|__m512i",
        needs: Some(&["znver4", "sapphirerapids"]),
    },
    EngineFn {
        name: "VAES-512, schoolbook (Intel)",
        arch: Arch::X86,
        symbol: "aead_engines::x86::vaes512::run::<aead_engines::engine::Gcm<false>, false>",
        module: "",
        needs: Some(&["znver4", "sapphirerapids"]),
    },
    EngineFn {
        name: "VAES-256",
        arch: Arch::X86,
        symbol: "aead_engines::x86::vaes256::run::<aead_engines::engine::Gcm<false>, true>",
        module: "vaes256|__m256i",
        needs: Some(&["znver4", "znver3", "sapphirerapids", "alderlake"]),
    },
    EngineFn {
        name: "AES-NI",
        arch: Arch::X86,
        symbol: "aead_engines::x86::aesni_gcm::run::<aead_engines::engine::Gcm<false>, true>",
        module: "aesni_gcm|__m128i",
        needs: None,
    },
    EngineFn {
        name: "ARMv8",
        arch: Arch::Arm,
        symbol: "aead_engines::aarch64::run::<aead_engines::engine::Gcm<false>>",
        module: "aarch64",
        needs: None,
    },
    EngineFn {
        name: "ARMv8 EOR3",
        arch: Arch::Arm,
        symbol: "aead_engines::aarch64::eor3::run::<aead_engines::engine::Gcm<false>>",
        module: "",
        needs: Some(&["neoverse-v1", "neoverse-v2"]),
    },
];

struct Options {
    install: bool,
    peers: bool,
    readme: bool,
    check: bool,
    build: bool,
    cpus: Vec<String>,
    show: Option<String>,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut o = Options {
        install: false,
        peers: true,
        readme: false,
        check: false,
        build: true,
        cpus: Vec::new(),
        show: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            "--install" => o.install = true,
            "--readme" => o.readme = true,
            "--check" => o.check = true,
            "--no-build" => o.build = false,
            "--no-peers" => o.peers = false,
            "--cpu" => o.cpus.push(it.next().ok_or("--cpu needs a model")?.clone()),
            "--show" => o.show = Some(it.next().ok_or("--show needs an engine")?.clone()),
            other => return Err(format!("unknown option `{other}`\n{HELP}")),
        }
    }
    let tools = Tools::find(o.install)?;
    let root = workspace_root()?;
    let dir = target_dir(&root).join("mca");
    let mut disasm: HashMap<Arch, Vec<Func>> = HashMap::new();
    let mut sizes: HashMap<Arch, Vec<(String, u64)>> = HashMap::new();
    for arch in [Arch::X86, Arch::Arm] {
        let lib = build(&root, &dir, arch, o.build, o.install)?;
        disasm.insert(arch, disassemble(&tools.objdump, &lib, arch)?);
        sizes.insert(arch, symbol_sizes(&tools.nm, &lib)?);
    }
    let models: Vec<(&str, Arch)> = MODELS
        .iter()
        .copied()
        .filter(|(m, _)| o.cpus.is_empty() || o.cpus.iter().any(|c| c == m))
        .collect();

    let mut rows = Vec::new();
    for e in ENGINES {
        let funcs = &disasm[&e.arch];
        let f = funcs
            .iter()
            .find(|f| f.name.starts_with(e.symbol))
            .ok_or_else(|| format!("{}: no symbol {} in the build", e.name, e.symbol))?;
        let lp = stitched_loop(f).ok_or_else(|| format!("{}: no stitched loop found", e.name))?;
        let size = if e.module.is_empty() {
            None
        } else {
            Some(module_size(&sizes[&e.arch], e.module))
        };
        if o.show.as_deref() == Some(e.name) {
            for (bits, lp) in [(128, &lp.aes128), (256, &lp.aes256)] {
                println!(
                    "{}: AES-{bits} loop, {} instructions\n{}",
                    e.name,
                    lp.len(),
                    asm(f, lp)
                );
            }
        }
        let mut cells = Vec::new();
        for &(model, arch) in &models {
            if arch != e.arch || e.needs.is_some_and(|n| !n.contains(&model)) {
                cells.push(None);
                continue;
            }
            let r128 = mca(&tools.mca, arch, model, f, &lp.aes128)?;
            let r256 = mca(&tools.mca, arch, model, f, &lp.aes256)?;
            cells.push(Some((r128, r256)));
        }
        rows.push((e, size, lp, cells));
    }

    let registry = if o.peers {
        Some(Registry::new(&root, &dir)?)
    } else {
        None
    };
    let peers = match &registry {
        Some(r) => peer_rows(&tools, r, &models, o.install)?,
        None => Vec::new(),
    };

    // The report: per engine and model, AES-128 c/64B (AES-256 c/64B), busiest resource.
    let mut header = vec!["engine".to_string(), "code".to_string()];
    header.extend(models.iter().map(|(m, _)| m.to_string()));
    let mut md = String::new();
    md.push_str(&format!("| {} |\n", header.join(" | ")));
    md.push_str(&format!("|---|---:|{}\n", "---:|".repeat(models.len())));
    // One row per loop, ours then the peers': the name, the code size, the cells.
    let our_rows = rows.iter().map(|(e, size, lp, cells)| {
        let size = size.map_or("(same)".to_string(), |s| {
            format!("{:.1} KB", s as f64 / 1000.0)
        });
        (format!("{} ({} B/iter)", e.name, lp.bytes), size, cells)
    });
    let theirs = peers.iter().map(|(p, lp, cells)| {
        let name = format!("peer: {} ({} B/iter)", p.name, lp.bytes);
        (name, String::new(), cells)
    });
    let mut text_rows = Vec::new();
    for (name, size, cells) in our_rows.chain(theirs) {
        let mut row = vec![name, size];
        for c in cells {
            row.push(match c {
                None => "n/a".to_string(),
                Some((a, b)) => format!("{:.1} / {:.1}, {}", a.per64, b.per64, a.busiest),
            });
        }
        md.push_str(&format!("| {} |\n", row.join(" | ")));
        text_rows.push(row);
    }
    // Ours against the peer loop each model's users get.
    let versus = versus_rows(&models, &rows, &peers);
    // Everything x86 of the crate: the engines, their shared generic code, key expansion and
    // detection (what "the x86 engines" measured before the kernels were shared).
    let x86_total: u64 = ours(&sizes[&Arch::X86])
        .filter(|(n, _)| n.contains("x86"))
        .map(|(_, s)| s)
        .sum();
    let hr: Vec<&str> = header.iter().map(String::as_str).collect();
    print!("{}", crate::table::render(&hr, &text_rows, 0, true));
    println!(
        "\ncells: llvm-mca cycles per 64 bytes for AES-128 / AES-256, and the busiest resource \
         (AES-128); code: the engine module's machine code (x86 engines together: {:.1} KB)",
        x86_total as f64 / 1000.0
    );
    md.push_str(&format!(
        "\nCells: predicted cycles per 64 bytes of the steady-state loop, AES-128 / AES-256, and \
         the busiest resource of the AES-128 loop (llvm-mca {}). Code: machine code of the \
         engine's module in a release build (the x86 engines together: {:.1} KB).\n",
        tools.version,
        x86_total as f64 / 1000.0
    ));
    if !versus.is_empty() {
        println!();
        print!("{}", crate::table::render(&VERSUS_HEAD, &versus, 0, true));
        println!("ratio: the peer's cycles / ours (above 1: ours is faster by the model)");
        md.push_str(
            "\nOurs against the peer loop each model's users get (ratio: the peer's cycles / \
             ours; above 1, ours is faster by the model):\n\n",
        );
        md.push_str(&md_table(&VERSUS_HEAD, 3, &versus));
    }
    // The floor of any eight-block AESE/AESMC + PMULL loop on the ARM models (`floor`).
    let floor = floor_rows(&tools, &models, &peers)?;
    if !floor.is_empty() {
        println!();
        print!("{}", crate::table::render(&FLOOR_HEAD, &floor, 0, true));
        println!(
            "floor: the fewest vector operations an eight-block AES-GCM encryption with \
             AESE/AESMC and PMULL needs by the techniques known (the first round cached), on the \
             model's pipes (xtask/src/mca/floor.rs), cycles per 64 bytes; the last column: the \
             peer's cycles / the floor's"
        );
        md.push_str(
            "\nThe floor on the ARM models: the cycles per 64 bytes that the fewest vector \
             operations an eight-block AES-GCM encryption with AESE/AESMC and PMULL needs by the \
             techniques known (the first round cached) take on the model's vector pipes \
             (`xtask/src/mca/floor.rs` counts them; the same operations as a loop through \
             llvm-mca beside), and the most by which such a loop could beat the peer's loop by \
             the model:\n\n",
        );
        md.push_str(&md_table(&FLOOR_HEAD, 1, &floor));
    }
    // README's ARM table: the rows of the models of ARM cores (no ARM machine runs our
    // benches, so these are the only ARM numbers README gives), written with --readme when
    // the run has all of them and the peers.
    let arm = |ms: &[(&str, Arch)]| ms.iter().filter(|(_, a)| *a == Arch::Arm).count();
    let mut arm_md = String::new();
    if arm(&models) == arm(MODELS) && !versus.is_empty() {
        let on_arm = |m: &str| models.iter().any(|&(n, a)| n == m && a == Arch::Arm);
        let rows: Vec<Vec<String>> = versus.iter().filter(|r| on_arm(&r[0])).cloned().collect();
        arm_md.push_str(&md_table(&VERSUS_HEAD, 3, &rows));
        if !floor.is_empty() {
            arm_md.push_str(
                "\nThe floor: the cycles per 64 bytes of the fewest vector operations an \
                 eight-block AES-GCM encryption with AESE/AESMC and PMULL needs by the techniques \
                 known (the first round cached), on the model's vector pipes \
                 (`xtask/src/mca/floor.rs`), and the most by which such a loop could beat the \
                 peer's by the model:\n\n",
            );
            arm_md.push_str(&md_table(&FLOOR_HEAD, 1, &floor));
        }
    }
    if let Some(r) = registry
        .as_ref()
        .filter(|_| models.iter().any(|(_, a)| *a == Arch::Arm))
    {
        let (head, rows) = hash_rows(&tools, r, &dir, &models, o.build, o.install)?;
        let hr: Vec<&str> = head.iter().map(String::as_str).collect();
        println!();
        print!("{}", crate::table::render(&hr, &rows, 0, true));
        println!("cells: llvm-mca cycles per 64 bytes of the GHASH loop (no AES)");
        let table = md_table(&hr, 1, &rows);
        md.push_str(
            "\nThe standalone GHASH loops on ARM (`ghash`'s PMULL backends; no AES), cycles per 64 \
             bytes:\n\n",
        );
        md.push_str(&table);
        if !arm_md.is_empty() {
            arm_md.push_str(
                "\nThe standalone GHASH loop (`ghash` and `polyval` on PMULL), cycles per 64 \
                 bytes:\n\n",
            );
            arm_md.push_str(&table);
        }
    }
    if o.check {
        let (page, text) = crate::table::marked_page(&root, MCA_START)?;
        let recorded = marked_section(&text)
            .ok_or_else(|| format!("{} lacks the mca section's markers", page.display()))?;
        let worse = regressions(recorded, &md, CHECK_TOLERANCE);
        if !worse.is_empty() {
            return Err(format!(
                "mca: {} of our loops model slower than {} records (more than {:.0}%):\n  {}\n\
                 (a change of compiler or code made them so; if intended, rerun with --readme)",
                worse.len(),
                page.display(),
                CHECK_TOLERANCE * 100.0,
                worse.join("\n  ")
            ));
        }
        println!(
            "mca: no loop of ours models slower than {} records",
            page.display()
        );
    }
    if o.readme {
        crate::table::splice(&root, MCA_START, MCA_END, &md)?;
        println!("mca: docs/BENCHMARKS.md updated");
        if arm_md.is_empty() {
            println!(
                "mca: README's ARM table left as it is (it needs every ARM model and the peers)"
            );
        } else {
            crate::table::splice(&root, ARM_START, ARM_END, &arm_md)?;
            println!("mca: README.md's ARM table updated");
        }
    }
    Ok(())
}

/// The columns of the table of ours against each model's peer loop ([`versus_rows`]).
const VERSUS_HEAD: [&str; 7] = [
    "model",
    "ours",
    "peer",
    "AES-128: ours / peer",
    "ratio",
    "AES-256: ours / peer",
    "ratio",
];

/// A markdown table of `rows` under `head`, the first `names` columns left-aligned and the
/// others right-aligned.
fn md_table(head: &[&str], names: usize, rows: &[Vec<String>]) -> String {
    let align: Vec<&str> = (0..head.len())
        .map(|i| if i < names { "---" } else { "---:" })
        .collect();
    let mut t = format!("| {} |\n|{}|\n", head.join(" | "), align.join("|"));
    for r in rows {
        t.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    t
}

/// How much slower than recorded a loop of ours may model before `--check` fails: the cells
/// are deterministic for one compiler and one LLVM, so this only absorbs rounding.
const CHECK_TOLERANCE: f64 = 0.03;

const MCA_START: &str = "<!-- mca:start -->";
const MCA_END: &str = "<!-- mca:end -->";
/// README's table of the ARM models (`--readme`, from a run with every ARM model of
/// [`MODELS`] and the peers).
const ARM_START: &str = "<!-- mca-arm:start -->";
const ARM_END: &str = "<!-- mca-arm:end -->";

/// The text between the mca section's markers, if it has any.
fn marked_section(text: &str) -> Option<&str> {
    crate::table::section(text, MCA_START, MCA_END)
        .map(|(a, b)| &text[a..b])
        .filter(|s| !s.trim().is_empty())
}

/// The cycle counts of our loops in the section's tables (the engines' and the GHASH loops',
/// not the peers' rows nor the comparison table): `(row, column, index)` to the number, the
/// index telling a cell's AES-128 and AES-256 numbers (`12.0 / 14.0, Res 96`) apart.
fn our_cells(md: &str) -> BTreeMap<(String, String, usize), f64> {
    let mut out = BTreeMap::new();
    let mut header: Vec<String> = Vec::new();
    for line in md.lines() {
        let Some(row) = line
            .trim()
            .strip_prefix('|')
            .and_then(|l| l.strip_suffix('|'))
        else {
            header.clear();
            continue;
        };
        let cells: Vec<String> = row.split('|').map(|c| c.trim().to_string()).collect();
        if cells
            .iter()
            .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue;
        }
        if header.is_empty() {
            header = cells;
            continue;
        }
        let ours_table = matches!(header[0].as_str(), "engine" | "loop");
        if !ours_table || cells[0].starts_with("peer:") {
            continue;
        }
        for (col, cell) in header.iter().zip(&cells).skip(1) {
            let Some((numbers, _busiest)) = cell.split_once(", ") else {
                continue;
            };
            for (i, n) in numbers.split(" / ").enumerate() {
                if let Ok(v) = n.parse::<f64>() {
                    out.insert((cells[0].clone(), col.clone(), i), v);
                }
            }
        }
    }
    out
}

/// Our cells of `current` more than `tolerance` slower than the same cells of `recorded`, as
/// lines to report (cells only one of the two has are not compared).
fn regressions(recorded: &str, current: &str, tolerance: f64) -> Vec<String> {
    let before = our_cells(recorded);
    our_cells(current)
        .into_iter()
        .filter_map(|(key, now)| {
            let was = *before.get(&key)?;
            (now > was * (1.0 + tolerance)).then(|| {
                let what = if key.2 == 0 { "" } else { " (AES-256)" };
                format!(
                    "{} on {}{what}: {was:.1} -> {now:.1} cycles per 64 bytes",
                    key.0, key.1
                )
            })
        })
        .collect()
}

/// Our engines' rows: the engine, its code size (`None`: counted with the row above), its
/// loop and, per model, its AES-128 and AES-256 results.
type OurRow = (
    &'static EngineFn,
    Option<u64>,
    Loop,
    Vec<Option<(Mca, Mca)>>,
);

/// Per model with a peer: our engine's AES-128 and AES-256 cycles against the peer loop's.
fn versus_rows(models: &[(&str, Arch)], ours: &[OurRow], peers: &[PeerRow]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (mi, &(model, _)) in models.iter().enumerate() {
        for (p, _, pcells) in peers {
            let Some(&(_, engine)) = p.versus.iter().find(|(m, _)| *m == model) else {
                continue;
            };
            let Some((_, _, _, cells)) = ours.iter().find(|r| r.0.name == engine) else {
                continue;
            };
            let (Some((a128, a256)), Some((b128, b256))) = (&cells[mi], &pcells[mi]) else {
                continue;
            };
            out.push(vec![
                model.to_string(),
                engine.to_string(),
                p.name.to_string(),
                format!("{:.1} / {:.1}", a128.per64, b128.per64),
                format!("{:.2}x", b128.per64 / a128.per64),
                format!("{:.1} / {:.1}", a256.per64, b256.per64),
                format!("{:.2}x", b256.per64 / a256.per64),
            ]);
        }
    }
    out
}

/// The LLVM tools, version 19 or newer.
struct Tools {
    mca: PathBuf,
    objdump: PathBuf,
    nm: PathBuf,
    version: String,
}

impl Tools {
    fn find(install: bool) -> Result<Tools, String> {
        let look = || -> Option<Tools> {
            for v in ["", "-21", "-20", "-19"] {
                let mca = proc::which(&format!("llvm-mca{v}"));
                let objdump = proc::which(&format!("llvm-objdump{v}"));
                let nm = proc::which(&format!("llvm-nm{v}"));
                if let (Some(mca), Some(objdump), Some(nm)) = (mca, objdump, nm) {
                    let out = proc::output(Command::new(&mca).arg("--version"))?;
                    let version = out
                        .split_whitespace()
                        .skip_while(|w| *w != "version")
                        .nth(1)?
                        .to_string();
                    let major: u32 = version.split('.').next()?.parse().ok()?;
                    if major >= 19 {
                        return Some(Tools {
                            mca,
                            objdump,
                            nm,
                            version,
                        });
                    }
                }
            }
            None
        };
        if let Some(t) = look() {
            return Ok(t);
        }
        if !install {
            return Err(
                "llvm-mca 19 or newer not found (run with --install, or apt-get install \
                        llvm-19)"
                    .into(),
            );
        }
        crate::tools::ensure_apt("llvm-mca-19", "llvm-19")?;
        look().ok_or_else(|| "llvm-19 installed but llvm-mca-19 not found".into())
    }
}

/// Builds the engines crate's `mca` example for `arch` (a static library: `Fused::seal` and
/// `open` inline into their callers, so the engines' jobs are compiled where they are called,
/// not in the crate's own rlib; an archive needs no linker for the target); returns it.
fn build(root: &Path, dir: &Path, arch: Arch, run: bool, install: bool) -> Result<PathBuf, String> {
    if run {
        if arch == Arch::Arm && install {
            proc::run_plain(Command::new("rustup").args(["target", "add", arch.triple()]));
        }
        let mut cmd = Command::new("cargo");
        cmd.args([
            "build",
            "--release",
            "-p",
            "aead-engines",
            "--example",
            "mca",
            "--target",
            arch.triple(),
        ])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", dir)
        .env("RUSTFLAGS", "-C symbol-mangling-version=v0");
        if !proc::run_plain(&mut cmd) {
            return Err(format!("build for {} failed", arch.triple()));
        }
    }
    let lib = dir.join(arch.triple()).join("release/examples/libmca.a");
    if lib.exists() {
        Ok(lib)
    } else {
        Err(format!("{} missing", lib.display()))
    }
}

/// `(demangled name, size)` of every text symbol of the archive.
fn symbol_sizes(nm: &Path, lib: &Path) -> Result<Vec<(String, u64)>, String> {
    let out = Command::new(nm)
        .args(["-S", "-C", "--radix=d", "--defined-only"])
        .arg(lib)
        .output()
        .map_err(|e| format!("{}: {e}", nm.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|l| {
            let mut w = l.splitn(4, ' ');
            let (_, size, kind, name) = (w.next()?, w.next()?, w.next()?, w.next()?);
            matches!(kind, "t" | "T").then(|| Some((name.to_string(), size.parse().ok()?)))?
        })
        .collect())
}

/// The machine code of every symbol of this crate whose name mentions one of the `|`-separated
/// needles of `module`.
fn module_size(syms: &[(String, u64)], module: &str) -> u64 {
    ours(syms)
        .filter(|(n, _)| module.split('|').any(|m| n.contains(m)))
        .map(|(_, s)| s)
        .sum()
}

/// The symbols of `aead_engines` itself (not the dependencies' code compiled into it).
fn ours(syms: &[(String, u64)]) -> impl Iterator<Item = &(String, u64)> {
    syms.iter()
        .filter(|(n, _)| n.trim_start_matches('<').starts_with("aead_engines::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDED: &str = "\
| engine | code | znver3 | neoverse-n1 |
|---|---:|---:|---:|
| VAES-256 (256 B/iter) | 77.4 KB | 23.5 / 27.4, Zn3FP0 94 | n/a |
| peer: ring VAES-AVX2 (128 B/iter) |  | 25.1 / 28.6, Zn3FP1 50 | n/a |

| model | ours | peer | AES-128: ours / peer | ratio |
|---|---|---|---:|---:|
| znver3 | VAES-256 | ring VAES-AVX2 | 23.5 / 25.1 | 1.07x |

| loop | neoverse-n1 |
|---|---:|
| ours: PMULL GHASH (8 blocks) | 21.5, N1UnitV1 43 |
| peer: aws-lc ghashv8 (4 blocks) | 27.0, N1UnitV0 24 |
";

    #[test]
    fn our_loops_only_and_both_key_sizes() {
        let cells = our_cells(RECORDED);
        let key = |r: &str, c: &str, i| (r.to_string(), c.to_string(), i);
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[&key("VAES-256 (256 B/iter)", "znver3", 0)], 23.5);
        assert_eq!(cells[&key("VAES-256 (256 B/iter)", "znver3", 1)], 27.4);
        assert_eq!(
            cells[&key("ours: PMULL GHASH (8 blocks)", "neoverse-n1", 0)],
            21.5
        );
    }

    #[test]
    fn slower_beyond_the_tolerance_is_reported() {
        assert!(regressions(RECORDED, RECORDED, CHECK_TOLERANCE).is_empty());
        // Faster, or slower within the tolerance, passes; a peer's row is not ours.
        let better = RECORDED
            .replace("23.5 / 27.4", "22.0 / 28.0")
            .replace("25.1 / 28.6", "40.0 / 40.0");
        assert!(regressions(RECORDED, &better, CHECK_TOLERANCE).is_empty());
        let worse = RECORDED.replace("| 21.5, N1UnitV1 43", "| 26.3, N1UnitV1 52");
        let found = regressions(RECORDED, &worse, CHECK_TOLERANCE);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("PMULL GHASH") && found[0].contains("21.5 -> 26.3"));
        let worse256 = RECORDED.replace("23.5 / 27.4", "23.5 / 29.0");
        let found = regressions(RECORDED, &worse256, CHECK_TOLERANCE);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("(AES-256)"));
    }
}
