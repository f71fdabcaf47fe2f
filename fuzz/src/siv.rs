//! `aead_siv`: our `aes-gcm-siv` 0.12 and 0.11, on every fused engine and on the generic path
//! with every POLYVAL backend, against the published 0.12.1 and 0.11.1 and aws-lc-rs
//! (AES-128/256, 96-bit nonces): the same ciphertext and tag; each opens what it sealed, in
//! place and (0.12) out of place; and a message with one bit flipped (in the tag, the
//! ciphertext or the associated data) is refused with the buffer, and an out-of-place output,
//! unchanged.
//!
//! Self-contained (no item of `lib.rs`), so that both the fuzz target and the regression test
//! in `crates/interop` (whose crate names differ) can include it: the includer names our
//! crates `ours`, `ours_011` and the published ones `upstream`, `upstream_011`
//! (`use aes_gcm_siv as ours;` ...), and has `aes` 0.8 as `aes_08`.
//!
//! Input, as `aead_diff`'s (so the seeds are shared):
//! `flags[1] || key[32] || nonce[12] || aad_len[2] || extra[4] || aad || plaintext`, zeros once
//! the input runs out; bit 0 of `flags` picks AES-256, `extra` the flipped bit.

use super::{ours, ours_011, upstream, upstream_011};
use clmul_core::Backend;
use ours::__Engine as Engine;
use ours::aead::{AeadInOut, KeyInit, inout::InOutBuf};

/// The fields of an input: AES-256?, key, nonce, associated data, plaintext, the bit to flip.
type Fields<'a> = (bool, [u8; 32], [u8; 12], &'a [u8], &'a [u8], u32);

/// The fields of an input (see the module docs).
fn decode(data: &[u8]) -> Fields<'_> {
    let mut head = [0u8; 51];
    let n = data.len().min(head.len());
    head[..n].copy_from_slice(&data[..n]);
    let body = &data[n..];
    let aad_len = usize::from(u16::from_le_bytes([head[45], head[46]])).min(body.len());
    let key: [u8; 32] = head[1..33].try_into().expect("32 bytes");
    let nonce: [u8; 12] = head[33..45].try_into().expect("12 bytes");
    let flip = u32::from_le_bytes([head[47], head[48], head[49], head[50]]);
    let (aad, pt) = body.split_at(aad_len);
    (head[0] & 1 == 1, key, nonce, aad, pt, flip)
}

/// `(ct, tag, aad)` with bit `flip` (modulo their total length in bits) flipped.
fn tampered(ct: &[u8], tag: &[u8], aad: &[u8], flip: u32) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let (mut c, mut t, mut a) = (ct.to_vec(), tag.to_vec(), aad.to_vec());
    let bits = 8 * (c.len() + t.len() + a.len());
    let i = usize::try_from(flip).expect("32-bit index") % bits;
    let (part, at) = if i < 8 * t.len() {
        (&mut t, i)
    } else if i < 8 * (t.len() + c.len()) {
        (&mut c, i - 8 * t.len())
    } else {
        (&mut a, i - 8 * (t.len() + c.len()))
    };
    part[at / 8] ^= 1 << (at % 8);
    (c, t, a)
}

/// AES-GCM-SIV `(ct, tag)` of `(nonce, aad, pt)` from the published 0.12.1.
fn upstream_012(key: &[u8], nonce: &[u8; 12], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let nonce = upstream::Nonce::from(*nonce);
    let mut ct = pt.to_vec();
    let tag = if key.len() == 32 {
        let key = upstream::Key::<upstream::Aes256GcmSiv>::try_from(key).expect("key length");
        let siv = upstream::Aes256GcmSiv::new(&key);
        siv.encrypt_inout_detached(&nonce, aad, ct.as_mut_slice().into())
    } else {
        let key = upstream::Key::<upstream::Aes128GcmSiv>::try_from(key).expect("key length");
        let siv = upstream::Aes128GcmSiv::new(&key);
        siv.encrypt_inout_detached(&nonce, aad, ct.as_mut_slice().into())
    };
    (ct, tag.expect("encrypt").to_vec())
}

