//! Hostile and odd input at every entry point: wrong key lengths, buffers shorter than a tag,
//! refused decryptions, and lengths over the limits. The bar is `Err` (or the right answer),
//! never a panic, and a refused decryption never changes the buffer or writes the output.
//! Every backend and engine this CPU has is run.

use super::{Generation, ours_all, refused, seal_copy};

#[path = "../../../gcm/tests/suite/mapping.rs"]
mod mapping;

/// Hunts: a key-length check that panics (slice indexing, `try_into().unwrap()`) instead of
/// returning `InvalidLength`, or that accepts a truncated key.
pub fn new_from_slice_every_key_length<G: Generation>() {
    for len in 0..=64 {
        let key = vec![0x5au8; len];
        for bits in [128, 192, 256] {
            let ok = G::new_from_slice(bits, &key).expect("an AES size").is_ok();
            assert_eq!(
                ok,
                len * 8 == bits,
                "{}: AES-{bits}, {len}-byte key",
                G::NAME
            );
        }
    }
}

/// Hunts: `decrypt_in_place` (and `Aead::decrypt`) panicking on, or changing, a buffer shorter
/// than the tag, including the empty one.
pub fn short_buffers_every_engine<G: Generation>() {
    let data: Vec<u8> = (0..16).collect();
    for (name, siv) in ours_all::<G>(&[3u8; 16]) {
        for len in 0..16 {
            let mut buf = data[..len].to_vec();
            assert!(siv.open_vec(&[9; 12], &[], &mut buf).is_err(), "{name}");
            assert_eq!(buf, &data[..len], "{name}");
            assert!(siv.decrypt(&[9; 12], &[], &data[..len]).is_err(), "{name}");
        }
    }
}

/// Hunts RustCrypto 0.12.1's leak: an out-of-place decryption that writes the output before
/// the tag is checked and "undoes" it with the keystream, which leaves the plaintext there
/// when only the associated data was wrong. With the genuine tag and the wrong AAD (the case
/// that leaks), and with a wrong tag, in place and out of place, at lengths around the scratch
/// buffer's chunk (1 KiB) and the engines' strides.
pub fn refusal_leaves_output_alone<G: Generation>() {
    for (name, siv) in ours_all::<G>(&[8u8; 16]) {
        for len in [0, 1, 16, 100, 300, 1023, 1024, 1025, 3000] {
            let pt: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let (ct, tag) = seal_copy(&*siv, &[4; 12], b"ad", &pt);
            let what = format!("{name}, len {len}");
            refused(&*siv, &[4; 12], b"AD", &ct, &tag, &what);
            let mut bad = tag.clone();
            bad[15] ^= 0x80;
            refused(&*siv, &[4; 12], b"ad", &ct, &bad, &what);
        }
    }
}

/// Over-limit lengths, end to end, without allocating them: prefixes of one reserved mapping
/// (`mapping::untouched`, shared with the AES-GCM suite). Every refused length must be refused
/// in both directions before a byte is read or written: one past `P_MAX`, the window in which
/// upstream 0.12.1 panics and 0.11.1 runs its counter onto the first keystream block again
/// (`P_MAX + 1 ..= C_MAX`, its ends and middle), and one past `C_MAX`.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn over_limit_refused_untouched<G: Generation>() {
    let p_max = 1usize << 36;
    let lens = [p_max + 1, p_max + 8, p_max + 16, p_max + 17];
    mapping::untouched(p_max + 17, |buf| {
        for (name, siv) in ours_all::<G>(&[1u8; 16]) {
            for &n in &lens {
                let part = &mut buf[..n];
                assert!(siv.seal(&[0; 12], &[], part).is_err(), "{name}: seal {n}");
                assert!(
                    siv.open(&[0; 12], &[], part, &[0; 16]).is_err(),
                    "{name}: open {n}"
                );
            }
        }
    });
}
