//! `cargo xtask upstream-tests`: the published crates' own test suites against ours.
//!
//! - `polyval` 0.7.3, `ghash` 0.6.0 and `aes-gcm` 0.11.1: their `tests/` directories (taken
//!   from the crates.io sources that cargo downloads, never copied into this repository) are
//!   compiled against *our* library source, in scratch packages with the same names, versions
//!   and dev-dependencies.
//! - `aes-gcm-siv` 0.12.1: its `tests/` on our `aes-gcm-siv` (the scratch manifest made from
//!   ours and from upstream's dev-dependencies), and its whole crate with `[patch.crates-io]
//!   polyval` pointing at ours (checked with `cargo tree -i polyval`), as a user would patch it
//!   in.
//! - The aead 0.5 generation the same way: `polyval` 0.6.2, `ghash` 0.5.1 and `aes-gcm` 0.10.3
//!   `tests/` on our `aead-0.5/` sources; `aes-gcm-siv` 0.11.1's `tests/` on our `aes-gcm-siv`
//!   0.11, and its whole crate with our `polyval` 0.6 patched in; and a real client, `cookie` 0.18 with feature `private` (its AES-256-GCM
//!   cookie encryption), its whole suite with our `aes-gcm` 0.10 patched in (checked with
//!   `cargo tree -i aes-gcm`).
//!
//! Everything happens under `target/upstream-check/`.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use crate::proc::{target_dir, workspace_root};

const HELP: &str = "\
cargo xtask upstream-tests [--only WORD]...

Runs the published polyval 0.7.3 / 0.6.2, ghash 0.6.0 / 0.5.1, aes-gcm 0.11.1 / 0.10.3 and
aes-gcm-siv 0.12.1 / 0.11.1 test suites against our crates of both generations, aes-gcm-siv
0.12.1's and 0.11.1's whole crates with our polyval 0.7 / 0.6 patched in, and cookie 0.18's
suite (feature `private`) with our aes-gcm 0.10 patched in (needs crates.io).

  --only WORD  run only the checks whose name contains WORD (e.g. `siv`, `0.11`)
";

/// `(name, version)` of the crates whose sources are fetched.
const UPSTREAM: &[(&str, &str)] = &[
    ("polyval", "0.7.3"),
    ("ghash", "0.6.0"),
    ("aes-gcm", "0.11.1"),
    ("aes-gcm-siv", "0.12.1"),
    ("polyval", "0.6.2"),
    ("ghash", "0.5.1"),
    ("aes-gcm", "0.10.3"),
    ("aes-gcm-siv", "0.11.1"),
    ("cookie", "0.18.2"),
];

