//! AES-GCM throughput: our `aes-gcm`, RustCrypto's `aes-gcm` 0.11.1, ring 0.17 and aws-lc-rs 1.x.
//!
//! Groups (`<aead>` is `aes128gcm` or `aes256gcm`; ids are `<impl>/<bytes>`):
//!
//! - `<aead>/encrypt`, `<aead>/decrypt`: one in-place, detached-tag operation per iteration, no
//!   AAD, at every size in `SIZES`. The key is set up outside the timing.
//! - `<aead>/encrypt+aad13`: 16 KiB with 13 bytes of AAD (a TLS 1.2 record's header).
//! - `<aead>/roundtrip`: 16 KiB encrypted, then decrypted and verified, per iteration.
//! - `gen010-<aead>/encrypt`, `gen010-<aead>/decrypt`: the aead 0.5 generation, our `aes-gcm`
//!   0.10 (`aead-0.5/`) against RustCrypto's 0.10.3, at every size in `SIZES`, through
//!   `AeadInPlace`'s detached calls.
//!
//! Impls: `ours` (only with `--features ours-aead`, while our crate is being written),
//! `rustcrypto`, `ring`, `aws-lc-rs`. Every impl runs through the same generic code, so each
//! pays the same harness overhead; RustCrypto's API and ours are the same trait (`AeadInOut`),
//! ring's and aws-lc-rs's are `LessSafeKey`.
//!
//! Decryption works in place, so the buffer it leaves is no longer the ciphertext the tag was
//! made for. Rather than copy a fresh ciphertext in each iteration (a memcpy that would be a
//! fifth of the work at 16 KiB), the bench uses two tags: GCM's keystream is the same for a
//! given key and nonce, so if `C = P ^ KS` carries tag `T1`, then `P = C ^ KS` is itself a valid
//! ciphertext (of `C`) with tag `T2`, computed once by encrypting `C`. Decrypting in place
//! alternates the buffer between `C` and `P`; each iteration uses the matching tag and
//! asserts that verification passed, so every timed decryption is a successful one.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group};
use upstream_aes_gcm::aead;

/// Message lengths, in bytes (1420: a typical packet payload).
const SIZES: [usize; 6] = [16, 64, 256, 1420, 4096, 16384];
/// The length of the AAD and round-trip cases.
const LONG: usize = 16384;
/// An arbitrary nonce: the benches never vary it, which no real protocol may do.
const NONCE: [u8; 12] = *b"\x4e\x30\x7a\x1c\x9b\x02\x55\xe1\x0d\x88\x3f\x61";
/// 13 bytes of AAD, as TLS 1.2 uses.
const AAD13: [u8; 13] = *b"\x00\x00\x00\x00\x00\x00\x00\x01\x17\x03\x03\x40\x00";
/// Key bytes; AES-128 uses the first 16.
const KEY: [u8; 32] = *b"\xfe\xff\xe9\x92\x86\x65\x73\x1c\x6d\x6a\x8f\x94\x67\x30\x83\x08\
                         \xfe\xff\xe9\x92\x86\x65\x73\x1c\x6d\x6a\x8f\x94\x67\x30\x83\x08";

/// An AES-GCM implementation, keyed, through the in-place detached-tag calls each API offers.
trait Gcm {
    /// Encrypts `buf` in place and returns the tag.
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16];
    /// Decrypts `buf` in place if `tag` verifies; returns whether it did.
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool;
}

/// The RustCrypto API (RustCrypto's crate and ours).
struct RustCryptoApi<A>(A);

impl<A: aead::AeadInOut<TagSize = aead::consts::U16>> Gcm for RustCryptoApi<A> {
    #[inline]
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = aead::Nonce::<A>::try_from(&NONCE[..]).expect("12-byte nonce");
        let tag = self.0.encrypt_inout_detached(&nonce, aad, buf.into());
        tag.expect("length within GCM's limits").into()
    }

    #[inline]
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aead::Nonce::<A>::try_from(&NONCE[..]).expect("12-byte nonce");
        self.0
            .decrypt_inout_detached(&nonce, aad, buf.into(), tag.into())
            .is_ok()
    }
}

/// The aead 0.5 API (RustCrypto's `aes-gcm` 0.10.3 and our 0.10).
struct AeadInPlace05<A>(A);

impl<A: aes_gcm_010::AeadInPlace<TagSize = aes_gcm_010::aead::consts::U16>> Gcm
    for AeadInPlace05<A>
{
    #[inline]
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = aes_gcm_010::aead::Nonce::<A>::from_slice(&NONCE);
        let tag = self.0.encrypt_in_place_detached(nonce, aad, buf);
        tag.expect("length within GCM's limits").into()
    }

    #[inline]
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aes_gcm_010::aead::Nonce::<A>::from_slice(&NONCE);
        self.0
            .decrypt_in_place_detached(nonce, aad, buf, tag.into())
            .is_ok()
    }
}

