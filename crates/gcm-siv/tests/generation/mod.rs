//! Our `aes-gcm-siv` 0.12 (aead 0.6 API) as the shared SIV suite sees it (`tests/suite`):
//! `Wrap` (the AES-GCM suite's, `crates/gcm/tests/generation/wrap.rs`) turns any `AeadInOut`
//! into a `suite::Siv`, [`Ours`] is the suite's `Generation`. Also included by
//! `crates/interop`, whose references (the published 0.12.1, aws-lc-rs) use `Wrap` too.
#![allow(dead_code)]

#[path = "../../../gcm/tests/generation/wrap.rs"]
pub mod wrap;

pub use wrap::Wrap;

use crate::suite::{Backend, Engine, Error, Generation, Siv};
use aes_gcm_siv::{AesGcmSiv, aead::KeyInit};
use cipher::{BlockCipherEncrypt, BlockSizeUser, consts::U16};

/// Our `AesGcmSiv` 0.12, introspected.
fn ours<A>(g: AesGcmSiv<A>) -> Box<dyn Siv>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,
{
    let (engine, backend) = (g.__engine(), g.__polyval_backend());
    Box::new(Wrap {
        aead: g,
        engine,
        backend,
    })
}

crate::siv_generation!(Ours {
    name: "aes-gcm-siv 0.12",
    forced_soft: cfg!(polyval_backend = "soft"),
    bounds: [A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,],
    key: |key| &aes_gcm_siv::Key::<AesGcmSiv<A>>::try_from(key).expect("key length"),
    wrap: ours,
});
