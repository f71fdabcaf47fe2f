//! Hostile and odd input at every public entry point of `polyval`, `ghash` and `aes-gcm`: empty
//! inputs, every length around the block boundaries, buffers shorter than a tag, wrong key
//! lengths, unusual nonce and tag sizes, and lengths over the limits. The bar is `Err` (or the
//! right answer), never a panic, and a refused decryption never changes the buffer.
//!
//! Every backend and engine this CPU has is run; the answers are checked against the
//! published crates (`upstream-*`), so "no panic" is never the only assertion.

use aes::{Aes128, Aes192, Aes256};
use aes_gcm::{
    __Engine as Engine, AesGcm, Tag,
    aead::{
        Aead, AeadInOut, KeyInit, Payload,
        array::{
            Array, ArraySize,
            typenum::{U0, U1, U4, U7, U8, U12, U13, U16, U17, U255},
        },
    },
};
use clmul_core::Backend;
use polyval::universal_hash::UniversalHash;
use upstream_aes_gcm as upstream;

/// Deterministic test bytes.
fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// Hunts: a key-length check that panics (slice indexing, `try_into().unwrap()`) instead of
/// returning `InvalidLength`, or that accepts a truncated key.
#[test]
fn new_from_slice_every_key_length() {
    for len in 0..=64 {
        let key = bytes(len, 1);
        assert_eq!(
            polyval::Polyval::new_from_slice(&key).is_ok(),
            len == 16,
            "polyval {len}"
        );
        assert_eq!(
            ghash::GHash::new_from_slice(&key).is_ok(),
            len == 16,
            "ghash {len}"
        );
        assert_eq!(
            aes_gcm::Aes128Gcm::new_from_slice(&key).is_ok(),
            len == 16,
            "aes128 {len}"
        );
        assert_eq!(
            AesGcm::<Aes192, U12>::new_from_slice(&key).is_ok(),
            len == 24,
            "aes192 {len}"
        );
        assert_eq!(
            aes_gcm::Aes256Gcm::new_from_slice(&key).is_ok(),
            len == 32,
            "aes256 {len}"
        );
    }
}

/// Hunts: a tail path (partial block, empty input, one block short of a stride) that reads
/// past the input or drops bytes, on any backend, through the public `UniversalHash` API.
#[test]
fn uhf_every_length_every_backend() {
    let key = bytes(16, 7);
    let data = bytes(80, 9);
    for len in 0..=80 {
        let msg = &data[..len];
        let up_p = {
            let mut s = upstream_polyval::Polyval::new_from_slice(&key).unwrap();
            s.update_padded(msg);
            s.finalize()
        };
        let up_g = {
            let mut s = upstream_ghash::GHash::new_from_slice(&key).unwrap();
            s.update_padded(msg);
            s.finalize()
        };
        let mut s = polyval::Polyval::new_from_slice(&key).unwrap();
        s.update_padded(msg);
        assert_eq!(s.finalize().as_slice(), up_p.as_slice(), "polyval {len}");
        for b in Backend::available() {
            let k: [u8; 16] = key.clone().try_into().unwrap();
            let mut p = clmul_core::Polyval::with_backend(&k, b).unwrap();
            p.update(&[]); // an empty update is a no-op
            p.update_padded(msg);
            p.update_padded(&[]);
            assert_eq!(p.finalize(), up_p.as_slice(), "polyval {b:?} {len}");

            let mut g = ghash::GHash::__with_backend(&k.into(), b).unwrap();
            g.update_padded(msg);
            g.update(&[]);
            assert_eq!(
                g.finalize().as_slice(),
                up_g.as_slice(),
                "ghash {b:?} {len}"
            );
        }
    }
}

/// Every engine and every GHASH backend of the generic path, for one key.
fn instances<A, N, T>(key: &[u8]) -> Vec<(String, AesGcm<A, N, T>)>
where
    A: cipher::BlockCipherEncrypt + cipher::BlockSizeUser<BlockSize = U16> + KeyInit,
    N: ArraySize,
    T: aes_gcm::TagSize,
{
    let key = aes_gcm::Key::<A>::try_from(key).unwrap();
    let mut v: Vec<(String, AesGcm<A, N, T>)> = Engine::available()
        .filter_map(|e| Some((format!("{e:?}"), AesGcm::with_engine(&key, e)?)))
        .collect();
    for b in Backend::available() {
        let g = AesGcm::__with_ghash_backend(A::new(&key), b).unwrap();
        v.push((format!("Generic/{b:?}"), g));
    }
    v
}

