//! The headline's cookie rows: `cookie` 0.18.1's private jar (feature `private`) with our
//! `aes-gcm` 0.10 patched in, against the published crate on RustCrypto's `aes-gcm` 0.10.3.
//!
//! One `cargo` graph holds only one `aes-gcm` 0.10, so the bench program,
//! `benches/cookie/main.rs`, is built twice, in two scratch workspaces under
//! `<target>/cookie-bench/` (`published/`, and `ours/` with a `[patch.crates-io]` entry for
//! `aead-0.5/aes-gcm`; each checked with `cargo tree -i`, as `upstream-tests` does), with
//! dependencies from crates.io only. Both start from `aead-0.5/Cargo.lock`, so that the
//! dependencies they share with our crates are the versions our tests ran with. The headline
//! bench runs the two binaries as child processes and times them interleaved (see
//! `benches/benches/headline.rs`).

use std::{fs, path::Path, process::Command};

/// The scratch workspaces' manifest: `{variant}`, `{source}` and `{patch}` filled in.
const MANIFEST: &str = r#"# Written by `cargo xtask bench` (xtask/src/bench_cookie.rs); rewritten on every run.
[package]
name = "cookie-bench-{variant}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
cookie = { version = "=0.18.1", features = ["private"] }
# The aes-gcm 0.10 that cookie takes, pinned (ours, when patched in, is 0.10.3 too).
aes-gcm = "=0.10.3"

[[bin]]
name = "cookie-bench-{variant}"
path = "{source}"

[workspace]
{patch}"#;

/// Writes and checks both scratch workspaces and builds them in release mode with `env` (the
/// LTO profile's variables, or none); returns the paths of the binaries, ours first.
pub fn build(root: &Path, target: &Path, env: &[(&str, &str)]) -> Result<(String, String), String> {
    let work = target.join("cookie-bench");
    let build_dir = work.join("target");
    let source = root.join("benches/cookie/main.rs");
    let ours = root.join("aead-0.5/aes-gcm");
    let lock = root.join("aead-0.5/Cargo.lock");
    let mut bins = Vec::new();
    for (variant, patched) in [("ours", true), ("published", false)] {
        let dir = work.join(variant);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let patch = if patched {
            format!(
                "\n[patch.crates-io]\naes-gcm = {{ path = \"{}\" }}\n",
                ours.display()
            )
        } else {
            String::new()
        };
        let manifest = MANIFEST
            .replace("{variant}", variant)
            .replace("{source}", &source.display().to_string())
            .replace("{patch}", &patch);
        fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| format!("{variant}: {e}"))?;
        fs::copy(&lock, dir.join("Cargo.lock")).map_err(|e| format!("{}: {e}", lock.display()))?;
        let cargo = |args: &[&str]| {
            let mut c = Command::new("cargo");
            c.args(args)
                .current_dir(&dir)
                .env("CARGO_TARGET_DIR", &build_dir);
            for (k, v) in env {
                c.env(k, v);
            }
            c
        };
        let out = cargo(&["tree", "-e", "normal", "-i", "aes-gcm@0.10.3"])
            .output()
            .map_err(|e| format!("cargo tree: {e}"))?;
        let tree = String::from_utf8_lossy(&out.stdout);
        let is_ours = tree.contains(&ours.display().to_string());
        if !out.status.success() || is_ours != patched || !tree.contains("cookie v0.18.1") {
            return Err(format!(
                "cookie bench ({variant}): `cargo tree -i aes-gcm@0.10.3` says {tree:?}{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        crate::proc::status(&mut cargo(&["build", "--release", "--quiet"]))?;
        let bin = build_dir.join("release").join(format!(
            "cookie-bench-{variant}{}",
            std::env::consts::EXE_SUFFIX
        ));
        if !bin.is_file() {
            return Err(format!("cookie bench: {} was not built", bin.display()));
        }
        bins.push(bin.display().to_string());
    }
    let published = bins.pop().expect("two builds");
    let ours = bins.pop().expect("two builds");
    Ok((ours, published))
}
