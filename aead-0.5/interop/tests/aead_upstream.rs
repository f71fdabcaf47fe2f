//! Differential and hostile-input tests of our `aes-gcm` 0.10, on every GHASH backend and fused
//! engine this CPU has, against the published `aes-gcm` 0.10.3 (renamed dev-dependency
//! `upstream-aes-gcm`): the shared suite's `differential` and `hostile` modules
//! (`crates/gcm/tests/suite`, also run for our 0.11 against 0.11.1 and ring in
//! `crates/interop`). Only lengths under 2^36 - 32 bytes, where upstream is correct, are
//! compared; longer ones are refused here and tested in `aes-gcm`'s own tests.

#[macro_use]
#[path = "../../../crates/gcm/tests/suite/mod.rs"]
mod suite;
#[path = "../../aes-gcm/tests/generation/mod.rs"]
mod generation;

use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::{KeyInit, generic_array::ArrayLength};
use cipher::{BlockCipher, BlockEncrypt, BlockSizeUser, consts::U16};
use generation::{Ours, Wrap};
use suite::{Gcm, differential::Reference};

/// The published `aes-gcm` 0.10.3.
fn upstream<A, N, T>(key: &[u8]) -> Box<dyn Gcm>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,
    N: ArrayLength<u8> + Sync + 'static,
    T: upstream_aes_gcm::TagSize + Sync + 'static,
{
    let g = upstream_aes_gcm::AesGcm::<A, N, T>::new_from_slice(key).expect("key length");
    Box::new(Wrap::reference(g))
}

struct Upstream;

impl Reference for Upstream {
    fn references(key: &[u8], nonce_len: usize, tag_len: usize) -> Vec<(String, Box<dyn Gcm>)> {
        let up = dispatch!(
            upstream,
            [Aes128, Aes192, Aes256],
            suite::aes_bits(key),
            nonce_len,
            tag_len,
            [U12 = 12, U13 = 13, U14 = 14, U15 = 15],
            (key)
        )
        .expect("a size combination the suite lists");
        vec![("aes-gcm 0.10.3".to_owned(), up)]
    }
}

differential_tests!(Ours, Upstream);
hostile_tests!(Ours, Upstream);
