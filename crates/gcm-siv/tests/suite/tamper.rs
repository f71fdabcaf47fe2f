//! Forgeries are refused and leave the caller's buffers exactly as they were.
//!
//! Hunts a decryption that keeps (or leaves, out of place) the plaintext of a refused message:
//! AES-GCM-SIV has to decrypt before it can check, so in place the buffer must be restored and
//! out of place the output must not be written. The forgeries (`crates/gcm/tests/suite/
//! forgeries.rs`, shared with the AES-GCM suite) flip bits of the ciphertext around every
//! stride boundary, every bit of the tag and bytes of the associated data, and shorten or
//! lengthen either; each must be refused by every decryption call (`suite::refused`). AES-128
//! and AES-256, on every POLYVAL backend and fused engine this CPU has.

use super::{Generation, ours_all, refused, seal_copy};
use rand::{Rng, SeedableRng, rngs::SmallRng};

#[path = "../../../gcm/tests/suite/forgeries.rs"]
mod forgeries;

pub fn flipped_bits_and_bytes<G: Generation>(seed: u64, key_len: usize) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut bytes = |n: usize| (0..n).map(|_| rng.random()).collect::<Vec<u8>>();
    let (key, nonce) = (bytes(key_len), bytes(12));
    // Each length with associated data of 0, 1, 16, 33 or 5 bytes in turn.
    let messages: Vec<(Vec<u8>, Vec<u8>)> = forgeries::LENGTHS
        .iter()
        .zip([0, 1, 16, 33, 5].iter().cycle())
        .map(|(&p, &a)| (bytes(p), bytes(a)))
        .collect();
    for (imp, siv) in ours_all::<G>(&key) {
        for (pt, aad) in &messages {
            let what = format!(
                "AES-{}, {imp}, pt {}, aad {}",
                key_len * 8,
                pt.len(),
                aad.len()
            );
            let (ct, tag) = seal_copy(&*siv, &nonce, aad, pt);
            for (c, t, a) in forgeries::forgeries(&ct, &tag, aad) {
                refused(&*siv, &nonce, &a, &c, &t, &what);
            }
            // The genuine message still opens, in place and out of place.
            assert_eq!(
                siv.decrypt(&nonce, aad, &[ct.as_slice(), &tag].concat()),
                Ok(pt.clone())
            );
            let mut out = vec![0xee; pt.len()];
            if let Some(r) = siv.open_to(&nonce, aad, &ct, &mut out, &tag) {
                r.expect("genuine message refused out of place");
                assert_eq!(&out, pt, "{what}: out of place");
            }
        }
    }
}

/// A wrong nonce or a wrong key is refused too (each derives other keys, so the whole
/// keystream and POLYVAL key differ, not only the tag).
pub fn wrong_nonce_or_key<G: Generation>() {
    let key = [0x42u8; 16];
    let siv = G::new_from_slice(128, &key).expect("AES-128").expect("key");
    let nonce = [7u8; 12];
    let pt = [0x33u8; 50];
    let (ct, tag) = seal_copy(&*siv, &nonce, b"", &pt);
    let mut other_nonce = nonce;
    other_nonce[11] ^= 1;
    refused(&*siv, &other_nonce, b"", &ct, &tag, "wrong nonce");
    let mut other_key = key;
    other_key[0] ^= 1;
    let other = G::new_from_slice(128, &other_key)
        .expect("AES-128")
        .expect("key");
    refused(&*other, &nonce, b"", &ct, &tag, "wrong key");
}
