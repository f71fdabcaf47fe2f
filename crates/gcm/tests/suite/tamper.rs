//! Forgeries are refused and leave the caller's buffers exactly as they were.
//!
//! Hunts the bug of aes-gcm 0.10.0-0.10.2 (GHSA-423w-p2w9-r7vq): decrypting before checking
//! the tag, which leaves unauthenticated plaintext in the buffer when the tag is wrong. Bits of
//! the ciphertext (all of them for short messages, a selection around every 16-, 64- and
//! 256-byte boundary and the ends for long ones), every bit of the tag and bytes of the
//! associated data are flipped; each forgery must give `Err`, with the in-place buffer (a `Vec`,
//! length included, through `decrypt_in_place`; and a slice through `decrypt_inout_detached`)
//! and the out-of-place output where the API has one (garbage-filled beforehand) unchanged.
//! AES-128, -192 and -256, on every GHASH backend and fused engine this CPU has.

use super::{Gcm, Generation, bytes, ours_all, rng};

/// Message lengths: empty, partial and whole blocks, and both sides of the 64- and 256-byte
/// strides of the wide and fused kernels, up to a length with a partial tail after many strides.
const LENGTHS: &[usize] = &[
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000,
    1023, 1024, 1025, 4100,
];

/// Byte positions of `len` whose bits get flipped: all of them for short data, else the first
/// and last 17 and both sides of every 16-byte boundary below 64 and every 64-byte boundary.
fn positions(len: usize) -> Vec<usize> {
    if len <= 48 {
        return (0..len).collect();
    }
    let mut p: Vec<usize> = (0..17).chain(len - 17..len).collect();
    p.extend((1..4).flat_map(|k| [16 * k - 1, 16 * k]));
    p.extend((1..=len / 64).flat_map(|k| [64 * k - 1, 64 * k]));
    p.retain(|&i| i < len);
    p.sort_unstable();
    p.dedup();
    p
}

/// The forged inputs: (ciphertext, tag, aad) with exactly one bit or byte changed, or the
/// ciphertext or AAD one byte shorter or longer.
fn forgeries(ct: &[u8], tag: &[u8], aad: &[u8]) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for i in positions(ct.len()) {
        // Every bit of a short ciphertext; one bit per position (varying) for a long one.
        let bits: Vec<usize> = if ct.len() <= 48 {
            (0..8).collect()
        } else {
            vec![i % 8]
        };
        for b in bits {
            let mut c = ct.to_vec();
            c[i] ^= 1 << b;
            out.push((c, tag.to_vec(), aad.to_vec()));
        }
    }
    for i in 0..tag.len() * 8 {
        let mut t = tag.to_vec();
        t[i / 8] ^= 1 << (i % 8);
        out.push((ct.to_vec(), t, aad.to_vec()));
    }
    for i in positions(aad.len()) {
        let mut a = aad.to_vec();
        a[i] ^= 0x80;
        out.push((ct.to_vec(), tag.to_vec(), a));
    }
    // A truncated and an extended ciphertext, and a dropped and an added AAD byte.
    if !ct.is_empty() {
        out.push((ct[..ct.len() - 1].to_vec(), tag.to_vec(), aad.to_vec()));
    }
    out.push(([ct, &[0]].concat(), tag.to_vec(), aad.to_vec()));
    if !aad.is_empty() {
        out.push((ct.to_vec(), tag.to_vec(), aad[..aad.len() - 1].to_vec()));
    }
    out.push((ct.to_vec(), tag.to_vec(), [aad, &[0]].concat()));
    out
}

