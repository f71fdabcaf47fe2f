//! The shared AES-GCM suite (`crates/gcm/tests/suite`, also run through our `aes-gcm` 0.11) on
//! our `aes-gcm` 0.10, plus its generic path with odd block ciphers
//! (`generation/odd_batch.rs`) and the limits, end to end.
#![cfg(all(feature = "aes", feature = "alloc"))]

#[macro_use]
#[path = "../../../crates/gcm/tests/suite/mod.rs"]
mod suite;
mod generation;

use generation::{Ours, odd_batch};

suite_tests!(Ours);

#[test]
fn block_cipher_odd_parallel_batch_sizes() {
    odd_batch::odd_parallel_batch_sizes();
}

#[test]
fn block_cipher_encrypt_only_aes() {
    odd_batch::encrypt_only_aes();
}

#[test]
fn block_cipher_from_equals_new() {
    odd_batch::from_cipher_equals_new();
}

/// Every length upstream 0.10.3 accepts but whose 32-bit counter would come back to J0, and
/// upstream's own limits: the first refused length (2^36 - 31), 2^36 (`P_MAX`), `C_MAX` and
/// one past it, refused in both directions before a byte is read.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[test]
fn over_counter_limit_refused_untouched() {
    let p_max = usize::try_from(aes_gcm::P_MAX).expect("64-bit");
    let c_max = usize::try_from(aes_gcm::C_MAX).expect("64-bit");
    suite::hostile::over_limit_refused_untouched::<Ours>(&[
        p_max - 31,
        p_max - 16,
        p_max,
        p_max + 1,
        c_max,
        c_max + 1,
    ]);
}
