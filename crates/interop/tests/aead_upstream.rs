//! Differential tests: our AES-GCM, on every GHASH backend and fused engine this CPU has, against
//! the published `aes-gcm` 0.11.1 (renamed dev-dependency `upstream-aes-gcm`) and, for 96-bit
//! nonces, against ring. Keys, nonces and data are random (seeded, so failures reproduce).
//!
//! (Moved here from crates/gcm/tests/differential.rs: with the published `aes-gcm` as a
//! dev-dependency of our `aes-gcm`, `cargo test -p aes-gcm` was ambiguous.)

// The helpers of crates/gcm/tests, shared rather than copied.
#[path = "../../gcm/tests/util/mod.rs"]
mod util;

use aes::{Aes128, Aes192, Aes256};
use aes_gcm::{
    AesGcm,
    aead::{
        AeadInOut, KeyInit,
        array::{
            ArraySize,
            typenum::{U0, U1, U8, U12, U13, U14, U15, U16, U64, U128},
        },
    },
};
use cipher::BlockCipherEncrypt;
use upstream_aes_gcm as upstream;

/// Encrypts `pt` with `cipher` in place, returning (ciphertext, tag).
fn seal<A: AeadInOut>(
    cipher: &A,
    nonce: &aes_gcm::Nonce<A::NonceSize>,
    aad: &[u8],
    pt: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    let mut buf = pt.to_vec();
    let tag = cipher
        .encrypt_inout_detached(nonce, aad, buf.as_mut_slice().into())
        .expect("encrypt");
    (buf, tag.to_vec())
}

/// Checks that every one of `ours` seals like upstream and opens what it sealed.
fn check_against_upstream<Aes, N, T>(
    ours: &[(String, AesGcm<Aes, N, T>)],
    up: &upstream::AesGcm<Aes, N, T>,
    nonce: &aes_gcm::Nonce<N>,
    aad: &[u8],
    pt: &[u8],
) -> (Vec<u8>, Vec<u8>)
where
    Aes: BlockCipherEncrypt<BlockSize = U16>,
    N: ArraySize,
    T: aes_gcm::TagSize + upstream::TagSize,
{
    let expected = seal(up, nonce, aad, pt);
    for (backend, gcm) in ours {
        let ctx = || {
            format!(
                "{}, nonce {} bytes, tag {} bytes, aad {} bytes, pt {} bytes",
                backend,
                N::USIZE,
                T::USIZE,
                aad.len(),
                pt.len()
            )
        };
        let got = seal(gcm, nonce, aad, pt);
        assert_eq!(got.0, expected.0, "ciphertext: {}", ctx());
        assert_eq!(got.1, expected.1, "tag: {}", ctx());

        let mut buf = got.0.clone();
        let tag = got.1.as_slice().try_into().expect("tag length");
        gcm.decrypt_inout_detached(nonce, aad, buf.as_mut_slice().into(), &tag)
            .unwrap_or_else(|_| panic!("decrypt: {}", ctx()));
        assert_eq!(buf, pt, "plaintext: {}", ctx());
    }
    expected
}

/// ring's AES-GCM (96-bit nonce, 128-bit tag): (ciphertext, tag).
fn ring_seal(
    alg: &'static ring::aead::Algorithm,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
    let key = LessSafeKey::new(UnboundKey::new(alg, key).expect("ring key"));
    let nonce = Nonce::try_assume_unique_for_key(nonce).expect("ring nonce");
    let mut buf = pt.to_vec();
    let tag = key
        .seal_in_place_separate_tag(nonce, Aad::from(aad), &mut buf)
        .expect("ring seal");
    (buf, tag.as_ref().to_vec())
}

