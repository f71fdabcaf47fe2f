//! `cargo fuzz run aead_diff`: see `clmul_gcm_fuzz::check_aead` (fuzz/src/lib.rs) for the input format
//! and what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| clmul_gcm_fuzz::check_aead(data));
