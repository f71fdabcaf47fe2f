//! The AES-GCM test suite of both generations: the same test code runs through our `aes-gcm`
//! 0.11 (aead 0.6 API; `crates/gcm/tests/shared.rs`, `crates/interop`) and our `aes-gcm` 0.10
//! (aead 0.5 API; `aead-0.5/aes-gcm/tests/shared.rs`, `aead-0.5/interop`), on every fused
//! engine and every GHASH backend this CPU has.
//!
//! Each generation implements [`Generation`] (constructors) and wraps its keyed instances as
//! [`Gcm`] (byte slices in, byte slices out) in its `tests/generation/mod.rs`; the checks
//! here see only those two traits. Nonce, tag and key sizes are chosen at run time and mapped
//! to the generation's types by [`dispatch!`].
#![allow(dead_code)]

pub mod api;
pub mod block_cipher;
pub mod differential;
pub mod engines;
pub mod forgeries;
pub mod gcm_spec;
pub mod hostile;
pub mod mapping;
pub mod nist_cavp;
pub mod tamper;
pub mod wycheproof;

pub use aes_gcm::__Engine as Engine;
pub use clmul_core::Backend;
use rand::{Rng, SeedableRng, rngs::SmallRng};

pub use api::{AeadBytes as Gcm, Error};