impl Gcm for ring::aead::LessSafeKey {
    #[inline]
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = ring::aead::Nonce::assume_unique_for_key(NONCE);
        let tag = self.seal_in_place_separate_tag(nonce, ring::aead::Aad::from(aad), buf);
        let tag = tag.expect("length within GCM's limits");
        tag.as_ref().try_into().expect("16-byte tag")
    }

    #[inline]
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = ring::aead::Nonce::assume_unique_for_key(NONCE);
        let tag = ring::aead::Tag::from(*tag);
        self.open_in_place_separate_tag(nonce, ring::aead::Aad::from(aad), tag, buf, 0..)
            .is_ok()
    }
}

impl Gcm for aws_lc_rs::aead::LessSafeKey {
    #[inline]
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
        let tag = self.seal_in_place_separate_tag(nonce, aws_lc_rs::aead::Aad::from(aad), buf);
        let tag = tag.expect("length within GCM's limits");
        tag.as_ref().try_into().expect("16-byte tag")
    }

    #[inline]
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
        let aad = aws_lc_rs::aead::Aad::from(aad);
        self.open_in_place_separate_tag(nonce, aad, &tag[..], buf)
            .is_ok()
    }
}

/// Times `seal` on `len` bytes with `aad`.
fn encrypt_case(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    gcm: &impl Gcm,
    aad: &[u8],
    len: usize,
) {
    let mut buf = benches::test_data(len);
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter(|| gcm.seal(black_box(aad), black_box(&mut buf)));
    });
}

/// Times a successful in-place `open` of `len` bytes (the two-tag scheme in the module docs).
fn decrypt_case(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, gcm: &impl Gcm, len: usize) {
    let plain = benches::test_data(len);
    let mut cipher = plain.clone();
    // `tags[0]` authenticates `cipher` (C), `tags[1]` authenticates `plain` (P) as a ciphertext.
    let tags = [
        gcm.seal(&[], &mut cipher),
        gcm.seal(&[], &mut cipher.clone()),
    ];
    let mut buf = cipher.clone();
    let mut which = 0;
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter(|| {
            let ok = gcm.open(&[], black_box(&mut buf), &tags[which]);
            assert!(ok, "{name}: tag did not verify");
            which ^= 1;
        });
    });
    // An even number of decryptions leaves the ciphertext, an odd number the plaintext.
    let expect = if which == 0 { &cipher } else { &plain };
    assert!(buf == *expect, "{name}: decryption went astray");
}

/// Times encrypt-then-decrypt of `len` bytes.
fn roundtrip_case(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, gcm: &impl Gcm, len: usize) {
    let plain = benches::test_data(len);
    let mut buf = plain.clone();
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter(|| {
            let tag = gcm.seal(&[], black_box(&mut buf));
            let ok = gcm.open(&[], black_box(&mut buf), &tag);
            assert!(ok, "{name}: tag did not verify");
        });
    });
    assert!(buf == plain, "{name}: round trip changed the data");
}

/// Every implementation, keyed with `key`, in a list of boxed trait objects would cost a virtual
/// call per iteration; instead each case is run per concrete type through this macro.
macro_rules! for_each_impl {
    ($key:expr, |$name:ident, $gcm:ident| $body:expr) => {{
        let key: &[u8] = $key;
        #[cfg(feature = "ours-aead")]
        {
            let $name = "ours";
            let $gcm = if key.len() == 16 {
                OursOrTheirs::A128(RustCryptoApi(
                    <aes_gcm::Aes128Gcm as aead::KeyInit>::new_from_slice(key).expect("key"),
                ))
            } else {
                OursOrTheirs::A256(RustCryptoApi(
                    <aes_gcm::Aes256Gcm as aead::KeyInit>::new_from_slice(key).expect("key"),
                ))
            };
            match &$gcm {
                OursOrTheirs::A128($gcm) => $body,
                OursOrTheirs::A256($gcm) => $body,
            }
        }
        {
            let $name = "rustcrypto";
            let $gcm = if key.len() == 16 {
                OursOrTheirs::A128(RustCryptoApi(
                    <upstream_aes_gcm::Aes128Gcm as aead::KeyInit>::new_from_slice(key)
                        .expect("key"),
                ))
            } else {
                OursOrTheirs::A256(RustCryptoApi(
                    <upstream_aes_gcm::Aes256Gcm as aead::KeyInit>::new_from_slice(key)
                        .expect("key"),
                ))
            };
            match &$gcm {
                OursOrTheirs::A128($gcm) => $body,
                OursOrTheirs::A256($gcm) => $body,
            }
        }
        {
            let $name = "ring";
            let alg = if key.len() == 16 {
                &ring::aead::AES_128_GCM
            } else {
                &ring::aead::AES_256_GCM
            };
            let unbound = ring::aead::UnboundKey::new(alg, key).expect("key");
            let $gcm = &ring::aead::LessSafeKey::new(unbound);
            $body
        }
        {
            let $name = "aws-lc-rs";
            let alg = if key.len() == 16 {
                &aws_lc_rs::aead::AES_128_GCM
            } else {
                &aws_lc_rs::aead::AES_256_GCM
            };
            let unbound = aws_lc_rs::aead::UnboundKey::new(alg, key).expect("key");
            let $gcm = &aws_lc_rs::aead::LessSafeKey::new(unbound);
            $body
        }
    }};
}

