//! Running external commands: finding tools on `PATH`, streaming a child's output while
//! scanning it for test failures, and echoing commands in a copy-pasteable form.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;

/// QEMU prints this for every CPUID bit a `-cpu` model asks for but TCG cannot emulate
/// (pcid, x2apic, tsc-deadline, hle/rtm, ...). It is harmless and drowns the test output.
const TCG_WARNING: &str = "TCG doesn't support requested feature";

/// Finds an executable on `PATH`, like `which`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Whether this process runs as root (so `apt-get` needs no `sudo`).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|uids| uids.split_whitespace().next().map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// Runs a command with inherited stdio and returns whether it succeeded; spawn errors are
/// reported as a one-line message.
pub fn run_plain(cmd: &mut Command) -> bool {
    eprintln!("$ {}", display(cmd));
    match cmd.status() {
        Ok(status) => status.success(),
        Err(e) => {
            eprintln!(
                "error: cannot run `{}`: {e}",
                cmd.get_program().to_string_lossy()
            );
            false
        }
    }
}

/// Runs a command and returns its stdout if it succeeded.
pub fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// What a `cargo test` run reported, gathered from its output as it streamed by.
#[derive(Debug, Default)]
pub struct Outcome {
    pub success: bool,
    /// The child could not be started at all.
    pub spawn_error: Option<String>,
    /// Crates named by `error: could not compile `x``.
    pub compile_errors: Vec<String>,
    /// Tests named by `test x ... FAILED`.
    pub failed_tests: Vec<String>,
    /// Test targets that failed, as cargo's rerun arguments (`-p x --test y`).
    pub failed_targets: Vec<String>,
    /// Test binaries that died on a signal: `(rerun args, signal name)`.
    pub crashes: Vec<(String, String)>,
    /// The first `error:` line, as a fallback reason.
    pub first_error: Option<String>,
}

/// Runs `cmd`, copying its stdout and stderr through line by line (dropping QEMU's TCG
/// warnings) while collecting failure details into an [`Outcome`].
pub fn run_scanned(cmd: &mut Command) -> Outcome {
    eprintln!("$ {}", display(cmd));
    let mut child = match cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn() {
        Ok(child) => child,
        Err(e) => {
            return Outcome {
                spawn_error: Some(format!(
                    "cannot run `{}`: {e}",
                    cmd.get_program().to_string_lossy()
                )),
                ..Outcome::default()
            };
        }
    };
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let out_thread = thread::spawn(move || {
        let mut sink = Scan::default();
        pump(stdout, &mut std::io::stdout(), &mut sink);
        sink
    });
    let mut err_scan = Scan::default();
    pump(stderr, &mut std::io::stderr(), &mut err_scan);
    let out_scan = out_thread.join().unwrap_or_default();
    let success = child.wait().map(|s| s.success()).unwrap_or(false);

    let mut outcome = Outcome {
        success,
        ..Outcome::default()
    };
    for scan in [out_scan, err_scan] {
        outcome.compile_errors.extend(scan.compile_errors);
        outcome.failed_tests.extend(scan.failed_tests);
        outcome.failed_targets.extend(scan.failed_targets);
        outcome.crashes.extend(scan.crashes);
        outcome.first_error = outcome.first_error.or(scan.first_error);
    }
    outcome
}

/// Failure details found in one output stream.
#[derive(Debug, Default)]
struct Scan {
    compile_errors: Vec<String>,
    failed_tests: Vec<String>,
    failed_targets: Vec<String>,
    crashes: Vec<(String, String)>,
    first_error: Option<String>,
}

impl Scan {
    fn line(&mut self, raw: &str) {
        let line = strip_ansi(raw);
        let line = line.trim_end();
        if let Some(name) = line
            .strip_prefix("test ")
            .and_then(|l| l.strip_suffix(" ... FAILED"))
        {
            self.failed_tests.push(name.to_string());
        } else if let Some(rest) = line.strip_prefix("error: could not compile `") {
            let krate = rest.split('`').next().unwrap_or(rest);
            self.compile_errors.push(krate.to_string());
        } else if let Some(rest) = line
            .strip_prefix("error: test failed, to rerun pass `")
            .or_else(|| line.strip_prefix("error: doctest failed, to rerun pass `"))
        {
            let target = rest.split('`').next().unwrap_or(rest).to_string();
            self.failed_targets.push(target);
        } else if let Some(sig) = signal_name(line) {
            // Cargo prints the signal right under the target's rerun line.
            let which = self.failed_targets.last().cloned();
            self.crashes
                .push((which.unwrap_or_else(|| "?".to_string()), sig));
        }
        if self.first_error.is_none() && line.starts_with("error") {
            self.first_error = Some(line.to_string());
        }
    }
}

