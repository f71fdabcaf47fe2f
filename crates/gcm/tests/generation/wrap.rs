//! Any aead 0.6 AEAD (`AeadInOut`) as the suites see it ([`AeadBytes`]): shared by the AES-GCM
//! suite's adapter (`mod.rs`) and the AES-GCM-SIV suite's (`crates/gcm-siv/tests`), and by
//! `crates/interop`, whose references (the published crates) use it too.

use crate::suite::{Backend, Engine, Error, api::AeadBytes};
use aead::{Aead, AeadInOut, Nonce, Payload, Tag, inout::InOutBuf};

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

impl<A: AeadInOut + Sync> AeadBytes for Wrap<A> {
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

    fn hash_backend(&self) -> Backend {
        self.backend
    }
}
