//! The `aead_siv` fuzz seeds and crash reproducers (`fuzz/seeds/aead_siv/`) as ordinary tests,
//! through the same check as the fuzz target (`fuzz/src/siv.rs`, included here). To keep a
//! fuzzer finding as a regression test, copy `fuzz/artifacts/aead_siv/crash-*` into that
//! directory.

use aes_gcm_siv as ours;
use aes_gcm_siv_011 as ours_011;
use upstream_aes_gcm_siv as upstream;
use upstream_aes_gcm_siv_011 as upstream_011;

#[path = "../../../fuzz/src/siv.rs"]
mod siv;

#[test]
fn aead_siv_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/aead_siv");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    for f in &files {
        let data = std::fs::read(f).expect("read seed");
        eprintln!("aead_siv: {} ({} bytes)", f.display(), data.len());
        siv::check_siv(&data);
    }
}

/// Short and empty inputs (every field zero-filled), which the decoder must accept.
#[test]
fn degenerate_inputs() {
    for len in 0..80 {
        siv::check_siv(&vec![0xff; len]);
    }
}
