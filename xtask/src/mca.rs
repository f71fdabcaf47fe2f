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
//! Prints the tables; `--readme` also replaces the `<!-- mca:start -->` ... `<!-- mca:end -->`
//! section of docs/BENCHMARKS.md with them. `--install` gets Debian's `llvm-19` (llvm-mca, llvm-objdump, llvm-nm) with
//! apt-get when they are missing, and the aarch64 Rust target with rustup.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::proc;
use crate::proc::{target_dir, workspace_root};

const HELP: &str = "\
cargo xtask mca [--install] [--readme] [--cpu MODEL]... [--no-build] [--no-peers] [--show ENGINE]

Runs the steady-state loop of every AES-GCM engine through llvm-mca (LLVM 19 or newer) on
the CPU models znver4, znver3, sapphirerapids, alderlake, skylake, neoverse-n1, neoverse-v1
and neoverse-v2, and reports cycles per 64 bytes, the busiest resource and each engine's code
size; then the peers' own loops (ring's and aws-lc-sys's assembly from cargo's registry,
assembled with cc / aarch64-linux-gnu-gcc) and ours / peer for the loop each model runs.

  --install      install llvm-19 with apt-get and the aarch64 Rust target when missing
  --readme       also rewrite the mca section of docs/BENCHMARKS.md (<!-- mca:start/end -->)
  --cpu MODEL    only these models (repeatable)
  --no-build     reuse target/mca from the last run
  --no-peers     leave out the peers' loops
  --show ENGINE  print the AES-128 loop of ENGINE (a name from the table) as fed to llvm-mca
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

/// A peer's stitched loop: the crate (its version from `Cargo.lock`) and the file of its
/// assembly, the functions holding its AES-128 and AES-256 loops (one function for both where
/// the round count is a branch in the loop), and the models it is compared on: each with our
/// engine that model runs.
struct PeerFn {
    name: &'static str,
    arch: Arch,
    krate: &'static str,
    file: &'static str,
    aes128: &'static str,
    aes256: &'static str,
    /// `(model, our engine's name in [`ENGINES`])`: the CPUs whose users get this loop.
    versus: &'static [(&'static str, &'static str)],
}

const PEERS: &[PeerFn] = &[
    PeerFn {
        name: "aws-lc AVX-512",
        arch: Arch::X86,
        krate: "aws-lc-sys",
        file: "aws-lc/generated-src/linux-x86_64/crypto/fipsmodule/aesni-gcm-avx512.S",
        aes128: "aes_gcm_encrypt_avx512",
        aes256: "aes_gcm_encrypt_avx512",
        versus: &[
            ("znver4", "VAES-512, Karatsuba (AMD)"),
            ("sapphirerapids", "VAES-512, schoolbook (Intel)"),
        ],
    },
    PeerFn {
        name: "aws-lc AVX-512, decrypt",
        arch: Arch::X86,
        krate: "aws-lc-sys",
        file: "aws-lc/generated-src/linux-x86_64/crypto/fipsmodule/aesni-gcm-avx512.S",
        aes128: "aes_gcm_decrypt_avx512",
        aes256: "aes_gcm_decrypt_avx512",
        versus: &[
            ("znver4", "VAES-512, Karatsuba (AMD)"),
            ("sapphirerapids", "VAES-512, schoolbook (Intel)"),
        ],
    },
    PeerFn {
        name: "ring VAES-AVX2",
        arch: Arch::X86,
        krate: "ring",
        file: "pregenerated/aes-gcm-avx2-x86_64-elf.S",
        aes128: "aes_gcm_enc_update_vaes_avx2",
        aes256: "aes_gcm_enc_update_vaes_avx2",
        versus: &[("znver3", "VAES-256"), ("alderlake", "VAES-256")],
    },
    PeerFn {
        name: "ring VAES-AVX2, decrypt",
        arch: Arch::X86,
        krate: "ring",
        file: "pregenerated/aes-gcm-avx2-x86_64-elf.S",
        aes128: "aes_gcm_dec_update_vaes_avx2",
        aes256: "aes_gcm_dec_update_vaes_avx2",
        versus: &[("znver3", "VAES-256"), ("alderlake", "VAES-256")],
    },
    PeerFn {
        name: "ring AES-NI (6x)",
        arch: Arch::X86,
        krate: "ring",
        file: "pregenerated/aesni-gcm-x86_64-elf.S",
        aes128: "_aesni_ctr32_ghash_6x",
        aes256: "_aesni_ctr32_ghash_6x",
        versus: &[("skylake", "AES-NI")],
    },
    PeerFn {
        name: "aws-lc unroll8",
        arch: Arch::Arm,
        krate: "aws-lc-sys",
        file: "aws-lc/generated-src/linux-aarch64/crypto/fipsmodule/aesv8-gcm-armv8-unroll8.S",
        aes128: "aesv8_gcm_8x_enc_128",
        aes256: "aesv8_gcm_8x_enc_256",
        versus: &[("neoverse-v1", "ARMv8 EOR3"), ("neoverse-v2", "ARMv8 EOR3")],
    },
    PeerFn {
        name: "aws-lc unroll8, decrypt",
        arch: Arch::Arm,
        krate: "aws-lc-sys",
        file: "aws-lc/generated-src/linux-aarch64/crypto/fipsmodule/aesv8-gcm-armv8-unroll8.S",
        aes128: "aesv8_gcm_8x_dec_128",
        aes256: "aesv8_gcm_8x_dec_256",
        versus: &[("neoverse-v1", "ARMv8 EOR3"), ("neoverse-v2", "ARMv8 EOR3")],
    },
    PeerFn {
        name: "ring 4-way",
        arch: Arch::Arm,
        krate: "ring",
        file: "pregenerated/aesv8-gcm-armv8-linux64.S",
        aes128: "aes_gcm_enc_kernel",
        aes256: "aes_gcm_enc_kernel",
        versus: &[("neoverse-n1", "ARMv8")],
    },
    PeerFn {
        name: "ring 4-way, decrypt",
        arch: Arch::Arm,
        krate: "ring",
        file: "pregenerated/aesv8-gcm-armv8-linux64.S",
        aes128: "aes_gcm_dec_kernel",
        aes256: "aes_gcm_dec_kernel",
        versus: &[("neoverse-n1", "ARMv8")],
    },
];

