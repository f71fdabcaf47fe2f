//! **AES-GCM** (NIST SP 800-38D): authenticated encryption with associated data.
//!
//! A drop-in replacement for RustCrypto's `aes-gcm` 0.11: the same types, traits, features,
//! limits and behaviour, on top of our `ghash` (GHASH as byte-reflected POLYVAL on wide SIMD
//! kernels).
//!
//! # Usage
//!
//! Allocating API, no associated data (needs the default `alloc` and `getrandom` features):
//!
#![cfg_attr(all(feature = "getrandom", feature = "aes"), doc = "```")]
#![cfg_attr(not(all(feature = "getrandom", feature = "aes")), doc = "```ignore")]
//! # fn main() -> Result<(), Box<dyn core::error::Error>> {
//! use aes_gcm::{
//!     aead::{Aead, Generate, Key, KeyInit},
//!     Aes256Gcm, Nonce, // or `Aes128Gcm`
//! };
//!
//! let key = Key::<Aes256Gcm>::generate();
//! let cipher = Aes256Gcm::new(&key);
//!
//! // A nonce MUST NOT be used twice with the same key.
//! let nonce = Nonce::generate();
//! let sealed = cipher.encrypt(&nonce, b"attack at dawn".as_ref())?;
//! assert_eq!(sealed.len(), b"attack at dawn".len() + 16); // ciphertext || tag
//!
//! let opened = cipher.decrypt(&nonce, sealed.as_ref())?;
//! assert_eq!(opened, b"attack at dawn");
//! # Ok(())
//! # }
//! ```
//!
//! ## In place, without a heap
//!
//! [`AeadInOut::encrypt_in_place`] and [`AeadInOut::decrypt_in_place`] work on any
//! [`aead::Buffer`]: `Vec<u8>` (feature `alloc`), `arrayvec::ArrayVec<u8, N>` (feature
//! `arrayvec`, re-exported as `aead::arrayvec`) or `bytes::BytesMut` (feature `bytes`,
//! re-exported as `aead::bytes`). The buffer needs room for the 16-byte tag.
//! [`AeadInOut::encrypt_inout_detached`] and [`AeadInOut::decrypt_inout_detached`] work on a
//! slice (or on separate input and output slices) and keep the tag apart.
//!
#![cfg_attr(
    all(feature = "getrandom", feature = "arrayvec", feature = "aes"),
    doc = "```"
)]
#![cfg_attr(
    not(all(feature = "getrandom", feature = "arrayvec", feature = "aes")),
    doc = "```ignore"
)]
//! # fn main() -> Result<(), Box<dyn core::error::Error>> {
//! use aes_gcm::{
//!     aead::{AeadInOut, Generate, Key, KeyInit, arrayvec::ArrayVec},
//!     Aes128Gcm, Nonce,
//! };
//!
//! let cipher = Aes128Gcm::new(&Key::<Aes128Gcm>::generate());
//! let nonce = Nonce::generate(); // unique per message
//!
//! let mut buffer: ArrayVec<u8, 64> = ArrayVec::new(); // message + 16 bytes of tag
//! buffer.try_extend_from_slice(b"in-place message").unwrap();
//!
//! cipher.encrypt_in_place(&nonce, b"header", &mut buffer)?;
//! assert_ne!(&buffer[..16], b"in-place message");
//!
//! cipher.decrypt_in_place(&nonce, b"header", &mut buffer)?;
//! assert_eq!(buffer.as_slice(), b"in-place message");
//!
//! // A wrong header (or a modified ciphertext or tag) is refused, and the buffer is unchanged.
//! cipher.encrypt_in_place(&nonce, b"header", &mut buffer)?;
//! let sealed = buffer.clone();
//! assert!(cipher.decrypt_in_place(&nonce, b"HEADER", &mut buffer).is_err());
//! assert_eq!(buffer, sealed);
//! # Ok(())
//! # }
//! ```
//!
//! # How it works
//!
//! With `J0` the pre-counter block (`nonce || 0^31 || 1` for a 96-bit nonce, otherwise
//! `GHASH(nonce || 0-pad || 0^64 || [bits(nonce)]_64)`):
//!
//! - the ciphertext is the plaintext XOR the CTR keystream `E_K(inc32(J0)), E_K(inc32²(J0)), ...`
//!   (a 32-bit big-endian counter in the last four bytes, wrapping);
//! - the tag is `GHASH_H(A || pad || C || pad || [bits(A)]_64 || [bits(C)]_64) XOR E_K(J0)`,
//!   truncated to `TagSize` bytes, with `H = E_K(0^128)`.
//!
//! A key made with `KeyInit` on a CPU with AES and carry-less multiply instructions runs on a
//! fused AES-CTR+GHASH kernel (AES-NI, VAES on 256 or 512 bits, ARMv8): our own round keys and
//! H^1..H^12, made at key setup (for the `aes` crate's types without a second key schedule;
//! a longer message computes the higher powers it needs in its own call), and one pass over
//! the data that encrypts and hashes together. Otherwise
//! (another CPU, `From<Aes>`, or a cipher that is not AES under the key) the generic two-pass
//! path runs the keystream over the whole buffer with the block cipher's parallel backend,
//! then GHASHes the whole ciphertext in one call to the wide GHASH kernel. Decryption checks
//! the tag in constant time before any plaintext is left in the buffer: **on failure the
//! buffer (and an out-of-place output) is left exactly as it was** (in place, the fused
//! kernel decrypts while hashing and re-encrypts on a mismatch).
//!
//! # Backends
//!
//! GHASH runs on the backend our `ghash` detects once per key (PCLMULQDQ, VPCLMULQDQ on 256 or
//! 512 bits, PMULL, or portable; `--cfg polyval_backend="soft"` forces the portable one). AES
//! runs on the `aes` crate's backends (`--cfg aes_backend="soft"` forces its portable one).
//!
//! # Constant time
//!
//! Both backends are constant time with respect to keys and data (GHASH: carry-less multiply
//! instructions or masked integer multiplies; AES: AES instructions or the `aes` crate's
//! bitsliced software). The tag comparison is constant time ([`ctutils::CtEq`]). Running time
//! depends on the lengths of the message and associated data, and on whether decryption
//! succeeded.
//!
//! # Limits
//!
//! Plaintext and ciphertext are limited to [`P_MAX`] bytes and associated data to [`A_MAX`]
//! bytes; longer inputs return [`Error`] without touching the buffer. Nothing panics on any
//! input.
//!
//! # ⚠️ Nonces
//!
//! A nonce reused with the same key reveals the XOR of the two plaintexts and lets an attacker
//! forge tags. Use random 96-bit nonces (at most about 2^32 messages per key) or a counter.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[doc(hidden)]
pub use aead_engines::Engine as __Engine;
/// Not part of the upstream API: how keys on Intel's 512-bit engine pace their messages (a
/// message after a rest may run on the 256-bit engine), and the override of our tests and
/// benches.
#[doc(hidden)]
#[cfg(target_arch = "x86_64")]
pub use aead_engines::pace as __pace;

