//! Differential tests: our AES-GCM of generation `G`, on every GHASH backend and fused engine
//! this CPU has, against independent implementations of the same generation ([`Reference`]:
//! the published `aes-gcm` of that generation, and ring where it applies). Keys, nonces and
//! data are random (seeded, so failures reproduce). Run from `crates/interop` (0.11.1, ring)
//! and `aead-0.5/interop` (0.10.3).

use super::{Gcm, Generation, api::seal_open_placed, bytes, engines::seal_copy, ours_all, rng};

/// The implementations ours must agree with.
pub trait Reference {
    /// Every reference keyed with `key` (AES-128/192/256 by its length) that supports the
    /// nonce and tag sizes, with a name; at least one.
    fn references(key: &[u8], nonce_len: usize, tag_len: usize) -> Vec<(String, Box<dyn Gcm>)>;
}

/// Checks that every one of `ours` seals like every reference and opens what it sealed.
fn check(
    ours: &[(String, Box<dyn Gcm>)],
    refs: &[(String, Box<dyn Gcm>)],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    let (first, rest) = refs.split_first().expect("at least one reference");
    let expected = seal_copy(&*first.1, nonce, aad, pt);
    let ctx = |name: &str| {
        format!(
            "{name}, nonce {} bytes, aad {} bytes, pt {} bytes",
            nonce.len(),
            aad.len(),
            pt.len()
        )
    };
    for (name, r) in rest {
        assert_eq!(
            seal_copy(&**r, nonce, aad, pt),
            expected,
            "{} vs {}",
            ctx(name),
            first.0
        );
    }
    for (name, gcm) in ours {
        let got = seal_copy(&**gcm, nonce, aad, pt);
        assert_eq!(got.0, expected.0, "ciphertext: {}", ctx(name));
        assert_eq!(got.1, expected.1, "tag: {}", ctx(name));
        let mut buf = got.0.clone();
        gcm.open(nonce, aad, &mut buf, &got.1)
            .unwrap_or_else(|_| panic!("decrypt: {}", ctx(name)));
        assert_eq!(buf, pt, "plaintext: {}", ctx(name));
    }
    expected
}

/// Every plaintext length 0..=2048 (every CTR batch and GHASH stride boundary of every backend,
/// and every partial final block), with associated data of 0, 1, 16, 20 and 33 bytes, AES-128
/// and AES-256.
pub fn lengths_0_to_2048<G: Generation, R: Reference>() {
    for (seed, key_len) in [(1, 16), (2, 32)] {
        let mut rng = rng(seed);
        let pt_all = bytes(&mut rng, 2048);
        let aad_all = bytes(&mut rng, 33);
        for len in 0..=2048 {
            // A fresh key for every length: keys with and without the top bits of H set.
            let key = bytes(&mut rng, key_len);
            let ours = ours_all::<G>(&key, 12, 16);
            let refs = R::references(&key, 12, 16);
            for aad_len in [0, 1, 16, 20, 33] {
                let nonce = bytes(&mut rng, 12);
                check(&ours, &refs, &nonce, &aad_all[..aad_len], &pt_all[..len]);
            }
        }
    }
}

/// Associated data of every length 0..=600 (GHASH's padding of A, then C starting on a block
/// boundary), with short messages, all three key sizes.
pub fn aad_lengths_0_to_600<G: Generation, R: Reference>() {
    for (seed, key_len) in [(3, 16), (4, 24), (5, 32)] {
        let mut rng = rng(seed);
        let key = bytes(&mut rng, key_len);
        let ours = ours_all::<G>(&key, 12, 16);
        let refs = R::references(&key, 12, 16);
        let aad_all = bytes(&mut rng, 600);
        for aad_len in 0..=600 {
            for pt_len in [0, 1, 15, 16, 17, 100] {
                let nonce = bytes(&mut rng, 12);
                let pt = bytes(&mut rng, pt_len);
                check(&ours, &refs, &nonce, &aad_all[..aad_len], &pt);
            }
        }
    }
}

/// Nonces other than 96 bits (J0 from GHASH), including 0 bytes, which upstream accepts at the
/// type level (SP 800-38D forbids it; like upstream we do not check at run time).
pub fn other_nonce_sizes<G: Generation, R: Reference>() {
    for (seed, key_len, nonce_len) in [
        (10, 16, 0),
        (11, 16, 1),
        (12, 16, 8),
        (13, 32, 8),
        (14, 16, 16),
        (15, 24, 16),
        (16, 16, 64),
        (17, 32, 128),
    ] {
        let mut rng = rng(seed);
        for len in (0..=300).chain([511, 512, 513, 1024, 2048]) {
            let key = bytes(&mut rng, key_len);
            let ours = ours_all::<G>(&key, nonce_len, 16);
            let refs = R::references(&key, nonce_len, 16);
            let nonce = bytes(&mut rng, nonce_len);
            let aad = bytes(&mut rng, len % 37);
            let pt = bytes(&mut rng, len);
            check(&ours, &refs, &nonce, &aad, &pt);
        }
    }
}