pub fn run(args: &[String]) -> Result<(), String> {
    let mut only: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            "--only" => only.push(it.next().ok_or("--only needs a word")?.clone()),
            other => return Err(format!("unknown option `{other}`\n{HELP}")),
        }
    }
    let root = workspace_root()?;
    let work = target_dir(&root).join("upstream-check");
    fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let sources = fetch_sources(&work)?;
    let crates = root.join("crates");
    let c = |p: &str| crates.join(p).display().to_string();
    let old = root.join("aead-0.5");
    let o = |p: &str| old.join(p).display().to_string();

    let mut failed = Vec::new();
    let mut report = |name: &str, ok: Result<(), String>| match ok {
        Ok(()) => println!("upstream-tests: {name}: ok"),
        Err(e) => {
            println!("upstream-tests: {name}: FAILED ({e})");
            failed.push(name.to_owned());
        }
    };
    // Each check runs only if its name contains every `--only` word.
    let mut check = |name: &str, run: &dyn Fn() -> Result<(), String>| {
        if only.iter().all(|w| name.contains(w.as_str())) {
            report(name, run());
        }
    };

    // Each scratch package: our library source under upstream's tests and dev-dependencies.
    let polyval_manifest = scratch_manifest(
        "polyval",
        "0.7.3",
        &c("polyval"),
        &format!(
            r#"[features]
default = ["hazmat"]
hazmat = []
zeroize = ["dep:zeroize", "clmul-core/zeroize"]
[dependencies]
clmul-core = {{ path = "{core}" }}
universal-hash = "0.6"
zeroize = {{ version = "1", optional = true, default-features = false }}
[dev-dependencies]
hex-literal = "1"
proptest = "1.9"
"#,
            core = c("clmul-core")
        ),
    );
    check("polyval 0.7.3 tests/ on our polyval", &|| {
        scratch(
            &work,
            "polyval",
            &polyval_manifest,
            &sources["polyval-0.7.3"],
            &[],
        )
    });

    let ghash_manifest = scratch_manifest(
        "ghash",
        "0.6.0",
        &c("ghash"),
        &format!(
            r#"[dependencies]
polyval = {{ path = "{polyval}", features = ["hazmat"] }}
clmul-core = {{ path = "{core}" }}
[dev-dependencies]
hex-literal = "1"
"#,
            polyval = c("polyval"),
            core = c("clmul-core")
        ),
    );
    check("ghash 0.6.0 tests/ on our ghash", &|| {
        scratch(
            &work,
            "ghash",
            &ghash_manifest,
            &sources["ghash-0.6.0"],
            &[],
        )
    });

    let gcm_manifest = scratch_manifest(
        "aes-gcm",
        "0.11.1",
        &c("gcm"),
        &format!(
            r#"[features]
default = ["aes", "alloc", "getrandom"]
aes = ["dep:aes"]
alloc = ["aead/alloc"]
arrayvec = ["aead/arrayvec"]
bytes = ["aead/bytes"]
getrandom = ["aead/getrandom"]
hazmat = []
rand_core = ["aead/rand_core"]
zeroize = ["dep:zeroize", "aes?/zeroize", "ghash/zeroize", "aead-engines/zeroize"]
[dependencies]
aead = {{ version = "0.6", default-features = false }}
cipher = "0.5"
ctutils = "0.4"
ghash = {{ path = "{ghash}", default-features = false }}
clmul-core = {{ path = "{core}" }}
aead-engines = {{ path = "{engines}", features = ["cipher-0.5"] }}
aes = {{ version = "0.9", optional = true }}
zeroize = {{ version = "1", optional = true, default-features = false }}
[dev-dependencies]
aead = {{ version = "0.6", features = ["alloc", "dev"], default-features = false }}
hex-literal = "1"
"#,
            ghash = c("ghash"),
            core = c("clmul-core"),
            engines = c("aead-engines")
        ),
    );
    check("aes-gcm 0.11.1 tests/ on our aes-gcm", &|| {
        scratch(
            &work,
            "aes-gcm",
            &gcm_manifest,
            &sources["aes-gcm-0.11.1"],
            &["--all-features"],
        )
    });

    check("aes-gcm-siv 0.12.1 with our polyval patched in", &|| {
        patched(
            &work,
            &sources["aes-gcm-siv-0.12.1"],
            "polyval",
            &c("polyval"),
            &[],
        )
    });
    check("aes-gcm-siv 0.12.1 tests/ on our aes-gcm-siv", &|| {
        ours_under_their_tests(
            &work,
            "aes-gcm-siv",
            &crates.join("gcm-siv"),
            &sources["aes-gcm-siv-0.12.1"],
            &["--all-features"],
        )
    });

    // The aead 0.5 generation.
    let polyval06_manifest = scratch_manifest(
        "polyval",
        "0.6.2",
        &o("polyval"),
        &format!(
            r#"[features]
std = ["universal-hash/std"]
zeroize = ["dep:zeroize", "clmul-core/zeroize"]
[dependencies]
clmul-core = {{ path = "{core}" }}
universal-hash = {{ version = "0.5", default-features = false }}
zeroize = {{ version = "1", optional = true, default-features = false }}
[dev-dependencies]
hex-literal = "0.3"
"#,
            core = c("clmul-core")
        ),
    );
    check("polyval 0.6.2 tests/ on our polyval 0.6", &|| {
        scratch(
            &work,
            "polyval-0.6",
            &polyval06_manifest,
            &sources["polyval-0.6.2"],
            &["--all-features"],
        )
    });

    let ghash05_manifest = scratch_manifest(
        "ghash",
        "0.5.1",
        &o("ghash"),
        &format!(
            r#"[features]
std = ["polyval/std"]
zeroize = ["dep:zeroize", "clmul-core/zeroize"]
[dependencies]
polyval = {{ path = "{polyval}" }}
clmul-core = {{ path = "{core}" }}
zeroize = {{ version = "1", optional = true, default-features = false }}
[dev-dependencies]
hex-literal = "0.3"
"#,
            polyval = o("polyval"),
            core = c("clmul-core")
        ),
    );
    check("ghash 0.5.1 tests/ on our ghash 0.5", &|| {
        scratch(
            &work,
            "ghash-0.5",
            &ghash05_manifest,
            &sources["ghash-0.5.1"],
            &["--all-features"],
        )
    });

    let gcm010_manifest = scratch_manifest(
        "aes-gcm",
        "0.10.3",
        &o("aes-gcm"),
        &format!(
            r#"[features]
default = ["aes", "alloc", "getrandom"]
aes = ["dep:aes"]
std = ["aead/std", "alloc"]
alloc = ["aead/alloc"]
arrayvec = ["aead/arrayvec"]
getrandom = ["aead/getrandom", "rand_core"]
heapless = ["aead/heapless"]
rand_core = ["aead/rand_core"]
stream = ["aead/stream"]
zeroize = ["dep:zeroize", "aead-engines/zeroize"]
[dependencies]
aead = {{ version = "0.5", default-features = false }}
aes = {{ version = "0.8", optional = true }}
cipher = "0.4"
ghash = {{ path = "{ghash}", default-features = false }}
clmul-core = {{ path = "{core}" }}
aead-engines = {{ path = "{engines}", features = ["cipher-0.4"] }}
zeroize = {{ version = "1", optional = true, default-features = false }}
[dev-dependencies]
aead = {{ version = "0.5", features = ["dev"], default-features = false }}
hex-literal = "0.3"
"#,
            ghash = o("ghash"),
            core = c("clmul-core"),
            engines = c("aead-engines")
        ),
    );
    check("aes-gcm 0.10.3 tests/ on our aes-gcm 0.10", &|| {
        scratch(
            &work,
            "aes-gcm-0.10",
            &gcm010_manifest,
            &sources["aes-gcm-0.10.3"],
            &["--all-features"],
        )
    });

    check(
        "aes-gcm-siv 0.11.1 with our polyval 0.6 patched in",
        &|| {
            patched(
                &work,
                &sources["aes-gcm-siv-0.11.1"],
                "polyval",
                &o("polyval"),
                &[],
            )
        },
    );
    check("aes-gcm-siv 0.11.1 tests/ on our aes-gcm-siv 0.11", &|| {
        ours_under_their_tests(
            &work,
            "aes-gcm-siv-0.11",
            &old.join("aes-gcm-siv"),
            &sources["aes-gcm-siv-0.11.1"],
            &["--all-features"],
        )
    });
    check(
        "cookie 0.18 (feature `private`) with our aes-gcm 0.10 patched in",
        &|| {
            patched(
                &work,
                &sources["cookie-0.18.2"],
                "aes-gcm",
                &o("aes-gcm"),
                &["--features", "private"],
            )
        },
    );

    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
}

