//! The shared AES-GCM suite (`tests/suite`, also run through our `aes-gcm` 0.10) on our
//! `aes-gcm` 0.11, plus its generic path with odd block ciphers (`generation/odd_batch.rs`).
#![cfg(all(feature = "aes", feature = "alloc"))]

#[macro_use]
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
fn block_cipher_borrowed_via_from() {
    odd_batch::borrowed_cipher_via_from();
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[test]
fn over_p_max_refused_untouched() {
    let p_max = usize::try_from(aes_gcm::P_MAX).expect("64-bit");
    suite::hostile::over_limit_refused_untouched::<Ours>(&[p_max + 1, p_max + 17]);
}