/// A GHASH loop without AES (the standalone `ghash` crate's, and a peer's): where its code
/// is, the function, and the bytes one iteration hashes.
struct HashFn {
    name: &'static str,
    /// `None`: ours, in `clmul-core`'s test binary (where its generic kernels are
    /// instantiated for every backend); else a peer's `(crate, file)` as in [`PeerFn`].
    source: Option<(&'static str, &'static str)>,
    symbol: &'static str,
    bytes: usize,
    /// The models it runs on (`None`: every ARM model).
    needs: Option<&'static [&'static str]>,
}

const HASHES: &[HashFn] = &[
    HashFn {
        name: "ours: PMULL GHASH (8 blocks)",
        source: None,
        symbol: "clmul_core::aarch64::pmull::update_small::<true>",
        bytes: 128,
        needs: None,
    },
    HashFn {
        name: "ours: PMULL + EOR3 GHASH (8 blocks)",
        source: None,
        symbol: "clmul_core::aarch64::pmull::eor3::update_small::<true>",
        bytes: 128,
        needs: Some(&["neoverse-v1", "neoverse-v2"]),
    },
    HashFn {
        name: "peer: aws-lc ghashv8 (4 blocks)",
        source: Some((
            "aws-lc-sys",
            "aws-lc/generated-src/linux-aarch64/crypto/fipsmodule/ghashv8-armx.S",
        )),
        symbol: "gcm_ghash_v8_4x",
        bytes: 64,
        needs: None,
    },
];

