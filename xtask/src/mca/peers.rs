//! The peers' loops: which functions of ring's and aws-lc-sys's assembly hold them, where
//! cargo keeps those sources, how they are assembled, and their rows; and the standalone
//! GHASH loops (ours and aws-lc's) on the ARM models.

use super::*;

/// A peer's stitched loop: the crate (its version from `Cargo.lock`) and the file of its
/// assembly, the functions holding its AES-128 and AES-256 loops (one function for both where
/// the round count is a branch in the loop), and the models it is compared on: each with our
/// engine that model runs.
pub(super) struct PeerFn {
    pub(super) name: &'static str,
    pub(super) arch: Arch,
    pub(super) krate: &'static str,
    pub(super) file: &'static str,
    pub(super) aes128: &'static str,
    pub(super) aes256: &'static str,
    /// `(model, our engine's name in [`ENGINES`])`: the CPUs whose users get this loop.
    pub(super) versus: &'static [(&'static str, &'static str)],
    /// The models with the loop's instructions (`None`: every model of `arch`), as
    /// [`EngineFn::needs`].
    pub(super) needs: Option<&'static [&'static str]>,
}

pub(super) const PEERS: &[PeerFn] = &[
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
        needs: Some(&["znver4", "sapphirerapids"]),
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
        needs: Some(&["znver4", "sapphirerapids"]),
    },
    PeerFn {
        name: "ring VAES-AVX2",
        arch: Arch::X86,
        krate: "ring",
        file: "pregenerated/aes-gcm-avx2-x86_64-elf.S",
        aes128: "aes_gcm_enc_update_vaes_avx2",
        aes256: "aes_gcm_enc_update_vaes_avx2",
        versus: &[("znver3", "VAES-256"), ("alderlake", "VAES-256")],
        needs: Some(&["znver4", "znver3", "sapphirerapids", "alderlake"]),
    },
    PeerFn {
        name: "ring VAES-AVX2, decrypt",
        arch: Arch::X86,
        krate: "ring",
        file: "pregenerated/aes-gcm-avx2-x86_64-elf.S",
        aes128: "aes_gcm_dec_update_vaes_avx2",
        aes256: "aes_gcm_dec_update_vaes_avx2",
        versus: &[("znver3", "VAES-256"), ("alderlake", "VAES-256")],
        needs: Some(&["znver4", "znver3", "sapphirerapids", "alderlake"]),
    },
    PeerFn {
        name: "ring AES-NI (6x)",
        arch: Arch::X86,
        krate: "ring",
        file: "pregenerated/aesni-gcm-x86_64-elf.S",
        aes128: "_aesni_ctr32_ghash_6x",
        aes256: "_aesni_ctr32_ghash_6x",
        versus: &[("skylake", "AES-NI")],
        needs: None,
    },
    PeerFn {
        name: "aws-lc unroll8",
        arch: Arch::Arm,
        krate: "aws-lc-sys",
        file: "aws-lc/generated-src/linux-aarch64/crypto/fipsmodule/aesv8-gcm-armv8-unroll8.S",
        aes128: "aesv8_gcm_8x_enc_128",
        aes256: "aesv8_gcm_8x_enc_256",
        versus: &[("neoverse-v1", "ARMv8 EOR3"), ("neoverse-v2", "ARMv8 EOR3")],
        needs: Some(&["neoverse-v1", "neoverse-v2"]),
    },
    PeerFn {
        name: "aws-lc unroll8, decrypt",
        arch: Arch::Arm,
        krate: "aws-lc-sys",
        file: "aws-lc/generated-src/linux-aarch64/crypto/fipsmodule/aesv8-gcm-armv8-unroll8.S",
        aes128: "aesv8_gcm_8x_dec_128",
        aes256: "aesv8_gcm_8x_dec_256",
        versus: &[("neoverse-v1", "ARMv8 EOR3"), ("neoverse-v2", "ARMv8 EOR3")],
        needs: Some(&["neoverse-v1", "neoverse-v2"]),
    },
    PeerFn {
        name: "ring 4-way",
        arch: Arch::Arm,
        krate: "ring",
        file: "pregenerated/aesv8-gcm-armv8-linux64.S",
        aes128: "aes_gcm_enc_kernel",
        aes256: "aes_gcm_enc_kernel",
        versus: &[("neoverse-n1", "ARMv8")],
        needs: None,
    },
    PeerFn {
        name: "ring 4-way, decrypt",
        arch: Arch::Arm,
        krate: "ring",
        file: "pregenerated/aesv8-gcm-armv8-linux64.S",
        aes128: "aes_gcm_dec_kernel",
        aes256: "aes_gcm_dec_kernel",
        versus: &[("neoverse-n1", "ARMv8")],
        needs: None,
    },
];

/// A GHASH loop without AES (the standalone `ghash` crate's, and a peer's): where its code
/// is, the function, and the bytes one iteration hashes.
pub(super) struct HashFn {
    pub(super) name: &'static str,
    /// `None`: ours, in `clmul-core`'s test binary (where its generic kernels are
    /// instantiated for every backend); else a peer's `(crate, file)` as in [`PeerFn`].
    pub(super) source: Option<(&'static str, &'static str)>,
    pub(super) symbol: &'static str,
    pub(super) bytes: usize,
    /// The models it runs on (`None`: every ARM model).
    pub(super) needs: Option<&'static [&'static str]>,
}

