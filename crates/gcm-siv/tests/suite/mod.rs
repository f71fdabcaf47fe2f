//! The AES-GCM-SIV test suite of both generations: the same test code runs through our
//! `aes-gcm-siv` 0.12 (aead 0.6 API; `crates/gcm-siv/tests/shared.rs`, `crates/interop`) and
//! our `aes-gcm-siv` 0.11 (aead 0.5 API; `aead-0.5/aes-gcm-siv/tests/shared.rs`,
//! `aead-0.5/interop`), on every fused engine and every POLYVAL backend this CPU has.
//!
//! Each generation implements [`Generation`] (constructors) in its `tests/generation/mod.rs`
//! and wraps its instances as [`Siv`], the byte-slice interface the AES-GCM suite uses too
//! (`crates/gcm/tests/suite/api.rs`, implemented for any AEAD of a generation by its
//! `aes-gcm`'s `tests/generation/wrap.rs`). Nonces are 12 bytes and tags 16, as the types fix
//! them; AES key sizes are chosen at run time (128, 192 or 256 bits: `Aes128`, `Aes192`,
//! `Aes256`).
#![allow(dead_code)]

#[path = "../../../gcm/tests/suite/api.rs"]
pub mod api;
pub mod differential;
pub mod engines;
pub mod hostile;
pub mod tamper;
pub mod vectors;

pub use aes_gcm_siv::__Engine as Engine;
pub use api::{AeadBytes as Siv, Error};
pub use clmul_core::Backend;

/// One generation's constructors. `bits` is 128, 192 or 256; each returns `None` for another.
pub trait Generation {
    /// The generation's name in failure messages.
    const NAME: &'static str;
    /// Whether this build's `cfg`s ask this generation for portable code only (then `KeyInit`
    /// must not pick a fused engine).
    const FORCED_SOFT: bool;
    /// `KeyInit::new_from_slice` (the constructor users call): `Some(Err(Error))` for a key of
    /// the wrong length.
    fn new_from_slice(bits: usize, key: &[u8]) -> Option<Result<Box<dyn Siv>, Error>>;
    /// The hidden constructor on a chosen engine (`None` if the CPU lacks it).
    fn with_engine(bits: usize, key: &[u8], engine: Engine) -> Option<Box<dyn Siv>>;
    /// `From<Aes>`'s generic path with POLYVAL on a chosen backend (`None` if the CPU lacks it).
    fn with_polyval_backend(bits: usize, key: &[u8], backend: Backend) -> Option<Box<dyn Siv>>;
    /// `From<Aes>` (no raw key: always the generic path, on the detected POLYVAL backend).
    fn from_cipher(bits: usize, key: &[u8]) -> Option<Box<dyn Siv>>;
}

/// The plumbing of a generation's adapter (`tests/generation/mod.rs`): the constructors behind
/// [`Generation`] for `AesGcmSiv`, given the generation's bounds on the AES type `A`, how it
/// makes a `Key` from bytes and how it wraps an `AesGcmSiv` as a [`Siv`] (`$wrap`).
#[macro_export]
macro_rules! siv_generation {
    ($ours:ident {
        name: $name:expr,
        forced_soft: $soft:expr,
        bounds: [$($bounds:tt)*],
        key: |$k:ident| $key:expr,
        wrap: $wrap:path $(,)?
    }) => {
        /// `$f::<Aes>$args` for the AES type of `bits` bits.
        macro_rules! by_bits {
            ($f:ident, $bits:expr, $args:tt) => {
                match $bits {
                    128 => Some($f::<aes::Aes128> $args),
                    192 => Some($f::<aes::Aes192> $args),
                    256 => Some($f::<aes::Aes256> $args),
                    _ => None,
                }
            };
        }

        fn new_from_slice<A>(key: &[u8]) -> Result<Box<dyn Siv>, Error>
        where
            $($bounds)*
        {
            AesGcmSiv::<A>::new_from_slice(key).map($wrap).map_err(|_| Error)
        }

        fn with_engine<A>($k: &[u8], engine: Engine) -> Option<Box<dyn Siv>>
        where
            $($bounds)*
        {
            AesGcmSiv::<A>::with_engine($key, engine).map($wrap)
        }

        fn with_polyval_backend<A>(key: &[u8], backend: Backend) -> Option<Box<dyn Siv>>
        where
            $($bounds)*
        {
            let aes = A::new_from_slice(key).expect("key length");
            AesGcmSiv::<A>::__with_polyval_backend(aes, backend).map($wrap)
        }

        fn from_cipher<A>(key: &[u8]) -> Box<dyn Siv>
        where
            $($bounds)*
        {
            $wrap(AesGcmSiv::<A>::from(A::new_from_slice(key).expect("key length")))
        }

        /// The suite's constructors for this generation.
        pub struct $ours;

        impl Generation for $ours {
            const NAME: &'static str = $name;
            const FORCED_SOFT: bool = $soft;

            fn new_from_slice(bits: usize, key: &[u8]) -> Option<Result<Box<dyn Siv>, Error>> {
                by_bits!(new_from_slice, bits, (key))
            }

            fn with_engine(bits: usize, key: &[u8], engine: Engine) -> Option<Box<dyn Siv>> {
                by_bits!(with_engine, bits, (key, engine)).flatten()
            }

            fn with_polyval_backend(
                bits: usize,
                key: &[u8],
                backend: Backend,
            ) -> Option<Box<dyn Siv>> {
                by_bits!(with_polyval_backend, bits, (key, backend)).flatten()
            }

            fn from_cipher(bits: usize, key: &[u8]) -> Option<Box<dyn Siv>> {
                by_bits!(from_cipher, bits, (key))
            }
        }
    };
}