struct Options {
    install: bool,
    peers: bool,
    readme: bool,
    build: bool,
    cpus: Vec<String>,
    show: Option<String>,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut o = Options {
        install: false,
        peers: true,
        readme: false,
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
        let rlib = build(&root, &dir, arch, o.build, o.install)?;
        disasm.insert(arch, disassemble(&tools.objdump, &rlib, arch)?);
        sizes.insert(arch, symbol_sizes(&tools.nm, &rlib)?);
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
            println!(
                "{}: AES-128 loop, {} instructions\n{}",
                e.name,
                lp.aes128.len(),
                asm(f, &lp.aes128)
            );
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

    let peers = if o.peers {
        peer_rows(&tools, &root, &dir, &models, o.install)?
    } else {
        Vec::new()
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
        let head = [
            "model",
            "ours",
            "peer",
            "AES-128: ours / peer",
            "ratio",
            "AES-256: ours / peer",
            "ratio",
        ];
        println!();
        print!("{}", crate::table::render(&head, &versus, 0, true));
        println!("ratio: the peer's cycles / ours (above 1: ours is faster by the model)");
        md.push_str(&format!(
            "\nOurs against the peer loop each model's users get (ratio: the peer's cycles / \
             ours; above 1, ours is faster by the model):\n\n| {} |\n|---|---|---|---:|---:|---:|---:|\n",
            head.join(" | ")
        ));
        for r in &versus {
            md.push_str(&format!("| {} |\n", r.join(" | ")));
        }
    }
    if o.peers && models.iter().any(|(_, a)| *a == Arch::Arm) {
        let (head, rows) = hash_rows(&tools, &root, &dir, &models, o.build, o.install)?;
        let hr: Vec<&str> = head.iter().map(String::as_str).collect();
        println!();
        print!("{}", crate::table::render(&hr, &rows, 0, true));
        println!("cells: llvm-mca cycles per 64 bytes of the GHASH loop (no AES)");
        md.push_str(&format!(
            "\nThe standalone GHASH loops on ARM (`ghash`'s PMULL backends; no AES), cycles per 64 \
             bytes:\n\n| {} |\n|---|{}\n",
            head.join(" | "),
            "---:|".repeat(head.len() - 1)
        ));
        for r in &rows {
            md.push_str(&format!("| {} |\n", r.join(" | ")));
        }
    }
    if o.readme {
        splice_readme(&root, &md)?;
        println!("mca: docs/BENCHMARKS.md updated");
    }
    Ok(())
}

/// Our engines' rows: the engine, its code size (`None`: counted with the row above), its
/// loop and, per model, its AES-128 and AES-256 results.
type OurRow = (
    &'static EngineFn,
    Option<u64>,
    Loop,
    Vec<Option<(Mca, Mca)>>,
);

/// The peers' rows: each peer's loop and, per model, its AES-128 and AES-256 results (`None`
/// where the model lacks the loop's instructions or is not the peer's architecture).
type PeerRow = (&'static PeerFn, Loop, Vec<Option<(Mca, Mca)>>);

fn peer_rows(
    tools: &Tools,
    root: &Path,
    dir: &Path,
    models: &[(&str, Arch)],
    install: bool,
) -> Result<Vec<PeerRow>, String> {
    let registry = Registry::find(root)?;
    let out = dir.join("peers");
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut objects: HashMap<&str, Vec<Func>> = HashMap::new();
    let mut rows = Vec::new();
    for p in PEERS {
        if !objects.contains_key(p.file) {
            let obj = assemble(&registry, p, &out, install)?;
            objects.insert(p.file, disassemble(&tools.objdump, &obj, p.arch)?);
        }
        let funcs = &objects[p.file];
        let find = |sym: &str| {
            funcs
                .iter()
                .find(|f| f.name == sym)
                .ok_or_else(|| format!("{}: no function {sym} in {}", p.name, p.file))
        };
        let (f128, f256) = (find(p.aes128)?, find(p.aes256)?);
        let l128 = stitched_loop(f128).ok_or_else(|| format!("{}: no stitched loop", p.name))?;
        let l256 = stitched_loop(f256).ok_or_else(|| format!("{}: no stitched loop", p.name))?;
        let mut cells = Vec::new();
        for &(model, arch) in models {
            if arch != p.arch || !runs(p, model) {
                cells.push(None);
                continue;
            }
            let r128 = mca(&tools.mca, arch, model, f128, &l128.aes128)?;
            let r256 = mca(&tools.mca, arch, model, f256, &l256.aes256)?;
            cells.push(Some((r128, r256)));
        }
        rows.push((p, l128, cells));
    }
    Ok(rows)
}

/// Whether `model` has the instructions of the peer's loop: AVX-512 on the AVX-512 models,
/// VAES on 256 bits on those and the AVX2-class ones with VAES, SHA3's `EOR3` on Neoverse
/// V1/V2; ring's AES-NI and 4-way ARMv8 loops everywhere.
fn runs(p: &PeerFn, model: &str) -> bool {
    match p.name.split(',').next().unwrap_or_default() {
        "aws-lc AVX-512" => matches!(model, "znver4" | "sapphirerapids"),
        "ring VAES-AVX2" => matches!(model, "znver4" | "znver3" | "sapphirerapids" | "alderlake"),
        "aws-lc unroll8" => matches!(model, "neoverse-v1" | "neoverse-v2"),
        _ => true,
    }
}

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

/// The GHASH loops' table on the ARM models: a header and a row per loop of [`HASHES`].
fn hash_rows(
    tools: &Tools,
    root: &Path,
    dir: &Path,
    models: &[(&str, Arch)],
    build: bool,
    install: bool,
) -> Result<(Vec<String>, Vec<Vec<String>>), String> {
    let arm: Vec<&str> = models
        .iter()
        .filter(|(_, a)| *a == Arch::Arm)
        .map(|(m, _)| *m)
        .collect();
    let ours = disassemble(&tools.objdump, &clmul_tests(root, dir, build)?, Arch::Arm)?;
    let registry = Registry::find(root)?;
    let out = dir.join("peers");
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut head = vec!["loop".to_string()];
    head.extend(arm.iter().map(|m| m.to_string()));
    let mut rows = Vec::new();
    for h in HASHES {
        let theirs;
        let funcs = match h.source {
            None => &ours,
            Some((krate, file)) => {
                let peer = PeerFn {
                    name: h.name,
                    arch: Arch::Arm,
                    krate,
                    file,
                    aes128: h.symbol,
                    aes256: h.symbol,
                    versus: &[],
                };
                theirs = disassemble(
                    &tools.objdump,
                    &assemble(&registry, &peer, &out, install)?,
                    Arch::Arm,
                )?;
                &theirs
            }
        };
        let f = funcs
            .iter()
            .find(|f| f.name == h.symbol)
            .ok_or_else(|| format!("{}: no function {}", h.name, h.symbol))?;
        let path = hash_loop(f).ok_or_else(|| format!("{}: no multiply loop", h.name))?;
        if std::env::var_os("XTASK_MCA_DEBUG").is_some() {
            eprintln!("{}: {} instructions\n{}", h.name, path.len(), asm(f, &path));
        }
        let mut row = vec![h.name.to_string()];
        for &model in &arm {
            if h.needs.is_some_and(|n| !n.contains(&model)) {
                row.push("n/a".to_string());
                continue;
            }
            let r = mca(&tools.mca, Arch::Arm, model, f, &path)?;
            let per64 = r.per_iter * 64.0 / h.bytes as f64;
            if std::env::var_os("XTASK_MCA_DEBUG").is_some() {
                eprintln!("{} {model}: {} cycles per iteration", h.name, r.per_iter);
            }
            row.push(format!("{per64:.1}, {}", r.busiest));
        }
        rows.push(row);
    }
    Ok((head, rows))
}

/// The loop of a function with the most carry-less multiplies (a GHASH loop: no AES), as the
/// shortest path from its head to its back edge.
fn hash_loop(f: &Func) -> Option<Vec<usize>> {
    let index: HashMap<u64, usize> = f
        .insns
        .iter()
        .enumerate()
        .map(|(i, x)| (x.addr, i))
        .collect();
    let succs: Vec<Vec<usize>> = (0..f.insns.len())
        .map(|i| {
            let next = (i + 1 < f.insns.len()).then_some(i + 1);
            match f.insns[i].kind {
                Kind::Plain => next.into_iter().collect(),
                Kind::End => Vec::new(),
                Kind::Jump(t) => index.get(&t).copied().into_iter().collect(),
                Kind::Cond(t) => next.into_iter().chain(index.get(&t).copied()).collect(),
            }
        })
        .collect();
    let mut best: Option<(usize, Vec<usize>)> = None;
    for (latch, x) in f.insns.iter().enumerate() {
        let t = match x.kind {
            Kind::Cond(t) | Kind::Jump(t) if t <= x.addr => t,
            _ => continue,
        };
        let Some(&head) = index.get(&t) else { continue };
        let Some(p) = best_path(f, &succs, head, latch, false) else {
            continue;
        };
        let clmul = p.iter().filter(|&&i| is_clmul(&f.insns[i].text)).count();
        if clmul > best.as_ref().map_or(0, |b| b.0) {
            best = Some((clmul, p));
        }
    }
    best.map(|b| b.1)
}

/// Builds `clmul-core`'s tests for aarch64 (release, v0 symbols; linked with
/// `aarch64-linux-gnu-gcc`) and returns the backend tests' executable, which instantiates
/// every backend's kernels.
fn clmul_tests(root: &Path, dir: &Path, run: bool) -> Result<PathBuf, String> {
    let deps = dir.join(Arch::Arm.triple()).join("release/deps");
    if run {
        let mut cmd = Command::new("cargo");
        cmd.args([
            "test",
            "--release",
            "--no-run",
            "-p",
            "clmul-core",
            "--test",
            "backends",
            "--target",
            Arch::Arm.triple(),
        ])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", dir)
        .env("RUSTFLAGS", "-C symbol-mangling-version=v0")
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
            "aarch64-linux-gnu-gcc",
        );
        if !proc::run_plain(&mut cmd) {
            return Err("building clmul-core's tests for aarch64 failed".into());
        }
    }
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(&deps)
        .map_err(|e| format!("{}: {e}", deps.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("backends-") && !n.contains('.'))
        })
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, p)| p)
        .ok_or_else(|| format!("no backends test executable in {}", deps.display()))
}