pub(super) const HASHES: &[HashFn] = &[
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

/// The peers' rows: each peer's loop and, per model, its AES-128 and AES-256 results (`None`
/// where the model lacks the loop's instructions or is not the peer's architecture).
pub(super) type PeerRow = (&'static PeerFn, Loop, Vec<Option<(Mca, Mca)>>);

pub(super) fn peer_rows(
    tools: &Tools,
    registry: &Registry,
    models: &[(&str, Arch)],
    install: bool,
) -> Result<Vec<PeerRow>, String> {
    let mut objects: HashMap<&str, Vec<Func>> = HashMap::new();
    let mut rows = Vec::new();
    for p in PEERS {
        if !objects.contains_key(p.file) {
            let obj = registry.assemble(p.krate, p.file, p.arch, install)?;
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
            if arch != p.arch || p.needs.is_some_and(|n| !n.contains(&model)) {
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

/// The GHASH loops' table on the ARM models: a header and a row per loop of [`HASHES`].
pub(super) fn hash_rows(
    tools: &Tools,
    registry: &Registry,
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
    let ours = disassemble(
        &tools.objdump,
        &clmul_tests(&registry.root, dir, build, install)?,
        Arch::Arm,
    )?;
    let mut head = vec!["loop".to_string()];
    head.extend(arm.iter().map(|m| m.to_string()));
    let mut rows = Vec::new();
    for h in HASHES {
        let theirs;
        let funcs = match h.source {
            None => &ours,
            Some((krate, file)) => {
                let obj = registry.assemble(krate, file, Arch::Arm, install)?;
                theirs = disassemble(&tools.objdump, &obj, Arch::Arm)?;
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

/// Builds `clmul-core`'s tests for aarch64 (release, v0 symbols; linked with
/// `aarch64-linux-gnu-gcc` against the cross C library, which `install` gets with apt-get
/// when missing) and returns the backend tests' executable, which instantiates every
/// backend's kernels.
pub(super) fn clmul_tests(
    root: &Path,
    dir: &Path,
    run: bool,
    install: bool,
) -> Result<PathBuf, String> {
    let deps = dir.join(Arch::Arm.triple()).join("release/deps");
    if run {
        if install && !Path::new("/usr/aarch64-linux-gnu/lib/crti.o").exists() {
            // A failure shows as the link's error below.
            let _ = crate::tools::apt_install(&["libc6-dev-arm64-cross"]);
        }
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

/// Where cargo keeps the sources of the peers' crates (at the versions the workspace's
/// `Cargo.lock` names) and where their assembled objects go.
pub(super) struct Registry {
    /// The workspace root.
    pub(super) root: PathBuf,
    /// Cargo's `registry/src`, which holds a directory per index.
    src: PathBuf,
    lock: String,
    /// The objects' directory.
    out: PathBuf,
}

impl Registry {
    pub(super) fn new(root: &Path, dir: &Path) -> Result<Registry, String> {
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .ok_or("neither CARGO_HOME nor HOME is set")?;
        let lock =
            fs::read_to_string(root.join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
        let out = dir.join("peers");
        fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        Ok(Registry {
            root: root.to_path_buf(),
            src: home.join("registry/src"),
            lock,
            out,
        })
    }

    /// The crate's directory: `<index>/<name>-<version>` for the version in `Cargo.lock`;
    /// fetched with `cargo fetch` when missing.
    fn krate(&self, name: &str) -> Result<PathBuf, String> {
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
        // Read each time: the fetch may add the index's directory.
        let look = || {
            fs::read_dir(&self.src)
                .ok()?
                .flatten()
                .map(|e| e.path().join(&want))
                .find(|d| d.is_dir())
        };
        if let Some(d) = look() {
            return Ok(d);
        }
        proc::run_plain(Command::new("cargo").arg("fetch").current_dir(&self.root));
        look().ok_or_else(|| format!("{want}: not in cargo's registry after `cargo fetch`"))
    }

    /// Assembles `file` of the crate `krate` into an object, with the C compiler of `arch`
    /// (`cc` for x86_64, `aarch64-linux-gnu-gcc` for aarch64, with SHA3 allowed): the headers
    /// from the crate's `include/` directories, and an empty one for ring's generated
    /// symbol-prefix header (the loops do not depend on symbol names).
    pub(super) fn assemble(
        &self,
        krate: &str,
        file: &str,
        arch: Arch,
        install: bool,
    ) -> Result<PathBuf, String> {
        let dir = self.krate(krate)?;
        let stub = self.out.join("stub");
        let prefix = stub.join("ring_core_generated");
        fs::create_dir_all(&prefix).map_err(|e| format!("{}: {e}", prefix.display()))?;
        fs::write(prefix.join("prefix_symbols_asm.h"), "")
            .map_err(|e| format!("{}: {e}", prefix.display()))?;
        let (cc, flags): (&str, &[&str]) = match arch {
            Arch::X86 => ("cc", &[]),
            Arch::Arm => ("aarch64-linux-gnu-gcc", &["-march=armv8.2-a+crypto+sha3"]),
        };
        if install && arch == Arch::Arm {
            // A failure is reported below, where the compiler is looked for.
            let _ = crate::tools::ensure_apt(cc, "gcc-aarch64-linux-gnu");
        }
        if proc::which(cc).is_none() {
            return Err(format!(
                "{cc} not found: it assembles the peers' loops (--install, or --no-peers)"
            ));
        }
        let stem = Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let obj = self.out.join(format!("{krate}-{stem}.o"));
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
            .arg(dir.join(file));
        if !proc::run_plain(&mut cmd) {
            return Err(format!("assembling {file} failed"));
        }
        Ok(obj)
    }
}
