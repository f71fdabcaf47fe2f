//! RustCrypto's `aes-gcm-siv` 0.12.1 and 0.11.1, as published: the bench that `cargo xtask
//! bench` builds twice in scratch packages under `target/siv-polyval/`, once as they are and
//! once with our `polyval` 0.7 / 0.6 patched in (`[patch.crates-io]`), since one binary cannot
//! hold both. `SIV_BENCH_IMPL` (set by xtask) names the row: `rustcrypto` or
//! `rustcrypto+our-polyval`.
//!
//! Groups `polyval-patched-<aead>-<version>/{encrypt,decrypt}`, ids `<impl>/<bytes>`: one
//! in-place detached operation per iteration, no AAD, decryption from a fresh copy of the
//! ciphertext made outside the timing (as `benches/benches/siv.rs`).
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group};

const SIZES: [usize; 4] = [16, 64, 1420, 16384];
const NONCE: [u8; 12] = [0x4e; 12];
const KEY: [u8; 32] = [0x31; 32];

/// Encrypts in place (returns the tag) and decrypts in place (returns whether it verified).
type Ops = (
    Box<dyn Fn(&mut [u8]) -> [u8; 16]>,
    Box<dyn Fn(&mut [u8], &[u8; 16]) -> bool>,
);

/// 0.12.1 (aead 0.6).
fn v012<A>(key: &[u8]) -> Ops
where
    A: aes_gcm_siv::AeadInOut<TagSize = aes_gcm_siv::aead::consts::U16>
        + aes_gcm_siv::KeyInit
        + 'static,
{
    let a = std::rc::Rc::new(A::new_from_slice(key).expect("key"));
    let nonce = aes_gcm_siv::aead::Nonce::<A>::try_from(&NONCE[..]).expect("12 bytes");
    let nonce2 = nonce.clone();
    let b = a.clone();
    (
        Box::new(move |buf| {
            a.encrypt_inout_detached(&nonce, &[], buf.into())
                .expect("ok")
                .into()
        }),
        Box::new(move |buf, tag| {
            b.decrypt_inout_detached(&nonce2, &[], buf.into(), tag.into())
                .is_ok()
        }),
    )
}

/// 0.11.1 (aead 0.5).
fn v011<A>(key: &[u8]) -> Ops
where
    A: aes_gcm_siv_011::AeadInPlace<TagSize = aes_gcm_siv_011::aead::consts::U16>
        + aes_gcm_siv_011::KeyInit
        + 'static,
{
    let a = std::rc::Rc::new(A::new_from_slice(key).expect("key"));
    let b = a.clone();
    let nonce = aes_gcm_siv_011::aead::Nonce::<A>::from_slice(&NONCE).clone();
    let nonce2 = nonce.clone();
    (
        Box::new(move |buf| {
            a.encrypt_in_place_detached(&nonce, &[], buf)
                .expect("ok")
                .into()
        }),
        Box::new(move |buf, tag| {
            b.decrypt_in_place_detached(&nonce2, &[], buf, tag.into())
                .is_ok()
        }),
    )
}

fn bench(c: &mut Criterion) {
    let imp = std::env::var("SIV_BENCH_IMPL").unwrap_or_else(|_| "rustcrypto".to_owned());
    let cases: [(&str, Ops); 4] = [
        (
            "aes128gcmsiv-0.12.1",
            v012::<aes_gcm_siv::Aes128GcmSiv>(&KEY[..16]),
        ),
        (
            "aes256gcmsiv-0.12.1",
            v012::<aes_gcm_siv::Aes256GcmSiv>(&KEY),
        ),
        (
            "aes128gcmsiv-0.11.1",
            v011::<aes_gcm_siv_011::Aes128GcmSiv>(&KEY[..16]),
        ),
        (
            "aes256gcmsiv-0.11.1",
            v011::<aes_gcm_siv_011::Aes256GcmSiv>(&KEY),
        ),
    ];
    for (label, (seal, open)) in &cases {
        let mut g = c.benchmark_group(format!("polyval-patched-{label}/encrypt"));
        for len in SIZES {
            let mut buf = benches::test_data(len);
            g.throughput(Throughput::Bytes(len as u64));
            g.bench_function(BenchmarkId::new(&imp, len), |b| {
                b.iter(|| black_box(seal(black_box(&mut buf))))
            });
        }
        g.finish();
        let mut g = c.benchmark_group(format!("polyval-patched-{label}/decrypt"));
        for len in SIZES {
            let mut ct = benches::test_data(len);
            let tag = seal(&mut ct);
            g.throughput(Throughput::Bytes(len as u64));
            g.bench_function(BenchmarkId::new(&imp, len), |b| {
                b.iter_batched_ref(
                    || ct.clone(),
                    |buf| assert!(black_box(open(black_box(buf), &tag))),
                    BatchSize::SmallInput,
                );
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches_group;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = bench
}

fn main() {
    benches::run_with_core_clock(|| {
        benches_group();
        Criterion::default().configure_from_args().final_summary();
    });
}
