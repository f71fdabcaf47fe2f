//! Any aead 0.5 AEAD (`AeadInPlace`) as the suites see it ([`AeadBytes`]): shared by the
//! AES-GCM suite's adapter (`mod.rs`) and the AES-GCM-SIV suite's
//! (`aead-0.5/aes-gcm-siv/tests`), and by `aead-0.5/interop`, whose references (the published
//! crates) use it too. aead 0.5 has no out-of-place calls: `seal_to` and `open_to` keep their
//! default, `None`, and the suites skip those checks.

use crate::suite::{Backend, Engine, Error, api::AeadBytes};
use aead::{
    Aead, AeadInPlace, Nonce, Payload, Tag,
    generic_array::{GenericArray, typenum::Unsigned},
};

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

impl<A: AeadInPlace + Sync> AeadBytes for Wrap<A> {
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

    fn hash_backend(&self) -> Backend {
        self.backend
    }
}
