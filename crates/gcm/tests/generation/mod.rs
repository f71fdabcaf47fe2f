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

impl<A: AeadInOut> Gcm for Wrap<A> {
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
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + 'static,
    N: ArraySize + 'static,
    T: aes_gcm::TagSize + 'static,
{
    let (engine, backend) = (g.__engine(), g.__ghash_backend());
    Box::new(Wrap {
        aead: g,
        engine,
        backend,
    })
}

fn new_from_slice<A, N, T>(key: &[u8]) -> Result<Box<dyn Gcm>, Error>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArraySize + 'static,
    T: aes_gcm::TagSize + 'static,
{
    AesGcm::<A, N, T>::new_from_slice(key)
        .map(ours)
        .map_err(|_| Error)
}

fn with_engine<A, N, T>(key: &[u8], engine: Engine) -> Option<Box<dyn Gcm>>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArraySize + 'static,
    T: aes_gcm::TagSize + 'static,
{
    let key = aes_gcm::Key::<A>::try_from(key).expect("key length");
    AesGcm::<A, N, T>::with_engine(&key, engine).map(ours)
}

fn with_ghash_backend<A, N, T>(key: &[u8], backend: Backend) -> Option<Box<dyn Gcm>>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArraySize + 'static,
    T: aes_gcm::TagSize + 'static,
{
    let aes = A::new_from_slice(key).expect("key length");
    AesGcm::<A, N, T>::__with_ghash_backend(aes, backend).map(ours)
}

fn from_cipher<A, N, T>(key: &[u8]) -> Box<dyn Gcm>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArraySize + 'static,
    T: aes_gcm::TagSize + 'static,
{
    ours(AesGcm::<A, N, T>::from(
        A::new_from_slice(key).expect("key length"),
    ))
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

/// Our `aes-gcm` 0.11.
pub struct Ours;

impl Generation for Ours {
    const NAME: &'static str = "aes-gcm 0.11";
    const TAG_SIZES: &'static [usize] = if cfg!(feature = "hazmat") {
        &[4, 8, 12, 13, 14, 15, 16]
    } else {
        &[12, 13, 14, 15, 16]
    };
    const FORCED_SOFT: bool = cfg!(polyval_backend = "soft");

    fn new_from_slice(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Option<Result<Box<dyn Gcm>, Error>> {
        dispatch_011!(new_from_slice, bits, nonce_len, tag_len, (key))
    }

    fn with_engine(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
        engine: Engine,
    ) -> Option<Box<dyn Gcm>> {
        dispatch_011!(with_engine, bits, nonce_len, tag_len, (key, engine)).flatten()
    }

    fn with_ghash_backend(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
        backend: Backend,
    ) -> Option<Box<dyn Gcm>> {
        dispatch_011!(with_ghash_backend, bits, nonce_len, tag_len, (key, backend)).flatten()
    }

    fn from_cipher(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Option<Box<dyn Gcm>> {
        dispatch_011!(from_cipher, bits, nonce_len, tag_len, (key))
    }
}
