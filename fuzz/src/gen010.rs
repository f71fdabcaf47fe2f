//! `aead_diff_010`: our `aes-gcm` 0.10 (the aead 0.5 API), on every fused engine and every GHASH
//! backend of its two-pass path, against the published `aes-gcm` 0.10.3: the same ciphertext
//! and tag for AES-128/256 with a 96-bit and a 1-byte nonce (J0 through GHASH), each opens what
//! it sealed, and a tag with one bit flipped is refused with the buffer unchanged; and the
//! published crate against aws-lc-rs (96-bit nonce, 16-byte tag).
//!
//! Self-contained (no item of `lib.rs`), so that both the fuzz target and the regression test
//! in `aead-0.5/interop` (whose crate names differ) can include it: the includer names our crate
//! `ours` and the published one `upstream` (`use aes_gcm_010 as ours;` ...).
//!
//! Input, as `aead_diff`'s (so the seeds are shared):
//! `flags[1] || key[32] || nonce[12] || aad_len[2] || extra[4] || aad || plaintext`, zeros once
//! the input runs out; bit 0 of `flags` picks AES-256, `extra` the flipped tag bit.

use super::{ours, upstream};
use clmul_core::Backend;
use ours::aead::{
    AeadInPlace, KeyInit,
    consts::{U1, U12},
};
use ours::{__Engine as Engine, AesGcm};

/// Every engine and GHASH backend of ours for `AesGcm<$aes, $n>` against upstream's (a macro
/// over concrete types: the includers name different `cipher` versions).
macro_rules! diff {
    ($aes:ty, $n:ty, $key:expr, $nonce:expr, $aad:expr, $pt:expr, $flip:expr) => {{
        let (aad, pt, flip): (&[u8], &[u8], u16) = ($aad, $pt, $flip);
        let key = ours::Key::<AesGcm<$aes, $n>>::from_slice($key);
        let nonce = ours::Nonce::<$n>::from_slice($nonce);
        let up = upstream::AesGcm::<$aes, $n>::new(key);
        let mut want = pt.to_vec();
        let want_tag = up
            .encrypt_in_place_detached(nonce, aad, &mut want)
            .expect("upstream encrypt");

        let mut all: Vec<(String, AesGcm<$aes, $n>)> = Engine::available()
            .filter_map(|e| Some((format!("{e:?}"), AesGcm::with_engine(key, e)?)))
            .collect();
        for b in Backend::available() {
            let aes = <$aes as KeyInit>::new(key);
            let g = AesGcm::__with_ghash_backend(aes, b).expect("available");
            all.push((format!("Generic/{b:?}"), g));
        }
        for (name, gcm) in all {
            let mut ct = pt.to_vec();
            let tag = gcm
                .encrypt_in_place_detached(nonce, aad, &mut ct)
                .expect("encrypt");
            assert_eq!((&ct, &tag[..]), (&want, &want_tag[..]), "{name}: vs 0.10.3");
            let mut bad = tag;
            bad[usize::from(flip >> 3) % 16] ^= 1 << (flip & 7);
            let before = ct.clone();
            assert!(
                gcm.decrypt_in_place_detached(nonce, aad, &mut ct, &bad)
                    .is_err(),
                "{name}: forged tag accepted"
            );
            assert_eq!(ct, before, "{name}: refused decryption changed the buffer");
            gcm.decrypt_in_place_detached(nonce, aad, &mut ct, &tag)
                .expect("decrypt");
            assert_eq!(ct, pt, "{name}: round trip");
        }
    }};
}

/// An input's fields: AES-256?, key, nonce, associated data, plaintext, the tag bit to flip.
type Fields<'a> = (bool, [u8; 32], [u8; 12], &'a [u8], &'a [u8], u16);

/// The fields of an input (see the module docs).
fn decode(data: &[u8]) -> Fields<'_> {
    let mut head = [0u8; 51];
    let n = data.len().min(head.len());
    head[..n].copy_from_slice(&data[..n]);
    let body = &data[n..];
    let aad_len = usize::from(u16::from_le_bytes([head[45], head[46]])).min(body.len());
    let key: [u8; 32] = head[1..33].try_into().expect("32 bytes");
    let nonce: [u8; 12] = head[33..45].try_into().expect("12 bytes");
    let flip = u16::from_le_bytes([head[47], head[48]]) ^ u16::from(head[49]) << 8;
    let (aad, pt) = body.split_at(aad_len);
    (head[0] & 1 == 1, key, nonce, aad, pt, flip)
}

/// aws-lc-rs's AES-GCM against the published crate's on the same message (our engines are
/// checked against the latter by [`diff`]). Where aws-lc-rs is built (see `aws` in `lib.rs`).
#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
fn against_aws_lc(aes256: bool, key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], pt: &[u8]) {
    use aws_lc_rs::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
    use upstream::aead::{AeadInPlace, KeyInit};
    let (alg, k) = if aes256 {
        (&AES_256_GCM, &key[..])
    } else {
        (&AES_128_GCM, &key[..16])
    };
    let lk = LessSafeKey::new(UnboundKey::new(alg, k).expect("aws-lc-rs key"));
    let mut ct = pt.to_vec();
    let tag = lk
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(*nonce),
            Aad::from(aad),
            &mut ct,
        )
        .expect("aws-lc-rs seal");
    let mut want = pt.to_vec();
    let n = upstream::Nonce::from_slice(nonce);
    let want_tag = if aes256 {
        upstream::Aes256Gcm::new_from_slice(k)
            .expect("key length")
            .encrypt_in_place_detached(n, aad, &mut want)
    } else {
        upstream::Aes128Gcm::new_from_slice(k)
            .expect("key length")
            .encrypt_in_place_detached(n, aad, &mut want)
    }
    .expect("upstream encrypt");
    assert_eq!(
        (&ct, tag.as_ref()),
        (&want, &want_tag[..]),
        "aws-lc-rs vs 0.10.3"
    );
}

pub fn check_aead_010(data: &[u8]) {
    let (aes256, key, nonce, aad, pt, flip) = decode(data);
    #[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
    against_aws_lc(aes256, &key, &nonce, aad, pt);
    if aes256 {
        diff!(ours::aes::Aes256, U12, &key, &nonce, aad, pt, flip);
        diff!(ours::aes::Aes256, U1, &key, &nonce[..1], aad, pt, flip);
    } else {
        diff!(ours::aes::Aes128, U12, &key[..16], &nonce, aad, pt, flip);
        diff!(
            ours::aes::Aes128,
            U1,
            &key[..16],
            &nonce[..1],
            aad,
            pt,
            flip
        );
    }
}