/// One RustCrypto-API cipher of either key size (they are different types).
enum OursOrTheirs<A, B> {
    A128(A),
    A256(B),
}

fn aes_gcm(c: &mut Criterion, label: &str, key: &[u8]) {
    let mut g = c.benchmark_group(format!("{label}/encrypt"));
    for len in SIZES {
        for_each_impl!(key, |name, gcm| encrypt_case(&mut g, name, gcm, &[], len));
    }
    g.finish();

    let mut g = c.benchmark_group(format!("{label}/decrypt"));
    for len in SIZES {
        for_each_impl!(key, |name, gcm| decrypt_case(&mut g, name, gcm, len));
    }
    g.finish();

    let mut g = c.benchmark_group(format!("{label}/encrypt+aad13"));
    for_each_impl!(key, |name, gcm| encrypt_case(
        &mut g, name, gcm, &AAD13, LONG
    ));
    g.finish();

    let mut g = c.benchmark_group(format!("{label}/roundtrip"));
    for_each_impl!(key, |name, gcm| roundtrip_case(&mut g, name, gcm, LONG));
    g.finish();
}

fn aes128gcm(c: &mut Criterion) {
    aes_gcm(c, "aes128gcm", &KEY[..16]);
}

fn aes256gcm(c: &mut Criterion) {
    aes_gcm(c, "aes256gcm", &KEY);
}

/// Our `aes-gcm` 0.10 and RustCrypto's 0.10.3, keyed with `key`, in turn.
macro_rules! for_each_010 {
    ($key:expr, |$name:ident, $gcm:ident| $body:expr) => {{
        use aes_gcm_010::KeyInit as _;
        let key: &[u8] = $key;
        macro_rules! both {
            ($ours:ty, $theirs:ty) => {{
                let $name = "ours";
                let $gcm = &AeadInPlace05(<$ours>::new_from_slice(key).expect("key"));
                $body;
                let $name = "rustcrypto";
                let $gcm = &AeadInPlace05(<$theirs>::new_from_slice(key).expect("key"));
                $body;
            }};
        }
        if key.len() == 16 {
            both!(aes_gcm_010::Aes128Gcm, upstream_aes_gcm_010::Aes128Gcm);
        } else {
            both!(aes_gcm_010::Aes256Gcm, upstream_aes_gcm_010::Aes256Gcm);
        }
    }};
}

/// The aead 0.5 generation: encryption and decryption at every size.
fn gen010(c: &mut Criterion) {
    for (label, key) in [
        ("gen010-aes128gcm", &KEY[..16]),
        ("gen010-aes256gcm", &KEY[..]),
    ] {
        let mut g = c.benchmark_group(format!("{label}/encrypt"));
        for len in SIZES {
            for_each_010!(key, |name, gcm| encrypt_case(&mut g, name, gcm, &[], len));
        }
        g.finish();

        let mut g = c.benchmark_group(format!("{label}/decrypt"));
        for len in SIZES {
            for_each_010!(key, |name, gcm| decrypt_case(&mut g, name, gcm, len));
        }
        g.finish();
    }
}

criterion_group! {
    name = aead_benches;
    // Modest defaults for a shared, noisy machine; the command line overrides them.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = aes128gcm, aes256gcm, gen010
}

fn main() {
    if cfg!(not(feature = "ours-aead")) {
        eprintln!("aead: `ours` left out (build with --features ours-aead to include it)");
    }
    benches::run_with_core_clock(|| {
        aead_benches();
        Criterion::default().configure_from_args().final_summary();
    });
}