fn check(gcm: &dyn Gcm, nonce: &[u8], aad: &[u8], pt: &[u8], what: &str) {
    let mut rng = rng(pt.len() as u64);
    let mut sealed = pt.to_vec();
    gcm.seal_vec(nonce, aad, &mut sealed).expect("encrypt");
    let (ct, tag) = sealed.split_at(pt.len());

    for (c, t, a) in forgeries(ct, tag, aad) {
        // In place, through the `Buffer` API: content and length unchanged.
        let mut buf = [c.as_slice(), t.as_slice()].concat();
        let before = buf.clone();
        assert!(
            gcm.open_vec(nonce, &a, &mut buf).is_err(),
            "{what}: forgery accepted"
        );
        assert_eq!(
            buf, before,
            "{what}: in-place buffer changed by a failed decryption"
        );

        // Detached, in place.
        let mut buf = c.clone();
        assert!(
            gcm.open(nonce, &a, &mut buf, &t).is_err(),
            "{what}: forgery accepted (detached)"
        );
        assert_eq!(
            buf, c,
            "{what}: detached buffer changed by a failed decryption"
        );

        // Out of place: the output keeps its previous (garbage) contents.
        let mut out = bytes(&mut rng, c.len());
        let garbage = out.clone();
        if let Some(r) = gcm.open_to(nonce, &a, &c, &mut out, &t) {
            assert!(r.is_err(), "{what}: forgery accepted (out of place)");
            assert_eq!(
                out, garbage,
                "{what}: output written by a failed decryption"
            );
        }
    }

    // Too short to hold a tag: an error, buffer untouched.
    let mut short = tag[..15].to_vec();
    assert!(gcm.open_vec(nonce, aad, &mut short).is_err());
    assert_eq!(short, &tag[..15]);

    // The genuine message still opens.
    let mut buf = sealed.clone();
    gcm.open_vec(nonce, aad, &mut buf)
        .expect("genuine message refused");
    assert_eq!(buf, pt, "{what}");

    // And out of place, over garbage: the output is exactly the plaintext.
    let mut out = bytes(&mut rng, ct.len());
    if let Some(r) = gcm.open_to(nonce, aad, ct, &mut out, tag) {
        r.expect("genuine message refused out of place");
        assert_eq!(out, pt, "{what}: out of place");
    }
}

pub fn flipped_bits_and_bytes<G: Generation>(seed: u64, key_len: usize) {
    let mut rng = rng(seed);
    let key = bytes(&mut rng, key_len);
    let nonce = bytes(&mut rng, 12);
    // Every length, with associated data of varying length (none, partial and whole blocks),
    // and a few with longer associated data.
    let cases = LENGTHS
        .iter()
        .enumerate()
        .map(|(i, &pt_len)| (pt_len, [0, 7, 16, 17, 24][i % 5]))
        .chain([(0, 24), (5, 0), (33, 7), (70, 17), (300, 100)]);
    let cases: Vec<(usize, usize)> = cases.collect();
    for (imp, gcm) in ours_all::<G>(&key, 12, 16) {
        for &(pt_len, aad_len) in &cases {
            let pt = bytes(&mut rng, pt_len);
            let aad = bytes(&mut rng, aad_len);
            let what = format!("AES-{}, {imp}, pt {pt_len}, aad {aad_len}", key_len * 8);
            check(&*gcm, &nonce, &aad, &pt, &what);
        }
    }
}

/// A wrong nonce or a wrong key is refused too.
pub fn wrong_nonce_or_key<G: Generation>() {
    let mut rng = rng(41);
    let key = bytes(&mut rng, 16);
    let gcm = G::new_from_slice(128, &key, 12, 16)
        .expect("listed size")
        .expect("key");
    let nonce = bytes(&mut rng, 12);
    let pt = bytes(&mut rng, 50);
    let mut sealed = pt.clone();
    gcm.seal_vec(&nonce, b"", &mut sealed).expect("encrypt");

    let mut other_nonce = nonce.clone();
    other_nonce[11] ^= 1;
    let mut buf = sealed.clone();
    assert!(gcm.open_vec(&other_nonce, b"", &mut buf).is_err());
    assert_eq!(buf, sealed);

    let mut other_key = key.clone();
    other_key[0] ^= 1;
    let other = G::new_from_slice(128, &other_key, 12, 16)
        .expect("listed size")
        .expect("key");
    assert!(other.open_vec(&nonce, b"", &mut buf).is_err());
    assert_eq!(buf, sealed);
}
