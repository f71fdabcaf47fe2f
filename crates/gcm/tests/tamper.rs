//! Forgeries are refused and leave the caller's buffers exactly as they were.
//!
//! Hunts the bug of aes-gcm 0.10.0-0.10.2 (GHSA-423w-p2w9-r7vq): decrypting before checking
//! the tag, which leaves unauthenticated plaintext in the buffer when the tag is wrong. Every
//! bit of a short ciphertext and of the tag is flipped, and every byte of the associated data;
//! each must give `Err`, with the in-place buffer (a `Vec`, length included, through
//! `decrypt_in_place`) and the out-of-place output (garbage-filled beforehand) unchanged.
#![cfg(feature = "aes")]

mod util;

use aes::Aes128;
use aes_gcm::aead::{
    AeadInOut, KeyInit,
    array::typenum::{U12, U16},
    inout::InOutBuf,
};
use aes_gcm::{AesGcm, Nonce};

/// The forged inputs: (ciphertext, tag, aad) with exactly one bit or byte changed.
fn forgeries(ct: &[u8], tag: &[u8], aad: &[u8]) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for i in 0..ct.len() * 8 {
        let mut c = ct.to_vec();
        c[i / 8] ^= 1 << (i % 8);
        out.push((c, tag.to_vec(), aad.to_vec()));
    }
    for i in 0..tag.len() * 8 {
        let mut t = tag.to_vec();
        t[i / 8] ^= 1 << (i % 8);
        out.push((ct.to_vec(), t, aad.to_vec()));
    }
    for i in 0..aad.len() {
        let mut a = aad.to_vec();
        a[i] ^= 0x80;
        out.push((ct.to_vec(), tag.to_vec(), a));
    }
    // A truncated and an extended ciphertext, and a dropped last AAD byte.
    if !ct.is_empty() {
        out.push((ct[..ct.len() - 1].to_vec(), tag.to_vec(), aad.to_vec()));
    }
    out.push(([ct, &[0]].concat(), tag.to_vec(), aad.to_vec()));
    if !aad.is_empty() {
        out.push((ct.to_vec(), tag.to_vec(), aad[..aad.len() - 1].to_vec()));
    }
    out
}

fn check(gcm: &AesGcm<Aes128, U12, U16>, nonce: &Nonce<U12>, aad: &[u8], pt: &[u8], what: &str) {
    let mut rng = util::rng(pt.len() as u64);
    let mut sealed = pt.to_vec();
    gcm.encrypt_in_place(nonce, aad, &mut sealed)
        .expect("encrypt");
    let (ct, tag) = sealed.split_at(pt.len());

    for (c, t, a) in forgeries(ct, tag, aad) {
        // In place, through the `Buffer` API: content and length unchanged.
        let mut buf = [c.as_slice(), t.as_slice()].concat();
        let before = buf.clone();
        assert!(
            gcm.decrypt_in_place(nonce, &a, &mut buf).is_err(),
            "{what}: forgery accepted"
        );
        assert_eq!(
            buf, before,
            "{what}: in-place buffer changed by a failed decryption"
        );

        // Detached, in place.
        let mut buf = c.clone();
        let tag = t.as_slice().try_into().expect("tag length");
        assert!(
            gcm.decrypt_inout_detached(nonce, &a, buf.as_mut_slice().into(), &tag)
                .is_err()
        );
        assert_eq!(
            buf, c,
            "{what}: detached buffer changed by a failed decryption"
        );

        // Out of place: the output keeps its previous (garbage) contents.
        let mut out = util::bytes(&mut rng, c.len());
        let garbage = out.clone();
        let inout = InOutBuf::new(&c, &mut out).expect("equal lengths");
        assert!(gcm.decrypt_inout_detached(nonce, &a, inout, &tag).is_err());
        assert_eq!(
            out, garbage,
            "{what}: output written by a failed decryption"
        );
    }

    // Too short to hold a tag: an error, buffer untouched.
    let mut short = tag[..15].to_vec();
    assert!(gcm.decrypt_in_place(nonce, aad, &mut short).is_err());
    assert_eq!(short, &tag[..15]);

    // The genuine message still opens.
    let mut buf = sealed.clone();
    gcm.decrypt_in_place(nonce, aad, &mut buf)
        .expect("genuine message refused");
    assert_eq!(buf, pt, "{what}");
}

#[test]
fn flipped_bits_and_bytes_are_refused_and_buffers_unchanged() {
    let mut rng = util::rng(40);
    let key = util::bytes(&mut rng, 16);
    let nonce = util::bytes(&mut rng, 12)
        .as_slice()
        .try_into()
        .expect("nonce");
    for (backend, gcm) in util::ours_all::<Aes128, U12, U16>(&key) {
        // Empty message (AAD only), a partial block, several blocks with a partial tail.
        for (pt_len, aad_len) in [(0, 0), (0, 24), (5, 0), (33, 7), (70, 17)] {
            let pt = util::bytes(&mut rng, pt_len);
            let aad = util::bytes(&mut rng, aad_len);
            let what = format!("backend {}, pt {pt_len}, aad {aad_len}", backend.name());
            check(&gcm, &nonce, &aad, &pt, &what);
        }
    }
}

/// A wrong nonce or a wrong key is refused too.
#[test]
fn wrong_nonce_or_key_is_refused() {
    let mut rng = util::rng(41);
    let key = util::bytes(&mut rng, 16);
    let gcm = AesGcm::<Aes128, U12>::new_from_slice(&key).expect("key");
    let nonce: Nonce<U12> = util::bytes(&mut rng, 12)
        .as_slice()
        .try_into()
        .expect("nonce");
    let pt = util::bytes(&mut rng, 50);
    let mut sealed = pt.clone();
    gcm.encrypt_in_place(&nonce, b"", &mut sealed)
        .expect("encrypt");

    let mut other_nonce = nonce;
    other_nonce[11] ^= 1;
    let mut buf = sealed.clone();
    assert!(gcm.decrypt_in_place(&other_nonce, b"", &mut buf).is_err());
    assert_eq!(buf, sealed);

    let mut other_key = key.clone();
    other_key[0] ^= 1;
    let other = AesGcm::<Aes128, U12>::new_from_slice(&other_key).expect("key");
    assert!(other.decrypt_in_place(&nonce, b"", &mut buf).is_err());
    assert_eq!(buf, sealed);
}