/// No aws-lc-rs here (the regression test on targets other than x86_64 and in the
/// forced-portable build, see `aws` in `lib.rs`): the published 0.12.1 is the reference alone.
#[cfg(not(all(target_arch = "x86_64", not(polyval_backend = "soft"))))]
fn aws_lc(_: &[u8], _: &[u8; 12], _: &[u8], _: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    None
}

/// AES-GCM-SIV `(ct, tag)` of `(nonce, aad, pt)` from aws-lc-rs.
#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
fn aws_lc(key: &[u8], nonce: &[u8; 12], aad: &[u8], pt: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    use aws_lc_rs::aead::{AES_128_GCM_SIV, AES_256_GCM_SIV, Aad, LessSafeKey, Nonce, UnboundKey};
    let alg = if key.len() == 32 {
        &AES_256_GCM_SIV
    } else {
        &AES_128_GCM_SIV
    };
    let key = LessSafeKey::new(UnboundKey::new(alg, key).expect("aws-lc-rs key"));
    let mut ct = pt.to_vec();
    let tag = key
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(*nonce),
            Aad::from(aad),
            &mut ct,
        )
        .expect("aws-lc-rs encrypt");
    Some((ct, tag.as_ref().to_vec()))
}

/// Our 0.12 `AesGcmSiv<$aes>` on every engine and backend against `want`.
macro_rules! diff_012 {
    ($aes:ty, $key:expr, $nonce:expr, $aad:expr, $pt:expr, $flip:expr, $want:expr) => {{
        let (key, nonce, aad, pt, flip) = ($key, $nonce, $aad, $pt, $flip);
        let want: &(Vec<u8>, Vec<u8>) = $want;
        let key = ours::Key::<ours::AesGcmSiv<$aes>>::try_from(key).expect("key length");
        let nonce = ours::Nonce::from(*nonce);

        let mut all: Vec<(String, ours::AesGcmSiv<$aes>)> = Engine::available()
            .filter(|&e| e != Engine::Generic)
            .map(|e| {
                (
                    format!("{e:?}"),
                    ours::AesGcmSiv::with_engine(&key, e).expect("engine"),
                )
            })
            .collect();
        for b in Backend::available() {
            let siv = ours::AesGcmSiv::__with_polyval_backend(<$aes>::new(&key), b);
            all.push((
                format!("{:?}/{b:?}", Engine::Generic),
                siv.expect("available"),
            ));
        }
        for (name, siv) in all {
            let mut ct = pt.to_vec();
            let tag = siv.encrypt_inout_detached(&nonce, aad, ct.as_mut_slice().into());
            let tag = tag.expect("encrypt");
            assert_eq!((&ct, &tag[..]), (&want.0, &want.1[..]), "{name}");
            let mut out = vec![0xa5; ct.len()];
            let r = siv.decrypt_inout_detached(
                &nonce,
                aad,
                InOutBuf::new(&ct, &mut out).expect("len"),
                &tag,
            );
            r.expect("decrypt out of place");
            assert_eq!(out, pt, "{name}: out of place");

            let (c, t, a) = tampered(&ct, &tag, aad, flip);
            let t = ours::Tag::try_from(&t[..]).expect("16 bytes");
            let mut out = vec![0x5a; c.len()];
            let buf = InOutBuf::new(&c, &mut out).expect("len");
            assert!(
                siv.decrypt_inout_detached(&nonce, &a, buf, &t).is_err(),
                "{name}: forgery"
            );
            assert!(out.iter().all(|&b| b == 0x5a), "{name}: output written");
            let mut buf = c.clone();
            assert!(
                siv.decrypt_inout_detached(&nonce, &a, buf.as_mut_slice().into(), &t)
                    .is_err()
            );
            assert_eq!(buf, c, "{name}: refused decryption changed the buffer");
            siv.decrypt_inout_detached(&nonce, aad, ct.as_mut_slice().into(), &tag)
                .expect("decrypt");
            assert_eq!(ct, pt, "{name}: round trip");
        }
    }};
}

