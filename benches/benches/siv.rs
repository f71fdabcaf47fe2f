//! AES-GCM-SIV throughput: our `aes-gcm-siv`, RustCrypto's `aes-gcm-siv` 0.12.1 (unpatched,
//! from crates.io) and aws-lc-rs 1.x (BoringSSL's AES-NI/AVX assembly; ring has no
//! AES-GCM-SIV), in one run.
//!
//! Groups (`<aead>` is `aes128gcmsiv` or `aes256gcmsiv`; ids are `<impl>/<bytes>`):
//!
//! - `<aead>/encrypt`, `<aead>/decrypt`: one in-place, detached-tag operation per iteration, no
//!   AAD, at every size in `SIZES`. The key is set up outside the timing; the per-message key
//!   derivation, as the construction demands, inside it.
//! - `gen011-<aead>/encrypt`, `gen011-<aead>/decrypt`: the aead 0.5 generation, our
//!   `aes-gcm-siv` 0.11 (`aead-0.5/`) against RustCrypto's 0.11.1, through `AeadInPlace`.
//!
//! Decryption works in place, and AES-GCM-SIV's keystream depends on the tag, so a decrypted
//! buffer is no longer a valid ciphertext (unlike GCM's, see `aead.rs`): each iteration starts
//! from a fresh copy of the ciphertext, made outside the timing (`iter_batched_ref`), and
//! asserts that the tag verified.
//!
//! Every tag and verdict is read through `black_box`.
//!
//! RustCrypto 0.12.1 and 0.11.1 with our `polyval` patched in cannot share a binary with the
//! unpatched crates; `cargo xtask bench` measures them in scratch packages under `target/`.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group};

/// Message lengths, in bytes (1420: a typical packet payload).
const SIZES: [usize; 4] = [16, 64, 1420, 16384];
/// An arbitrary nonce: the benches never vary it, which no real protocol may do.
const NONCE: [u8; 12] = *b"\x4e\x30\x7a\x1c\x9b\x02\x55\xe1\x0d\x88\x3f\x61";
/// Key bytes; AES-128 uses the first 16.
const KEY: [u8; 32] = *b"\x31\x8a\x0c\xd2\x46\x77\xe5\x19\xaa\x03\x5b\xc8\x92\x6e\x14\xf0\
                         \x7d\x28\xb3\x59\xe0\x41\x9f\x66\x0a\xc5\x37\x8e\xd4\x12\x6b\xa9";

/// An AES-GCM-SIV implementation, keyed, through the in-place detached-tag calls each API
/// offers.
trait Siv {
    /// Encrypts `buf` in place and returns the tag.
    fn seal(&self, buf: &mut [u8]) -> [u8; 16];
    /// Decrypts `buf` in place if `tag` verifies; returns whether it did.
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool;
}

/// The aead 0.6 API (RustCrypto's 0.12.1 and ours).
struct InOut<A>(A);

impl<A: aes_gcm_siv::AeadInOut<TagSize = aes_gcm_siv::aead::consts::U16>> Siv for InOut<A> {
    #[inline]
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        let nonce = aes_gcm_siv::aead::Nonce::<A>::try_from(&NONCE[..]).expect("12 bytes");
        let tag = self.0.encrypt_inout_detached(&nonce, &[], buf.into());
        tag.expect("within the limits").into()
    }

    #[inline]
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aes_gcm_siv::aead::Nonce::<A>::try_from(&NONCE[..]).expect("12 bytes");
        let r = self
            .0
            .decrypt_inout_detached(&nonce, &[], buf.into(), tag.into());
        r.is_ok()
    }
}

/// The aead 0.5 API (RustCrypto's 0.11.1 and ours).
struct InPlace05<A>(A);

impl<A: aes_gcm_siv_011::AeadInPlace<TagSize = aes_gcm_siv_011::aead::consts::U16>> Siv
    for InPlace05<A>
{
    #[inline]
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        let nonce = aes_gcm_siv_011::aead::Nonce::<A>::from_slice(&NONCE);
        let tag = self.0.encrypt_in_place_detached(nonce, &[], buf);
        tag.expect("within the limits").into()
    }

    #[inline]
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aes_gcm_siv_011::aead::Nonce::<A>::from_slice(&NONCE);
        self.0
            .decrypt_in_place_detached(nonce, &[], buf, tag.into())
            .is_ok()
    }
}

impl Siv for aws_lc_rs::aead::LessSafeKey {
    #[inline]
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
        let aad = aws_lc_rs::aead::Aad::empty();
        let tag = self.seal_in_place_separate_tag(nonce, aad, buf);
        tag.expect("within the limits")
            .as_ref()
            .try_into()
            .expect("16 bytes")
    }

    #[inline]
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
        let aad = aws_lc_rs::aead::Aad::empty();
        self.open_in_place_separate_tag(nonce, aad, tag, buf)
            .is_ok()
    }
}

/// Times `seal` on `len` bytes.
fn encrypt_case(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, siv: &impl Siv, len: usize) {
    let buf = benches::placed_data(len, benches::place());
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter(|| black_box(siv.seal(black_box(&mut *buf))));
    });
}