/// `... (signal: 4, SIGILL: illegal instruction)` -> `SIGILL`.
fn signal_name(line: &str) -> Option<String> {
    let rest = &line[line.find("(signal: ")? + "(signal: ".len()..];
    let name = rest.split(", ").nth(1)?.split(':').next()?;
    Some(name.to_string())
}

fn pump(from: impl Read, to: &mut impl Write, scan: &mut Scan) {
    let mut reader = BufReader::new(from);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&buf);
        if text.contains(TCG_WARNING) {
            continue;
        }
        scan.line(&text);
        // A closed terminal is no reason to stop draining the child.
        let _ = to.write_all(&buf);
        let _ = to.flush();
    }
}

/// Removes ANSI escape sequences (`ESC [ ... letter`), so colored output can be scanned.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Renders a command as a shell line: the environment it sets, then the program and arguments.
pub fn display(cmd: &Command) -> String {
    // `env` wants its `-u NAME` options before the `NAME=value` assignments.
    let (unset, set): (Vec<_>, Vec<_>) = cmd.get_envs().partition(|(_, v)| v.is_none());
    let mut parts: Vec<String> = Vec::new();
    for (key, _) in unset {
        parts.push(format!("-u {}", key.to_string_lossy()));
    }
    for (key, value) in set {
        let value = value.unwrap_or_default();
        parts.push(format!("{}={}", key.to_string_lossy(), quote(value)));
    }
    if !parts.is_empty() {
        parts.insert(0, "env".to_string());
    }
    let program = cmd.get_program();
    let program = Path::new(program)
        .file_name()
        .filter(|_| Path::new(program).is_absolute())
        .unwrap_or(program);
    parts.push(quote(program));
    parts.extend(cmd.get_args().map(quote));
    parts.join(" ")
}

fn quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,+:@%".contains(c));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The workspace root: the directory above xtask's manifest (`cargo xtask` sets
/// `CARGO_MANIFEST_DIR`).
pub fn workspace_root() -> Result<PathBuf, String> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").map_err(|_| "run through `cargo xtask`")?;
    Path::new(&manifest)
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "xtask has no parent directory".to_owned())
}

/// The build directory: `CARGO_TARGET_DIR`, or `target/` in the root.
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Runs a command with inherited stdio; an error unless it succeeded.
pub fn status(cmd: &mut Command) -> Result<(), String> {
    let s = cmd.status().map_err(|e| format!("{cmd:?}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} exited with {s}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_libtest_and_cargo_output() {
        let mut scan = Scan::default();
        for line in [
            "test soft::tests::mul ... ok\n",
            "test state::tests::powers ... \x1b[31mFAILED\x1b[0m\n",
            "\x1b[1m\x1b[91merror\x1b[0m: could not compile `polyval` (lib) due to 1 previous error\n",
            "error: test failed, to rerun pass `-p clmul-core --lib`\n",
            "  process didn't exit successfully: `qemu-x86_64 /t/deps/clmul_core-1` (signal: 4, SIGILL: illegal instruction)\n",
        ] {
            scan.line(line);
        }
        assert_eq!(scan.failed_tests, ["state::tests::powers"]);
        assert_eq!(scan.compile_errors, ["polyval"]);
        assert_eq!(scan.failed_targets, ["-p clmul-core --lib"]);
        assert_eq!(
            scan.crashes,
            [("-p clmul-core --lib".to_string(), "SIGILL".to_string())]
        );
        assert!(scan.first_error.unwrap().contains("could not compile"));
    }

    #[test]
    fn displays_env_and_quotes() {
        let mut cmd = Command::new("cargo");
        cmd.env("RUSTFLAGS", r#"--cfg polyval_backend="soft""#)
            .args(["test", "--target", "s390x-unknown-linux-gnu"]);
        assert_eq!(
            display(&cmd),
            r#"env RUSTFLAGS='--cfg polyval_backend="soft"' cargo test --target s390x-unknown-linux-gnu"#
        );
    }
}