/// Hunts: an engine whose tail handling (empty message, partial last block, one block past a
/// stride) differs from upstream, and a `decrypt_in_place` that panics, or changes the
/// buffer, when the buffer is shorter than the tag.
#[test]
fn aead_every_length_every_engine() {
    let key = bytes(16, 3);
    let up = upstream::Aes128Gcm::new_from_slice(&key).unwrap();
    let nonce = aes_gcm::Nonce::<U12>::from([9u8; 12]);
    let data = bytes(80, 5);
    for (name, gcm) in instances::<Aes128, U12, U16>(&key) {
        for alen in [0, 1, 15, 16, 17, 32, 33] {
            let aad = &data[..alen];
            for plen in 0..=80 {
                let pt = &data[..plen];
                let want = up.encrypt(&nonce, Payload { msg: pt, aad }).unwrap();
                let got = gcm.encrypt(&nonce, Payload { msg: pt, aad }).unwrap();
                assert_eq!(got, want, "{name} a{alen} p{plen}");
                let opened = gcm.decrypt(&nonce, Payload { msg: &got, aad }).unwrap();
                assert_eq!(opened, pt, "{name} a{alen} p{plen}");
                // Truncated sealed messages: shorter than the tag, or missing bytes.
                for cut in [1, 15, 16, 17] {
                    if let Some(short) = got.get(..got.len().saturating_sub(cut)) {
                        let mut buf = short.to_vec();
                        assert!(gcm.decrypt_in_place(&nonce, aad, &mut buf).is_err());
                        assert_eq!(buf, short, "{name}: refused decryption changed the buffer");
                    }
                }
            }
        }
        // Every buffer shorter than the tag, including the empty one.
        for len in 0..16 {
            let mut buf = data[..len].to_vec();
            assert!(
                gcm.decrypt_in_place(&nonce, &[], &mut buf).is_err(),
                "{name}"
            );
            assert_eq!(buf, &data[..len], "{name}");
            assert!(gcm.decrypt(&nonce, &data[..len]).is_err(), "{name}");
        }
    }
}

/// Round trip and agreement with upstream for one nonce size on every engine.
fn nonce_size_case<N: ArraySize>() {
    let key = bytes(32, 11);
    let up = upstream::AesGcm::<Aes256, N>::new_from_slice(&key).unwrap();
    let nonce = Array::<u8, N>::try_from(bytes(N::USIZE, 13).as_slice()).unwrap();
    for (name, gcm) in instances::<Aes256, N, U16>(&key) {
        for plen in [0, 1, 16, 33, 130] {
            let pt = bytes(plen, 2);
            let want = up.encrypt(&nonce, pt.as_slice()).unwrap();
            let got = gcm.encrypt(&nonce, pt.as_slice()).unwrap();
            assert_eq!(got, want, "{name} nonce {} bytes, p{plen}", N::USIZE);
            assert_eq!(gcm.decrypt(&nonce, got.as_slice()).unwrap(), pt);
        }
    }
}

/// Hunts: J0 derivation for nonces that are not 96 bits (GHASH over the nonce): the empty
/// nonce, sub-block and over-block nonces, and a 255-byte one (bit length > 2^10).
#[test]
fn unusual_nonce_sizes() {
    nonce_size_case::<U0>();
    nonce_size_case::<U1>();
    nonce_size_case::<U7>();
    nonce_size_case::<U13>();
    nonce_size_case::<U17>();
    nonce_size_case::<U255>();
}

