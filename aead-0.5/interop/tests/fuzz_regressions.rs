//! The `aead_diff_010` fuzz seeds and crash reproducers (`fuzz/seeds/aead_diff_010/`) as
//! ordinary tests, through the same check as the fuzz target (`fuzz/src/gen010.rs`, included
//! here). To keep a fuzzer finding as a regression test, copy
//! `fuzz/artifacts/aead_diff_010/crash-*` into that directory.

use aes_gcm as ours;
use upstream_aes_gcm as upstream;

#[path = "../../../fuzz/src/gen010.rs"]
mod gen010;

#[test]
fn aead_diff_010_seeds() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/aead_diff_010");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    for f in &files {
        let data = std::fs::read(f).expect("read seed");
        eprintln!("aead_diff_010: {} ({} bytes)", f.display(), data.len());
        gen010::check_aead_010(&data);
    }
}

/// Short and empty inputs (every field zero-filled), which the decoder must accept.
#[test]
fn degenerate_inputs() {
    for len in 0..80 {
        gen010::check_aead_010(&vec![0xff; len]);
    }
}
