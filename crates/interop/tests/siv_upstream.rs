//! Differential tests of our `aes-gcm-siv` 0.12, on every POLYVAL backend and fused engine
//! this CPU has, against the published `aes-gcm-siv` 0.12.1 (renamed dev-dependency
//! `upstream-aes-gcm-siv`; AES-128, -192 and -256) and aws-lc-rs (`AES_128_GCM_SIV`,
//! `AES_256_GCM_SIV`): the shared SIV suite's `differential` module
//! (`crates/gcm-siv/tests/suite`, also run for our 0.11 against 0.11.1 in `aead-0.5/interop`).
//! And the one place ours differs from 0.12.1 on purpose: a refused out-of-place decryption.
//!
//! (Here rather than in crates/gcm-siv: with the published crate as a dev-dependency of ours,
//! `cargo test -p aes-gcm-siv` would be ambiguous.)

#[macro_use]
#[path = "../../gcm-siv/tests/suite/mod.rs"]
mod suite;
#[path = "../../gcm-siv/tests/generation/mod.rs"]
mod generation;

use aes::{Aes128, Aes192, Aes256};
use aes_gcm_siv::aead::{AeadInOut, KeyInit, inout::InOutBuf};
use generation::{Ours, Wrap};
#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
use suite::Error;
use suite::{Siv, differential::Reference};

/// The published 0.12.1 for the AES key of `key`'s length.
fn upstream(key: &[u8]) -> Box<dyn Siv> {
    use upstream_aes_gcm_siv::AesGcmSiv;
    match key.len() {
        16 => Box::new(Wrap::reference(
            AesGcmSiv::<Aes128>::new_from_slice(key).expect("key"),
        )),
        24 => Box::new(Wrap::reference(
            AesGcmSiv::<Aes192>::new_from_slice(key).expect("key"),
        )),
        _ => Box::new(Wrap::reference(
            AesGcmSiv::<Aes256>::new_from_slice(key).expect("key"),
        )),
    }
}

/// aws-lc-rs's AES-GCM-SIV (BoringSSL's assembly) behind the suite's interface; every other
/// method keeps its default (no out-of-place calls, the `aead::Buffer` and `Aead` calls in
/// terms of these two, a reference's engine and backend). Built on x86_64 outside the
/// forced-portable build only (see Cargo.toml).
#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
struct AwsLc(aws_lc_rs::aead::LessSafeKey);

#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
impl AwsLc {
    fn new(key: &[u8]) -> Option<Self> {
        let alg = match key.len() {
            16 => &aws_lc_rs::aead::AES_128_GCM_SIV,
            32 => &aws_lc_rs::aead::AES_256_GCM_SIV,
            _ => return None,
        };
        let key = aws_lc_rs::aead::UnboundKey::new(alg, key).expect("aws-lc-rs key");
        Some(Self(aws_lc_rs::aead::LessSafeKey::new(key)))
    }
}

#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
impl Siv for AwsLc {
    fn seal(&self, n: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, Error> {
        let nonce = aws_lc_rs::aead::Nonce::try_assume_unique_for_key(n).map_err(|_| Error)?;
        let aad = aws_lc_rs::aead::Aad::from(aad);
        let tag = self.0.seal_in_place_separate_tag(nonce, aad, buf);
        tag.map(|t| t.as_ref().to_vec()).map_err(|_| Error)
    }
    fn open(&self, n: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let nonce = aws_lc_rs::aead::Nonce::try_assume_unique_for_key(n).map_err(|_| Error)?;
        let aad = aws_lc_rs::aead::Aad::from(aad);
        let r = self.0.open_in_place_separate_tag(nonce, aad, tag, buf);
        r.map(|_| ()).map_err(|_| Error)
    }
}

/// The published 0.12.1, and aws-lc-rs where it has the key size.
struct References;

impl Reference for References {
    fn references(key: &[u8]) -> Vec<(String, Box<dyn Siv>)> {
        #[cfg_attr(
            not(all(target_arch = "x86_64", not(polyval_backend = "soft"))),
            expect(unused_mut)
        )]
        let mut refs = vec![("aes-gcm-siv 0.12.1".to_owned(), upstream(key))];
        #[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
        if let Some(aws) = AwsLc::new(key) {
            refs.push(("aws-lc-rs".to_owned(), Box::new(aws)));
        }
        refs
    }
}

siv_differential_tests!(Ours, References);

/// The deliberate difference from 0.12.1 (`aes-gcm-siv`'s crate docs): with the genuine tag and
/// altered associated data, 0.12.1's out-of-place decryption returns `Err` but leaves the
/// plaintext in the output; ours leaves the output as it was, on every implementation. (If
/// upstream stops leaking, the first assertion says so and this test can go.)
#[test]
fn out_of_place_refusal_upstream_leaks_ours_does_not() {
    let key = [0x24u8; 32];
    let (nonce, pt) = ([5u8; 12].into(), [0x61u8; 100]);
    let theirs = upstream_aes_gcm_siv::Aes256GcmSiv::new(&key.into());
    let mut ct = pt;
    let tag = theirs
        .encrypt_inout_detached(&nonce, b"aad", ct.as_mut_slice().into())
        .expect("encrypt");
    let mut out = [0u8; 100];
    let buf = InOutBuf::new(&ct, &mut out).expect("lengths");
    assert!(
        theirs
            .decrypt_inout_detached(&nonce, b"AAD", buf, &tag)
            .is_err()
    );
    assert_eq!(out, pt, "upstream 0.12.1 no longer leaks: drop this test");
    for (name, ours) in suite::ours_all::<Ours>(&key) {
        let mut out = [0u8; 100];
        let r = ours
            .open_to(&nonce, b"AAD", &ct, &mut out, &tag)
            .expect("out-of-place API");
        assert!(r.is_err(), "{name}");
        assert_eq!(out, [0; 100], "{name}: output written");
    }
}
