//! Helpers shared by the AES-GCM integration tests (also included by crates/interop/tests).
#![allow(dead_code)]

use aes_gcm::aead::{KeyInit, array::ArraySize};
use aes_gcm::{__Engine as Engine, AesGcm};
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

/// Every fused AES-GCM engine this CPU can run, other than the generic two-pass path, printing
/// the ones it cannot.
pub fn fused_engines() -> Vec<Engine> {
    Engine::ALL
        .iter()
        .copied()
        .filter(|&e| e != Engine::Generic)
        .filter(|&e| {
            let ok = e.is_available();
            if !ok {
                eprintln!("note: fused engine {e:?} not available on this CPU, skipped");
            }
            ok
        })
        .collect()
}

/// Our AES-GCM keyed with `key`, once per implementation this CPU can run: the generic
/// two-pass path on every available GHASH backend, then every available fused engine. Each
/// comes with a label for failure messages.
pub fn ours_all<Aes, N, T>(key: &[u8]) -> Vec<(String, AesGcm<Aes, N, T>)>
where
    Aes: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Clone,
    N: ArraySize,
    T: aes_gcm::TagSize,
{
    let aes = Aes::new_from_slice(key).expect("key length");
    let mut all: Vec<_> = backends()
        .into_iter()
        .map(|b| {
            let gcm = AesGcm::__with_ghash_backend(aes.clone(), b).expect("available backend");
            assert_eq!(gcm.__ghash_backend(), b);
            assert_eq!(gcm.__engine(), Engine::Generic);
            (format!("generic, GHASH backend {}", b.name()), gcm)
        })
        .collect();
    let key = key.try_into().expect("key length");
    for e in fused_engines() {
        let gcm = AesGcm::with_engine(key, e).expect("available engine refused an AES key");
        assert_eq!(gcm.__engine(), e);
        all.push((format!("fused engine {e:?}"), gcm));
    }
    all
}
