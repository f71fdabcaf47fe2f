//! Our `aes-gcm` 0.11 (aead 0.6 API) as the shared suite sees it (`tests/suite`): [`Wrap`]
//! turns any `AeadInOut` into a `suite::Gcm`, [`Ours`] is the suite's `Generation`. Also
//! included by `crates/interop`, whose references (the published 0.11.1) share [`Wrap`].
#![allow(dead_code)]

pub mod odd_batch;

use crate::suite::{Backend, Engine, Error, Gcm, Generation};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::{
    AesGcm,
    aead::{Aead, AeadInOut, KeyInit, Nonce, Payload, Tag, array::ArraySize, inout::InOutBuf},
};
use cipher::{BlockCipherEncrypt, BlockSizeUser, consts::U16};

/// Any aead 0.6 AEAD behind the suite's byte-slice interface.
pub struct Wrap<A> {
    pub aead: A,
    pub engine: Engine,
    pub backend: Backend,
}

impl<A> Wrap<A> {
    /// A reference implementation (not ours: it has no engine or backend of ours).
    pub fn reference(aead: A) -> Self {
        Self {
            aead,
            engine: Engine::Generic,
            backend: Backend::Portable,
        }
    }
}

fn nonce<A: AeadInOut>(n: &[u8]) -> Nonce<A> {
    Nonce::<A>::try_from(n).expect("nonce length of the type")
}

impl<A: AeadInOut + Sync> Gcm for Wrap<A> {
    fn seal(&self, n: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, Error> {
        let tag = self
            .aead
            .encrypt_inout_detached(&nonce::<A>(n), aad, buf.into());
        tag.map(|t| t.to_vec()).map_err(|_| Error)
    }

    fn open(&self, n: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let tag = Tag::<A>::try_from(tag).map_err(|_| Error)?;
        let r = self
            .aead
            .decrypt_inout_detached(&nonce::<A>(n), aad, buf.into(), &tag);
        r.map_err(|_| Error)
    }

    fn seal_to(
        &self,
        n: &[u8],
        aad: &[u8],
        inp: &[u8],
        out: &mut [u8],
    ) -> Option<Result<Vec<u8>, Error>> {
        let buf = InOutBuf::new(inp, out).expect("equal lengths");
        let tag = self.aead.encrypt_inout_detached(&nonce::<A>(n), aad, buf);
        Some(tag.map(|t| t.to_vec()).map_err(|_| Error))
    }

    fn open_to(
        &self,
        n: &[u8],
        aad: &[u8],
        inp: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> Option<Result<(), Error>> {
        let Ok(tag) = Tag::<A>::try_from(tag) else {
            return Some(Err(Error));
        };
        let buf = InOutBuf::new(inp, out).expect("equal lengths");
        let r = self
            .aead
            .decrypt_inout_detached(&nonce::<A>(n), aad, buf, &tag);
        Some(r.map_err(|_| Error))
    }

    fn seal_vec(&self, n: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let r = self.aead.encrypt_in_place(&nonce::<A>(n), aad, buf);
        r.map_err(|_| Error)
    }

    fn open_vec(&self, n: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let r = self.aead.decrypt_in_place(&nonce::<A>(n), aad, buf);
        r.map_err(|_| Error)
    }

    fn encrypt(&self, n: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let r = Aead::encrypt(&self.aead, &nonce::<A>(n), Payload { msg, aad });
        r.map_err(|_| Error)
    }

    fn decrypt(&self, n: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let r = Aead::decrypt(&self.aead, &nonce::<A>(n), Payload { msg, aad });
        r.map_err(|_| Error)
    }

    fn engine(&self) -> Engine {
        self.engine
    }

    fn ghash_backend(&self) -> Backend {
        self.backend
    }
}

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