/// Round trip, agreement with upstream and short buffers for one tag size.
fn tag_size_case<T: aes_gcm::TagSize + upstream::TagSize>() {
    let key = bytes(16, 21);
    let up = upstream::AesGcm::<Aes128, U12, T>::new_from_slice(&key).unwrap();
    let nonce = aes_gcm::Nonce::<U12>::from([1u8; 12]);
    for (name, gcm) in instances::<Aes128, U12, T>(&key) {
        for plen in [0, 5, 16, 47] {
            let pt = bytes(plen, 4);
            let want = up.encrypt(&nonce, pt.as_slice()).unwrap();
            let got = gcm.encrypt(&nonce, pt.as_slice()).unwrap();
            assert_eq!(got, want, "{name} tag {} p{plen}", T::USIZE);
            assert_eq!(gcm.decrypt(&nonce, got.as_slice()).unwrap(), pt);
        }
        for len in 0..T::USIZE {
            let mut buf = vec![0xa5; len];
            assert!(gcm.decrypt_in_place(&nonce, &[], &mut buf).is_err());
            assert_eq!(buf, vec![0xa5; len]);
        }
    }
}

/// Hunts: truncated-tag handling (prefix of the full tag; a buffer shorter than a short tag).
#[test]
fn every_tag_size() {
    tag_size_case::<U4>();
    tag_size_case::<U8>();
    tag_size_case::<aes_gcm::aead::array::typenum::U12>();
    tag_size_case::<U13>();
    tag_size_case::<aes_gcm::aead::array::typenum::U14>();
    tag_size_case::<aes_gcm::aead::array::typenum::U15>();
    tag_size_case::<U16>();
}

/// Hunts: a refused out-of-place decryption that writes (partial) plaintext to the output, or
/// reads the output before writing it.
#[test]
fn out_of_place_refusal_leaves_output_alone() {
    let key = bytes(16, 8);
    let nonce = aes_gcm::Nonce::<U12>::from([4u8; 12]);
    for (name, gcm) in instances::<Aes128, U12, U16>(&key) {
        for plen in [0, 1, 16, 100, 300] {
            let pt = bytes(plen, 6);
            let mut ct = pt.clone();
            let tag = gcm
                .encrypt_inout_detached(&nonce, b"ad", ct.as_mut_slice().into())
                .unwrap();
            let mut bad = tag;
            bad[0] ^= 1;
            let mut out = vec![0x5a; plen];
            let buf = aes_gcm::aead::inout::InOutBuf::new(&ct, &mut out).unwrap();
            assert!(
                gcm.decrypt_inout_detached(&nonce, b"ad", buf, &bad)
                    .is_err()
            );
            assert_eq!(out, vec![0x5a; plen], "{name}: output written on failure");
            let buf = aes_gcm::aead::inout::InOutBuf::new(&ct, &mut out).unwrap();
            gcm.decrypt_inout_detached(&nonce, b"ad", buf, &tag)
                .unwrap();
            assert_eq!(out, pt, "{name}");
        }
    }
}

/// Over-limit lengths, end to end, without allocating them: a `P_MAX + 1`-byte buffer is a
/// `MAP_NORESERVE` anonymous mapping (64 GiB of address space, no memory until a page is
/// touched). Encryption and decryption must both refuse it before reading or writing a byte;
/// the resident size afterwards shows no page was touched.
///
/// Associated data over `A_MAX` (2^61 bytes) cannot be mapped on any current x86_64 or
/// aarch64 (47- to 57-bit address spaces); that branch of the same check is covered by the
/// `length_limits` unit test in `crates/gcm/src/lib.rs`, and by reasoning: `check_lengths`
/// compares `len as u64 > A_MAX` before any other work.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn plaintext_over_p_max_refused_untouched() {
    let len = usize::try_from(aes_gcm::P_MAX).unwrap() + 1;
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
    let key = bytes(16, 1);
    let nonce = aes_gcm::Nonce::<U12>::default();
    for (name, gcm) in instances::<Aes128, U12, U16>(&key) {
        assert!(
            gcm.encrypt_inout_detached(&nonce, &[], (&mut *buf).into())
                .is_err(),
            "{name}"
        );
        assert!(
            gcm.decrypt_inout_detached(&nonce, &[], (&mut *buf).into(), &Tag::default())
                .is_err(),
            "{name}"
        );
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
