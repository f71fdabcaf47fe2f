//! `cargo xtask patch-recipe`: proves README's `[patch.crates-io]` recipe works for both
//! generations at once, by `git` and by `path`.
//!
//! The repository's committed `HEAD` is cloned (`git clone file://...`) into
//! `target/patch-recipe/repo`, where two packages are named `aes-gcm` (0.11.1 in `crates/gcm`,
//! 0.10.3 in `aead-0.5/aes-gcm`), two `polyval`, two `ghash` and two `aes-gcm-siv`. A consumer
//! package depends on `aes-gcm` 0.10 and 0.11 (renamed), `polyval` 0.6 and 0.7, `ghash` 0.5 and
//! 0.6, `aes-gcm-siv` 0.11 and 0.12, all from
//! crates.io, and patches them with README's block: one entry per package per generation, each
//! with a `version` key (cargo refuses a git patch that matches two versions without one), the
//! second generation under a second key with `package = "..."`. Then:
//!
//! 1. `cargo tree` must show each of the eight packages at the right version from the clone;
//! 2. the same patch without the `version` key must be refused (so the keys are what picks the
//!    package, not luck);
//! 3. a small program that encrypts with both `aes-gcm`s and both `aes-gcm-siv`s and hashes
//!    with both `polyval`s and `ghash`es is built and run (it checks they agree and that decryption round-trips);
//! 4. the `path` form of the recipe must resolve to the working tree's packages.

use std::{fs, path::Path, process::Command};

use crate::proc::{target_dir, workspace_root};

/// The eight packages: (name, version, dependency key in the consumer, directory). Also the
/// list `cargo xtask test` builds without `std` (`test::no_std_builds`).
pub(crate) const PACKAGES: &[(&str, &str, &str, &str)] = &[
    ("aes-gcm", "0.10.3", "aes-gcm", "aead-0.5/aes-gcm"),
    ("aes-gcm", "0.11.1", "aes-gcm-011", "crates/gcm"),
    ("polyval", "0.6.2", "polyval", "aead-0.5/polyval"),
    ("polyval", "0.7.3", "polyval-07", "crates/polyval"),
    ("ghash", "0.5.1", "ghash", "aead-0.5/ghash"),
    ("ghash", "0.6.0", "ghash-06", "crates/ghash"),
    (
        "aes-gcm-siv",
        "0.11.1",
        "aes-gcm-siv",
        "aead-0.5/aes-gcm-siv",
    ),
    ("aes-gcm-siv", "0.12.1", "aes-gcm-siv-012", "crates/gcm-siv"),
];

