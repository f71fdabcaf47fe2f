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
//! Every tag and verdict is read through `black_box` (the compiler could otherwise drop the
//! unread part of our pure-Rust work, never a peer's foreign call).
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

mod impls;
use impls::{AAD13, AeadInPlace05, Gcm, KEY, for_each};

/// Message lengths, in bytes (1420: a typical packet payload).
const SIZES: [usize; 6] = [16, 64, 256, 1420, 4096, 16384];
/// The length of the AAD and round-trip cases.
const LONG: usize = 16384;

/// Times `seal` on `len` bytes with `aad`.
fn encrypt_case(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    gcm: &impl Gcm,
    aad: &[u8],
    len: usize,
) {
    let buf = benches::placed_data(len, benches::place());
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter(|| black_box(gcm.seal(black_box(aad), black_box(&mut *buf))));
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
    let buf = benches::placed_data(len, benches::place());
    buf.copy_from_slice(&cipher);
    let mut which = 0;
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter(|| {
            let ok = black_box(gcm.open(&[], black_box(&mut *buf), &tags[which]));
            assert!(ok, "{name}: tag did not verify");
            which ^= 1;
        });
    });
    // An even number of decryptions leaves the ciphertext, an odd number the plaintext.
    let expect = if which == 0 { &cipher } else { &plain };
    assert!(*buf == **expect, "{name}: decryption went astray");
}

/// Times encrypt-then-decrypt of `len` bytes.
fn roundtrip_case(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, gcm: &impl Gcm, len: usize) {
    let plain = benches::test_data(len);
    let buf = benches::placed_data(len, benches::place());
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter(|| {
            let tag = black_box(gcm.seal(&[], black_box(&mut *buf)));
            let ok = black_box(gcm.open(&[], black_box(&mut *buf), &tag));
            assert!(ok, "{name}: tag did not verify");
        });
    });
    assert!(*buf == *plain, "{name}: round trip changed the data");
}

/// Every implementation: ours (detected engine), RustCrypto, ring, aws-lc-rs.
macro_rules! for_each_impl {
    ($key:expr, |$n:ident, $gcm:ident| $body:expr) => {{
        #[cfg(feature = "ours-aead")]
        for_each!($key, ["ours" => impls::ours_detected], |$n, $gcm| $body);
        for_each!(
            $key,
            [
                "rustcrypto" => impls::rustcrypto,
                "ring" => impls::ring,
                "aws-lc-rs" => impls::aws_lc,
            ],
            |$n, $gcm| $body
        );
    }};
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
