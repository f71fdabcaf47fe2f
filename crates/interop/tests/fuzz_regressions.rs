//! The fuzz seeds and every crash reproducer, as ordinary tests: each file under
//! `fuzz/seeds/<target>/` runs through the same check as the fuzz target of that name
//! (`fuzz/src/lib.rs`, included here). To keep a fuzzer finding as a regression test, copy
//! `fuzz/artifacts/<target>/crash-*` into `fuzz/seeds/<target>/`.

#[path = "../../../fuzz/src/lib.rs"]
mod checks;

use std::path::PathBuf;

/// Runs `check` over every file in `fuzz/seeds/<target>/`; fails if there are none (a test
/// that silently checks nothing is a defect).
fn run_seeds(target: &str, check: fn(&[u8])) {
    let dir: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "fuzz",
        "seeds",
        target,
    ]
    .iter()
    .collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    for f in &files {
        let data = std::fs::read(f).expect("read seed");
        eprintln!("{target}: {} ({} bytes)", f.display(), data.len());
        check(&data);
    }
}

#[test]
fn uhf_backends_seeds() {
    run_seeds("uhf_backends", checks::check_uhf);
}

#[test]
fn aead_diff_seeds() {
    run_seeds("aead_diff", checks::check_aead);
}

#[test]
fn aead_tamper_seeds() {
    run_seeds("aead_tamper", checks::check_tamper);
}

/// Short and empty inputs (every field zero-filled), which the decoders must accept.
#[test]
fn degenerate_inputs() {
    for len in 0..80 {
        let data = vec![0xffu8; len];
        checks::check_uhf(&data);
        checks::check_aead(&data);
        checks::check_tamper(&data);
    }
}