/// Our 0.11 `AesGcmSiv<$aes>` on every engine and backend against 0.11.1 and `want`.
macro_rules! diff_011 {
    ($aes:ty, $key:expr, $nonce:expr, $aad:expr, $pt:expr, $flip:expr, $want:expr) => {{
        use ours_011::aead::{AeadInPlace, KeyInit};
        let (key, nonce, aad, pt, flip) = ($key, $nonce, $aad, $pt, $flip);
        let want: &(Vec<u8>, Vec<u8>) = $want;
        let key = ours_011::Key::<ours_011::AesGcmSiv<$aes>>::from_slice(key);
        let nonce = ours_011::Nonce::from_slice(nonce);
        let up = upstream_011::AesGcmSiv::<$aes>::new(key);
        let mut ct = pt.to_vec();
        let tag = up
            .encrypt_in_place_detached(nonce, aad, &mut ct)
            .expect("encrypt");
        assert_eq!((&ct, &tag[..]), (&want.0, &want.1[..]), "0.11.1");

        let mut all: Vec<(String, ours_011::AesGcmSiv<$aes>)> = ours_011::__Engine::available()
            .filter(|&e| e != Engine::Generic)
            .map(|e| {
                (
                    format!("{e:?}"),
                    ours_011::AesGcmSiv::with_engine(key, e).expect("engine"),
                )
            })
            .collect();
        for b in Backend::available() {
            let siv = ours_011::AesGcmSiv::__with_polyval_backend(<$aes>::new(key), b);
            all.push((format!("0.11 generic/{b:?}"), siv.expect("available")));
        }
        for (name, siv) in all {
            let mut ct = pt.to_vec();
            let tag = siv
                .encrypt_in_place_detached(nonce, aad, &mut ct)
                .expect("encrypt");
            assert_eq!((&ct, &tag[..]), (&want.0, &want.1[..]), "{name}");
            let (c, t, a) = tampered(&ct, &tag, aad, flip);
            let mut buf = c.clone();
            let t = ours_011::Tag::from_slice(&t);
            assert!(
                siv.decrypt_in_place_detached(nonce, &a, &mut buf, t)
                    .is_err(),
                "{name}"
            );
            assert_eq!(buf, c, "{name}: refused decryption changed the buffer");
            siv.decrypt_in_place_detached(nonce, aad, &mut ct, &tag)
                .expect("decrypt");
            assert_eq!(ct, pt, "{name}: round trip");
        }
    }};
}

/// The check (see the module docs).
pub fn check_siv(data: &[u8]) {
    let (aes256, key, nonce, aad, pt, flip) = decode(data);
    let key = if aes256 { &key[..] } else { &key[..16] };
    // The reference: aws-lc-rs where it is built, which the published 0.12.1 must agree with;
    // elsewhere 0.12.1 alone.
    let up = upstream_012(key, &nonce, aad, pt);
    let want = match aws_lc(key, &nonce, aad, pt) {
        Some(aws) => {
            assert_eq!(up, aws, "0.12.1 against aws-lc-rs");
            aws
        }
        None => up,
    };
    if aes256 {
        diff_012!(ours::aes::Aes256, key, &nonce, aad, pt, flip, &want);
        diff_011!(aes_08::Aes256, key, &nonce, aad, pt, flip, &want);
    } else {
        diff_012!(ours::aes::Aes128, key, &nonce, aad, pt, flip, &want);
        diff_011!(aes_08::Aes128, key, &nonce, aad, pt, flip, &want);
    }
}
