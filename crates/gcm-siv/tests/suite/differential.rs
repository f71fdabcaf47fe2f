//! Differential tests: our AES-GCM-SIV of generation `G`, on every POLYVAL backend and fused
//! engine this CPU has, against independent implementations ([`Reference`]: the published
//! `aes-gcm-siv` of that generation, and aws-lc-rs for AES-128/256). Keys, nonces and data
//! are random (seeded, so failures reproduce). Run from `crates/interop` (0.12.1, aws-lc-rs)
//! and `aead-0.5/interop` (0.11.1).

use super::{Generation, Siv, api::seal_open_placed, ours_all, seal_copy};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The implementations ours must agree with.
pub trait Reference {
    /// Every reference keyed with `key` (AES-128/192/256 by its length), with a name; at least
    /// one.
    fn references(key: &[u8]) -> Vec<(String, Box<dyn Siv>)>;
}

/// Every one of `ours` seals `(nonce, aad, pt)` as every reference does, and opens what each
/// reference sealed.
fn agree(
    ours: &[(String, Box<dyn Siv>)],
    refs: &[(String, Box<dyn Siv>)],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
) {
    let what = |name: &str| format!("{name}: aad {} bytes, pt {} bytes", aad.len(), pt.len());
    let (first, others) = refs.split_first().expect("a reference");
    let want = seal_copy(&*first.1, nonce, aad, pt);
    for (name, r) in others {
        assert_eq!(
            seal_copy(&**r, nonce, aad, pt),
            want,
            "{} vs {}",
            what(name),
            first.0
        );
    }
    let sealed = [want.0.as_slice(), &want.1].concat();
    for (name, siv) in ours {
        assert_eq!(seal_copy(&**siv, nonce, aad, pt), want, "{}", what(name));
        let opened = siv.decrypt(nonce, aad, &sealed).expect("decrypt");
        assert_eq!(opened, pt, "{}", what(name));
    }
}

/// Every plaintext length 0..=2048 (every CTR batch and POLYVAL stride boundary of every
/// backend and engine, and every partial final block), with associated data of 0, 1, 16, 20 and
/// 33 bytes, for each AES key size.
pub fn lengths_0_to_2048<G: Generation, R: Reference>() {
    for key_len in [16, 24, 32] {
        let mut rng = SmallRng::seed_from_u64(key_len as u64);
        let mut bytes = |n: usize| (0..n).map(|_| rng.random()).collect::<Vec<u8>>();
        let key = bytes(key_len);
        let (ours, refs) = (ours_all::<G>(&key), R::references(&key));
        for len in 0..=2048 {
            let (nonce, aad, pt) = (bytes(12), bytes([0, 1, 16, 20, 33][len % 5]), bytes(len));
            agree(&ours, &refs, &nonce, &aad, &pt);
        }
    }
}

/// Random lengths to 64 KiB, associated data to 1 KiB, fresh keys: hunts what only long
/// messages reach (the wide loops' steady state, the powers of H computed per message).
pub fn random_long<G: Generation, R: Reference>() {
    let mut rng = SmallRng::seed_from_u64(99);
    for round in 0..24 {
        let key: Vec<u8> = (0..[16, 32][round % 2]).map(|_| rng.random()).collect();
        let (len, aad_len) = (rng.random_range(0..=65536), rng.random_range(0..=1024));
        let mut bytes = |n: usize| (0..n).map(|_| rng.random()).collect::<Vec<u8>>();
        let (nonce, aad, pt) = (bytes(12), bytes(aad_len), bytes(len));
        agree(
            &ours_all::<G>(&key),
            &R::references(&key),
            &nonce,
            &aad,
            &pt,
        );
    }
}

/// Messages of 4 KiB to 64 KiB sealed and opened in place with the buffer 0, 7, 16, 32 and 48
/// bytes past a 64-byte boundary (from 8 KiB the 512-bit engine's CTR takes a head of one to
/// three blocks to align a buffer a whole number of blocks off one), with associated data,
/// AES-128 and AES-256: every backend and engine against the first reference.
pub fn long_messages_at_every_alignment<G: Generation, R: Reference>() {
    for key_len in [16, 32] {
        let mut rng = SmallRng::seed_from_u64(40 + key_len as u64);
        let mut bytes = |n: usize| (0..n).map(|_| rng.random()).collect::<Vec<u8>>();
        let key = bytes(key_len);
        let (ours, refs) = (ours_all::<G>(&key), R::references(&key));
        let (_, first) = refs.first().expect("a reference");
        for len in [4096 + 17, 8192, 8192 + 48, 16384 + 1, 65536 + 33] {
            for off in [0, 7, 16, 32, 48] {
                let (nonce, aad, pt) = (bytes(12), bytes(13), bytes(len));
                let want = seal_copy(&**first, &nonce, &aad, &pt);
                for (name, siv) in &ours {
                    let what = format!("{name}, pt {len} bytes");
                    seal_open_placed(&**siv, off, (&nonce, &aad, &pt), &want, &what);
                }
            }
        }
    }
}

/// The `#[test]`s of this module, for generation `$g` against `$r`.
#[macro_export]
macro_rules! siv_differential_tests {
    ($g:ty, $r:ty) => {
        #[test]
        fn differential_lengths_0_to_2048() {
            suite::differential::lengths_0_to_2048::<$g, $r>();
        }
        #[test]
        fn differential_random_long() {
            suite::differential::random_long::<$g, $r>();
        }
        #[test]
        fn differential_long_messages_at_every_alignment() {
            suite::differential::long_messages_at_every_alignment::<$g, $r>();
        }
    };
}
