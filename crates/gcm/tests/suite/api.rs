//! The byte-slice interface through which the suites see an AEAD of either generation: the
//! AES-GCM suite (`crates/gcm/tests/suite`) and the AES-GCM-SIV suite
//! (`crates/gcm-siv/tests/suite`), whose adapters (`tests/generation/wrap.rs` of each
//! generation's `aes-gcm`) implement it for any AEAD of that generation's `aead` traits.

use super::{Backend, Engine};

/// A refused operation (`aead::Error` of either generation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error;

/// Seals `pt` with `aead` in place, the buffer `off` bytes past a 64-byte boundary, checks the
/// ciphertext and tag against `want`, opens them there and checks the plaintext; `what` names
/// the case in a failure. (Where a buffer lies decides which path a wide engine takes: the
/// 512-bit engine aligns a long message's output with a head of one to three blocks.)
pub fn seal_open_placed(
    aead: &dyn AeadBytes,
    off: usize,
    (nonce, aad, pt): (&[u8], &[u8], &[u8]),
    want: &(Vec<u8>, Vec<u8>),
    what: &str,
) {
    let len = pt.len();
    let mut store = vec![0u8; len + 128];
    let at = (64 - store.as_ptr() as usize % 64) % 64 + off % 64;
    let buf = &mut store[at..at + len];
    buf.copy_from_slice(pt);
    let tag = aead.seal(nonce, aad, buf).expect("encrypt");
    assert_eq!(buf, &want.0[..], "ciphertext: {what}, offset {off}");
    assert_eq!(tag, want.1, "tag: {what}, offset {off}");
    aead.open(nonce, aad, buf, &tag)
        .unwrap_or_else(|_| panic!("decrypt: {what}, offset {off}"));
    assert_eq!(buf, pt, "plaintext: {what}, offset {off}");
}

/// A keyed AEAD of this family (AES-GCM or AES-GCM-SIV) of either generation, nonce and tag
/// sizes fixed by its type, behind byte slices. `Sync`, as every AEAD here is: the suites
/// share one instance across threads.
pub trait AeadBytes: Sync {
    /// `encrypt_in_place_detached` / `encrypt_inout_detached` on one buffer: the tag.
    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, Error>;
    /// `decrypt_in_place_detached` / `decrypt_inout_detached` on one buffer.
    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error>;
    /// Encryption from `inp` to `out` (same length); `None` (the default) where the API has no
    /// such call (aead 0.5).
    fn seal_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        inp: &[u8],
        out: &mut [u8],
    ) -> Option<Result<Vec<u8>, Error>> {
        let _ = (nonce, aad, inp, out);
        None
    }
    /// Decryption from `inp` to `out`; `None` (the default) where the API has no such call.
    fn open_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        inp: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> Option<Result<(), Error>> {
        let _ = (nonce, aad, inp, out, tag);
        None
    }
    /// `encrypt_in_place` through the `aead::Buffer` API: appends the tag. (The defaults of
    /// this and the next three are for references without these calls, in terms of `seal` and
    /// `open` with 16-byte tags; our crates' adapters override each with the crate's own call.)
    fn seal_vec(&self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let tag = self.seal(nonce, aad, buf)?;
        buf.extend_from_slice(&tag);
        Ok(())
    }
    /// `decrypt_in_place` through the `aead::Buffer` API: checks and removes the tag.
    fn open_vec(&self, nonce: &[u8], aad: &[u8], buf: &mut Vec<u8>) -> Result<(), Error> {
        let split = buf.len().checked_sub(16).ok_or(Error)?;
        let mut pt = buf[..split].to_vec();
        self.open(nonce, aad, &mut pt, &buf[split..])?;
        *buf = pt;
        Ok(())
    }
    /// `Aead::encrypt` with a `Payload`: ciphertext || tag.
    fn encrypt(&self, nonce: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let mut buf = msg.to_vec();
        self.seal_vec(nonce, aad, &mut buf)?;
        Ok(buf)
    }
    /// `Aead::decrypt` with a `Payload`.
    fn decrypt(&self, nonce: &[u8], aad: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
        let mut buf = msg.to_vec();
        self.open_vec(nonce, aad, &mut buf)?;
        Ok(buf)
    }
    /// The fused engine it runs on (`Generic` for the generic path, and for a reference
    /// implementation, the default).
    fn engine(&self) -> Engine {
        Engine::Generic
    }
    /// The GHASH (AES-GCM) or POLYVAL (AES-GCM-SIV) backend of its generic path (`Portable`
    /// for a reference, the default).
    fn hash_backend(&self) -> Backend {
        Backend::Portable
    }
}