/// How each patch entry points at the repository.
enum Source<'a> {
    /// `git = "<url>", version = "<major.minor>"`; without the version key if `versioned` is
    /// false.
    Git { url: &'a str, versioned: bool },
    /// `path = "<repository>/<package dir>"`.
    Path(&'a Path),
}

/// The consumer's manifest: the dependencies, then the `[patch.crates-io]` block README shows.
fn manifest(source: &Source<'_>) -> String {
    let mut m = String::from(
        "[package]\nname = \"patch-consumer\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\n",
    );
    for (name, version, key, _) in PACKAGES {
        let req = &version[..version.rfind('.').unwrap_or(version.len())];
        if key == name {
            m.push_str(&format!("{key} = \"{req}\"\n"));
        } else {
            m.push_str(&format!(
                "{key} = {{ package = \"{name}\", version = \"{req}\" }}\n"
            ));
        }
    }
    m.push_str("\n[patch.crates-io]\n");
    for (name, version, key, dir) in PACKAGES {
        let req = &version[..version.rfind('.').unwrap_or(version.len())];
        let package = if key == name {
            String::new()
        } else {
            format!(", package = \"{name}\"")
        };
        let entry = match source {
            Source::Git { url, versioned } => {
                let v = if *versioned {
                    format!(", version = \"{req}\"")
                } else {
                    String::new()
                };
                format!("git = \"{url}\"{package}{v}")
            }
            Source::Path(root) => {
                format!("path = \"{}\"{package}", root.join(dir).display())
            }
        };
        m.push_str(&format!("{key} = {{ {entry} }}\n"));
    }
    m.push_str("\n[workspace]\n");
    m
}

/// The program: both generations of each crate, which must agree.
const MAIN_RS: &str = r#"use aes_gcm::aead::{Aead, KeyInit as _};
use aes_gcm_011::aead::{Aead as Aead011, KeyInit as _};
use polyval::universal_hash::{KeyInit as _, UniversalHash as _};
use polyval_07::universal_hash::UniversalHash as _;

fn main() {
    let (key, nonce, msg) = ([7u8; 32], [9u8; 12], b"one message, two generations");
    let old = aes_gcm::Aes256Gcm::new(&key.into());
    let new = aes_gcm_011::Aes256Gcm::new(&key.into());
    let a = old.encrypt(&nonce.into(), msg.as_ref()).expect("0.10 encrypt");
    let b = Aead011::encrypt(&new, &nonce.into(), msg.as_ref()).expect("0.11 encrypt");
    assert_eq!(a, b, "aes-gcm 0.10 and 0.11 disagree");
    assert_eq!(old.decrypt(&nonce.into(), a.as_ref()).expect("0.10 decrypt"), msg);

    let h = [0x25u8; 16];
    let mut p6 = polyval::Polyval::new(&h.into());
    p6.update_padded(msg);
    let mut p7 = polyval_07::Polyval::new(&h.into());
    p7.update_padded(msg);
    assert_eq!(p6.finalize().as_slice(), p7.finalize().as_slice(), "polyval");
    let mut g5 = ghash::GHash::new(&h.into());
    g5.update_padded(msg);
    let mut g6 = ghash_06::GHash::new(&h.into());
    g6.update_padded(msg);
    assert_eq!(g5.finalize().as_slice(), g6.finalize().as_slice(), "ghash");

    let s11 = aes_gcm_siv::Aes256GcmSiv::new(&key.into());
    let s12 = aes_gcm_siv_012::Aes256GcmSiv::new(&key.into());
    let c = s11.encrypt(&nonce.into(), msg.as_ref()).expect("0.11 encrypt");
    let d = Aead011::encrypt(&s12, &nonce.into(), msg.as_ref()).expect("0.12 encrypt");
    assert_eq!(c, d, "aes-gcm-siv 0.11 and 0.12 disagree");
    let back = Aead011::decrypt(&s12, &nonce.into(), d.as_ref()).expect("0.12 decrypt");
    assert_eq!(back, msg);
    println!("patch-consumer: both generations agree");
}
"#;

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return if a == "-h" || a == "--help" {
            println!("cargo xtask patch-recipe\n\n{}", HELP.trim_end());
            Ok(())
        } else {
            Err(format!("unknown option `{a}`"))
        };
    }
    let root = workspace_root()?;
    let work = target_dir(&root).join("patch-recipe");
    let repo = work.join("repo");
    let _ = fs::remove_dir_all(&repo);
    fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let url = format!("file://{}", root.display());
    run_ok(
        Command::new("git")
            .args(["clone", "--quiet", &url])
            .arg(&repo),
        "git clone",
    )?;
    let clone_url = format!("file://{}", repo.display());
    let consumer = work.join("consumer");
    fs::create_dir_all(consumer.join("src")).map_err(|e| e.to_string())?;
    fs::write(consumer.join("src/main.rs"), MAIN_RS).map_err(|e| e.to_string())?;
    let cargo = |args: &[&str]| {
        let mut c = Command::new("cargo");
        c.args(args)
            .current_dir(&consumer)
            .env("CARGO_TARGET_DIR", work.join("target"));
        c
    };

    // Writes the consumer's manifest for `source` (dropping the old lock file), then runs
    // cargo with `args`.
    let with = |source: &Source<'_>, args: &[&str]| -> Result<std::process::Output, String> {
        write(&consumer, &manifest(source))?;
        let _ = fs::remove_file(consumer.join("Cargo.lock"));
        cargo(args)
            .output()
            .map_err(|e| format!("cargo {}: {e}", args.join(" ")))
    };
    let git = |versioned| Source::Git {
        url: &clone_url,
        versioned,
    };
    let tree = ["tree", "--prefix", "none", "-e", "normal"];

    // 1. By git, with version keys: every package from the clone, at the right version.
    check_tree(&stdout(with(&git(true), &tree)?, "cargo tree")?, &clone_url)?;
    println!("patch-recipe: git patch resolves all eight packages to the clone");

    // 2. Without the version keys, cargo must refuse: two packages match each git entry.
    if with(&git(false), &["metadata", "--format-version", "1"])?
        .status
        .success()
    {
        return Err(
            "a git patch without `version` keys was accepted; the recipe's version \
                    keys are not what selects the package"
                .into(),
        );
    }
    println!("patch-recipe: without version keys cargo refuses, as expected");

    // 3. Build and run the program on the git-patched graph.
    print!(
        "{}",
        stdout(with(&git(true), &["run", "--quiet"])?, "cargo run")?
    );

    // 4. By path: the working tree's packages.
    let tree = stdout(with(&Source::Path(&root), &tree)?, "cargo tree (path)")?;
    check_tree(&tree, &format!("{}/", root.display()))?;
    println!("patch-recipe: path patch resolves all eight packages to the working tree");
    Ok(())
}