pub use aead::{self, AeadCore, AeadInOut, Error, Key, KeyInit, KeySizeUser};

#[cfg(feature = "aes")]
pub use aes;

use aead::{TagPosition, inout::InOutBuf};
// `consts` names the docs' nonce and tag sizes.
#[allow(unused_imports)]
use cipher::consts;
use cipher::{
    BlockCipherEncrypt, BlockSizeUser,
    array::{Array, ArraySize},
    consts::U16,
};
use core::fmt;

/// Maximum length of associated data in bytes.
pub const A_MAX: u64 = (1 << 61) - 1;

/// Maximum length of plaintext in bytes.
pub const P_MAX: u64 = (1 << 36) - 32;

/// AES-GCM nonces.
pub type Nonce<NonceSize> = Array<u8, NonceSize>;

/// AES-GCM tags.
pub type Tag<TagSize = U16> = Array<u8, TagSize>;

/// Trait implemented for valid tag sizes, i.e.
/// [`U12`][consts::U12], [`U13`][consts::U13], [`U14`][consts::U14],
/// [`U15`][consts::U15] and [`U16`].
/// When the crate feature `hazmat` is enabled, [`U4`][consts::U4] and
/// [`U8`][consts::U8] are also supported.
pub trait TagSize: private::SealedTagSize {}

impl<T: private::SealedTagSize> TagSize for T {}

mod private {
    use cipher::{array::ArraySize, consts, typenum::Unsigned};

    /// Sealed: only the sizes below can be tag sizes.
    pub trait SealedTagSize: ArraySize + Unsigned {}

    #[cfg(feature = "hazmat")]
    impl SealedTagSize for consts::U4 {}
    #[cfg(feature = "hazmat")]
    impl SealedTagSize for consts::U8 {}

    impl SealedTagSize for consts::U12 {}
    impl SealedTagSize for consts::U13 {}
    impl SealedTagSize for consts::U14 {}
    impl SealedTagSize for consts::U15 {}
    impl SealedTagSize for consts::U16 {}
}

/// A 16-byte block: a counter block, a keystream block, a GHASH block or a full tag.
pub(crate) type Block = Array<u8, U16>;

aead_engines::gcm_glue! {
    /// AES-GCM, generic over the block cipher, the nonce size and the tag size.
    ///
    /// The cipher is generic so that another AES implementation (e.g. an embedded hardware
    /// engine) can be substituted. It is NOT meant for block ciphers other than AES: GCM's
    /// security analysis assumes AES.
    ///
    /// Any `NonceSize` is accepted; 96 bits ([`U12`][consts::U12]) is the recommended
    /// size and the fast path (other sizes derive the counter from GHASH). `TagSize` defaults to
    /// 128 bits; see [`TagSize`] for the others.
    ///
    /// If in doubt, use [`Aes128Gcm`] or [`Aes256Gcm`].
    ///
    /// # ⚠️ WARNING: Hazmat!
    ///
    /// With short tags, 32 bits ([`U4`][consts::U4]) or 64 bits
    /// ([`U8`][consts::U8]) (feature `hazmat`), a key **SHOULD NOT** be used for more
    /// authenticated decryptions than Table 1 or Table 2 of NIST SP 800-38D allows, respectively.
    struct AesGcm;
    generic: cipher05,
    aead: aead,
    cipher: cipher,
    encrypt: BlockCipherEncrypt,
    force_portable: false,
    /// Not part of the upstream API: an instance whose GHASH runs on the chosen backend, for
    /// our tests, benches and fuzzers (so that every backend is exercised, not only the
    /// detected one). `None` if this CPU cannot run it.
    fn __with_ghash_backend;
}