/// Where cargo keeps the sources of the peers' crates, at the versions `Cargo.lock` names.
struct Registry {
    src: Vec<PathBuf>,
    lock: String,
}

impl Registry {
    fn find(root: &Path) -> Result<Registry, String> {
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .ok_or("neither CARGO_HOME nor HOME is set")?;
        let src = fs::read_dir(home.join("registry/src"))
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        let lock =
            fs::read_to_string(root.join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
        Ok(Registry { src, lock })
    }

    /// The crate's directory: `<registry>/<name>-<version>` for the version in `Cargo.lock`;
    /// fetched with `cargo fetch` when missing.
    fn krate(&self, root: &Path, name: &str) -> Result<PathBuf, String> {
        let version = self
            .lock
            .split("[[package]]")
            .find_map(|p| {
                let mut lines = p.lines().map(str::trim);
                let n = lines.find_map(|l| l.strip_prefix("name = "))?;
                let v = p
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("version = "))?;
                (n.trim_matches('"') == name).then(|| v.trim_matches('"').to_string())
            })
            .ok_or_else(|| format!("{name} is not in Cargo.lock"))?;
        let want = format!("{name}-{version}");
        let look = || {
            self.src
                .iter()
                .map(|d| d.join(&want))
                .find(|d| d.is_dir())
                .or_else(|| {
                    // The registry's index directories may appear with the fetch.
                    let home = self.src.first()?.parent()?.to_path_buf();
                    fs::read_dir(home)
                        .ok()?
                        .flatten()
                        .map(|e| e.path().join(&want))
                        .find(|d| d.is_dir())
                })
        };
        if let Some(d) = look() {
            return Ok(d);
        }
        proc::run_plain(Command::new("cargo").arg("fetch").current_dir(root));
        look().ok_or_else(|| format!("{want}: not in cargo's registry after `cargo fetch`"))
    }
}

