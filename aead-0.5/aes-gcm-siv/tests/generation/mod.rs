//! Our `aes-gcm-siv` 0.11 (aead 0.5 API) as the shared SIV suite sees it
//! (`crates/gcm-siv/tests/suite`): `Wrap` (our `aes-gcm` 0.10's, `aes-gcm/tests/generation/
//! wrap.rs`) turns any aead 0.5 `AeadInPlace` into a `suite::Siv`, [`Ours`] is the suite's
//! `Generation`. Also included by `aead-0.5/interop`, whose reference (the published 0.11.1)
//! uses `Wrap` too.
#![allow(dead_code)]

#[path = "../../../aes-gcm/tests/generation/wrap.rs"]
pub mod wrap;

pub use wrap::Wrap;

use crate::suite::{Backend, Engine, Error, Generation, Siv};
use aes_gcm_siv::{
    AesGcmSiv,
    aead::{KeyInit, generic_array::GenericArray},
};
use cipher::{BlockCipher, BlockEncrypt, BlockSizeUser, consts::U16};

/// Our `AesGcmSiv` 0.11, introspected.
fn ours<A>(g: AesGcmSiv<A>) -> Box<dyn Siv>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,
{
    let (engine, backend) = (g.__engine(), g.__polyval_backend());
    Box::new(Wrap {
        aead: g,
        engine,
        backend,
    })
}

crate::siv_generation!(Ours {
    name: "aes-gcm-siv 0.11",
    forced_soft: cfg!(any(polyval_backend = "soft", polyval_force_soft)),
    bounds: [
        A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,
    ],
    key: |key| GenericArray::from_slice(key),
    wrap: ours,
});