impl<Aes, NonceSize, TagSize> AeadCore for AesGcm<Aes, NonceSize, TagSize>
where
    NonceSize: ArraySize,
    TagSize: crate::TagSize,
{
    type NonceSize = NonceSize;
    type TagSize = TagSize;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<Aes, NonceSize, TagSize> AeadInOut for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    NonceSize: ArraySize,
    TagSize: crate::TagSize,
{
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> Result<Tag<TagSize>, Error> {
        check_lengths(buffer.len(), associated_data.len())?;
        let full_tag = self.seal(nonce, associated_data, buffer);
        Tag::<TagSize>::try_from(&full_tag[..TagSize::USIZE]).map_err(|_| Error)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<TagSize>,
    ) -> Result<(), Error> {
        check_lengths(buffer.len(), associated_data.len())?;
        self.open(nonce, associated_data, buffer, tag)
    }
}

impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    NonceSize: ArraySize,
    TagSize: crate::TagSize,
{
    /// Encrypts `buffer` (input to output) and returns the full 16-byte tag.
    ///
    /// **The single dispatch point for encryption.** Everything above it (length checks,
    /// truncation) is common to every implementation; below it, `aead_engines` runs "J0,
    /// CTR from inc32(J0), then the GHASH tag" on a fused AES-CTR+GHASH engine when the key
    /// is fused, else on the generic two-pass path.
    #[inline]
    fn seal(&self, nonce: &[u8], associated_data: &[u8], buffer: InOutBuf<'_, '_, u8>) -> Block {
        self.key.seal(nonce, associated_data, buffer).into()
    }

    /// Checks `tag` against the input of `buffer` and, only if it matches, decrypts the input
    /// to the output. On failure the output is as it was.
    ///
    /// **The single dispatch point for decryption** (see [`Self::seal`]).
    #[inline]
    fn open(
        &self,
        nonce: &[u8],
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> Result<(), Error> {
        self.key
            .open(nonce, associated_data, buffer, tag)
            .map_err(|_| Error)
    }
}

/// The length limits, checked before anything else (so before the buffer is touched), the same
/// in both directions.
#[inline]
fn check_lengths(buffer_len: usize, associated_data_len: usize) -> Result<(), Error> {
    if to_u64(buffer_len) > P_MAX || to_u64(associated_data_len) > A_MAX {
        Err(Error)
    } else {
        Ok(())
    }
}

use aead_engines::to_u64;

impl<Aes, NonceSize, TagSize> fmt::Debug for AesGcm<Aes, NonceSize, TagSize>
where
    TagSize: crate::TagSize,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AesGcm").finish_non_exhaustive()
    }
}

// No `Drop` of its own: with `zeroize`, the key material is cleared by the fields' own drops (the
// cipher's, the fused state's round keys and hash key, the generic path's `H`), and then every
// byte of the key's place, padding included, by its holder (`aead_engines::Wiped`), which this
// marker promises.
#[cfg(feature = "zeroize")]
impl<Aes, NonceSize, TagSize> zeroize::ZeroizeOnDrop for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: zeroize::ZeroizeOnDrop,
    TagSize: self::TagSize,
{
}

#[cfg(test)]
extern crate std;

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits are inclusive maxima, checked with `>` in both directions, for the buffer
    /// and the associated data independently. (Integration tests cannot allocate 64 GiB.)
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn length_limits() {
        let p_max = usize::try_from(P_MAX).expect("64-bit test host");
        assert!(check_lengths(0, 0).is_ok());
        assert!(check_lengths(p_max, 0).is_ok());
        assert!(check_lengths(p_max + 1, 0).is_err());
        assert!(check_lengths(usize::MAX, 0).is_err());
        let a_max = usize::try_from(A_MAX).expect("64-bit test host");
        assert!(check_lengths(0, a_max).is_ok());
        assert!(check_lengths(0, a_max + 1).is_err());
        assert!(check_lengths(0, usize::MAX).is_err());
        assert!(check_lengths(p_max, a_max).is_ok());
    }

    /// The length block cannot overflow for accepted inputs, and saturates (no panic) beyond.
    /// On 32-bit targets no `usize` length reaches either limit, and none overflows the length
    /// block.
    #[test]
    #[cfg(not(target_pointer_width = "64"))]
    fn length_limits_32() {
        assert!(check_lengths(usize::MAX, usize::MAX).is_ok());
        assert_eq!(aead_engines::bits(usize::MAX), (usize::MAX as u64) * 8);
    }
}
