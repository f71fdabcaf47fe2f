//! `cargo xtask cross-test`: the tests of both workspaces (the main one and `aead-0.5/`, the
//! aead 0.5 generation) on big- and little-endian targets under QEMU, the x86 dispatch ladder,
//! and Miri.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use crate::proc::{self, Outcome};

pub const HELP: &str = "\
cargo xtask cross-test [OPTIONS]

Runs the tests of both workspaces (the main one, and aead-0.5/: polyval 0.6,
ghash 0.5, aes-gcm 0.10; rows marked `aead-0.5`) where the host cannot, then
prints a table of target x mode x result x seconds and exits non-zero if any
row failed:

  qemu     the cross targets under QEMU user-mode: big-endian s390x, powerpc64,
           powerpc; little-endian aarch64 (`qemu-aarch64 -cpu max`: PMULL, ARMv8
           AES and SHA3's EOR3 run; again on `-cpu cortex-a72`, without SHA3;
           plus a run forced portable with --cfg polyval_backend=\"soft\"),
           i686, armv7, riscv64gc; with aarch64, a build check of the libraries
           on big-endian aarch64_be (nightly, -Zbuild-std; no run)
  ladder   the x86_64 test binaries (built once, baseline target features),
           natively and under `qemu-x86_64` with QEMU_CPU = qemu64, Westmere,
           SandyBridge, Haswell, Icelake-Server; CLMUL_EXPECT_CPU = the model
  miri     `cargo +nightly miri test` over clmul-core, polyval, ghash: on the
           host, on big-endian s390x, and on the host with the x86 kernels'
           target features enabled at compile time

Options:
  --target T      run only this cross target (repeatable; the architecture,
                  e.g. `s390x` or `riscv64`, is enough). With --target, the
                  ladder and Miri run only if --ladder / --miri is given too.
  --quick         the reduced CI set: s390x (both workspaces), aarch64 and
                  Cortex-A72 (the main workspace), the aarch64_be build check,
                  the ladder's QEMU models without the native run
                  (SandyBridge, Haswell and Icelake-Server, which reach
                  Westmere's tiers under QEMU, run the detection test only;
                  the aead 0.5 workspace on qemu64 only); no forced-portable
                  cross row and no Miri (add --miri for the full Miri runs)
  --install       install what is missing: Debian packages (qemu-user,
                  gcc-<triple>, libc6-dev-<arch>-cross, via apt-get, with sudo
                  when not root), rustup targets, the nightly toolchain
  --allow-missing mark rows whose tools are missing as skipped, not failed
  --no-cross      skip the QEMU cross targets
  --no-ladder     skip the x86 ladder         --ladder  run it even with --target
  --no-miri       skip Miri                   --miri    run it even with --target
  --miri-only     only Miri (same as --no-cross --no-ladder)
  --list          print the targets, runners and packages, and exit
  --dry-run       print the commands without running them
  --lean          delete a build directory (target/<triple>, cross-soft, miri,
                  miri-features) once no later row uses it: `cargo xtask test`
                  passes it, so that a CI machine's disk holds one build at a time
  -h, --help      print this message

Without --install a missing tool is reported as one line, e.g.
  missing: qemu-s390x (apt-get install qemu-user)
The Miri components (miri, rust-src) are always added when missing.

Builds go to the workspace target directory (or CARGO_TARGET_DIR); runs that
change RUSTFLAGS use sub-directories (cross-soft, miri-features) so the normal
build cache stays warm.
";

/// A cross target run under QEMU user-mode.
#[derive(Debug)]
pub struct Target {
    pub triple: &'static str,
    /// GNU triple: the gcc prefix (`<gnu>-gcc`) and the sysroot (`/usr/<gnu>`).
    pub gnu: &'static str,
    pub qemu: &'static str,
    /// The QEMU `-cpu` model, if not the default; also passed to the tests as
    /// `CLMUL_EXPECT_CPU`.
    pub qemu_cpu: Option<&'static str>,
    /// Debian package with the target's crt1.o and libc.so.
    pub libc_dev: &'static str,
    pub big_endian: bool,
    /// Also run with the portable backend forced: the default run only reaches it where the
    /// CPU lacks the SIMD features, which no QEMU aarch64 model does.
    pub soft_run: bool,
    /// Also run the `aead-0.5/` workspace (a second CPU model of a target runs the main one
    /// only: the generations share the kernels and their dispatch).
    pub old_too: bool,
}

pub const TARGETS: &[Target] = &[
    Target {
        triple: "s390x-unknown-linux-gnu",
        gnu: "s390x-linux-gnu",
        qemu: "qemu-s390x",
        qemu_cpu: None,
        libc_dev: "libc6-dev-s390x-cross",
        big_endian: true,
        soft_run: false,
        old_too: true,
    },
    Target {
        triple: "powerpc64-unknown-linux-gnu",
        gnu: "powerpc64-linux-gnu",
        qemu: "qemu-ppc64",
        qemu_cpu: None,
        libc_dev: "libc6-dev-ppc64-cross",
        big_endian: true,
        soft_run: false,
        old_too: true,
    },
    Target {
        triple: "powerpc-unknown-linux-gnu",
        gnu: "powerpc-linux-gnu",
        qemu: "qemu-ppc",
        qemu_cpu: None,
        libc_dev: "libc6-dev-powerpc-cross",
        big_endian: true,
        soft_run: false,
        old_too: true,
    },
    Target {
        triple: "aarch64-unknown-linux-gnu",
        gnu: "aarch64-linux-gnu",
        qemu: "qemu-aarch64",
        qemu_cpu: Some("max"),
        libc_dev: "libc6-dev-arm64-cross",
        big_endian: false,
        soft_run: true,
        old_too: true,
    },
    // The same binaries on a core without FEAT_SHA3 (Cortex-A72: Raspberry Pi 4, Graviton 1),
    // where the plain ARMv8 engine and PMULL backend are the ones detected.
    Target {
        triple: "aarch64-unknown-linux-gnu",
        gnu: "aarch64-linux-gnu",
        qemu: "qemu-aarch64",
        qemu_cpu: Some("cortex-a72"),
        libc_dev: "libc6-dev-arm64-cross",
        big_endian: false,
        soft_run: false,
        old_too: false,
    },
    Target {
        triple: "i686-unknown-linux-gnu",
        gnu: "i686-linux-gnu",
        qemu: "qemu-i386",
        qemu_cpu: None,
        libc_dev: "libc6-dev-i386-cross",
        big_endian: false,
        soft_run: false,
        old_too: true,
    },
    Target {
        triple: "armv7-unknown-linux-gnueabihf",
        gnu: "arm-linux-gnueabihf",
        qemu: "qemu-arm",
        qemu_cpu: None,
        libc_dev: "libc6-dev-armhf-cross",
        big_endian: false,
        soft_run: false,
        old_too: true,
    },
    Target {
        triple: "riscv64gc-unknown-linux-gnu",
        gnu: "riscv64-linux-gnu",
        qemu: "qemu-riscv64",
        qemu_cpu: None,
        libc_dev: "libc6-dev-riscv64-cross",
        big_endian: false,
        soft_run: false,
        old_too: true,
    },
];

/// The build check's target ([`Job::BuildStd`]): aarch64 big-endian, tier 3 (no prebuilt
/// standard library, no C library here to link tests against).
const BUILD_STD_TARGET: &str = "aarch64_be-unknown-linux-gnu";

/// The libraries the build check compiles.
const BUILD_STD_PACKAGES: &[&str] = &[
    "clmul-core",
    "polyval",
    "ghash",
    "aead-engines",
    "aes-gcm",
    "aes-gcm-siv",
];

/// `--quick`: one big-endian target and the one with SIMD intrinsics.
const QUICK_TARGETS: &[&str] = &["s390x-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

/// The quick set's targets that run the aead 0.5 workspace too: the big-endian one. On
/// aarch64 that generation runs the engines the main workspace's rows test, through the
/// glue both generations share (`aead_engines::glue`); the full run has its rows.
const QUICK_OLD_TARGETS: &[&str] = &["s390x-unknown-linux-gnu"];

/// Packages left out of every test run here: `benches` is criterion benchmarks against the
/// peers (nothing to test, slow to build) and `xtask` is this program.
const EXCLUDE: &[&str] = &["benches", "xtask"];

/// Packages additionally left out on the QEMU cross targets, with the reason. Everything else
/// in the workspace, in particular `clmul-core`, `polyval`, `ghash` and `aes-gcm`, is tested.
/// (`interop-tests` compares against the published RustCrypto crates and ring; ring's C and
/// assembly cross-build with the `<triple>-gcc` passed as `CC_<triple>`, checked on all seven
/// targets. Put a package here if it gains a dependency such as aws-lc-rs, whose build script
/// needs cmake and clang for cross targets; `benches`, which has it, is excluded anyway.)
const CROSS_EXCLUDE: &[&str] = &[];

/// The QEMU CPU models of the x86 dispatch ladder, oldest first, with the tier each one is the
/// first to reach: qemu64 has neither PCLMULQDQ nor AES (portable), Westmere adds PCLMULQDQ and
/// AES-NI, SandyBridge AVX, Haswell AVX2, Icelake-Server VAES. No QEMU model has VPCLMULQDQ or
/// AVX-512; those tiers run natively (when the host has them) and under Miri.
const LADDER: &[&str] = &[
    "qemu64",
    "Westmere",
    "SandyBridge",
    "Haswell",
    "Icelake-Server",
];

/// The rung `--quick` runs for the aead 0.5 generation: no SIMD tier (the others reach the
/// AES-NI engine, which that workspace's tests run natively in `cargo xtask test`).
const LADDER_QUICK_OLD: &[&str] = &["qemu64"];

/// The rungs on which `--quick` runs only the detection test (`aead-engines`' `detection`):
/// under QEMU's TCG each reaches the engine and backend Westmere does (AES-NI, `pclmul`; the
/// test asserts that per model), so the whole suite there would run the same code again. The
/// full ladder runs every suite on every rung.
const LADDER_QUICK_DETECTION_ONLY: &[&str] = &["SandyBridge", "Haswell", "Icelake-Server"];

const HOST: &str = "x86_64-unknown-linux-gnu";

/// Miri runs the portable code: under Miri runtime feature detection is always false.
const MIRI_PACKAGES: &[&str] = &["clmul-core", "polyval", "ghash"];
const MIRI_BIG_ENDIAN: &str = "s390x-unknown-linux-gnu";

/// Enabled at compile time for the Miri run over the x86 kernels: compile-time features make
/// runtime detection true, and Miri implements these intrinsics (not the aarch64 PMULL one).
const MIRI_X86_FEATURES: &str = "-C target-feature=+pclmulqdq,+sse2,+ssse3,+avx,+avx2,\
                                 +vpclmulqdq,+avx512f,+avx512bw,+avx512vl,+gfni,+aes,+vaes";

/// The `cfg`s that force the portable backend in every crate of both workspaces.
const SOFT_CFG: &str = crate::test::SOFT_RUSTFLAGS;

/// The second workspace (the aead 0.5 generation), relative to the root; its
/// `.cargo/config.toml` shares the root's target directory.
const OLD_WORKSPACE: &str = "aead-0.5";

#[derive(Debug, Default)]
pub struct Options {
    targets: Vec<&'static Target>,
    quick: bool,
    install: bool,
    allow_missing: bool,
    cross: bool,
    ladder: bool,
    miri: bool,
    list: bool,
    dry_run: bool,
    lean: bool,
}

impl Options {
    /// Parses the arguments after `cross-test`; `Ok(None)` means `--help`.
    pub fn parse(args: &[String]) -> Result<Option<Options>, String> {
        let mut opts = Options::default();
        let (mut no_cross, mut no_ladder, mut no_miri) = (false, false, false);
        let (mut want_ladder, mut want_miri) = (false, false);
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            if inline.is_some() && flag != "--target" {
                return Err(format!("`{flag}` takes no value"));
            }
            match flag {
                "-h" | "--help" => return Ok(None),
                "--target" => {
                    let name = match inline {
                        Some(v) => v,
                        None => args.next().ok_or("--target needs a value")?.clone(),
                    };
                    // Every row of the triple (aarch64 has one per CPU model).
                    let triple = find_target(&name)?.triple;
                    for target in TARGETS.iter().filter(|t| t.triple == triple) {
                        if !opts.targets.iter().any(|t| std::ptr::eq(*t, target)) {
                            opts.targets.push(target);
                        }
                    }
                }
                "--quick" => opts.quick = true,
                "--install" => opts.install = true,
                "--lean" => opts.lean = true,
                "--allow-missing" => opts.allow_missing = true,
                "--no-cross" => no_cross = true,
                "--no-ladder" => no_ladder = true,
                "--no-miri" => no_miri = true,
                "--ladder" => want_ladder = true,
                "--miri" => want_miri = true,
                "--miri-only" => (no_cross, no_ladder, want_miri) = (true, true, true),
                "--list" => opts.list = true,
                "--dry-run" => opts.dry_run = true,
                _ => return Err(format!("unknown option `{arg}`")),
            }
        }
        let picked = !opts.targets.is_empty();
        if !picked {
            opts.targets = TARGETS
                .iter()
                .filter(|t| !opts.quick || QUICK_TARGETS.contains(&t.triple))
                .collect();
        }
        opts.cross = !no_cross;
        opts.ladder = !no_ladder && (!picked || want_ladder);
        // The quick set runs no Miri unless asked (`--miri`): on its big-endian target
        // clmul-core compiles no `unsafe` code (every block is in the x86 and aarch64
        // kernels), so Miri there checks what the s390x row's tests check; the full run keeps
        // Miri on the host, on s390x, and over the x86 kernels with their features enabled.
        opts.miri = !no_miri && (!(picked || opts.quick) || want_miri);
        Ok(Some(opts))
    }
}

/// Looks a target up by its triple, its architecture (`s390x`, `powerpc`, `armv7`) or a
/// unique prefix of the architecture (`riscv64`, `arm`).
fn find_target(name: &str) -> Result<&'static Target, String> {
    let arch = |t: &Target| t.triple.split('-').next().unwrap_or_default().to_string();
    let exact = TARGETS.iter().find(|t| t.triple == name || arch(t) == name);
    if let Some(t) = exact {
        return Ok(t);
    }
    let matches: Vec<_> = TARGETS
        .iter()
        .filter(|t| !name.is_empty() && arch(t).starts_with(name))
        .collect();
    match matches[..] {
        [t] => Ok(t),
        _ => Err(format!(
            "unknown target `{name}`; known: {}",
            TARGETS
                .iter()
                .map(|t| t.triple)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// One row of the result table.
#[derive(Debug)]
enum Job {
    Cross {
        target: &'static Target,
        soft: bool,
        /// The `aead-0.5/` workspace instead of the main one.
        old: bool,
    },
    /// `None` is the native run, which also builds the binaries the QEMU runs reuse (changing
    /// the runner does not rebuild). A failed build still lets the ladder run what did build.
    Ladder {
        cpu: Option<&'static str>,
        /// The `aead-0.5/` workspace instead of the main one.
        old: bool,
        /// Only `aead-engines`' detection test (see [`LADDER_QUICK_DETECTION_ONLY`]).
        detection_only: bool,
    },
    Miri {
        target: Option<&'static str>,
        packages: &'static [&'static str],
        features: bool,
    },
    /// A build check (no run) of the libraries on a target without a prebuilt standard
    /// library, with the nightly toolchain's `-Zbuild-std`: big-endian aarch64, where the
    /// fused engines and the PMULL backends are compiled out.
    BuildStd { target: &'static str },
}

impl Job {
    fn target(&self) -> &'static str {
        match self {
            Job::Cross { target, .. } => target.triple,
            Job::Ladder { .. } => HOST,
            Job::Miri { target, .. } => target.unwrap_or(HOST),
            Job::BuildStd { target } => target,
        }
    }

    /// Whether the job runs the `aead-0.5/` workspace.
    fn old(&self) -> bool {
        match self {
            Job::Cross { old, .. } | Job::Ladder { old, .. } => *old,
            Job::Miri { .. } | Job::BuildStd { .. } => false,
        }
    }

    fn mode(&self) -> String {
        let mode = match self {
            Job::Cross { target, soft, .. } => match (soft, target.qemu_cpu) {
                (true, _) => "qemu soft".to_string(),
                (false, Some(cpu)) => format!("qemu -cpu {cpu}"),
                (false, None) => "qemu".to_string(),
            },
            Job::Ladder { cpu: None, .. } => "native".to_string(),
            Job::Ladder {
                cpu: Some(cpu),
                detection_only: true,
                ..
            } => format!("ladder {cpu} (detection)"),
            Job::Ladder { cpu: Some(cpu), .. } => format!("ladder {cpu}"),
            Job::BuildStd { .. } => "check (build-std)".to_string(),
            Job::Miri {
                packages, features, ..
            } => {
                let mut mode = "miri".to_string();
                if *features {
                    mode.push_str(" +features");
                }
                if *packages != MIRI_PACKAGES {
                    mode.push_str(&format!(" ({})", packages.join(",")));
                }
                mode
            }
        };
        if self.old() {
            format!("{mode} {OLD_WORKSPACE}")
        } else {
            mode
        }
    }
}

fn plan(opts: &Options) -> Vec<Job> {
    let mut jobs = Vec::new();
    if opts.cross {
        for &target in &opts.targets {
            let old_too =
                target.old_too && (!opts.quick || QUICK_OLD_TARGETS.contains(&target.triple));
            for old in [false, true].into_iter().filter(|&o| !o || old_too) {
                jobs.push(Job::Cross {
                    target,
                    soft: false,
                    old,
                });
                // The quick set runs no forced-portable cross row: the portable code is the
                // same Rust on every little-endian target, and `cargo xtask test` runs it
                // forced on the host (both workspaces) and, by default, on big-endian s390x.
                if target.soft_run && !opts.quick {
                    jobs.push(Job::Cross {
                        target,
                        soft: true,
                        old,
                    });
                }
            }
        }
    }
    if opts.cross
        && opts
            .targets
            .iter()
            .any(|t| t.triple == "aarch64-unknown-linux-gnu")
    {
        jobs.push(Job::BuildStd {
            target: BUILD_STD_TARGET,
        });
    }
    if opts.ladder {
        for old in [false, true] {
            // The native run, left out of the quick set: `cargo xtask test`, which runs that
            // set, has run the same tests natively in its first step.
            if !opts.quick {
                jobs.push(Job::Ladder {
                    cpu: None,
                    old,
                    detection_only: false,
                });
            }
            // The quick set runs the aead 0.5 generation (the same kernels and dispatch under
            // another API) on the lowest rung only (`LADDER_QUICK_OLD`).
            let rungs = LADDER
                .iter()
                .filter(|&&cpu| !(opts.quick && old) || LADDER_QUICK_OLD.contains(&cpu));
            jobs.extend(rungs.map(|&cpu| Job::Ladder {
                cpu: Some(cpu),
                old,
                detection_only: opts.quick && !old && LADDER_QUICK_DETECTION_ONLY.contains(&cpu),
            }));
        }
    }
    if opts.miri {
        for (target, features) in [(None, false), (Some(MIRI_BIG_ENDIAN), false), (None, true)] {
            jobs.push(Job::Miri {
                target,
                packages: MIRI_PACKAGES,
                features,
            });
        }
    }
    jobs
}

/// Something a job needs that is not there, and how to get it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Missing {
    /// A tool or file from a Debian package.
    Apt {
        what: String,
        package: &'static str,
    },
    RustTarget(&'static str),
    Nightly,
    /// The miri / rust-src components of the nightly toolchain (always added).
    MiriComponents,
    /// Cannot be installed: the job does not apply to this host.
    Unsupported(&'static str),
}

impl Missing {
    fn message(&self) -> String {
        match self {
            Missing::Apt { what, package } => {
                format!("missing: {what} (apt-get install {package})")
            }
            Missing::RustTarget(t) => {
                format!("missing: Rust standard library for {t} (rustup target add {t})")
            }
            Missing::Nightly => "missing: nightly toolchain (rustup toolchain install nightly \
                                 --profile minimal --component miri,rust-src)"
                .to_string(),
            Missing::MiriComponents => "missing: miri (rustup component add miri rust-src \
                                        --toolchain nightly)"
                .to_string(),
            Missing::Unsupported(why) => format!("unsupported: {why}"),
        }
    }

    fn short(&self) -> String {
        match self {
            Missing::Apt { what, .. } => what.clone(),
            Missing::RustTarget(t) => format!("rust-std {t}"),
            Missing::Nightly => "nightly toolchain".to_string(),
            Missing::MiriComponents => "miri".to_string(),
            Missing::Unsupported(why) => why.to_string(),
        }
    }
}

/// The facts about the machine that decide what is missing, gathered once.
struct Host {
    rust_targets: BTreeSet<String>,
    nightly: bool,
    miri: bool,
}

impl Host {
    fn probe() -> Host {
        let rust_targets =
            proc::output(Command::new("rustup").args(["target", "list", "--installed"]))
                .map(|s| s.lines().map(str::to_string).collect())
                .unwrap_or_else(|| {
                    // No rustup: look into the sysroot of the `rustc` in use.
                    let sysroot = proc::output(rustc().args(["--print", "sysroot"]));
                    let dir = sysroot.map(|s| PathBuf::from(s.trim()).join("lib/rustlib"));
                    dir.and_then(|d| d.read_dir().ok())
                        .map(|rd| {
                            rd.flatten()
                                .filter(|e| e.path().join("lib").is_dir())
                                .map(|e| e.file_name().to_string_lossy().into_owned())
                                .collect()
                        })
                        .unwrap_or_default()
                });
        let nightly = proc::output(Command::new("rustup").args(["toolchain", "list"]))
            .is_some_and(|s| s.lines().any(|l| l.starts_with("nightly")));
        let miri = nightly
            && proc::output(Command::new("rustup").args([
                "component",
                "list",
                "--installed",
                "--toolchain",
                "nightly",
            ]))
            .is_some_and(|s| {
                s.lines().any(|l| l.starts_with("miri")) && s.lines().any(|l| l == "rust-src")
            });
        Host {
            rust_targets,
            nightly,
            miri,
        }
    }

    fn missing(&self, job: &Job) -> Vec<Missing> {
        let mut missing = Vec::new();
        match job {
            Job::Cross { target, .. } => {
                if !self.rust_targets.contains(target.triple) {
                    missing.push(Missing::RustTarget(target.triple));
                }
                let gcc = format!("{}-gcc", target.gnu);
                if proc::which(&gcc).is_none() {
                    missing.push(Missing::Apt {
                        what: gcc,
                        package: leak(format!("gcc-{}", target.gnu)),
                    });
                }
                let crt1 = Path::new("/usr").join(target.gnu).join("lib/crt1.o");
                if !crt1.exists() {
                    missing.push(Missing::Apt {
                        what: crt1.display().to_string(),
                        package: target.libc_dev,
                    });
                }
                if proc::which(target.qemu).is_none() {
                    missing.push(Missing::Apt {
                        what: target.qemu.to_string(),
                        package: "qemu-user",
                    });
                }
            }
            Job::Ladder { cpu, .. } => {
                if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
                    missing.push(Missing::Unsupported("host is not x86_64 Linux"));
                } else if cpu.is_some() && proc::which("qemu-x86_64").is_none() {
                    missing.push(Missing::Apt {
                        what: "qemu-x86_64".to_string(),
                        package: "qemu-user",
                    });
                }
            }
            Job::BuildStd { .. } => {
                if !self.nightly {
                    missing.push(Missing::Nightly);
                } else if !self.miri {
                    // rust-src comes with the Miri components.
                    missing.push(Missing::MiriComponents);
                }
            }
            Job::Miri { features, .. } => {
                if *features && !cfg!(target_arch = "x86_64") {
                    missing.push(Missing::Unsupported("host is not x86_64"));
                } else if !self.nightly {
                    missing.push(Missing::Nightly);
                } else if !self.miri {
                    missing.push(Missing::MiriComponents);
                }
            }
        }
        missing
    }
}

/// Package names are built from the target table, once per run; leaking them keeps
/// [`Missing`] a plain value type.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Installs what `missing` lists (Debian packages only with `--install`); returns false if an
/// install command failed.
fn install(missing: &BTreeSet<Missing>, opts: &Options) -> bool {
    let mut ok = true;
    let components = missing.contains(&Missing::MiriComponents);
    if components && !opts.dry_run {
        ok &= proc::run_plain(Command::new("rustup").args([
            "component",
            "add",
            "miri",
            "rust-src",
            "--toolchain",
            "nightly",
        ]));
    }
    if !opts.install || opts.dry_run {
        return ok;
    }
    let packages: BTreeSet<&str> = missing
        .iter()
        .filter_map(|m| match m {
            Missing::Apt { package, .. } => Some(*package),
            _ => None,
        })
        .collect();
    if !packages.is_empty() {
        if proc::which("apt-get").is_none() {
            eprintln!(
                "error: --install needs apt-get (Debian/Ubuntu); install by hand: {packages:?}"
            );
            ok = false;
        } else {
            let packages: Vec<&str> = packages.into_iter().collect();
            ok &= crate::tools::apt_install(&packages);
        }
    }
    let targets: Vec<&str> = missing
        .iter()
        .filter_map(|m| match m {
            Missing::RustTarget(t) => Some(*t),
            _ => None,
        })
        .collect();
    if !targets.is_empty() {
        ok &= proc::run_plain(
            Command::new("rustup")
                .args(["target", "add"])
                .args(&targets),
        );
    }
    if missing.contains(&Missing::Nightly) {
        ok &= proc::run_plain(Command::new("rustup").args([
            "toolchain",
            "install",
            "nightly",
            "--profile",
            "minimal",
            "--component",
            "miri,rust-src",
        ]));
    }
    ok
}

/// The result of one row.
#[derive(Debug)]
enum Status {
    Ok,
    Fail(String),
    Skipped(String),
}

struct Row {
    target: &'static str,
    mode: String,
    status: Status,
    seconds: f64,
    /// Failed test names, printed in full under the table.
    details: Vec<String>,
}

pub fn run(opts: &Options) -> ExitCode {
    if opts.list {
        print_list();
        return ExitCode::SUCCESS;
    }
    let jobs = plan(opts);
    if jobs.is_empty() {
        eprintln!("nothing to run (all of cross, ladder and miri are disabled)");
        return ExitCode::from(2);
    }

    let mut host = Host::probe();
    let all_missing: BTreeSet<Missing> = jobs.iter().flat_map(|j| host.missing(j)).collect();
    let installable = all_missing
        .iter()
        .any(|m| !matches!(m, Missing::Unsupported(_)));
    if installable {
        let wanted = opts.install || all_missing.contains(&Missing::MiriComponents);
        if wanted && !install(&all_missing, opts) {
            eprintln!("warning: installing failed; rows that still lack a tool will fail");
        }
        if wanted {
            host = Host::probe();
        }
    }
    let still_missing: BTreeSet<Missing> = jobs.iter().flat_map(|j| host.missing(j)).collect();
    for m in &still_missing {
        eprintln!("{}", m.message());
    }
    if still_missing
        .iter()
        .any(|m| !matches!(m, Missing::Unsupported(_)))
        && !opts.install
    {
        eprintln!("(run with --install to install the missing tools)");
    }

    let ws = Workspace::locate();
    let mut rows: Vec<Row> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let missing = host.missing(job);
        let mut row = Row {
            target: job.target(),
            mode: job.mode(),
            status: Status::Ok,
            seconds: 0.0,
            details: Vec::new(),
        };
        if !missing.is_empty() {
            let what: Vec<String> = missing.iter().map(Missing::short).collect();
            let unsupported = missing.iter().all(|m| matches!(m, Missing::Unsupported(_)));
            row.status = if unsupported || opts.allow_missing {
                Status::Skipped(what.join(", "))
            } else {
                Status::Fail(format!("missing {}", what.join(", ")))
            };
            rows.push(row);
            continue;
        }

        let mut cmd = ws.command(job);
        eprintln!("\n==> {} ({})", row.target, row.mode);
        if opts.dry_run {
            eprintln!("$ {}", proc::display(&cmd));
            row.status = Status::Skipped("dry run".to_string());
            rows.push(row);
            continue;
        }
        let start = Instant::now();
        let outcome = proc::run_scanned(&mut cmd);
        row.seconds = start.elapsed().as_secs_f64();
        (row.status, row.details) = judge(outcome);
        rows.push(row);
        if opts.lean {
            let later: Vec<PathBuf> = jobs[i + 1..].iter().map(|j| ws.build_dir(j)).collect();
            let dir = ws.build_dir(job);
            // The host's own directory (the ladder's, and the cross builds' build scripts)
            // stays: it is the one the local steps and a developer's `cargo test` use.
            if dir != ws.target_dir.join("debug") && !later.contains(&dir) {
                crate::tools::discard(&dir);
            }
        }
    }

    print_table(&rows);
    write_github_summary(&rows);
    if rows.iter().any(|r| matches!(r.status, Status::Fail(_))) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Turns what a run printed into a row result: the most specific reason first.
fn judge(outcome: Outcome) -> (Status, Vec<String>) {
    if outcome.success {
        return (Status::Ok, Vec::new());
    }
    if let Some(e) = outcome.spawn_error {
        return (Status::Fail(e), Vec::new());
    }
    if !outcome.compile_errors.is_empty() {
        let mut crates = outcome.compile_errors;
        crates.dedup();
        return (
            Status::Fail(format!("build: {}", crates.join(", "))),
            Vec::new(),
        );
    }
    let mut reasons = Vec::new();
    let mut details = Vec::new();
    if !outcome.failed_tests.is_empty() {
        let n = outcome.failed_tests.len();
        reasons.push(format!("{n} test{}", if n == 1 { "" } else { "s" }));
        details.extend(outcome.failed_tests);
    }
    for (which, signal) in &outcome.crashes {
        reasons.push(format!("{signal} in `{which}`"));
    }
    // Binaries that failed without a `FAILED` test line or a signal (e.g. Miri stopping on an
    // unsupported operation) still show up: every failed binary is listed.
    if !outcome.failed_targets.is_empty() {
        reasons.push(format!("in {}", outcome.failed_targets.join(", ")));
        details.extend(
            outcome
                .failed_targets
                .iter()
                .map(|t| format!("(binary) {t}")),
        );
    }
    if reasons.is_empty() {
        reasons.push(
            outcome
                .first_error
                .unwrap_or_else(|| "non-zero exit".to_string()),
        );
    }
    (Status::Fail(reasons.join("; ")), details)
}

/// Paths and programs shared by all jobs.
struct Workspace {
    root: PathBuf,
    target_dir: PathBuf,
    /// The `cargo` that runs this xtask, so `cargo +1.89 xtask` tests with 1.89.
    cargo: OsString,
}

impl Workspace {
    fn locate() -> Workspace {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask/ lives in the workspace root")
            .to_path_buf();
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(|d| root.join(d))
            .unwrap_or_else(|| root.join("target"));
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        Workspace {
            root,
            target_dir,
            cargo,
        }
    }

    /// The directory a job's build writes (besides the host's build scripts in `debug/`).
    fn build_dir(&self, job: &Job) -> PathBuf {
        match job {
            Job::Cross { soft: true, .. } => self.target_dir.join("cross-soft"),
            Job::Cross { target, .. } => self.target_dir.join(target.triple),
            Job::Ladder { .. } => self.target_dir.join("debug"),
            Job::Miri { features: true, .. } => self.target_dir.join("miri-features"),
            Job::Miri { .. } => self.target_dir.join("miri"),
            Job::BuildStd { .. } => self.target_dir.join("build-std"),
        }
    }

    fn command(&self, job: &Job) -> Command {
        let mut cmd;
        match job {
            Job::Cross { target, soft, old } => {
                cmd = Command::new(&self.cargo);
                cmd.args([
                    "test",
                    "--workspace",
                    "--no-fail-fast",
                    "--target",
                    target.triple,
                ]);
                if !old {
                    for p in EXCLUDE.iter().chain(CROSS_EXCLUDE) {
                        cmd.args(["--exclude", p]);
                    }
                }
                let var = target_env_prefix(target.triple);
                let gcc = format!("{}-gcc", target.gnu);
                cmd.env(format!("{var}_LINKER"), &gcc)
                    .env(format!("{var}_RUNNER"), runner(target))
                    // For build scripts that compile C through the `cc` crate.
                    .env(format!("CC_{}", target.triple.replace('-', "_")), &gcc)
                    .env(
                        format!("AR_{}", target.triple.replace('-', "_")),
                        format!("{}-ar", target.gnu),
                    );
                // Not for the soft run: there the model's features are there but unused.
                if let Some(cpu) = target.qemu_cpu.filter(|_| !soft) {
                    cmd.env("CLMUL_EXPECT_CPU", cpu);
                }
                // Warnings denied, as the host's clippy run denies them: code behind this
                // target's `cfg`s (its engines, its fallbacks, its word size) is compiled
                // nowhere else. Only our packages are affected: cargo caps the lints of
                // registry dependencies.
                if *soft {
                    set_rustflags(&mut cmd, &format!("{SOFT_CFG} -D warnings"));
                    cmd.env("CARGO_TARGET_DIR", self.target_dir.join("cross-soft"));
                } else {
                    set_rustflags(&mut cmd, "-D warnings");
                }
            }
            Job::Ladder {
                cpu,
                old,
                detection_only,
            } => {
                cmd = Command::new(&self.cargo);
                // `--tests`: unit and integration tests, not doctests, which are rebuilt on
                // every run and reach no tier the unit tests do not.
                // The detection test through `--workspace` too: the features the workspace
                // unifies are those the other rungs' binaries were built with (no rebuild).
                cmd.args(["test", "--workspace", "--no-fail-fast"]);
                if *detection_only {
                    cmd.args(["--test", "detection"]);
                } else {
                    cmd.arg("--tests");
                }
                if !old {
                    for p in EXCLUDE {
                        cmd.args(["--exclude", p]);
                    }
                }
                // Baseline features only: with compile-time features detection is statically
                // true and the ladder proves nothing.
                cmd.env_remove("RUSTFLAGS")
                    .env_remove("CARGO_ENCODED_RUSTFLAGS");
                if let Some(cpu) = cpu {
                    cmd.env(
                        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
                        "qemu-x86_64",
                    )
                    .env("QEMU_CPU", cpu)
                    .env("CLMUL_EXPECT_CPU", cpu);
                }
            }
            Job::BuildStd { target } => {
                // As for Miri: `cargo +nightly` through the rustup proxy.
                cmd = Command::new("cargo");
                cmd.env_remove("CARGO")
                    .env_remove("RUSTUP_TOOLCHAIN")
                    .args([
                        "+nightly",
                        "check",
                        "-Zbuild-std=core,alloc",
                        "--target",
                        target,
                    ]);
                for p in BUILD_STD_PACKAGES {
                    cmd.args(["-p", p]);
                }
                set_rustflags(&mut cmd, "-D warnings");
                cmd.env("CARGO_TARGET_DIR", self.target_dir.join("build-std"));
            }
            Job::Miri {
                target,
                packages,
                features,
            } => {
                // `cargo +nightly` goes through the rustup proxy; cargo-miri would otherwise
                // pick up the stable cargo that `CARGO` points at.
                cmd = Command::new("cargo");
                cmd.env_remove("CARGO")
                    .env_remove("RUSTUP_TOOLCHAIN")
                    .args(["+nightly", "miri", "test", "--no-fail-fast"]);
                for p in *packages {
                    cmd.args(["-p", p]);
                }
                if let Some(t) = target {
                    cmd.args(["--target", t]);
                }
                if *features {
                    // Doctests too: Miri checks a kernel's features against the crate it runs.
                    set_rustflags(&mut cmd, MIRI_X86_FEATURES);
                    cmd.env("CARGO_TARGET_DIR", self.target_dir.join("miri-features"));
                }
            }
        }
        if job.old() {
            // Its `.cargo/config.toml` points at the root's target directory; an explicit
            // CARGO_TARGET_DIR (the soft runs) is absolute and shared the same way.
            cmd.current_dir(self.root.join(OLD_WORKSPACE));
        } else {
            cmd.current_dir(&self.root);
        }
        cmd
    }
}

/// Sets `RUSTFLAGS` and `RUSTDOCFLAGS` (doctests must agree with the library) to the caller's
/// flags plus `flags`.
fn set_rustflags(cmd: &mut Command, flags: &str) {
    for var in ["RUSTFLAGS", "RUSTDOCFLAGS"] {
        let value = match std::env::var(var) {
            Ok(old) if !old.trim().is_empty() => format!("{old} {flags}"),
            _ => flags.to_string(),
        };
        cmd.env(var, value);
    }
    // It would take precedence over RUSTFLAGS.
    cmd.env_remove("CARGO_ENCODED_RUSTFLAGS");
}

/// The `CARGO_TARGET_<TRIPLE>_RUNNER` value: space-separated, which cargo splits into words.
fn runner(target: &Target) -> String {
    match target.qemu_cpu {
        Some(cpu) => format!("{} -cpu {cpu} -L /usr/{}", target.qemu, target.gnu),
        None => format!("{} -L /usr/{}", target.qemu, target.gnu),
    }
}

/// `s390x-unknown-linux-gnu` -> `CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU`.
fn target_env_prefix(triple: &str) -> String {
    format!(
        "CARGO_TARGET_{}",
        triple.to_ascii_uppercase().replace(['-', '.'], "_")
    )
}

fn print_list() {
    println!(
        "{:<30} {:<6} {:<46} apt packages",
        "target", "endian", "runner"
    );
    for t in TARGETS {
        println!(
            "{:<30} {:<6} {:<46} qemu-user gcc-{} {}",
            t.triple,
            if t.big_endian { "big" } else { "little" },
            runner(t),
            t.gnu,
            t.libc_dev
        );
    }
    println!(
        "\nladder: qemu-x86_64 with QEMU_CPU = {}",
        LADDER.join(", ")
    );
    println!(
        "miri:   cargo +nightly miri test -p {} (host, {MIRI_BIG_ENDIAN}, host +features)",
        MIRI_PACKAGES.join(" -p ")
    );
}

fn status_text(status: &Status) -> String {
    match status {
        Status::Ok => "ok".to_string(),
        Status::Fail(why) => format!("FAIL: {why}"),
        Status::Skipped(why) => format!("skipped: {why}"),
    }
}

fn render_table(rows: &[Row]) -> String {
    const MAX_RESULT: usize = 72;
    let cells: Vec<[String; 4]> = rows
        .iter()
        .map(|r| {
            let mut result = status_text(&r.status);
            if result.chars().count() > MAX_RESULT {
                result = result.chars().take(MAX_RESULT - 3).collect::<String>() + "...";
            }
            [
                r.target.to_string(),
                r.mode.clone(),
                result,
                format!("{:.1}", r.seconds),
            ]
        })
        .collect();
    let cells: Vec<Vec<String>> = cells.into_iter().map(Vec::from).collect();
    let mut out = crate::table::render(&["target", "mode", "result", "seconds"], &cells, 1, true);
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    let failed = rows
        .iter()
        .filter(|r| matches!(r.status, Status::Fail(_)))
        .count();
    let _ = writeln!(
        out,
        "{} rows, {failed} failed, {total:.1} s in total",
        rows.len()
    );
    for r in rows.iter().filter(|r| !r.details.is_empty()) {
        let _ = writeln!(out, "\nfailed, {} ({}):", r.target, r.mode);
        for t in &r.details {
            let _ = writeln!(out, "    {t}");
        }
    }
    out
}

fn print_table(rows: &[Row]) {
    println!("\n{}", render_table(rows));
}

/// On GitHub Actions, also put the table on the run's summary page.
fn write_github_summary(rows: &[Row]) {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") else {
        return;
    };
    let mut md = String::from("| target | mode | result | seconds |\n|---|---|---|---:|\n");
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.1} |",
            r.target,
            r.mode,
            status_text(&r.status).replace('|', "\\|"),
            r.seconds
        );
    }
    use std::io::Write;
    let written = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut f| f.write_all(md.as_bytes()));
    if let Err(e) = written {
        eprintln!("warning: cannot write GITHUB_STEP_SUMMARY: {e}");
    }
}