/// Assembles the peer's file into an object in `out`, with the C compiler of its architecture
/// (`cc` for x86_64, `aarch64-linux-gnu-gcc` for aarch64, with SHA3 allowed): the headers from
/// the crate's `include/` directories, and an empty one for ring's generated symbol-prefix
/// header (the loops do not depend on symbol names).
fn assemble(reg: &Registry, p: &PeerFn, out: &Path, install: bool) -> Result<PathBuf, String> {
    let root = workspace_root()?;
    let dir = reg.krate(&root, p.krate)?;
    let stub = out.join("stub");
    let prefix = stub.join("ring_core_generated");
    fs::create_dir_all(&prefix).map_err(|e| format!("{}: {e}", prefix.display()))?;
    fs::write(prefix.join("prefix_symbols_asm.h"), "")
        .map_err(|e| format!("{}: {e}", prefix.display()))?;
    let (cc, flags): (&str, &[&str]) = match p.arch {
        Arch::X86 => ("cc", &[]),
        Arch::Arm => ("aarch64-linux-gnu-gcc", &["-march=armv8.2-a+crypto+sha3"]),
    };
    if install && p.arch == Arch::Arm {
        // A failure is reported below, where the compiler is looked for.
        let _ = crate::tools::ensure_apt(cc, "gcc-aarch64-linux-gnu");
    }
    if proc::which(cc).is_none() {
        return Err(format!(
            "{cc} not found: it assembles the peers' loops (--install, or --no-peers)"
        ));
    }
    let obj = out.join(format!(
        "{}-{}.o",
        p.krate,
        Path::new(p.file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    let mut cmd = Command::new(cc);
    cmd.args(flags)
        .arg("-c")
        .arg("-I")
        .arg(&stub)
        .arg("-I")
        .arg(dir.join("include"))
        .arg("-I")
        .arg(dir.join("aws-lc/include"))
        .arg("-o")
        .arg(&obj)
        .arg(dir.join(p.file));
    if !proc::run_plain(&mut cmd) {
        return Err(format!("assembling {} failed", p.file));
    }
    Ok(obj)
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

/// Builds the engines crate for `arch`; returns its rlib.
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
    let rlib = dir.join(arch.triple()).join("release/libaead_engines.rlib");
    if rlib.exists() {
        Ok(rlib)
    } else {
        Err(format!("{} missing", rlib.display()))
    }
}

/// One instruction: address, text (mnemonic and operands), and its branch target if any.
struct Insn {
    addr: u64,
    text: String,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    /// A conditional branch to the address.
    Cond(u64),
    /// An unconditional branch to the address.
    Jump(u64),
    /// No successor (return, trap, call).
    End,
}

struct Func {
    name: String,
    insns: Vec<Insn>,
}

fn disassemble(objdump: &Path, rlib: &Path, arch: Arch) -> Result<Vec<Func>, String> {
    let mut cmd = Command::new(objdump);
    cmd.args(["-d", "--no-show-raw-insn", "-C"]);
    if arch == Arch::Arm {
        // An executable does not say which extensions its code uses.
        cmd.arg("--mattr=+aes,+sha3");
    }
    let out = cmd
        .arg(rlib)
        .output()
        .map_err(|e| format!("{}: {e}", objdump.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut funcs: Vec<Func> = Vec::new();
    for line in text.lines() {
        if let Some((addr, name)) = line.strip_suffix(">:").and_then(|l| l.split_once(" <"))
            && u64::from_str_radix(addr.trim(), 16).is_ok()
        {
            funcs.push(Func {
                name: name.to_string(),
                insns: Vec::new(),
            });
            continue;
        }
        let Some(f) = funcs.last_mut() else { continue };
        let Some((addr, rest)) = line.trim_start().split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let text = rest.trim();
        if text.is_empty() {
            continue;
        }
        // Drop objdump's comments (`# 0x...` on x86, `// =0x...` on aarch64).
        let text = text
            .split(" # ")
            .next()
            .unwrap_or(text)
            .split(" //")
            .next()
            .unwrap_or(text);
        // and symbol annotations of addresses (`0x1000 <sym+0x1000>`).
        let text = text.split(" <").next().unwrap_or(text);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let kind = classify(&text);
        f.insns.push(Insn { addr, text, kind });
    }
    Ok(funcs)
}

/// The branch kind of an instruction, from its mnemonic and `0x<target> <sym+off>` operand.
fn classify(text: &str) -> Kind {
    let mnem = text.split_whitespace().next().unwrap_or("");
    let target = text.split_whitespace().find_map(|w| {
        w.strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
    });
    let is_x86_jump = mnem.starts_with('j');
    let is_arm_branch =
        mnem == "b" || mnem.starts_with("b.") || matches!(mnem, "cbz" | "cbnz" | "tbz" | "tbnz");
    match (mnem, target) {
        // A call ends a path too: the kernels' loops have none, and the calls outside them
        // are to panics, which do not return.
        ("ret" | "retq" | "ud2" | "int3" | "brk" | "call" | "callq" | "bl" | "blr", _) => Kind::End,
        ("jmp" | "jmpq" | "b", Some(t)) => Kind::Jump(t),
        (_, Some(t)) if is_x86_jump || is_arm_branch => Kind::Cond(t),
        // An indirect jump: no successor we can follow.
        _ if is_x86_jump || mnem == "br" => Kind::End,
        _ => Kind::Plain,
    }
}

fn is_aes(t: &str) -> bool {
    t.starts_with("vaesenc") || t.starts_with("aesenc") || t.starts_with("aese ")
}

fn is_clmul(t: &str) -> bool {
    t.starts_with("vpclmul") || t.starts_with("pclmul") || t.starts_with("pmull")
}

/// The stitched loop of a function: two paths (instruction indices, in order) from its head
/// to its back edge, for AES-128 and AES-256, and the bytes one iteration processes.
struct Loop {
    aes128: Vec<usize>,
    aes256: Vec<usize>,
    bytes: usize,
}

fn stitched_loop(f: &Func) -> Option<Loop> {
    let index: HashMap<u64, usize> = f
        .insns
        .iter()
        .enumerate()
        .map(|(i, x)| (x.addr, i))
        .collect();
    let succ = |i: usize| -> Vec<usize> {
        let next = (i + 1 < f.insns.len()).then_some(i + 1);
        match f.insns[i].kind {
            Kind::Plain => next.into_iter().collect(),
            Kind::End => Vec::new(),
            Kind::Jump(t) => index.get(&t).copied().into_iter().collect(),
            Kind::Cond(t) => next.into_iter().chain(index.get(&t).copied()).collect(),
        }
    };
    let succs: Vec<Vec<usize>> = (0..f.insns.len()).map(succ).collect();
    let count =
        |p: &[usize], pred: fn(&str) -> bool| p.iter().filter(|&&i| pred(&f.insns[i].text)).count();
    // Every back edge, with the paths through its loop with the fewest and the most AES
    // instructions. LLVM may give each key size's path its own back edge (a rotated loop
    // entered after the extra rounds), so the two paths can come from different edges.
    let mut cands = Vec::new();
    for (latch, x) in f.insns.iter().enumerate() {
        let t = match x.kind {
            Kind::Cond(t) | Kind::Jump(t) if t <= x.addr => t,
            _ => continue,
        };
        let Some(&head) = index.get(&t) else { continue };
        let (Some(lo), Some(hi)) = (
            best_path(f, &succs, head, latch, false),
            best_path(f, &succs, head, latch, true),
        ) else {
            continue;
        };
        let (aes, clmul) = (count(&lo, is_aes), count(&lo, is_clmul));
        if std::env::var_os("XTASK_MCA_DEBUG").is_some() {
            eprintln!(
                "{}: loop {:#x}..{:#x}: {} insns, {aes} AES ({} at most), {clmul} CLMUL",
                f.name,
                f.insns[head].addr,
                x.addr,
                lo.len(),
                count(&hi, is_aes)
            );
        }
        if aes > 0 && clmul > 0 {
            cands.push((clmul, lo, hi));
        }
    }
    // The stitched loop: the most multiplies next to AES rounds.
    let most = cands.iter().map(|c| c.0).max()?;
    cands.retain(|c| c.0 == most);
    let aes128 = cands
        .iter()
        .map(|c| c.1.clone())
        .min_by_key(|p| (count(p, is_aes), p.len()))?;
    let aes256 = cands
        .iter()
        .map(|c| c.2.clone())
        .max_by_key(|p| (count(p, is_aes), usize::MAX - p.len()))?;
    let bytes = bytes_per_iteration(f, &aes128);
    Some(Loop {
        aes128,
        aes256,
        bytes,
    })
}

/// The path from `head` to `latch` (inclusive) with the fewest (or, `most_aes`, the most) AES
/// instructions, then the fewest instructions; never through `head` again. Edges that close
/// a cycle inside the loop (none in the kernels' loops) are ignored.
fn best_path(
    f: &Func,
    succs: &[Vec<usize>],
    head: usize,
    latch: usize,
    most_aes: bool,
) -> Option<Vec<usize>> {
    // Nodes reachable from head (not re-entering it) that reach the latch: DFS order gives a
    // topological order once back edges are dropped.
    let n = f.insns.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut order = Vec::new();
    let mut stack = vec![(head, 0usize)];
    state[head] = 1;
    while let Some((v, k)) = stack.pop() {
        if v != latch && k < succs[v].len() {
            stack.push((v, k + 1));
            let w = succs[v][k];
            if w != head && state[w] == 0 {
                state[w] = 1;
                stack.push((w, 0));
            }
        } else {
            state[v] = 2;
            order.push(v);
        }
    }
    // `order` is post-order: reverse it for a topological order of the forward edges.
    order.reverse();
    let pos: HashMap<usize, usize> = order.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    // cost[v]: the best path head..v so far.
    let key = |aes: i64, len: i64| if most_aes { (-aes, len) } else { (aes, len) };
    let mut cost: HashMap<usize, Best> = HashMap::new();
    let a = |v: usize| i64::from(is_aes(&f.insns[v].text));
    cost.insert(head, (key(a(head), 1), a(head), None));
    for &v in &order {
        let Some(&(_, aes_v, _)) = cost.get(&v) else {
            continue;
        };
        let len_v = cost[&v].0.1;
        if v == latch {
            continue;
        }
        for &w in &succs[v] {
            // Forward edges only (within the topological order).
            if w == head || pos.get(&w).is_none_or(|&pw| pw <= pos[&v]) {
                continue;
            }
            let aes_w = aes_v + a(w);
            let cand = (key(aes_w, len_v + 1), aes_w, Some(v));
            if cost.get(&w).is_none_or(|c| cand.0 < c.0) {
                cost.insert(w, cand);
            }
        }
    }
    let mut path = vec![latch];
    let mut v = latch;
    while let Some(p) = cost.get(&v)?.2 {
        path.push(p);
        v = p;
    }
    (v == head).then(|| {
        path.reverse();
        path
    })
}

/// The best path to an instruction so far: its ordering key (AES count, minus it when the most
/// are wanted, then length), its AES count, and the previous instruction.
type Best = ((i64, i64), i64, Option<usize>);

/// Bytes per iteration: x86, one register of output per `aesenclast` (its width from the
/// register name); aarch64, one block per `aese` without its `aesmc`.
fn bytes_per_iteration(f: &Func, path: &[usize]) -> usize {
    let mut bytes = 0;
    let mut aese = 0usize;
    let mut aesmc = 0usize;
    for &i in path {
        let t = &f.insns[i].text;
        if t.starts_with("vaesenclast") || t.starts_with("aesenclast") {
            bytes += if t.contains("%zmm") {
                64
            } else if t.contains("%ymm") {
                32
            } else {
                16
            };
        } else if t.starts_with("aese ") {
            aese += 1;
        } else if t.starts_with("aesmc ") {
            aesmc += 1;
        }
    }
    bytes + 16 * aese.saturating_sub(aesmc)
}

/// The path as assembly for llvm-mca (branches left out: the loop is the sequence itself).
fn asm(f: &Func, path: &[usize]) -> String {
    let mut s = String::new();
    for &i in path {
        let x = &f.insns[i];
        if x.kind == Kind::Plain {
            s.push_str(&x.text);
            s.push('\n');
        }
    }
    s
}

/// One llvm-mca result.
struct Mca {
    /// Cycles per 64 bytes (of AES output: a loop without AES has none, see `per_iter`).
    per64: f64,
    /// Cycles per iteration.
    per_iter: f64,
    /// The resource with the highest pressure per iteration.
    busiest: String,
}

fn mca(tool: &Path, arch: Arch, model: &str, f: &Func, path: &[usize]) -> Result<Mca, String> {
    let src = asm(f, path);
    let file = std::env::temp_dir().join(format!("xtask-mca-{}.s", std::process::id()));
    fs::write(&file, &src).map_err(|e| format!("{}: {e}", file.display()))?;
    let triple = match arch {
        Arch::X86 => "x86_64",
        Arch::Arm => "aarch64",
    };
    let iterations = 200u32;
    // Armv9 models (neoverse-v2) leave the cryptography extension optional.
    let attr = match arch {
        Arch::X86 => "-mattr=",
        Arch::Arm => "-mattr=+aes,+sha3",
    };
    let out = Command::new(tool)
        .args([
            &format!("-mtriple={triple}"),
            &format!("-mcpu={model}"),
            attr,
            &format!("-iterations={iterations}"),
            "-resource-pressure",
            "-instruction-info=false",
        ])
        .arg(&file)
        .output()
        .map_err(|e| format!("{}: {e}", tool.display()))?;
    let _ = fs::remove_file(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "llvm-mca -mcpu={model} failed: {}",
            err.lines().next().unwrap_or("")
        ));
    }
    let field = |name: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    let cycles = field("Total Cycles:").ok_or("llvm-mca: no Total Cycles")?;
    let iters = field("Iterations:").ok_or("llvm-mca: no Iterations")?;
    let bytes = bytes_per_iteration(f, path) as f64;
    Ok(Mca {
        per64: cycles / iters * 64.0 / bytes,
        per_iter: cycles / iters,
        busiest: busiest(&text).unwrap_or_default(),
    })
}

/// The resource with the highest pressure per iteration, as `name (pressure)`.
fn busiest(text: &str) -> Option<String> {
    // "Resources:" lists `[n] - Name`; "Resource pressure per iteration:" has a header of
    // `[n]` columns and one row of numbers (`-` for none).
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if l.trim() == "Resources:" {
            while let Some(r) = lines.peek() {
                let r = r.trim();
                if r.is_empty() {
                    break;
                }
                if let Some((k, v)) = r.split_once(" - ") {
                    names.insert(k.trim().to_string(), v.trim().to_string());
                }
                lines.next();
            }
        }
        if l.trim() == "Resource pressure per iteration:" {
            let header: Vec<String> = lines.next()?.split_whitespace().map(String::from).collect();
            let values: Vec<&str> = lines.next()?.split_whitespace().collect();
            let (k, p) = header
                .iter()
                .zip(values)
                .filter_map(|(k, v)| Some((k, v.parse::<f64>().ok()?)))
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            let name = names.get(k).cloned().unwrap_or_else(|| k.clone());
            return Some(format!("{name} {p:.0}"));
        }
    }
    None
}

/// `(demangled name, size)` of every text symbol of the rlib.
fn symbol_sizes(nm: &Path, rlib: &Path) -> Result<Vec<(String, u64)>, String> {
    let out = Command::new(nm)
        .args(["-S", "-C", "--radix=d", "--defined-only"])
        .arg(rlib)
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

fn splice_readme(root: &Path, md: &str) -> Result<(), String> {
    const START: &str = "<!-- mca:start -->";
    const END: &str = "<!-- mca:end -->";
    let (page, text) = crate::table::marked_page(root, START)?;
    let (a, b) = match (text.find(START), text.find(END)) {
        (Some(a), Some(b)) if a < b => (a + START.len(), b),
        _ => {
            return Err(format!(
                "{} lacks the {START} ... {END} markers",
                page.display()
            ));
        }
    };
    let new = format!("{}\n{}\n{}", &text[..a], md.trim_end(), &text[b..]);
    fs::write(&page, new).map_err(|e| format!("{}: {e}", page.display()))
}