/// Every plaintext length 0..=2048 (every CTR batch and GHASH stride boundary of every backend,
/// and every partial final block), with associated data of 0, 1, 16, 20 and 33 bytes, AES-128
/// and AES-256, against upstream and ring.
#[test]
fn lengths_0_to_2048_vs_upstream_and_ring() {
    fn run<Aes>(seed: u64, key_len: usize, alg: &'static ring::aead::Algorithm)
    where
        Aes: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Clone,
    {
        let mut rng = util::rng(seed);
        let pt_all = util::bytes(&mut rng, 2048);
        let aad_all = util::bytes(&mut rng, 33);
        for len in 0..=2048 {
            // A fresh key every few lengths: keys with and without the top bits of H set.
            let key = util::bytes(&mut rng, key_len);
            let ours = util::ours_all::<Aes, U12, U16>(&key);
            let up = upstream::AesGcm::<Aes, U12>::new_from_slice(&key).expect("key");
            for aad_len in [0, 1, 16, 20, 33] {
                let nonce_bytes = util::bytes(&mut rng, 12);
                let nonce = nonce_bytes.as_slice().try_into().expect("nonce");
                let (aad, pt) = (&aad_all[..aad_len], &pt_all[..len]);
                let expected = check_against_upstream(&ours, &up, &nonce, aad, pt);
                assert_eq!(
                    ring_seal(alg, &key, &nonce_bytes, aad, pt),
                    expected,
                    "ring: aad {aad_len} bytes, pt {len} bytes"
                );
            }
        }
    }
    run::<Aes128>(1, 16, &ring::aead::AES_128_GCM);
    run::<Aes256>(2, 32, &ring::aead::AES_256_GCM);
}

/// Associated data of every length 0..=600 (GHASH's padding of A, then C starting on a block
/// boundary), with short messages, all three key sizes.
#[test]
fn aad_lengths_0_to_600_vs_upstream() {
    fn run<Aes>(seed: u64, key_len: usize)
    where
        Aes: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Clone,
    {
        let mut rng = util::rng(seed);
        let key = util::bytes(&mut rng, key_len);
        let ours = util::ours_all::<Aes, U12, U16>(&key);
        let up = upstream::AesGcm::<Aes, U12>::new_from_slice(&key).expect("key");
        let aad_all = util::bytes(&mut rng, 600);
        for aad_len in 0..=600 {
            for pt_len in [0, 1, 15, 16, 17, 100] {
                let nonce = util::bytes(&mut rng, 12)
                    .as_slice()
                    .try_into()
                    .expect("nonce");
                let pt = util::bytes(&mut rng, pt_len);
                check_against_upstream(&ours, &up, &nonce, &aad_all[..aad_len], &pt);
            }
        }
    }
    run::<Aes128>(3, 16);
    run::<Aes192>(4, 24);
    run::<Aes256>(5, 32);
}

/// Nonces other than 96 bits (J0 from GHASH), including 0 bytes, which upstream accepts at the
/// type level (SP 800-38D forbids it; like upstream we do not check at run time).
#[test]
fn other_nonce_sizes_vs_upstream() {
    fn run<Aes, N>(seed: u64, key_len: usize)
    where
        Aes: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Clone,
        N: ArraySize,
    {
        let mut rng = util::rng(seed);
        for len in (0..=300).chain([511, 512, 513, 1024, 2048]) {
            let key = util::bytes(&mut rng, key_len);
            let ours = util::ours_all::<Aes, N, U16>(&key);
            let up = upstream::AesGcm::<Aes, N>::new_from_slice(&key).expect("key");
            let nonce = util::bytes(&mut rng, N::USIZE)
                .as_slice()
                .try_into()
                .expect("nonce");
            let aad = util::bytes(&mut rng, len % 37);
            let pt = util::bytes(&mut rng, len);
            check_against_upstream(&ours, &up, &nonce, &aad, &pt);
        }
    }
    run::<Aes128, U0>(10, 16);
    run::<Aes128, U1>(11, 16);
    run::<Aes128, U8>(12, 16);
    run::<Aes256, U8>(13, 32);
    run::<Aes128, U16>(14, 16);
    run::<Aes192, U16>(15, 24);
    run::<Aes128, U64>(16, 16);
    run::<Aes256, U128>(17, 32);
}

/// Truncated tags: the prefix of the full tag, like upstream.
#[test]
fn truncated_tags_vs_upstream() {
    fn run<T>(seed: u64)
    where
        T: aes_gcm::TagSize + upstream::TagSize,
    {
        let mut rng = util::rng(seed);
        for len in 0..=100 {
            let key = util::bytes(&mut rng, 16);
            let ours = util::ours_all::<Aes128, U12, T>(&key);
            let up = upstream::AesGcm::<Aes128, U12, T>::new_from_slice(&key).expect("key");
            let nonce = util::bytes(&mut rng, 12)
                .as_slice()
                .try_into()
                .expect("nonce");
            let aad = util::bytes(&mut rng, len % 20);
            let pt = util::bytes(&mut rng, len);
            let (_, tag) = check_against_upstream(&ours, &up, &nonce, &aad, &pt);
            assert_eq!(tag.len(), T::USIZE);
        }
    }
    run::<U12>(20);
    run::<U13>(21);
    run::<U14>(22);
    run::<U15>(23);
    run::<U16>(24);
    // 32- and 64-bit tags: both crates have `hazmat` enabled (see Cargo.toml).
    run::<aes_gcm::aead::array::typenum::U4>(25);
    run::<aes_gcm::aead::array::typenum::U8>(26);
}

/// Out-of-place `InOutBuf`: the output buffer starts as garbage and must end as exactly what
/// the in-place call produces (nothing of the garbage read or kept), in both directions; the
/// input is never written.
#[test]
fn out_of_place_inout() {
    use aes_gcm::aead::inout::InOutBuf;
    let mut rng = util::rng(30);
    for len in 0..=300 {
        let key = util::bytes(&mut rng, 16);
        let nonce = util::bytes(&mut rng, 12)
            .as_slice()
            .try_into()
            .expect("nonce");
        let aad = util::bytes(&mut rng, len % 23);
        let pt = util::bytes(&mut rng, len);
        for (backend, gcm) in util::ours_all::<Aes128, U12, U16>(&key) {
            let (ct, tag) = seal(&gcm, &nonce, &aad, &pt);

            let mut out = util::bytes(&mut rng, len);
            let buf = InOutBuf::new(&pt, &mut out).expect("equal lengths");
            let tag2 = gcm
                .encrypt_inout_detached(&nonce, &aad, buf)
                .expect("encrypt");
            assert_eq!(out, ct, "{backend}, len {len}");
            assert_eq!(tag2.as_slice(), tag);

            let mut out = util::bytes(&mut rng, len);
            let buf = InOutBuf::new(&ct, &mut out).expect("equal lengths");
            gcm.decrypt_inout_detached(&nonce, &aad, buf, &tag2)
                .expect("decrypt");
            assert_eq!(out, pt, "{backend}, len {len}");
        }
    }
}
