//! Project automation, run as `cargo xtask <command>` (the alias lives in `.cargo/config.toml`).
//!
//! This is an ordinary binary crate in the style of matklad's `cargo-xtask`: standard library
//! only, arguments parsed by hand, every external tool run with [`std::process::Command`].
//!
//! # `cargo xtask cross-test`
//!
//! Runs the workspace tests where the host CI machine cannot:
//!
//! - **Cross targets under QEMU user-mode**: big-endian `s390x`, `powerpc64` and `powerpc`;
//!   little-endian `aarch64` (under `qemu-aarch64 -cpu max`, so the PMULL and ARMv8 AES paths
//!   run, plus a second run with `--cfg polyval_backend="soft"` for the portable path), `i686`,
//!   `armv7` and `riscv64gc`. For each target the linker (`<triple>-gcc`) and runner
//!   (`qemu-<arch> -L /usr/<triple>`) are passed as `CARGO_TARGET_<TRIPLE>_{LINKER,RUNNER}`
//!   environment variables, so `.cargo/config.toml` needs no target sections and a plain
//!   `cargo test` on the host stays native.
//! - **The x86 dispatch ladder**: the x86_64 test binaries, built once for the baseline target
//!   (never with `target-cpu=native`), run natively and then under `qemu-x86_64` with
//!   `QEMU_CPU` = `qemu64`, `Westmere`, `SandyBridge`, `Haswell` and `Icelake-Server`. QEMU
//!   raises SIGILL for any instruction the model lacks, so a tier that is used without being
//!   detected fails here. `CLMUL_EXPECT_CPU` carries the model name to the tests.
//! - **Miri** (nightly) over the portable code on the host and on big-endian `s390x`, and over
//!   the x86 kernels with their target features enabled at compile time (under Miri runtime
//!   detection is always false, compile-time features make it true).
//!
//! At the end it prints a table of target × mode × result × seconds, and exits non-zero if any
//! row failed. See `cargo xtask cross-test --help` for the options.

mod bench;
mod bench_cookie;
mod bench_siv;
mod cross_test;
mod ct;
mod disasm;
mod fuzz;
#[cfg(test)]
mod imports;
mod mca;
mod patch_recipe;
mod proc;
mod table;
mod test;
mod tools;
mod upstream;

use std::process::ExitCode;

const HELP: &str = "\
cargo xtask <COMMAND>

Commands:
  test            everything CI runs, for both workspaces (. and aead-0.5/): their tests,
                  the forced-portable builds, the published crates' suites against ours,
                  the patch recipe, `ct --quick` and `cross-test --quick --install`
  bench           the headline comparison against ring, aws-lc-rs and RustCrypto (with
                  --lto: in the LTO profile; with --full: the criterion benchmarks too);
                  rewrites the benchmark sections (README.md's headline,
                  docs/BENCHMARKS.md, docs/*.svg)
  cross-test      run the tests on big- and little-endian targets under QEMU, the x86
                  dispatch ladder and Miri (see `cargo xtask cross-test --help`)
  upstream-tests  the published polyval/ghash/aes-gcm/aes-gcm-siv (both generations) and
                  cookie test suites against ours
  patch-recipe    README's [patch.crates-io] recipe for both generations, by git and path
  mca             the engines' steady-state loops through llvm-mca on the CPU models we tune
                  for (cycles per 64 bytes, busiest resource) and their code sizes
  ct              constant-time validation of every backend and engine: Valgrind,
                  MemorySanitizer and the release binary's disassembly (see `--help`)
  fuzz            run each cargo-fuzz target N seconds (`cargo xtask fuzz --time N`);
                  installs nightly and cargo-fuzz when missing
  help            print this message
";

/// Maps a `Result` from a subcommand to an exit code, printing the error.
fn finish(what: &str, r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {what}: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("help" | "-h" | "--help") => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Some("cross-test") => match cross_test::Options::parse(&args[1..]) {
            Ok(Some(opts)) => cross_test::run(&opts),
            Ok(None) => {
                print!("{}", cross_test::HELP);
                ExitCode::SUCCESS
            }
            Err(msg) => {
                eprintln!("error: {msg}\nrun `cargo xtask cross-test --help` for the options");
                ExitCode::from(2)
            }
        },
        Some("test") => match test::parse(&args[1..]) {
            Ok(Some(steps)) => {
                if let Err(msg) = test::run_local(&steps) {
                    return finish("test", Err(msg));
                }
                if !steps.cross {
                    return ExitCode::SUCCESS;
                }
                // The modelled loops of the CPUs not at hand, against the recorded ones.
                let check = ["--install".to_owned(), "--check".to_owned()];
                if let Err(msg) =
                    test::timed("cargo xtask mca --install --check", || mca::run(&check))
                {
                    return finish("test", Err(msg));
                }
                let mut quick = vec!["--quick".to_owned(), "--install".to_owned()];
                if !steps.keep_builds {
                    quick.push("--lean".to_owned());
                }
                match cross_test::Options::parse(&quick) {
                    Ok(Some(opts)) => {
                        // Timed as `test::timed` times the steps before it (this one reports
                        // through its exit code).
                        let what = format!("cargo xtask cross-test {}", quick.join(" "));
                        println!("xtask test: {what}");
                        let start = std::time::Instant::now();
                        let code = cross_test::run(&opts);
                        println!(
                            "xtask test: {what}: done in {:.0} s",
                            start.elapsed().as_secs_f64()
                        );
                        code
                    }
                    Ok(None) => ExitCode::SUCCESS,
                    Err(msg) => finish("test", Err(msg)),
                }
            }
            Ok(None) => {
                print!("{}", test::help());
                ExitCode::SUCCESS
            }
            Err(msg) => {
                eprintln!("error: {msg}\n{}", test::help());
                ExitCode::from(2)
            }
        },
        Some("bench") => finish("bench", bench::run(&args[1..])),
        Some("upstream-tests") => finish("upstream-tests", upstream::run(&args[1..])),
        Some("patch-recipe") => finish("patch-recipe", patch_recipe::run(&args[1..])),
        Some("ct") => finish("ct", ct::run(&args[1..])),
        Some("mca") => finish("mca", mca::run(&args[1..])),
        Some("fuzz") => finish("fuzz", fuzz::run(&args[1..])),
        Some(other) => {
            eprintln!("error: unknown command `{other}`\n\n{HELP}");
            ExitCode::from(2)
        }
    }
}