/// Truncated tags: the prefix of the full tag, like upstream, for every tag size `G` has.
pub fn truncated_tags<G: Generation, R: Reference>() {
    for &tag_len in G::TAG_SIZES {
        let mut rng = rng(20 + tag_len as u64);
        for len in 0..=100 {
            let key = bytes(&mut rng, 16);
            let ours = ours_all::<G>(&key, 12, tag_len);
            let refs = R::references(&key, 12, tag_len);
            let nonce = bytes(&mut rng, 12);
            let aad = bytes(&mut rng, len % 20);
            let pt = bytes(&mut rng, len);
            let (_, tag) = check(&ours, &refs, &nonce, &aad, &pt);
            assert_eq!(tag.len(), tag_len);
        }
    }
}

/// Out of place (where the API has it): the output buffer starts as garbage and must end as
/// exactly what the in-place call produces (nothing of the garbage read or kept), in both
/// directions; the input is never written.
pub fn out_of_place<G: Generation>() {
    let mut rng = rng(30);
    for len in 0..=300 {
        let key = bytes(&mut rng, 16);
        let nonce = bytes(&mut rng, 12);
        let aad = bytes(&mut rng, len % 23);
        let pt = bytes(&mut rng, len);
        for (name, gcm) in ours_all::<G>(&key, 12, 16) {
            let (ct, tag) = seal_copy(&*gcm, &nonce, &aad, &pt);
            let mut out = bytes(&mut rng, len);
            let Some(tag2) = gcm.seal_to(&nonce, &aad, &pt, &mut out) else {
                eprintln!("{}: no out-of-place API, skipped", G::NAME);
                return;
            };
            assert_eq!(out, ct, "{name}, len {len}");
            assert_eq!(tag2.expect("encrypt"), tag);

            let mut out = bytes(&mut rng, len);
            gcm.open_to(&nonce, &aad, &ct, &mut out, &tag)
                .expect("out of place")
                .expect("decrypt");
            assert_eq!(out, pt, "{name}, len {len}");
        }
    }
}

/// Messages of 4 KiB to 64 KiB sealed and opened in place with the buffer 0, 7, 16, 32 and 48
/// bytes past a 64-byte boundary (from 8 KiB the 512-bit engine takes a head of one to three
/// blocks to align a buffer a whole number of blocks off one), with associated data, AES-128
/// and AES-256: every backend and engine against the first reference.
pub fn long_messages_at_every_alignment<G: Generation, R: Reference>() {
    for (seed, key_len) in [(40, 16), (41, 32)] {
        let mut rng = rng(seed);
        let key = bytes(&mut rng, key_len);
        let ours = ours_all::<G>(&key, 12, 16);
        let refs = R::references(&key, 12, 16);
        for len in [4096 + 17, 8192, 8192 + 48, 16384 + 1, 65536 + 33] {
            for off in [0, 7, 16, 32, 48] {
                let nonce = bytes(&mut rng, 12);
                let aad = bytes(&mut rng, 13);
                let pt = bytes(&mut rng, len);
                let want = seal_copy(&*refs[0].1, &nonce, &aad, &pt);
                for (name, gcm) in &ours {
                    let what = format!("{name}, pt {len} bytes");
                    seal_open_placed(&**gcm, off, (&nonce, &aad, &pt), &want, &what);
                }
            }
        }
    }
}

/// The `#[test]`s of this module for generation `$g` against references `$r`.
#[macro_export]
macro_rules! differential_tests {
    ($g:ty, $r:ty) => {
        #[test]
        fn lengths_0_to_2048_vs_references() {
            suite::differential::lengths_0_to_2048::<$g, $r>();
        }
        #[test]
        fn aad_lengths_0_to_600_vs_references() {
            suite::differential::aad_lengths_0_to_600::<$g, $r>();
        }
        #[test]
        fn other_nonce_sizes_vs_references() {
            suite::differential::other_nonce_sizes::<$g, $r>();
        }
        #[test]
        fn truncated_tags_vs_references() {
            suite::differential::truncated_tags::<$g, $r>();
        }
        #[test]
        fn out_of_place() {
            suite::differential::out_of_place::<$g>();
        }
        #[test]
        fn long_messages_at_every_alignment_vs_references() {
            suite::differential::long_messages_at_every_alignment::<$g, $r>();
        }
    };
}
