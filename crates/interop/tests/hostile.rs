//! Hostile and odd input at every public entry point of `polyval` and `ghash`: empty inputs,
//! every length around the block boundaries, wrong key lengths. The bar is `Err` (or the right
//! answer), never a panic. Every backend this CPU has is run; the answers are checked against
//! the published crates (`upstream-*`), so "no panic" is never the only assertion.
//!
//! The same for `aes-gcm` is the shared suite's `hostile` module (`crates/gcm/tests/suite`),
//! run by `aead_upstream.rs` here and by the crates' own `tests/shared.rs`.

use clmul_core::Backend;
use polyval::universal_hash::{KeyInit, UniversalHash};

/// Deterministic test bytes.
fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// Hunts: a key-length check that panics (slice indexing, `try_into().unwrap()`) instead of
/// returning `InvalidLength`, or that accepts a truncated key.
#[test]
fn new_from_slice_every_key_length() {
    for len in 0..=64 {
        let key = bytes(len, 1);
        assert_eq!(
            polyval::Polyval::new_from_slice(&key).is_ok(),
            len == 16,
            "polyval {len}"
        );
        assert_eq!(
            ghash::GHash::new_from_slice(&key).is_ok(),
            len == 16,
            "ghash {len}"
        );
    }
}

/// Hunts: a tail path (partial block, empty input, one block short of a stride) that reads
/// past the input or drops bytes, on any backend, through the public `UniversalHash` API.
#[test]
fn uhf_every_length_every_backend() {
    let key = bytes(16, 7);
    let data = bytes(80, 9);
    for len in 0..=80 {
        let msg = &data[..len];
        let up_p = {
            let mut s = upstream_polyval::Polyval::new_from_slice(&key).unwrap();
            s.update_padded(msg);
            s.finalize()
        };
        let up_g = {
            let mut s = upstream_ghash::GHash::new_from_slice(&key).unwrap();
            s.update_padded(msg);
            s.finalize()
        };
        let mut s = polyval::Polyval::new_from_slice(&key).unwrap();
        s.update_padded(msg);
        assert_eq!(s.finalize().as_slice(), up_p.as_slice(), "polyval {len}");
        for b in Backend::available() {
            let k: [u8; 16] = key.clone().try_into().unwrap();
            let mut p = clmul_core::Polyval::with_backend(&k, b).unwrap();
            p.update(&[]); // an empty update is a no-op
            p.update_padded(msg);
            p.update_padded(&[]);
            assert_eq!(p.finalize(), up_p.as_slice(), "polyval {b:?} {len}");

            let mut g = ghash::GHash::__with_backend(&k.into(), b).unwrap();
            g.update_padded(msg);
            g.update(&[]);
            assert_eq!(
                g.finalize().as_slice(),
                up_g.as_slice(),
                "ghash {b:?} {len}"
            );
        }
    }
}
