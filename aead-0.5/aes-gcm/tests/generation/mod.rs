//! Our `aes-gcm` 0.10 (aead 0.5 API) as the shared suite sees it
//! (`crates/gcm/tests/suite`): [`Wrap`] (in `wrap.rs`) turns any aead 0.5 `AeadInPlace` into a
//! `suite::Gcm`, [`Ours`] is the suite's `Generation`. Also included by `aead-0.5/interop`,
//! whose reference (the published 0.10.3) shares [`Wrap`].
#![allow(dead_code)]

pub mod odd_batch;
pub mod wrap;

pub use wrap::Wrap;

use crate::suite::{Backend, Engine, Error, Gcm, Generation};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::{
    AesGcm,
    aead::{
        KeyInit,
        generic_array::{ArrayLength, GenericArray},
    },
};
use cipher::{BlockCipher, BlockEncrypt, BlockSizeUser, consts::U16};

/// Our `AesGcm` 0.10, introspected.
fn ours<A, N, T>(g: AesGcm<A, N, T>) -> Box<dyn Gcm>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + Sync + 'static,
    N: ArrayLength<u8> + Sync + 'static,
    T: aes_gcm::TagSize + Sync + 'static,
{
    let (engine, backend) = (g.__engine(), g.__ghash_backend());
    Box::new(Wrap {
        aead: g,
        engine,
        backend,
    })
}

/// `dispatch!` over this generation's AES types and tag sizes.
macro_rules! dispatch_010 {
    ($f:ident, $bits:expr, $n:expr, $t:expr, $args:tt) => {
        $crate::dispatch!(
            $f,
            [Aes128, Aes192, Aes256],
            $bits,
            $n,
            $t,
            [U12 = 12, U13 = 13, U14 = 14, U15 = 15],
            $args
        )
    };
}

crate::generation!(Ours {
    name: "aes-gcm 0.10",
    tag_sizes: &[12, 13, 14, 15, 16],
    forced_soft: cfg!(any(polyval_backend = "soft", polyval_force_soft)),
    bounds: [
        A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,
        N: ArrayLength<u8> + Sync + 'static,
        T: aes_gcm::TagSize + Sync + 'static,
    ],
    key: |key| GenericArray::from_slice(key),
    wrap: ours,
    dispatch: dispatch_010,
});