fn rustc() -> Command {
    Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Options {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        Options::parse(&args).unwrap().unwrap()
    }

    fn triples(o: &Options) -> Vec<&str> {
        o.targets.iter().map(|t| t.triple).collect()
    }

    #[test]
    fn default_runs_everything() {
        let o = parse(&[]);
        assert_eq!(o.targets.len(), TARGETS.len());
        assert!(o.cross && o.ladder && o.miri);
        // 7 targets + aarch64 soft, native + 5 models, each for both workspaces; aarch64 on
        // Cortex-A72 for the main one; the aarch64_be build check; 3 Miri runs.
        assert_eq!(plan(&o).len(), 2 * (8 + 6) + 1 + 1 + 3);
    }

    #[test]
    fn quick_is_the_ci_set() {
        let o = parse(&["--quick"]);
        assert_eq!(
            triples(&o),
            [QUICK_TARGETS[0], QUICK_TARGETS[1], QUICK_TARGETS[1]]
        );
        let modes: Vec<String> = plan(&o)
            .iter()
            .map(|j| format!("{} {}", j.target(), j.mode()))
            .collect();
        assert!(!modes.contains(&"aarch64-unknown-linux-gnu qemu soft".to_string()));
        assert!(!modes.contains(&"x86_64-unknown-linux-gnu native".to_string()));
        assert!(modes.contains(&"aarch64-unknown-linux-gnu qemu -cpu cortex-a72".to_string()));
        assert!(modes.contains(&"aarch64_be-unknown-linux-gnu check (build-std)".to_string()));
        assert!(!modes.iter().any(|m| m.contains("miri")));
        assert!(modes.contains(&"s390x-unknown-linux-gnu qemu aead-0.5".to_string()));
        assert!(modes.contains(&"x86_64-unknown-linux-gnu ladder Westmere".to_string()));
        assert!(modes.contains(&"x86_64-unknown-linux-gnu ladder Haswell (detection)".to_string()));
        assert!(modes.contains(&"x86_64-unknown-linux-gnu ladder qemu64 aead-0.5".to_string()));
        assert!(!modes.contains(&"x86_64-unknown-linux-gnu ladder Haswell aead-0.5".to_string()));
        assert!(!modes.contains(&"aarch64-unknown-linux-gnu qemu -cpu max aead-0.5".to_string()));
        assert!(
            !modes.contains(&"x86_64-unknown-linux-gnu ladder Icelake-Server aead-0.5".to_string())
        );
        // The main workspace's 2 cross rows and Cortex-A72, s390x for aead-0.5; the aarch64_be
        // check; the ladder's 5 models, and qemu64 for aead-0.5.
        assert!(!modes.contains(&"aarch64-unknown-linux-gnu qemu soft aead-0.5".to_string()));
        assert_eq!(modes.len(), 3 + 1 + 1 + 5 + 1);
    }

    #[test]
    fn target_narrows_the_run() {
        let o = parse(&[
            "--target",
            "s390x",
            "--target=powerpc-unknown-linux-gnu",
            "--install",
        ]);
        assert_eq!(
            triples(&o),
            ["s390x-unknown-linux-gnu", "powerpc-unknown-linux-gnu"]
        );
        assert!(o.install && o.cross && !o.ladder && !o.miri);
        let o = parse(&["--target", "aarch64", "--ladder"]);
        assert!(o.ladder && !o.miri);
    }

    #[test]
    fn miri_only() {
        let o = parse(&["--miri-only"]);
        assert!(!o.cross && !o.ladder && o.miri);
        let o = parse(&["--miri-only", "--target", "s390x"]);
        assert!(!o.cross && !o.ladder && o.miri);
    }

    #[test]
    fn rejects_bad_arguments() {
        let bad = |args: &[&str]| {
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            Options::parse(&args).is_err()
        };
        assert!(bad(&["--target"]));
        assert!(bad(&["--target", "mips"]));
        assert!(bad(&["--target", "x"]));
        assert!(bad(&["--target", ""]));
        assert!(bad(&["--frobnicate"]));
        assert!(bad(&["--quick=yes"]));
    }

    #[test]
    fn target_names() {
        let one = |name: &str| parse(&["--target", name]).targets[0].triple;
        // An exact architecture wins over being a prefix of `powerpc64`.
        assert_eq!(one("powerpc"), "powerpc-unknown-linux-gnu");
        assert_eq!(one("powerpc64"), "powerpc64-unknown-linux-gnu");
        assert_eq!(one("riscv64"), "riscv64gc-unknown-linux-gnu");
        assert_eq!(one("arm"), "armv7-unknown-linux-gnueabihf");
        assert_eq!(one("i686-unknown-linux-gnu"), "i686-unknown-linux-gnu");
    }

    #[test]
    fn env_names() {
        assert_eq!(
            target_env_prefix("armv7-unknown-linux-gnueabihf"),
            "CARGO_TARGET_ARMV7_UNKNOWN_LINUX_GNUEABIHF"
        );
    }

    #[test]
    fn quick_set_is_in_the_table() {
        for q in QUICK_TARGETS {
            assert!(TARGETS.iter().any(|t| t.triple == *q));
        }
        assert!(
            TARGETS
                .iter()
                .any(|t| t.triple == MIRI_BIG_ENDIAN && t.big_endian)
        );
    }

    #[test]
    fn table_renders() {
        let rows = [
            Row {
                target: "s390x-unknown-linux-gnu",
                mode: "qemu".into(),
                status: Status::Ok,
                seconds: 12.34,
                details: vec![],
            },
            Row {
                target: HOST,
                mode: "ladder Haswell".into(),
                status: Status::Fail("1 test".into()),
                seconds: 1.0,
                details: vec!["x86::tests::avx2".into()],
            },
        ];
        let t = render_table(&rows);
        assert!(t.contains("s390x-unknown-linux-gnu   qemu            ok"));
        assert!(t.contains("FAIL: 1 test"));
        assert!(t.contains("2 rows, 1 failed"));
        assert!(t.contains("    x86::tests::avx2"));
    }
}