/// A scratch package's manifest: `name` and `version` as upstream's, our library source from
/// `lib` (a package directory), then `body` (features and dependencies).
fn scratch_manifest(name: &str, version: &str, lib: &str, body: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2024\"\n\
         [lib]\npath = \"{lib}/src/lib.rs\"\n{body}"
    )
}

/// [`scratch`] with a manifest made from two others, so neither is written out again here: our
/// package's `[features]` and `[dependencies]` (from `ours/Cargo.toml`, relative paths made
/// absolute), and the published crate's name, version and `[dev-dependencies]` (from its
/// normalized `src/Cargo.toml`).
fn ours_under_their_tests(
    work: &Path,
    name: &str,
    ours: &Path,
    src: &Path,
    extra: &[&str],
) -> Result<(), String> {
    let read = |p: &Path| fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let our_manifest = read(&ours.join("Cargo.toml"))?;
    let their_manifest = read(&src.join("Cargo.toml"))?;
    let field = |key: &str| {
        their_manifest
            .lines()
            .find_map(|l| {
                l.strip_prefix(key)?
                    .trim()
                    .strip_prefix('=')?
                    .trim()
                    .strip_prefix('"')?
                    .strip_suffix('"')
            })
            .ok_or_else(|| format!("{}: no `{key}`", src.display()))
    };
    let ours_abs = ours.display().to_string();
    let mut body = String::new();
    for section in toml_sections(&our_manifest, |h| h == "features" || h == "dependencies") {
        // `path = "../x"` is relative to our package; the scratch package lives elsewhere.
        body.push_str(&section.replace("path = \"../", &format!("path = \"{ours_abs}/../")));
    }
    for section in toml_sections(&their_manifest, |h| h.starts_with("dev-dependencies")) {
        body.push_str(&section);
    }
    let manifest = scratch_manifest(field("name")?, field("version")?, &ours_abs, &body);
    scratch(work, name, &manifest, src, extra)
}

