//! Helpers shared by our integration tests (not by the upstream copies, which use `common`).
#![allow(dead_code)]

use aes_gcm::AesGcm;
use aes_gcm::aead::{KeyInit, array::ArraySize};
use cipher::{BlockCipherEncrypt, consts::U16};
use clmul_core::Backend;
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// A deterministic generator, so a failure reproduces.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// `len` random bytes.
pub fn bytes(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v[..]);
    v
}

/// Every GHASH backend this CPU can run (the detected one and all below it), printing the ones
/// it cannot, so that a test never silently covers only the detected backend.
pub fn backends() -> Vec<Backend> {
    for b in Backend::ALL {
        if !b.is_available() {
            eprintln!(
                "note: GHASH backend {} not available on this CPU, skipped",
                b.name()
            );
        }
    }
    Backend::available().collect()
}

/// Our AES-GCM keyed with `key`, once per available GHASH backend.
pub fn ours_all<Aes, N, T>(key: &[u8]) -> Vec<(Backend, AesGcm<Aes, N, T>)>
where
    Aes: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Clone,
    N: ArraySize,
    T: aes_gcm::TagSize,
{
    let aes = Aes::new_from_slice(key).expect("key length");
    backends()
        .into_iter()
        .map(|b| {
            let gcm = AesGcm::__with_ghash_backend(aes.clone(), b).expect("available backend");
            assert_eq!(gcm.__ghash_backend(), b);
            (b, gcm)
        })
        .collect()
}
