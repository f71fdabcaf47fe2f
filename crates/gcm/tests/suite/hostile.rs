//! Hostile and odd input at every AEAD entry point: every length around the block boundaries,
//! buffers shorter than a tag, wrong key lengths, unusual nonce and tag sizes, and lengths over
//! the limits. The bar is `Err` (or the right answer, checked against the references), never a
//! panic, and a refused decryption never changes the buffer. Every backend and engine this CPU
//! has is run.

use super::{Generation, differential::Reference, engines::seal_copy, ours_all};

/// Deterministic test bytes.
pub fn test_bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// Hunts: a key-length check that panics (slice indexing, `try_into().unwrap()`) instead of
/// returning `InvalidLength`, or that accepts a truncated key.
pub fn new_from_slice_every_key_length<G: Generation>() {
    for len in 0..=64 {
        let key = test_bytes(len, 1);
        for bits in [128, 192, 256] {
            let ok = G::new_from_slice(bits, &key, 12, 16)
                .expect("listed size")
                .is_ok();
            assert_eq!(
                ok,
                len * 8 == bits,
                "{}: AES-{bits}, {len}-byte key",
                G::NAME
            );
        }
    }
}

/// Hunts: an engine whose tail handling (empty message, partial last block, one block past a
/// stride) differs from the references, and a `decrypt_in_place` that panics, or changes the
/// buffer, when the buffer is shorter than the tag or misses bytes.
pub fn every_length_0_to_80<G: Generation, R: Reference>() {
    let key = test_bytes(16, 3);
    let nonce = [9u8; 12];
    let data = test_bytes(80, 5);
    let refs = R::references(&key, 12, 16);
    for (name, gcm) in ours_all::<G>(&key, 12, 16) {
        for alen in [0, 1, 15, 16, 17, 32, 33] {
            let aad = &data[..alen];
            for plen in 0..=80 {
                let pt = &data[..plen];
                let got = gcm.encrypt(&nonce, aad, pt).expect("encrypt");
                for (rname, r) in &refs {
                    let want = r.encrypt(&nonce, aad, pt).expect("encrypt");
                    assert_eq!(got, want, "{name} vs {rname}: a{alen} p{plen}");
                }
                let opened = gcm.decrypt(&nonce, aad, &got).expect("decrypt");
                assert_eq!(opened, pt, "{name} a{alen} p{plen}");
                // Truncated sealed messages: shorter than the tag, or missing bytes.
                for cut in [1, 15, 16, 17] {
                    if let Some(short) = got.get(..got.len().saturating_sub(cut)) {
                        let mut buf = short.to_vec();
                        assert!(gcm.open_vec(&nonce, aad, &mut buf).is_err());
                        assert_eq!(buf, short, "{name}: refused decryption changed the buffer");
                    }
                }
            }
        }
        // Every buffer shorter than the tag, including the empty one.
        for len in 0..16 {
            let mut buf = data[..len].to_vec();
            assert!(gcm.open_vec(&nonce, &[], &mut buf).is_err(), "{name}");
            assert_eq!(buf, &data[..len], "{name}");
            assert!(gcm.decrypt(&nonce, &[], &data[..len]).is_err(), "{name}");
        }
    }
}

/// Hunts: J0 derivation for nonces that are not 96 bits (GHASH over the nonce): the empty
/// nonce, sub-block and over-block nonces, and a 255-byte one (bit length > 2^10).
pub fn unusual_nonce_sizes<G: Generation, R: Reference>() {
    let key = test_bytes(32, 11);
    for nonce_len in [0, 1, 7, 13, 17, 255] {
        let nonce = test_bytes(nonce_len, 13);
        let refs = R::references(&key, nonce_len, 16);
        for (name, gcm) in ours_all::<G>(&key, nonce_len, 16) {
            for plen in [0, 1, 16, 33, 130] {
                let pt = test_bytes(plen, 2);
                let got = seal_copy(&*gcm, &nonce, b"", &pt);
                for (rname, r) in &refs {
                    let want = seal_copy(&**r, &nonce, b"", &pt);
                    assert_eq!(
                        got, want,
                        "{name} vs {rname}: nonce {nonce_len} bytes, p{plen}"
                    );
                }
                let sealed = [got.0.as_slice(), got.1.as_slice()].concat();
                assert_eq!(gcm.decrypt(&nonce, b"", &sealed).expect("decrypt"), pt);
            }
        }
    }
}

/// Hunts: truncated-tag handling (prefix of the full tag; a buffer shorter than a short tag).
pub fn every_tag_size<G: Generation, R: Reference>() {
    let key = test_bytes(16, 21);
    let nonce = [1u8; 12];
    for &tag_len in G::TAG_SIZES {
        let refs = R::references(&key, 12, tag_len);
        for (name, gcm) in ours_all::<G>(&key, 12, tag_len) {
            for plen in [0, 5, 16, 47] {
                let pt = test_bytes(plen, 4);
                let got = gcm.encrypt(&nonce, b"", &pt).expect("encrypt");
                assert_eq!(got.len(), plen + tag_len);
                for (rname, r) in &refs {
                    let want = r.encrypt(&nonce, b"", &pt).expect("encrypt");
                    assert_eq!(got, want, "{name} vs {rname}: tag {tag_len} p{plen}");
                }
                assert_eq!(gcm.decrypt(&nonce, b"", &got).expect("decrypt"), pt);
            }
            for len in 0..tag_len {
                let mut buf = vec![0xa5; len];
                assert!(gcm.open_vec(&nonce, &[], &mut buf).is_err(), "{name}");
                assert_eq!(buf, vec![0xa5; len], "{name}");
            }
        }
    }
}

