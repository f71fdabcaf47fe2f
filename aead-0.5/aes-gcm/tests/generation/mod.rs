//! Our `aes-gcm` 0.10 (aead 0.5 API) as the shared suite sees it
//! (`crates/gcm/tests/suite`): [`Wrap`] turns any aead 0.5 `AeadInPlace` into a `suite::Gcm`,
//! [`Ours`] is the suite's `Generation`. Also included by `aead-0.5/interop`, whose reference
//! (the published 0.10.3) shares [`Wrap`]. aead 0.5 has no out-of-place calls: `seal_to` and
//! `open_to` are `None`, and the suite skips those checks.
#![allow(dead_code)]

pub mod odd_batch;

use crate::suite::{Backend, Engine, Error, Gcm, Generation};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::{
    AesGcm,
    aead::{
        Aead, AeadInPlace, KeyInit, Nonce, Payload, Tag,
        generic_array::{ArrayLength, GenericArray},
    },
};
use cipher::{BlockCipher, BlockEncrypt, BlockSizeUser, consts::U16, typenum::Unsigned};

/// Any aead 0.5 AEAD behind the suite's byte-slice interface.
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

fn nonce<A: AeadInPlace>(n: &[u8]) -> &Nonce<A> {
    assert_eq!(n.len(), A::NonceSize::USIZE, "nonce length of the type");
    GenericArray::from_slice(n)
}

fn tag<A: AeadInPlace>(t: &[u8]) -> Result<&Tag<A>, Error> {
    if t.len() == A::TagSize::USIZE {
        Ok(GenericArray::from_slice(t))
    } else {
        Err(Error)
    }
}

impl<A: AeadInPlace> Gcm for Wrap<A> {
    fn seal(&self, n: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, Error> {
        let t = self.aead.encrypt_in_place_detached(nonce::<A>(n), aad, buf);
        t.map(|t| t.to_vec()).map_err(|_| Error)
    }

    fn open(&self, n: &[u8], aad: &[u8], buf: &mut [u8], t: &[u8]) -> Result<(), Error> {
        let t = tag::<A>(t)?;
        let r = self
            .aead
            .decrypt_in_place_detached(nonce::<A>(n), aad, buf, t);
        r.map_err(|_| Error)
    }

    fn seal_to(
        &self,
        _: &[u8],
        _: &[u8],
        _: &[u8],
        _: &mut [u8],
    ) -> Option<Result<Vec<u8>, Error>> {
        None
    }

    fn open_to(
        &self,
        _: &[u8],
        _: &[u8],
        _: &[u8],
        _: &mut [u8],
        _: &[u8],
    ) -> Option<Result<(), Error>> {
        None
    }

    fn seal_vec(&self, n: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let r = self.aead.encrypt_in_place(nonce::<A>(n), aad, buf);
        r.map_err(|_| Error)
    }

    fn open_vec(&self, n: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let r = self.aead.decrypt_in_place(nonce::<A>(n), aad, buf);
        r.map_err(|_| Error)
    }

    fn encrypt(&self, n: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let r = Aead::encrypt(&self.aead, nonce::<A>(n), Payload { msg, aad });
        r.map_err(|_| Error)
    }

    fn decrypt(&self, n: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let r = Aead::decrypt(&self.aead, nonce::<A>(n), Payload { msg, aad });
        r.map_err(|_| Error)
    }

    fn engine(&self) -> Engine {
        self.engine
    }

    fn ghash_backend(&self) -> Backend {
        self.backend
    }
}

/// Our `AesGcm` 0.10, introspected.
fn ours<A, N, T>(g: AesGcm<A, N, T>) -> Box<dyn Gcm>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + 'static,
    N: ArrayLength<u8> + 'static,
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
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArrayLength<u8> + 'static,
    T: aes_gcm::TagSize + 'static,
{
    AesGcm::<A, N, T>::new_from_slice(key)
        .map(ours)
        .map_err(|_| Error)
}

fn with_engine<A, N, T>(key: &[u8], engine: Engine) -> Option<Box<dyn Gcm>>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArrayLength<u8> + 'static,
    T: aes_gcm::TagSize + 'static,
{
    AesGcm::<A, N, T>::with_engine(GenericArray::from_slice(key), engine).map(ours)
}

fn with_ghash_backend<A, N, T>(key: &[u8], backend: Backend) -> Option<Box<dyn Gcm>>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArrayLength<u8> + 'static,
    T: aes_gcm::TagSize + 'static,
{
    let aes = A::new_from_slice(key).expect("key length");
    AesGcm::<A, N, T>::__with_ghash_backend(aes, backend).map(ours)
}

fn from_cipher<A, N, T>(key: &[u8]) -> Box<dyn Gcm>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + 'static,
    N: ArrayLength<u8> + 'static,
    T: aes_gcm::TagSize + 'static,
{
    ours(AesGcm::<A, N, T>::from(
        A::new_from_slice(key).expect("key length"),
    ))
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

/// Our `aes-gcm` 0.10.
pub struct Ours;

impl Generation for Ours {
    const NAME: &'static str = "aes-gcm 0.10";
    const TAG_SIZES: &'static [usize] = &[12, 13, 14, 15, 16];
    const FORCED_SOFT: bool = cfg!(any(polyval_backend = "soft", polyval_force_soft));

    fn new_from_slice(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Option<Result<Box<dyn Gcm>, Error>> {
        dispatch_010!(new_from_slice, bits, nonce_len, tag_len, (key))
    }

    fn with_engine(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
        engine: Engine,
    ) -> Option<Box<dyn Gcm>> {
        dispatch_010!(with_engine, bits, nonce_len, tag_len, (key, engine)).flatten()
    }

    fn with_ghash_backend(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
        backend: Backend,
    ) -> Option<Box<dyn Gcm>> {
        dispatch_010!(with_ghash_backend, bits, nonce_len, tag_len, (key, backend)).flatten()
    }

    fn from_cipher(
        bits: usize,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Option<Box<dyn Gcm>> {
        dispatch_010!(from_cipher, bits, nonce_len, tag_len, (key))
    }
}