/// One generation's constructors. `bits` is 128, 192 or 256 (`aes::Aes128/192/256`); nonce
/// and tag sizes are in bytes. Each returns `None` for a combination its types cannot express.
pub trait Generation {
    /// The generation's name in failure messages.
    const NAME: &'static str;
    /// The tag sizes its `TagSize` allows.
    const TAG_SIZES: &'static [usize];
    /// Whether this build's `cfg`s ask this generation for portable code only (then
    /// `KeyInit` must not pick a fused engine).
    const FORCED_SOFT: bool;
    /// `KeyInit::new_from_slice` (the constructor users call): `Some(Err(Error))` for a key of
    /// the wrong length.
    fn new_from_slice(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Option<Result<Box<dyn Gcm>, Error>>;
    /// The hidden constructor on a chosen engine (`None` if the CPU lacks it).
    fn with_engine(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
        engine: Engine,
    ) -> Option<Box<dyn Gcm>>;
    /// The hidden `__keyed_on`: `KeyInit::new`'s code with a chosen engine (the generic
    /// path's key if the CPU lacks it).
    fn keyed_on(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
        engine: Engine,
    ) -> Option<Box<dyn Gcm>>;
    /// `From<Aes>`, with the GHASH of the two-pass path on a chosen backend.
    fn with_ghash_backend(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
        backend: Backend,
    ) -> Option<Box<dyn Gcm>>;
    /// `From<Aes>` (no key: always the two-pass path on the detected GHASH backend).
    fn from_cipher(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Option<Box<dyn Gcm>>;
}

/// Calls `$f::<Aes, N, T>($args)` for the AES type of `$bits` bits (`$aes128` ...), nonce size
/// `$n` and tag size `$t` (bytes); `None` for a combination not listed. Nonce sizes: every one
/// the suites use, with 16-byte tags; tag sizes `$tags` (besides 16), with 12-byte nonces.
#[macro_export]
macro_rules! dispatch {
    ($f:ident, [$a128:ty, $a192:ty, $a256:ty], $bits:expr, $n:expr, $t:expr,
     [$($tag:ident = $tv:literal),*], $args:tt) => {
        match $bits {
            128 => $crate::dispatch!(@sizes $f, $a128, $n, $t, [$($tag = $tv),*], $args),
            192 => $crate::dispatch!(@sizes $f, $a192, $n, $t, [$($tag = $tv),*], $args),
            256 => $crate::dispatch!(@sizes $f, $a256, $n, $t, [$($tag = $tv),*], $args),
            _ => None,
        }
    };
    (@sizes $f:ident, $aes:ty, $n:expr, $t:expr, [$($tag:ident = $tv:literal),*],
     $args:tt) => {{
        use aes_gcm::aead::consts::*;
        match ($n, $t) {
            (12, 16) => Some($f::<$aes, U12, U16>$args),
            $((12, $tv) => Some($f::<$aes, U12, $tag>$args),)*
            (0, 16) => Some($f::<$aes, U0, U16>$args),
            (1, 16) => Some($f::<$aes, U1, U16>$args),
            (2, 16) => Some($f::<$aes, U2, U16>$args),
            (4, 16) => Some($f::<$aes, U4, U16>$args),
            (6, 16) => Some($f::<$aes, U6, U16>$args),
            (7, 16) => Some($f::<$aes, U7, U16>$args),
            (8, 16) => Some($f::<$aes, U8, U16>$args),
            (10, 16) => Some($f::<$aes, U10, U16>$args),
            (13, 16) => Some($f::<$aes, U13, U16>$args),
            (15, 16) => Some($f::<$aes, U15, U16>$args),
            (16, 16) => Some($f::<$aes, U16, U16>$args),
            (17, 16) => Some($f::<$aes, U17, U16>$args),
            (20, 16) => Some($f::<$aes, U20, U16>$args),
            (32, 16) => Some($f::<$aes, U32, U16>$args),
            (60, 16) => Some($f::<$aes, U60, U16>$args),
            (64, 16) => Some($f::<$aes, U64, U16>$args),
            (128, 16) => Some($f::<$aes, U128, U16>$args),
            (255, 16) => Some($f::<$aes, U255, U16>$args),
            (257, 16) => Some($f::<$aes, U257, U16>$args),
            _ => None,
        }
    }};
}

/// The plumbing of a generation's adapter (`tests/generation/mod.rs`): the constructors behind
/// `Generation` for a type `$ours`, given the generation's bounds on the AES type `A`, the
/// nonce size `N` and the tag size `T`, how it makes a `Key` from bytes, how it wraps an
/// `AesGcm` in a `Gcm` (`$wrap`), and its `dispatch!` (`$dispatch`, over its tag sizes).
#[macro_export]
macro_rules! generation {
    ($ours:ident {
        name: $name:expr,
        tag_sizes: $tags:expr,
        forced_soft: $soft:expr,
        bounds: [$($bounds:tt)*],
        key: |$k:ident| $key:expr,
        wrap: $wrap:path,
        dispatch: $dispatch:ident $(,)?
    }) => {
        fn new_from_slice<A, N, T>(key: &[u8]) -> Result<Box<dyn Gcm>, Error>
        where
            $($bounds)*
        {
            AesGcm::<A, N, T>::new_from_slice(key)
                .map($wrap)
                .map_err(|_| Error)
        }

        fn with_engine<A, N, T>($k: &[u8], engine: Engine) -> Option<Box<dyn Gcm>>
        where
            $($bounds)*
        {
            AesGcm::<A, N, T>::with_engine($key, engine).map($wrap)
        }

        fn keyed_on<A, N, T>($k: &[u8], engine: Engine) -> Box<dyn Gcm>
        where
            $($bounds)*
        {
            $wrap(AesGcm::<A, N, T>::__keyed_on($key, engine))
        }

        fn with_ghash_backend<A, N, T>(key: &[u8], backend: Backend) -> Option<Box<dyn Gcm>>
        where
            $($bounds)*
        {
            let aes = A::new_from_slice(key).expect("key length");
            AesGcm::<A, N, T>::__with_ghash_backend(aes, backend).map($wrap)
        }

        fn from_cipher<A, N, T>(key: &[u8]) -> Box<dyn Gcm>
        where
            $($bounds)*
        {
            $wrap(AesGcm::<A, N, T>::from(A::new_from_slice(key).expect("key length")))
        }

        /// The suite's constructors for this generation.
        pub struct $ours;

        impl Generation for $ours {
            const NAME: &'static str = $name;
            const TAG_SIZES: &'static [usize] = $tags;
            const FORCED_SOFT: bool = $soft;

            fn new_from_slice(
                bits: usize,
                key: &[u8],
                nonce_len: usize,
                tag_len: usize,
            ) -> Option<Result<Box<dyn Gcm>, Error>> {
                $dispatch!(new_from_slice, bits, nonce_len, tag_len, (key))
            }

            fn with_engine(
                bits: usize,
                key: &[u8],
                nonce_len: usize,
                tag_len: usize,
                engine: Engine,
            ) -> Option<Box<dyn Gcm>> {
                $dispatch!(with_engine, bits, nonce_len, tag_len, (key, engine)).flatten()
            }

            fn keyed_on(
                bits: usize,
                key: &[u8],
                nonce_len: usize,
                tag_len: usize,
                engine: Engine,
            ) -> Option<Box<dyn Gcm>> {
                $dispatch!(keyed_on, bits, nonce_len, tag_len, (key, engine))
            }

            fn with_ghash_backend(
                bits: usize,
                key: &[u8],
                nonce_len: usize,
                tag_len: usize,
                backend: Backend,
            ) -> Option<Box<dyn Gcm>> {
                $dispatch!(with_ghash_backend, bits, nonce_len, tag_len, (key, backend))
                    .flatten()
            }

            fn from_cipher(
                bits: usize,
                key: &[u8],
                nonce_len: usize,
                tag_len: usize,
            ) -> Option<Box<dyn Gcm>> {
                $dispatch!(from_cipher, bits, nonce_len, tag_len, (key))
            }
        }
    };
}

/// Many threads sharing one instance (`&self` API, `Sync`) get the same results.
pub fn shared_across_threads<G: Generation>() {
    let gcm = G::new_from_slice(256, &[8u8; 32], 12, 16)
        .expect("listed size")
        .expect("key");
    let nonce = [9u8; 12];
    let reference = engines::seal_copy(&*gcm, &nonce, b"x", &[1u8; 1000]);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..50 {
                    let got = engines::seal_copy(&*gcm, &nonce, b"x", &[1u8; 1000]);
                    assert_eq!(got, reference);
                }
            });
        }
    });
}