/// Hunts: a refused decryption that leaves (partial) plaintext behind: in place, the buffer
/// must come back as the ciphertext; out of place (where the API has it), the output must not
/// be written, nor read before being written.
pub fn out_of_place_refusal_leaves_output_alone<G: Generation>() {
    let key = test_bytes(16, 8);
    let nonce = [4u8; 12];
    for (name, gcm) in ours_all::<G>(&key, 12, 16) {
        for plen in [0, 1, 16, 100, 300] {
            let pt = test_bytes(plen, 6);
            let (ct, tag) = seal_copy(&*gcm, &nonce, b"ad", &pt);
            let mut bad = tag.clone();
            bad[0] ^= 1;
            let mut buf = ct.clone();
            assert!(gcm.open(&nonce, b"ad", &mut buf, &bad).is_err(), "{name}");
            assert_eq!(buf, ct, "{name}: in-place buffer changed on failure");
            let mut out = vec![0x5a; plen];
            if let Some(r) = gcm.open_to(&nonce, b"ad", &ct, &mut out, &bad) {
                assert!(r.is_err(), "{name}");
                assert_eq!(out, vec![0x5a; plen], "{name}: output written on failure");
                gcm.open_to(&nonce, b"ad", &ct, &mut out, &tag)
                    .expect("out of place")
                    .expect("decrypt");
                assert_eq!(out, pt, "{name}");
            }
        }
    }
}

/// Hunts: a short buffer handed to `decrypt_in_place` that panics or changes; the same as
/// [`every_length_0_to_80`]'s last part, without a reference (for the crates' own tests).
pub fn short_buffers_every_engine<G: Generation>() {
    let key = test_bytes(16, 3);
    let nonce = [9u8; 12];
    let data = test_bytes(16, 5);
    for (name, gcm) in ours_all::<G>(&key, 12, 16) {
        for len in 0..16 {
            let mut buf = data[..len].to_vec();
            assert!(gcm.open_vec(&nonce, &[], &mut buf).is_err(), "{name}");
            assert_eq!(buf, &data[..len], "{name}");
        }
    }
}

/// Over-limit lengths, end to end, without allocating them: each of `lens` is a prefix of one
/// `MAP_NORESERVE` anonymous mapping (64 GiB of address space, no memory until a page is
/// touched). Encryption and decryption must both refuse it before reading or writing a byte;
/// the resident size afterwards shows no page was touched.
///
/// Associated data over `A_MAX` cannot be mapped on current x86_64 or aarch64 for 0.11 (2^61
/// bytes); that branch of the check is covered by each crate's `length_limits` unit test.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn over_limit_refused_untouched<G: Generation>(lens: &[usize]) {
    let len = lens.iter().copied().max().expect("some lengths");
    // SAFETY: an anonymous private mapping with no address hint; the arguments are valid and
    // the result is checked for MAP_FAILED below.
    let ptr = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        eprintln!("skipped: cannot reserve {len} bytes of address space");
        return;
    }
    // SAFETY: `ptr` is a fresh, readable and writable, zero-filled mapping of `len` bytes
    // that nothing else refers to; it is unmapped only after `buf` is last used.
    let buf = unsafe { core::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) };
    let key = test_bytes(16, 1);
    let nonce = [0u8; 12];
    for (name, gcm) in ours_all::<G>(&key, 12, 16) {
        for &n in lens {
            let part = &mut buf[..n];
            assert!(gcm.seal(&nonce, &[], part).is_err(), "{name}: seal {n}");
            assert!(
                gcm.open(&nonce, &[], part, &[0; 16]).is_err(),
                "{name}: open {n}"
            );
        }
    }
    // No page of the mapping became resident: nothing was read or written.
    let pages = len.div_ceil(4096);
    let mut vec = vec![0u8; pages];
    // SAFETY: `ptr` is page-aligned and maps `len` bytes; `vec` has one byte per page.
    let rc = unsafe { libc::mincore(ptr, len, vec.as_mut_ptr()) };
    assert_eq!(rc, 0);
    assert!(
        vec.iter().all(|v| v & 1 == 0),
        "the refused buffer was touched"
    );
    // SAFETY: `ptr`/`len` is the mapping made above; `buf` is not used after this.
    unsafe { libc::munmap(ptr, len) };
}

/// The `#[test]`s of this module that need references, for generation `$g` against `$r`.
#[macro_export]
macro_rules! hostile_tests {
    ($g:ty, $r:ty) => {
        #[test]
        fn aead_every_length_0_to_80_every_engine() {
            suite::hostile::every_length_0_to_80::<$g, $r>();
        }
        #[test]
        fn unusual_nonce_sizes() {
            suite::hostile::unusual_nonce_sizes::<$g, $r>();
        }
        #[test]
        fn every_tag_size() {
            suite::hostile::every_tag_size::<$g, $r>();
        }
    };
}
