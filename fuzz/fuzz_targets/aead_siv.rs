//! `cargo fuzz run aead_siv`: see `fuzz/src/siv.rs` for the input format and what is checked.
#![no_main]

use aes_gcm_siv as ours;
use aes_gcm_siv_011 as ours_011;
use upstream_aes_gcm_siv as upstream;
use upstream_aes_gcm_siv_011 as upstream_011;

#[path = "../src/siv.rs"]
mod siv;

libfuzzer_sys::fuzz_target!(|data: &[u8]| siv::check_siv(data));
