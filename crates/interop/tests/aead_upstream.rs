//! Differential and hostile-input tests of our `aes-gcm` 0.11, on every GHASH backend and
//! fused engine this CPU has, against the published `aes-gcm` 0.11.1 (renamed dev-dependency
//! `upstream-aes-gcm`) and, for 96-bit nonces and 128-bit tags with AES-128/256, ring: the
//! shared suite's `differential` and `hostile` modules (`crates/gcm/tests/suite`, also run for
//! our 0.10 against 0.10.3 in `aead-0.5/interop`).
//!
//! (Here rather than in crates/gcm: with the published `aes-gcm` as a dev-dependency of our
//! `aes-gcm`, `cargo test -p aes-gcm` would be ambiguous.)

#[macro_use]
#[path = "../../gcm/tests/suite/mod.rs"]
mod suite;
#[path = "../../gcm/tests/generation/mod.rs"]
mod generation;

use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::{KeyInit, array::ArraySize};
use cipher::{BlockCipherEncrypt, BlockSizeUser, consts::U16};
use generation::{Ours, Wrap};
use suite::{Error, Gcm, differential::Reference};

/// The published `aes-gcm` 0.11.1.
fn upstream<A, N, T>(key: &[u8]) -> Box<dyn Gcm>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync + 'static,
    N: ArraySize + Sync + 'static,
    T: upstream_aes_gcm::TagSize + Sync + 'static,
{
    let g = upstream_aes_gcm::AesGcm::<A, N, T>::new_from_slice(key).expect("key length");
    Box::new(Wrap::reference(g))
}

/// ring's AES-GCM (96-bit nonce, 128-bit tag, AES-128 and AES-256) behind the suite's
/// interface: only sealing is compared.
struct Ring(ring::aead::LessSafeKey);

impl Ring {
    fn new(key: &[u8]) -> Option<Self> {
        let alg = match key.len() {
            16 => &ring::aead::AES_128_GCM,
            32 => &ring::aead::AES_256_GCM,
            _ => return None,
        };
        let key = ring::aead::UnboundKey::new(alg, key).expect("ring key");
        Some(Self(ring::aead::LessSafeKey::new(key)))
    }

    fn nonce(n: &[u8]) -> ring::aead::Nonce {
        ring::aead::Nonce::try_assume_unique_for_key(n).expect("96-bit nonce")
    }
}

/// `seal_to`/`open_to` keep their default (`None`: ring has no out-of-place call here), and
/// `engine`/`ghash_backend` theirs (a reference).
impl Gcm for Ring {
    fn seal(&self, n: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, Error> {
        let aad = ring::aead::Aad::from(aad);
        let tag = self.0.seal_in_place_separate_tag(Self::nonce(n), aad, buf);
        tag.map(|t| t.as_ref().to_vec()).map_err(|_| Error)
    }
    fn open(&self, n: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let tag = ring::aead::Tag::try_from(tag).map_err(|_| Error)?;
        let aad = ring::aead::Aad::from(aad);
        let r = self
            .0
            .open_in_place_separate_tag(Self::nonce(n), aad, tag, buf, 0..);
        r.map(|_| ()).map_err(|_| Error)
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
        let tag = self.seal(n, aad, buf)?;
        buf.extend_from_slice(&tag);
        Ok(())
    }
    fn open_vec(&self, n: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let split = buf.len().checked_sub(16).ok_or(Error)?;
        let mut pt = buf[..split].to_vec();
        self.open(n, aad, &mut pt, &buf[split..])?;
        *buf = pt;
        Ok(())
    }
    fn encrypt(&self, n: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let mut buf = msg.to_vec();
        self.seal_vec(n, aad, &mut buf)?;
        Ok(buf)
    }
    fn decrypt(&self, n: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let mut buf = msg.to_vec();
        self.open_vec(n, aad, &mut buf)?;
        Ok(buf)
    }
}

/// The published 0.11.1 (with `hazmat` for 32- and 64-bit tags, see Cargo.toml), and ring.
struct References;

impl Reference for References {
    fn references(key: &[u8], nonce_len: usize, tag_len: usize) -> Vec<(String, Box<dyn Gcm>)> {
        let bits = suite::aes_bits(key);
        let up = dispatch!(
            upstream,
            [Aes128, Aes192, Aes256],
            bits,
            nonce_len,
            tag_len,
            [U12 = 12, U13 = 13, U14 = 14, U15 = 15, U4 = 4, U8 = 8],
            (key)
        )
        .expect("a size combination the suite lists");
        let mut refs = vec![("aes-gcm 0.11.1".to_owned(), up)];
        if let Some(ring) = Ring::new(key).filter(|_| (nonce_len, tag_len) == (12, 16)) {
            refs.push(("ring".to_owned(), Box::new(ring)));
        }
        refs
    }
}

differential_tests!(Ours, References);
hostile_tests!(Ours, References);
