//! Our `aes-gcm` 0.11 (aead 0.6 API) as the shared suite sees it (`tests/suite`): [`Wrap`] (in
//! `wrap.rs`) turns any `AeadInOut` into a `suite::Gcm`, [`Ours`] is the suite's `Generation`.
//! Also included by `crates/interop`, whose references (the published 0.11.1) share [`Wrap`].
#![allow(dead_code)]

pub mod odd_batch;
pub mod wrap;

pub use wrap::Wrap;

use crate::suite::{Backend, Engine, Error, Gcm, Generation};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::{
    AesGcm,
    aead::{KeyInit, array::ArraySize},
};
use cipher::{BlockCipherEncrypt, BlockSizeUser, consts::U16};

/// Our `AesGcm` 0.11, introspected.
fn ours<A, N, T>(g: AesGcm<A, N, T>) -> Box<dyn Gcm>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + Sync + 'static,
    N: ArraySize + Sync + 'static,
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
macro_rules! dispatch_011 {
    ($f:ident, $bits:expr, $n:expr, $t:expr, $args:tt) => {{
        #[cfg(feature = "hazmat")]
        let r = $crate::dispatch!(
            $f,
            [Aes128, Aes192, Aes256],
            $bits,
            $n,
            $t,
            [U12 = 12, U13 = 13, U14 = 14, U15 = 15, U4 = 4, U8 = 8],
            $args
        );
        #[cfg(not(feature = "hazmat"))]
        let r = $crate::dispatch!(
            $f,
            [Aes128, Aes192, Aes256],
            $bits,
            $n,
            $t,
            [U12 = 12, U13 = 13, U14 = 14, U15 = 15],
            $args
        );
        r
    }};
}

crate::generation!(Ours {
    name: "aes-gcm 0.11",
    tag_sizes: if cfg!(feature = "hazmat") {
        &[4, 8, 12, 13, 14, 15, 16]
    } else {
        &[12, 13, 14, 15, 16]
    },
    forced_soft: cfg!(polyval_backend = "soft"),
    bounds: [
        A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,
        N: ArraySize + Sync + 'static,
        T: aes_gcm::TagSize + Sync + 'static,
    ],
    key: |key| &aes_gcm::Key::<A>::try_from(key).expect("key length"),
    wrap: ours,
    dispatch: dispatch_011,
});
