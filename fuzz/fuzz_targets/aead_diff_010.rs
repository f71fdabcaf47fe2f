//! `cargo fuzz run aead_diff_010`: see `fuzz/src/gen010.rs` for the input format and what is
//! checked.
#![no_main]

use aes_gcm_010 as ours;
use upstream_aes_gcm_010 as upstream;

#[path = "../src/gen010.rs"]
mod gen010;

libfuzzer_sys::fuzz_target!(|data: &[u8]| gen010::check_aead_010(data));