/// A deterministic generator, so a failure reproduces.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// `len` random bytes.
pub fn bytes(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v[..]);
    v
}

/// Every GHASH backend this CPU can run (the detected one and all below it), printing the ones
/// it cannot, so that a test never silently covers only the detected backend.
pub fn backends() -> Vec<Backend> {
    for b in Backend::ALL {
        if !b.is_available() {
            eprintln!(
                "note: GHASH backend {} not available on this CPU, skipped",
                b.name()
            );
        }
    }
    Backend::available().collect()
}

/// Every fused AES-GCM engine this CPU can run, other than the generic two-pass path, printing
/// the ones it cannot.
pub fn fused_engines() -> Vec<Engine> {
    Engine::ALL
        .iter()
        .copied()
        .filter(|&e| e != Engine::Generic)
        .filter(|&e| {
            let ok = e.is_available();
            if !ok {
                eprintln!("note: fused engine {e:?} not available on this CPU, skipped");
            }
            ok
        })
        .collect()
}

/// The AES key size (bits) of a key.
pub fn aes_bits(key: &[u8]) -> usize {
    key.len() * 8
}

/// Our AES-GCM of generation `G` keyed with `key`, once per implementation this CPU can run:
/// the two-pass path on every available GHASH backend, then every available fused engine.
/// Each comes with a label for failure messages. Panics for a size combination `G` cannot
/// express (a mistake in the test, not in the code under test).
pub fn ours_all<G: Generation>(
    key: &[u8],
    nonce_len: usize,
    tag_len: usize,
) -> Vec<(String, Box<dyn Gcm>)> {
    let bits = aes_bits(key);
    let mut all: Vec<(String, Box<dyn Gcm>)> = backends()
        .into_iter()
        .map(|b| {
            let gcm = G::with_ghash_backend(bits, key, nonce_len, tag_len, b)
                .expect("available backend and a listed size");
            assert_eq!(gcm.hash_backend(), b);
            assert_eq!(gcm.engine(), Engine::Generic);
            (
                format!("{}: generic, GHASH backend {}", G::NAME, b.name()),
                gcm,
            )
        })
        .collect();
    for e in fused_engines() {
        let gcm = G::with_engine(bits, key, nonce_len, tag_len, e)
            .expect("available engine refused an AES key");
        assert_eq!(gcm.engine(), e);
        all.push((format!("{}: fused engine {e:?}", G::NAME), gcm));
    }
    all
}