const HELP: &str = "\
Clones the repository's committed HEAD into target/patch-recipe/repo and checks README's
[patch.crates-io] recipe for both generations at once (aes-gcm 0.10 + 0.11, polyval 0.6 + 0.7,
ghash 0.5 + 0.6, aes-gcm-siv 0.11 + 0.12): by git (with version keys; refused without), building and running a program
that uses both, and by path.
";

/// Each package of [`PACKAGES`] appears in `tree` at its version from `source`, and no
/// package of those names comes from anywhere else (crates.io lines have no parentheses).
fn check_tree(tree: &str, source: &str) -> Result<(), String> {
    for (name, version, _, dir) in PACKAGES {
        let want = format!("{name} v{version} (");
        let ok = tree
            .lines()
            .any(|l| l.starts_with(&want) && l.contains(source) && source_matches(l, dir));
        if !ok {
            return Err(format!(
                "{name} {version} does not come from {source}:\n{tree}"
            ));
        }
    }
    for l in tree.lines() {
        let name = l.split(' ').next().unwrap_or_default();
        if PACKAGES.iter().any(|p| p.0 == name) && !l.contains(source) {
            return Err(format!("not patched: {l}"));
        }
    }
    Ok(())
}

/// A `path` source names the package directory; a git source names only the repository.
fn source_matches(line: &str, dir: &str) -> bool {
    !line.contains("(/") || line.contains(dir)
}

fn write(dir: &Path, manifest: &str) -> Result<(), String> {
    fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| format!("consumer manifest: {e}"))
}

fn run_ok(cmd: &mut Command, what: &str) -> Result<(), String> {
    let s = cmd.status().map_err(|e| format!("{what}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{what}: exited with {s}"))
    }
}

/// The output of a command that must have succeeded.
fn stdout(out: std::process::Output, what: &str) -> Result<String, String> {
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{what} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_has_version_keys_and_second_keys() {
        let m = manifest(&Source::Git {
            url: "file:///r",
            versioned: true,
        });
        assert!(m.contains("aes-gcm = { git = \"file:///r\", version = \"0.10\" }"));
        assert!(m.contains(
            "aes-gcm-011 = { git = \"file:///r\", package = \"aes-gcm\", version = \"0.11\" }"
        ));
        assert!(m.contains("aes-gcm-011 = { package = \"aes-gcm\", version = \"0.11\" }"));
        let p = manifest(&Source::Path(Path::new("/r")));
        assert!(p.contains("polyval-07 = { path = \"/r/crates/polyval\", package = \"polyval\" }"));
    }

    #[test]
    fn tree_check() {
        let good = "aes-gcm v0.10.3 (file:///c#1)\naes-gcm v0.11.1 (file:///c#1)\n\
                    polyval v0.6.2 (file:///c#1)\npolyval v0.7.3 (file:///c#1)\n\
                    ghash v0.5.1 (file:///c#1)\nghash v0.6.0 (file:///c#1)\n\
                    aes-gcm-siv v0.11.1 (file:///c#1)\naes-gcm-siv v0.12.1 (file:///c#1)\n\
                    aes v0.8.4\n";
        assert!(check_tree(good, "file:///c").is_ok());
        let unpatched = good.replace("ghash v0.5.1 (file:///c#1)", "ghash v0.5.1");
        assert!(check_tree(&unpatched, "file:///c").is_err());
    }
}
