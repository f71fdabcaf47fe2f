//! `cargo xtask bench`'s comparison that one bench binary cannot make: RustCrypto's
//! `aes-gcm-siv` 0.12.1 and 0.11.1 as published, against the same crates with our `polyval`
//! 0.7 / 0.6 patched in (issue #12's targets).
//!
//! Two scratch packages under `target/siv-polyval/` build `benches/upstream/siv_polyval.rs`,
//! one plain and one with `[patch.crates-io]` entries for both `polyval`s (checked with
//! `cargo tree -i`, as `upstream-tests` does). Both write into the main criterion directory
//! (rows `rustcrypto` and `rustcrypto+our-polyval` of the groups `polyval-patched-*`), where
//! the `report` tool finds them.

use std::{fs, path::Path, process::Command};

/// The row names of the two builds.
pub const UNPATCHED: &str = "rustcrypto";
pub const PATCHED: &str = "rustcrypto+our-polyval";

/// Builds and runs both scratch benches (`pin`: on CPU 1 at real-time priority, as the main
/// benches with `--pin`).
pub fn run(root: &Path, target: &Path, pin: bool, criterion_args: &[String]) -> Result<(), String> {
    let work = target.join("siv-polyval");
    let path = |p: &str| root.join(p).display().to_string();
    for (variant, imp, patch) in [("unpatched", UNPATCHED, false), ("patched", PATCHED, true)] {
        let dir = work.join(variant);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut manifest = format!(
            r#"[package]
name = "siv-polyval-{variant}"
version = "0.0.0"
edition = "2024"
publish = false

[dev-dependencies]
aes-gcm-siv = "=0.12.1"
aes-gcm-siv-011 = {{ package = "aes-gcm-siv", version = "=0.11.1" }}
criterion = {{ version = "0.8", default-features = false, features = ["cargo_bench_support"] }}
benches = {{ path = "{benches}", default-features = false }}

[[bench]]
name = "siv_polyval"
path = "{source}"
harness = false

[workspace]
"#,
            benches = path("benches"),
            source = path("benches/upstream/siv_polyval.rs"),
        );
        if patch {
            manifest.push_str(&format!(
                "\n[patch.crates-io]\npolyval = {{ path = \"{}\" }}\n\
                 polyval-06 = {{ package = \"polyval\", path = \"{}\" }}\n",
                path("crates/polyval"),
                path("aead-0.5/polyval"),
            ));
        }
        fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
        fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
        fs::write(dir.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
        let cargo = |args: &[&str]| {
            let mut c = Command::new("cargo");
            c.args(args)
                .current_dir(&dir)
                .env("CARGO_TARGET_DIR", work.join("target"));
            c
        };
        for (spec, ours) in [
            ("polyval@0.7.3", "crates/polyval"),
            ("polyval@0.6.2", "aead-0.5/polyval"),
        ] {
            let out = cargo(&["tree", "-e", "normal,dev", "-i", spec])
                .output()
                .map_err(|e| e.to_string())?;
            let tree = String::from_utf8_lossy(&out.stdout);
            if tree.contains(&path(ours)) != patch {
                return Err(format!("{variant}: `cargo tree -i {spec}` says {tree:?}"));
            }
        }
        crate::proc::status(&mut cargo(&["bench", "--bench", "siv_polyval", "--no-run"]))?;
        let mut run = if pin {
            let mut c = Command::new("chrt");
            c.args(["-f", "1", "taskset", "-c", "1", "cargo"]);
            c
        } else {
            Command::new("cargo")
        };
        run.args(["bench", "--bench", "siv_polyval", "--"])
            .args(criterion_args)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", work.join("target"))
            .env("CRITERION_HOME", target.join("criterion"))
            .env("SIV_BENCH_IMPL", imp);
        crate::proc::status(&mut run)?;
    }
    Ok(())
}