/// The `#[test]`s of the suite, for generation `$g` (run from a test target that includes this
/// module with `#[macro_use]`).
#[macro_export]
macro_rules! suite_tests {
    ($g:ty) => {
        #[test]
        fn engines_every_length() {
            suite::engines::every_length::<$g>();
        }
        #[test]
        fn engines_every_length_short_aad() {
            suite::engines::every_length_short_aad::<$g>();
        }
        #[test]
        fn engines_aad_lengths() {
            suite::engines::aad_lengths::<$g>();
        }
        #[test]
        fn engines_long_random_lengths() {
            suite::engines::long_random_lengths::<$g>();
        }
        #[test]
        fn engines_long_nonces_random_counters() {
            suite::engines::long_nonces_random_counters::<$g>();
        }
        #[test]
        fn engines_keyed_on() {
            suite::engines::keyed_on::<$g>();
        }
        #[test]
        fn engines_default_engine() {
            suite::engines::default_engine::<$g>();
        }
        #[test]
        #[cfg(target_arch = "x86_64")]
        fn engines_keyinit_paced() {
            suite::engines::keyinit_paced::<$g>();
        }
        #[test]
        fn gcm_spec_test_cases() {
            suite::gcm_spec::all_cases::<$g>();
        }
        #[test]
        fn nist_cavp_gcm_encrypt_ext_iv128() {
            suite::nist_cavp::ext_iv128::<$g>();
        }
        #[test]
        fn nist_cavp_gcm_encrypt_ext_iv256() {
            suite::nist_cavp::ext_iv256::<$g>();
        }
        #[test]
        fn nist_cavp_other_iv_lengths() {
            suite::nist_cavp::other_iv_lengths::<$g>();
        }
        #[test]
        fn nist_cavp_parser_rejects_damaged_files() {
            suite::nist_cavp::parser_rejects_damaged_files();
        }
        #[test]
        fn wycheproof_aes_gcm_all() {
            suite::wycheproof::all::<$g>();
        }
        #[test]
        fn tamper_aes128() {
            suite::tamper::flipped_bits_and_bytes::<$g>(40, 16);
        }
        #[test]
        fn tamper_aes192() {
            suite::tamper::flipped_bits_and_bytes::<$g>(42, 24);
        }
        #[test]
        fn tamper_aes256() {
            suite::tamper::flipped_bits_and_bytes::<$g>(43, 32);
        }
        #[test]
        fn tamper_wrong_nonce_or_key() {
            suite::tamper::wrong_nonce_or_key::<$g>();
        }
        #[test]
        fn hostile_new_from_slice_every_key_length() {
            suite::hostile::new_from_slice_every_key_length::<$g>();
        }
        #[test]
        fn hostile_short_buffers_every_engine() {
            suite::hostile::short_buffers_every_engine::<$g>();
        }
        #[test]
        fn shared_across_threads() {
            suite::shared_across_threads::<$g>();
        }
        #[test]
        fn hostile_out_of_place_refusal_leaves_output_alone() {
            suite::hostile::out_of_place_refusal_leaves_output_alone::<$g>();
        }
    };
}
