//! Our `aes-gcm` 0.10 (aead 0.5 API) as the shared suite sees it
//! (`crates/gcm/tests/suite`): [`Wrap`] turns any aead 0.5 `AeadInPlace` into a `suite::Gcm`,
//! [`Ours`] is the suite's `Generation`. Also included by `aead-0.5/interop`, whose reference
//! (the published 0.10.3) shares [`Wrap`]. aead 0.5 has no out-of-place calls: `seal_to` and
//! `open_to` keep their default, `None`, and the suite skips those checks.
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

impl<A: AeadInPlace + Sync> Gcm for Wrap<A> {
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