/// Every POLYVAL backend this CPU can run, printing the ones it cannot, so that a test never
/// silently covers only the detected backend.
pub fn backends() -> Vec<Backend> {
    for b in Backend::ALL {
        if !b.is_available() {
            eprintln!(
                "note: POLYVAL backend {} not available on this CPU, skipped",
                b.name()
            );
        }
    }
    Backend::available().collect()
}

/// Every fused engine this CPU can run, other than the generic path, printing the ones it
/// cannot.
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

/// Our AES-GCM-SIV of generation `G` keyed with `key` (16, 24 or 32 bytes), once per
/// implementation this CPU can run: the generic path on every available POLYVAL backend, then
/// every available fused engine, each with a label for failure messages.
pub fn ours_all<G: Generation>(key: &[u8]) -> Vec<(String, Box<dyn Siv>)> {
    let bits = key.len() * 8;
    let mut all: Vec<(String, Box<dyn Siv>)> = backends()
        .into_iter()
        .map(|b| {
            let siv = G::with_polyval_backend(bits, key, b).expect("available backend");
            assert_eq!(siv.hash_backend(), b);
            assert_eq!(siv.engine(), Engine::Generic);
            (format!("{}: generic, POLYVAL {}", G::NAME, b.name()), siv)
        })
        .collect();
    for e in fused_engines() {
        let siv = G::with_engine(bits, key, e).expect("available engine refused an AES key");
        assert_eq!(siv.engine(), e);
        all.push((format!("{}: fused engine {e:?}", G::NAME), siv));
    }
    all
}

/// Seals `pt` in place: (ciphertext, tag).
pub fn seal_copy(siv: &dyn Siv, nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut buf = pt.to_vec();
    let tag = siv.seal(nonce, aad, &mut buf).expect("encrypt");
    (buf, tag)
}

/// `(ct, tag)` must be refused by every decryption call, which must leave its buffer or output
/// exactly as it was.
pub fn refused(siv: &dyn Siv, nonce: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], what: &str) {
    let mut buf = ct.to_vec();
    assert!(
        siv.open(nonce, aad, &mut buf, tag).is_err(),
        "{what}: accepted"
    );
    assert_eq!(buf, ct, "{what}: refused decryption changed the buffer");
    let mut out = vec![0x77; ct.len()];
    if let Some(r) = siv.open_to(nonce, aad, ct, &mut out, tag) {
        assert!(r.is_err(), "{what}: accepted out of place");
        assert!(
            out.iter().all(|&b| b == 0x77),
            "{what}: output written on refusal"
        );
    }
    let sealed = [ct, tag].concat();
    let mut vec = sealed.clone();
    assert!(
        siv.open_vec(nonce, aad, &mut vec).is_err(),
        "{what}: accepted"
    );
    assert_eq!(vec, sealed, "{what}: decrypt_in_place changed the buffer");
    assert!(
        siv.decrypt(nonce, aad, &sealed).is_err(),
        "{what}: Aead::decrypt accepted"
    );
}

/// Many threads sharing one instance (`&self` API, `Sync`) get the same results.
pub fn shared_across_threads<G: Generation>() {
    for (name, siv) in ours_all::<G>(&[8u8; 32]) {
        let reference = seal_copy(&*siv, &[9; 12], b"x", &[1u8; 1000]);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..50 {
                        let got = seal_copy(&*siv, &[9; 12], b"x", &[1u8; 1000]);
                        assert_eq!(got, reference, "{name}");
                    }
                });
            }
        });
    }
}

/// The `#[test]`s of the suite, for generation `$g` (run from a test target that includes this
/// module with `#[macro_use]`).
#[macro_export]
macro_rules! siv_suite_tests {
    ($g:ty) => {
        #[test]
        fn rfc8452_appendix_c() {
            suite::vectors::rfc8452::<$g>();
        }
        #[test]
        fn aes192_vectors() {
            suite::vectors::aes192::<$g>();
        }
        #[test]
        fn wycheproof_aes_gcm_siv_all() {
            suite::vectors::wycheproof::<$g>();
        }
        #[test]
        fn engines_every_length() {
            suite::engines::every_length::<$g>();
        }
        #[test]
        fn engines_aad_lengths() {
            suite::engines::aad_lengths::<$g>();
        }
        #[test]
        fn engines_short_messages() {
            suite::engines::short_messages::<$g>();
        }
        #[test]
        fn engines_long_random_lengths() {
            suite::engines::long_random_lengths::<$g>();
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
        fn tamper_aes128() {
            suite::tamper::flipped_bits_and_bytes::<$g>(40, 16);
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
        fn hostile_refusal_leaves_output_alone() {
            suite::hostile::refusal_leaves_output_alone::<$g>();
        }
        #[test]
        fn shared_across_threads() {
            suite::shared_across_threads::<$g>();
        }
        #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
        #[test]
        fn hostile_over_limit_refused_untouched() {
            suite::hostile::over_limit_refused_untouched::<$g>();
        }
    };
}