/// Times a successful in-place `open` of `len` bytes, each from a fresh copy of the ciphertext
/// (made outside the timing).
fn decrypt_case(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, siv: &impl Siv, len: usize) {
    let plain = benches::test_data(len);
    let mut ct = plain.clone();
    let tag = siv.seal(&mut ct);
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(BenchmarkId::new(name, len), |b| {
        b.iter_batched_ref(
            || ct.clone(),
            |buf| {
                let ok = black_box(siv.open(black_box(buf), &tag));
                assert!(ok, "{name}: tag did not verify");
            },
            BatchSize::SmallInput,
        );
    });
    let mut buf = ct.clone();
    assert!(
        siv.open(&mut buf, &tag) && buf == plain,
        "{name}: decryption went astray"
    );
}

/// Runs `$body` with `$siv` bound to each implementation keyed with `$key` (AES-128 or
/// AES-256 by its length), named `$name`, each of its concrete type (no virtual call per
/// iteration).
macro_rules! for_each_impl {
    ($key:expr, |$name:ident, $siv:ident| $body:expr) => {{
        use aes_gcm_siv::KeyInit as _;
        let key: &[u8] = $key;
        macro_rules! rustcrypto_api {
            ($label:expr, $a128:ty, $a256:ty) => {{
                let $name = $label;
                if key.len() == 16 {
                    let $siv = &InOut(<$a128>::new_from_slice(key).expect("key"));
                    $body;
                } else {
                    let $siv = &InOut(<$a256>::new_from_slice(key).expect("key"));
                    $body;
                }
            }};
        }
        rustcrypto_api!("ours", aes_gcm_siv::Aes128GcmSiv, aes_gcm_siv::Aes256GcmSiv);
        rustcrypto_api!(
            "rustcrypto",
            upstream_aes_gcm_siv::Aes128GcmSiv,
            upstream_aes_gcm_siv::Aes256GcmSiv
        );
        let $name = "aws-lc-rs";
        let alg = if key.len() == 16 {
            &aws_lc_rs::aead::AES_128_GCM_SIV
        } else {
            &aws_lc_rs::aead::AES_256_GCM_SIV
        };
        let unbound = aws_lc_rs::aead::UnboundKey::new(alg, key).expect("key");
        let $siv = &aws_lc_rs::aead::LessSafeKey::new(unbound);
        $body;
    }};
}

/// Our `aes-gcm-siv` 0.11 and RustCrypto's 0.11.1, keyed with `key`, in turn.
macro_rules! for_each_011 {
    ($key:expr, |$name:ident, $siv:ident| $body:expr) => {{
        use aes_gcm_siv_011::KeyInit as _;
        let key: &[u8] = $key;
        macro_rules! both {
            ($ours:ty, $theirs:ty) => {{
                let $name = "ours";
                let $siv = &InPlace05(<$ours>::new_from_slice(key).expect("key"));
                $body;
                let $name = "rustcrypto";
                let $siv = &InPlace05(<$theirs>::new_from_slice(key).expect("key"));
                $body;
            }};
        }
        if key.len() == 16 {
            both!(
                aes_gcm_siv_011::Aes128GcmSiv,
                upstream_aes_gcm_siv_011::Aes128GcmSiv
            );
        } else {
            both!(
                aes_gcm_siv_011::Aes256GcmSiv,
                upstream_aes_gcm_siv_011::Aes256GcmSiv
            );
        }
    }};
}

fn siv(c: &mut Criterion) {
    for (label, key) in [("aes128gcmsiv", &KEY[..16]), ("aes256gcmsiv", &KEY[..])] {
        let mut g = c.benchmark_group(format!("{label}/encrypt"));
        for len in SIZES {
            for_each_impl!(key, |name, siv| encrypt_case(&mut g, name, siv, len));
        }
        g.finish();
        let mut g = c.benchmark_group(format!("{label}/decrypt"));
        for len in SIZES {
            for_each_impl!(key, |name, siv| decrypt_case(&mut g, name, siv, len));
        }
        g.finish();
    }
}

/// The aead 0.5 generation.
fn gen011(c: &mut Criterion) {
    for (label, key) in [
        ("gen011-aes128gcmsiv", &KEY[..16]),
        ("gen011-aes256gcmsiv", &KEY[..]),
    ] {
        let mut g = c.benchmark_group(format!("{label}/encrypt"));
        for len in SIZES {
            for_each_011!(key, |name, siv| encrypt_case(&mut g, name, siv, len));
        }
        g.finish();
        let mut g = c.benchmark_group(format!("{label}/decrypt"));
        for len in SIZES {
            for_each_011!(key, |name, siv| decrypt_case(&mut g, name, siv, len));
        }
        g.finish();
    }
}

criterion_group! {
    name = siv_benches;
    // Modest defaults for a shared, noisy machine; the command line overrides them.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = siv, gen011
}

fn main() {
    benches::run_with_core_clock(|| {
        siv_benches();
        Criterion::default().configure_from_args().final_summary();
    });
}