/// The `[header]` sections of a manifest whose header `keep` accepts, each with its header.
fn toml_sections(manifest: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut keeping = false;
    for line in manifest.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            keeping = !h.starts_with('[') && keep(h);
            if keeping {
                out.push(String::new());
            }
        }
        if keeping && let Some(last) = out.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    out
}

/// A package in `work/<name>` with `manifest`, upstream's `tests/` copied from `src`, tested.
fn scratch(
    work: &Path,
    name: &str,
    manifest: &str,
    src: &Path,
    extra: &[&str],
) -> Result<(), String> {
    let dir = work.join(format!("ours-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    fs::write(dir.join("Cargo.toml"), format!("{manifest}\n[workspace]\n"))
        .map_err(|e| e.to_string())?;
    copy_dir(&src.join("tests"), &dir.join("tests"))?;
    cargo_test(&dir, work, extra)
}

/// A published crate's whole package (`src`, copied to `work/<dir name>`), tested with
/// `[patch.crates-io] <name> = { path = <ours> }` as a user would patch it in; `cargo tree -i`
/// must show that our package (its path) is the one in the graph. `extra` goes to both
/// `cargo tree` and `cargo test` (features).
fn patched(work: &Path, src: &Path, name: &str, ours: &str, extra: &[&str]) -> Result<(), String> {
    let dir = work.join(src.file_name().ok_or("source without a name")?);
    let _ = fs::remove_dir_all(&dir);
    copy_dir(src, &dir)?;
    let _ = fs::remove_file(dir.join("Cargo.lock"));
    let manifest = dir.join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    text.push_str(&format!(
        "\n[workspace]\n\n[patch.crates-io]\n{name} = {{ path = \"{ours}\" }}\n"
    ));
    // The copy keeps the registry's read-only mode: replace the file rather than write to it.
    fs::remove_file(&manifest).map_err(|e| e.to_string())?;
    fs::write(&manifest, text).map_err(|e| e.to_string())?;
    let tree = Command::new("cargo")
        .args(["tree", "-i", name])
        .args(extra)
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .output()
        .map_err(|e| e.to_string())?;
    let tree = String::from_utf8_lossy(&tree.stdout);
    if !tree.contains(ours) {
        return Err(format!(
            "the patch was not used: `cargo tree -i {name}` says {tree:?}"
        ));
    }
    cargo_test(&dir, work, extra)
}

fn cargo_test(dir: &Path, work: &Path, extra: &[&str]) -> Result<(), String> {
    let status = Command::new("cargo")
        .arg("test")
        .args(extra)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .status()
        .map_err(|e| format!("cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo test exited with {status}"))
    }
}

/// Downloads the upstream crates (through a throwaway manifest) and returns their source
/// directories, as cargo unpacked them, keyed `<name>-<version>`.
fn fetch_sources(work: &Path) -> Result<std::collections::HashMap<String, PathBuf>, String> {
    let dir = work.join("fetch");
    fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let mut manifest = String::from(
        "[package]\nname = \"upstream-fetch\"\nversion = \"0.0.0\"\nedition = \"2024\"\n[dependencies]\n",
    );
    for (name, version) in UPSTREAM {
        // Two versions of one package need two keys.
        manifest.push_str(&format!(
            "{name}-{} = {{ package = \"{name}\", version = \"={version}\" }}\n",
            version.replace('.', "-")
        ));
    }
    manifest.push_str("\n[workspace]\n");
    fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    fs::write(dir.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    let out = Command::new("cargo")
        .args(["metadata", "--format-version", "1"])
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let json = String::from_utf8_lossy(&out.stdout);
    let mut found = std::collections::HashMap::new();
    for (name, version) in UPSTREAM {
        // The registry unpacks each crate to `.../<name>-<version>/Cargo.toml`.
        let needle = format!("{name}-{version}/Cargo.toml\"");
        let path = json
            .split("\"manifest_path\":\"")
            .skip(1)
            .map(|s| &s[..s.find('"').unwrap_or(0) + 1])
            .find(|p| p.ends_with(&needle))
            .ok_or_else(|| format!("{name} {version}: not in cargo metadata"))?;
        let manifest = PathBuf::from(path.trim_end_matches('"'));
        let src = manifest
            .parent()
            .ok_or("manifest without a directory")?
            .to_path_buf();
        found.insert(format!("{name}-{version}"), src);
    }
    Ok(found)
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target).map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}
