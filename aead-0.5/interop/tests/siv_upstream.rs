//! Differential tests of our `aes-gcm-siv` 0.11, on every POLYVAL backend and fused engine this
//! CPU has, against the published `aes-gcm-siv` 0.11.1 (renamed dev-dependency
//! `upstream-aes-gcm-siv`; AES-128, -192 and -256): the shared SIV suite's `differential`
//! module (`crates/gcm-siv/tests/suite`, also run for our 0.12 against 0.12.1 and aws-lc-rs in
//! `crates/interop`).

#[macro_use]
#[path = "../../../crates/gcm-siv/tests/suite/mod.rs"]
mod suite;
#[path = "../../aes-gcm-siv/tests/generation/mod.rs"]
mod generation;

use aes::{Aes128, Aes192, Aes256};
use aes_gcm_siv::aead::KeyInit;
use generation::{Ours, Wrap};
use suite::{Siv, differential::Reference};
use upstream_aes_gcm_siv::AesGcmSiv;

/// The published 0.11.1.
struct References;

impl Reference for References {
    fn references(key: &[u8]) -> Vec<(String, Box<dyn Siv>)> {
        let up: Box<dyn Siv> = match key.len() {
            16 => Box::new(Wrap::reference(
                AesGcmSiv::<Aes128>::new_from_slice(key).expect("key"),
            )),
            24 => Box::new(Wrap::reference(
                AesGcmSiv::<Aes192>::new_from_slice(key).expect("key"),
            )),
            _ => Box::new(Wrap::reference(
                AesGcmSiv::<Aes256>::new_from_slice(key).expect("key"),
            )),
        };
        vec![("aes-gcm-siv 0.11.1".to_owned(), up)]
    }
}

siv_differential_tests!(Ours, References);
