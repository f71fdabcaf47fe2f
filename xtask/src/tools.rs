//! Making sure the tools a command needs are installed: the nightly toolchain and its
//! components (rustup), cargo subcommands (`cargo install`), Debian packages (apt-get). Each
//! either installs what is missing, saying so, or returns one line that names what is missing
//! and how to get it.

use std::process::Command;

use crate::proc;

/// Whether the nightly toolchain is installed.
fn has_nightly() -> bool {
    proc::output(Command::new("rustup").args(["toolchain", "list"]))
        .is_some_and(|s| s.lines().any(|l| l.starts_with("nightly")))
}

/// Makes sure the nightly toolchain and `components` (e.g. `rust-src`) are installed,
/// installing them with rustup if not.
pub fn ensure_nightly(components: &[&str]) -> Result<(), String> {
    let how = format!(
        "rustup toolchain install nightly --profile minimal{}",
        if components.is_empty() {
            String::new()
        } else {
            format!(" --component {}", components.join(","))
        }
    );
    if proc::which("rustup").is_none() {
        return Err(format!(
            "missing: rustup, for the nightly toolchain (https://rustup.rs, then `{how}`)"
        ));
    }
    if !has_nightly() {
        eprintln!("xtask: installing the nightly toolchain");
        let mut cmd = Command::new("rustup");
        cmd.args(["toolchain", "install", "nightly", "--profile", "minimal"]);
        if !components.is_empty() {
            cmd.args(["--component", &components.join(",")]);
        }
        if !proc::run_plain(&mut cmd) || !has_nightly() {
            return Err(format!(
                "missing: the nightly toolchain, and `{how}` failed"
            ));
        }
        return Ok(());
    }
    let installed = proc::output(Command::new("rustup").args([
        "component",
        "list",
        "--installed",
        "--toolchain",
        "nightly",
    ]))
    .unwrap_or_default();
    let missing: Vec<&str> = components
        .iter()
        .copied()
        .filter(|c| {
            !installed
                .lines()
                .any(|l| l == *c || l.starts_with(&format!("{c}-")))
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: installing nightly components {missing:?}");
    let mut cmd = Command::new("rustup");
    cmd.args(["component", "add", "--toolchain", "nightly"])
        .args(&missing);
    if proc::run_plain(&mut cmd) {
        Ok(())
    } else {
        Err(format!(
            "missing: nightly components {}, and `rustup component add --toolchain nightly {}` \
             failed",
            missing.join(", "),
            missing.join(" ")
        ))
    }
}

/// `cargo +nightly`, through the rustup proxy (the `CARGO` that runs the xtask is stable's).
pub fn nightly_cargo() -> Command {
    let mut cmd = Command::new("cargo");
    cmd.env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .arg("+nightly");
    cmd
}

/// Makes sure the cargo subcommand `cargo-<name>` is installed, installing `crate_name` with
/// `cargo install --locked` if not.
pub fn ensure_cargo_tool(name: &str, crate_name: &str) -> Result<(), String> {
    let bin = format!("cargo-{name}");
    if proc::which(&bin).is_some() {
        return Ok(());
    }
    eprintln!(
        "xtask: `cargo {name}` is not installed; installing it (cargo install {crate_name} --locked)"
    );
    let ok = proc::run_plain(
        Command::new("cargo")
            .env_remove("CARGO")
            .args(["install", crate_name, "--locked"]),
    );
    if ok && proc::which(&bin).is_some() {
        Ok(())
    } else {
        Err(format!(
            "missing: {bin}, and `cargo install {crate_name} --locked` failed (see above)"
        ))
    }
}

/// Makes sure the program `bin` is on `PATH`, installing the Debian package `package` with
/// apt-get (as root, or through sudo) if not.
pub fn ensure_apt(bin: &str, package: &str) -> Result<(), String> {
    if proc::which(bin).is_some() {
        return Ok(());
    }
    let how = format!("apt-get install {package}");
    if proc::which("apt-get").is_none() {
        return Err(format!(
            "missing: {bin} (install the package that provides it: {how})"
        ));
    }
    eprintln!("xtask: {bin} is not installed; installing {package} with apt-get");
    if apt_install(&[package]) && proc::which(bin).is_some() {
        Ok(())
    } else {
        Err(format!("missing: {bin}, and `{how}` failed"))
    }
}

/// `apt-get update` then `apt-get install` of `packages` (as root, or through sudo); whether
/// both succeeded.
pub fn apt_install(packages: &[&str]) -> bool {
    let apt = |args: &[&str]| {
        let mut cmd = if proc::is_root() {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.args(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]);
            sudo
        };
        cmd.env("DEBIAN_FRONTEND", "noninteractive").args(args);
        proc::run_plain(&mut cmd)
    };
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend(packages);
    apt(&["update", "-q"]) && apt(&install)
}

/// Deletes a build directory a step no longer needs, saying how much it freed. A CI machine's
/// disk may hold only one of the cross and forced-portable builds at a time; a failure to
/// delete is reported and otherwise ignored (the next build then needs the room it has).
pub fn discard(dir: &std::path::Path) {
    if !dir.exists() {
        return;
    }
    let bytes = dir_size(dir);
    match std::fs::remove_dir_all(dir) {
        Ok(()) => println!(
            "xtask: removed {} ({} MiB), no later step uses it",
            dir.display(),
            bytes >> 20
        ),
        Err(e) => eprintln!("warning: could not remove {}: {e}", dir.display()),
    }
}

/// Total size of the files under `dir` (symbolic links not followed).
fn dir_size(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}
