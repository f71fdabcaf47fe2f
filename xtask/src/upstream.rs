//! `cargo xtask upstream-tests`: the published crates' own test suites against ours.
//!
//! - `polyval` 0.7.3, `ghash` 0.6.0 and `aes-gcm` 0.11.1: their `tests/` directories (taken
//!   from the crates.io sources that cargo downloads, never copied into this repository) are
//!   compiled against *our* library source, in scratch packages with the same names, versions
//!   and dev-dependencies.
//! - `aes-gcm-siv` 0.12.1: its whole crate, with `[patch.crates-io] polyval` pointing at ours
//!   (checked with `cargo tree -i polyval`), as a user would patch it in.
//!
//! Everything happens under `target/upstream-check/`.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

const HELP: &str = "\
cargo xtask upstream-tests

Runs the published polyval 0.7.3, ghash 0.6.0 and aes-gcm 0.11.1 test suites against our
crates, and aes-gcm-siv 0.12.1's suite with our polyval patched in (needs crates.io).
";

/// `(name, version)` of the crates whose sources are fetched.
const UPSTREAM: &[(&str, &str)] = &[
    ("polyval", "0.7.3"),
    ("ghash", "0.6.0"),
    ("aes-gcm", "0.11.1"),
    ("aes-gcm-siv", "0.12.1"),
];

pub fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{HELP}");
        return Ok(());
    }
    let root = workspace_root()?;
    let work = target_dir(&root).join("upstream-check");
    fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let sources = fetch_sources(&work)?;
    let crates = root.join("crates");
    let c = |p: &str| crates.join(p).display().to_string();

    let mut failed = Vec::new();
    let mut check = |name: &str, ok: Result<(), String>| match ok {
        Ok(()) => println!("upstream-tests: {name}: ok"),
        Err(e) => {
            println!("upstream-tests: {name}: FAILED ({e})");
            failed.push(name.to_owned());
        }
    };

    // Each scratch package: our library source under upstream's tests and dev-dependencies.
    let polyval_manifest = format!(
        r#"[package]
name = "polyval"
version = "0.7.3"
edition = "2024"
[lib]
path = "{src}/src/lib.rs"
[features]
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
        src = c("polyval"),
        core = c("clmul-core")
    );
    check(
        "polyval 0.7.3 tests/ on our polyval",
        scratch(
            &work,
            "polyval",
            &polyval_manifest,
            &sources["polyval"],
            &[],
        ),
    );

    let ghash_manifest = format!(
        r#"[package]
name = "ghash"
version = "0.6.0"
edition = "2024"
[lib]
path = "{src}/src/lib.rs"
[dependencies]
polyval = {{ path = "{polyval}", features = ["hazmat"] }}
clmul-core = {{ path = "{core}" }}
[dev-dependencies]
hex-literal = "1"
"#,
        src = c("ghash"),
        polyval = c("polyval"),
        core = c("clmul-core")
    );
    check(
        "ghash 0.6.0 tests/ on our ghash",
        scratch(&work, "ghash", &ghash_manifest, &sources["ghash"], &[]),
    );

    let gcm_manifest = format!(
        r#"[package]
name = "aes-gcm"
version = "0.11.1"
edition = "2024"
[lib]
path = "{src}/src/lib.rs"
[features]
default = ["aes", "alloc", "getrandom"]
aes = ["dep:aes"]
alloc = ["aead/alloc"]
arrayvec = ["aead/arrayvec"]
bytes = ["aead/bytes"]
getrandom = ["aead/getrandom"]
hazmat = []
rand_core = ["aead/rand_core"]
zeroize = ["dep:zeroize", "aes?/zeroize", "ghash/zeroize"]
[dependencies]
aead = {{ version = "0.6", default-features = false }}
cipher = "0.5"
ctutils = "0.4"
ghash = {{ path = "{ghash}", default-features = false }}
clmul-core = {{ path = "{core}" }}
aes = {{ version = "0.9", optional = true }}
zeroize = {{ version = "1", optional = true, default-features = false }}
[dev-dependencies]
aead = {{ version = "0.6", features = ["alloc", "dev"], default-features = false }}
hex-literal = "1"
"#,
        src = c("gcm"),
        ghash = c("ghash"),
        core = c("clmul-core")
    );
    check(
        "aes-gcm 0.11.1 tests/ on our aes-gcm",
        scratch(
            &work,
            "aes-gcm",
            &gcm_manifest,
            &sources["aes-gcm"],
            &["--all-features"],
        ),
    );

    check(
        "aes-gcm-siv 0.12.1 with our polyval patched in",
        siv(&work, &sources["aes-gcm-siv"], &c("polyval")),
    );

    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
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

fn siv(work: &Path, src: &Path, polyval: &str) -> Result<(), String> {
    let dir = work.join("aes-gcm-siv");
    let _ = fs::remove_dir_all(&dir);
    copy_dir(src, &dir)?;
    let _ = fs::remove_file(dir.join("Cargo.lock"));
    let manifest = dir.join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    text.push_str(&format!(
        "\n[workspace]\n\n[patch.crates-io]\npolyval = {{ path = \"{polyval}\" }}\n"
    ));
    // The copy keeps the registry's read-only mode: replace the file rather than write to it.
    fs::remove_file(&manifest).map_err(|e| e.to_string())?;
    fs::write(&manifest, text).map_err(|e| e.to_string())?;
    let tree = Command::new("cargo")
        .args(["tree", "-i", "polyval"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .output()
        .map_err(|e| e.to_string())?;
    let tree = String::from_utf8_lossy(&tree.stdout);
    if !tree.contains(polyval) {
        return Err(format!(
            "the patch was not used: `cargo tree -i polyval` says {tree:?}"
        ));
    }
    cargo_test(&dir, work, &[])
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
/// directories, as cargo unpacked them.
fn fetch_sources(work: &Path) -> Result<std::collections::HashMap<&'static str, PathBuf>, String> {
    let dir = work.join("fetch");
    fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let mut manifest = String::from(
        "[package]\nname = \"upstream-fetch\"\nversion = \"0.0.0\"\nedition = \"2024\"\n[dependencies]\n",
    );
    for (name, version) in UPSTREAM {
        manifest.push_str(&format!("{name} = \"={version}\"\n"));
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
        found.insert(*name, src);
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

pub fn workspace_root() -> Result<PathBuf, String> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").map_err(|_| "run through `cargo xtask`")?;
    Path::new(&manifest)
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "xtask has no parent directory".to_owned())
}

pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}
