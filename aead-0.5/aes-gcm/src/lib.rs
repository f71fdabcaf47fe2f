//! **AES-GCM** (NIST SP 800-38D): authenticated encryption with associated data.
//!
//! A drop-in replacement for RustCrypto's `aes-gcm` **0.10.3** (the aead 0.5 / cipher 0.4
//! generation): the same types, traits, features, constants and results, bit for bit, on the
//! same fused AES-CTR+GHASH engines and GHASH kernels as our `aes-gcm` 0.11.
//!
//! # Usage
//!
//! Allocating API (needs the default `alloc` and `getrandom` features):
//!
#![cfg_attr(all(feature = "getrandom", feature = "aes"), doc = "```")]
#![cfg_attr(not(all(feature = "getrandom", feature = "aes")), doc = "```ignore")]
//! # fn main() -> Result<(), aes_gcm::Error> {
//! use aes_gcm::{
//!     aead::{Aead, AeadCore, KeyInit, OsRng},
//!     Aes256Gcm, Key, Nonce, // or `Aes128Gcm`
//! };
//!
//! let key = Aes256Gcm::generate_key(OsRng);
//! let cipher = Aes256Gcm::new(&key);
//! let key_from_bytes = Key::<Aes256Gcm>::from_slice(&[0x42; 32]); // or from bytes
//! let _other = Aes256Gcm::new(key_from_bytes);
//!
//! // A nonce MUST NOT be used twice with the same key.
//! let nonce = Aes256Gcm::generate_nonce(&mut OsRng); // 96 bits
//! let sealed = cipher.encrypt(&nonce, b"attack at dawn".as_ref())?;
//! assert_eq!(sealed.len(), b"attack at dawn".len() + 16); // ciphertext || tag
//!
//! let opened = cipher.decrypt(&nonce, sealed.as_ref())?;
//! assert_eq!(opened, b"attack at dawn");
//! # let _: &Nonce<aes_gcm::aead::consts::U12> = Nonce::from_slice(&[0u8; 12]);
//! # Ok(())
//! # }
//! ```
//!
//! [`AeadInPlace::encrypt_in_place`] and [`AeadInPlace::decrypt_in_place`] work on any
//! [`aead::Buffer`] (`Vec<u8>` with `alloc`, `arrayvec::ArrayVec` with `arrayvec`,
//! `heapless::Vec` with `heapless`); the `_detached` methods work on a slice and keep the tag
//! apart. With `stream`, `aead::stream` builds the STREAM construction on top.
//!
//! # How it works
//!
//! With `J0` the pre-counter block (`nonce || 0^31 || 1` for a 96-bit nonce, otherwise
//! `GHASH(nonce || 0-pad || 0^64 || [bits(nonce)]_64)`), the ciphertext is the plaintext XOR
//! the CTR keystream from `inc32(J0)` (a 32-bit big-endian counter in the last four bytes),
//! and the tag is `GHASH_H(A || pad || C || pad || [bits(A)]_64 || [bits(C)]_64) XOR E_K(J0)`,
//! truncated to `TagSize` bytes, with `H = E_K(0^128)`.
//!
//! An `AesGcm<Aes, _, _>` built with `KeyInit` (`new`, `new_from_slice`) runs on a fused
//! AES-CTR+GHASH engine when the CPU has one (VAES + VPCLMULQDQ on 512 or 256 bits, AES-NI +
//! PCLMULQDQ, ARMv8 AES + PMULL) and our key schedule reproduces the cipher's `E_K(0^128)`.
//! Otherwise (another block cipher, an instance built `From<Aes>`, or a CPU without them) it
//! runs two passes: CTR with the cipher's own parallel backend, then GHASH on our wide kernels
//! (detected once per key; `--cfg polyval_force_soft` or `--cfg polyval_backend="soft"` forces
//! the portable GHASH and the two-pass path).
//!
//! Decryption checks the tag before any plaintext is released: **on failure the buffer is
//! left exactly as it was**.
//!
//! # Constant time
//!
//! No branch or memory address depends on keys or data: AES and carry-less multiply
//! instructions, or the `aes` crate's bitsliced software and our masked-multiply GHASH. The
//! tag comparison is constant time. Running time depends on the lengths, and on whether
//! decryption succeeded.
//!
//! # Limits (one deliberate difference from upstream)
//!
//! The constants are upstream's: [`A_MAX`] = [`P_MAX`] = 2^36 and [`C_MAX`] = 2^36 + 16 bytes,
//! and longer inputs return [`Error`] without touching the buffer. But the 32-bit block
//! counter covers only 2^32 - 2 blocks from `inc32(J0)` before it comes back to `J0`, whose
//! encryption masks the tag: upstream 0.10.3 accepts messages of 2^36 - 31 to 2^36 + 16 bytes
//! and then reuses that mask (and keystream). **Here a plaintext or ciphertext longer than
//! 2^36 - 32 bytes (SP 800-38D's limit, and `aes-gcm` 0.11's `P_MAX`) is refused with
//! [`Error`]** in both directions. Every shorter message gives upstream's bytes. Nothing
//! panics on any input.
//!
//! # Minimum Rust version
//!
//! 1.89 (edition 2024), like the rest of this repository; upstream 0.10.3 builds with 1.56.
//!
//! # ⚠️ Nonces
//!
//! A nonce reused with the same key reveals the XOR of the two plaintexts and lets an attacker
//! forge tags. Use random 96-bit nonces (at most about 2^32 messages per key) or a counter.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use aead::{self, AeadCore, AeadInPlace, Error, Key, KeyInit, KeySizeUser};

#[cfg(feature = "aes")]
pub use aes;

#[doc(hidden)]
pub use aead_engines::Engine as __Engine;
/// Not part of the upstream API: how keys on Intel's 512-bit engine pace their messages (a
/// message after a rest may run on the 256-bit engine), and the override of our tests and
/// benches.
#[doc(hidden)]
#[cfg(target_arch = "x86_64")]
pub use aead_engines::pace as __pace;

use cipher::{
    BlockCipher, BlockEncrypt, BlockSizeUser,
    consts::{U0, U16},
    generic_array::{ArrayLength, GenericArray},
};

/// Maximum length of associated data.
pub const A_MAX: u64 = 1 << 36;

/// Maximum length of plaintext (but see the crate docs: longer than 2^36 - 32 bytes is refused).
pub const P_MAX: u64 = 1 << 36;

/// Maximum length of ciphertext (but see the crate docs: longer than 2^36 - 32 bytes is
/// refused).
pub const C_MAX: u64 = (1 << 36) + 16;

/// The longest plaintext or ciphertext accepted: 2^32 - 2 blocks, all the 32-bit counter
/// covers from `inc32(J0)` before it would come back to `J0` (NIST SP 800-38D, section 5.2.1.1).
const COUNTER_MAX: u64 = (1 << 36) - 32;

/// AES-GCM nonces.
pub type Nonce<NonceSize> = GenericArray<u8, NonceSize>;

/// AES-GCM tags.
pub type Tag<TagSize = U16> = GenericArray<u8, TagSize>;

/// Trait implemented for valid tag sizes, i.e.
/// [`U12`][consts::U12], [`U13`][consts::U13], [`U14`][consts::U14],
/// [`U15`][consts::U15] and [`U16`].
pub trait TagSize: private::SealedTagSize {}

impl<T: private::SealedTagSize> TagSize for T {}

mod private {
    use aead::generic_array::ArrayLength;
    use cipher::{Unsigned, consts};

    /// Sealed: only the sizes below can be tag sizes.
    pub trait SealedTagSize: ArrayLength<u8> + Unsigned {}

    impl SealedTagSize for consts::U12 {}
    impl SealedTagSize for consts::U13 {}
    impl SealedTagSize for consts::U14 {}
    impl SealedTagSize for consts::U15 {}
    impl SealedTagSize for consts::U16 {}
}

// `consts` names the docs' nonce and tag sizes.
#[allow(unused_imports)]
use cipher::consts;

aead_engines::gcm_glue! {
    /// AES-GCM: generic over an AES block cipher, the nonce size and the tag size.
    ///
    /// The cipher is generic so that another AES implementation (e.g. an embedded hardware
    /// engine) can be substituted. It is NOT meant for block ciphers other than AES: GCM's
    /// security analysis assumes AES.
    ///
    /// Any `NonceSize` is accepted; 96 bits ([`U12`][consts::U12]) is the recommended size and
    /// the fast path (other sizes derive the counter from GHASH). `TagSize` defaults to 128 bits;
    /// see [`TagSize`] for the others.
    ///
    /// If in doubt, use [`Aes128Gcm`] or [`Aes256Gcm`].
    struct AesGcm;
    generic: cipher04,
    aead: aead,
    cipher: cipher,
    encrypt: BlockEncrypt,
    // `polyval_force_soft` asks upstream's generation for portable code only (our
    // `polyval_backend="soft"` is honoured by `Engine::detect` itself).
    force_portable: cfg!(polyval_force_soft),
    /// Not part of the upstream API: an instance on the two-pass path whose GHASH runs on the
    /// chosen backend, for our tests, benches and fuzzers (so that every backend is exercised,
    /// not only the detected one). `None` if this CPU cannot run it.
    fn __with_ghash_backend;
}

impl<Aes, NonceSize, TagSize> AeadCore for AesGcm<Aes, NonceSize, TagSize>
where
    NonceSize: ArrayLength<u8>,
    TagSize: self::TagSize,
{
    type NonceSize = NonceSize;
    type TagSize = TagSize;
    type CiphertextOverhead = U0;
}

impl<Aes, NonceSize, TagSize> AeadInPlace for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncrypt,
    NonceSize: ArrayLength<u8>,
    TagSize: self::TagSize,
{
    fn encrypt_in_place_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        buffer: &mut [u8],
    ) -> Result<Tag<TagSize>, Error> {
        check_lengths(P_MAX, buffer.len(), associated_data.len())?;
        let full_tag = self.key.seal(nonce, associated_data, buffer.into());
        Ok(Tag::clone_from_slice(&full_tag[..TagSize::USIZE]))
    }

    fn decrypt_in_place_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        buffer: &mut [u8],
        tag: &Tag<TagSize>,
    ) -> Result<(), Error> {
        check_lengths(C_MAX, buffer.len(), associated_data.len())?;
        self.key
            .open(nonce, associated_data, buffer.into(), tag)
            .map_err(|_| Error)
    }
}

/// The length limits, checked before anything else (so before the buffer is touched):
/// the buffer against `max` (upstream's [`P_MAX`] or [`C_MAX`]) and, more tightly, against
/// what the 32-bit counter covers; the associated data against [`A_MAX`].
#[inline]
fn check_lengths(max: u64, buffer_len: usize, associated_data_len: usize) -> Result<(), Error> {
    let len = aead_engines::to_u64(buffer_len);
    if len > max || len > COUNTER_MAX || aead_engines::to_u64(associated_data_len) > A_MAX {
        Err(Error)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream's inclusive maxima for the associated data, and the counter's limit (tighter
    /// than upstream's `P_MAX` and `C_MAX`) for the buffer, in both directions: hunts the
    /// counter wrapping onto J0 (tag mask reuse) that upstream 0.10.3 lets through, and an
    /// off-by-one at either bound. (Integration tests cannot allocate 64 GiB.)
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn length_limits() {
        let ctr_max = usize::try_from(COUNTER_MAX).expect("64-bit test host");
        let a_max = usize::try_from(A_MAX).expect("64-bit test host");
        assert_eq!(ctr_max, (1 << 36) - 32);
        for max in [P_MAX, C_MAX] {
            assert!(check_lengths(max, 0, 0).is_ok());
            assert!(check_lengths(max, ctr_max, 0).is_ok());
            // Upstream accepts these; each would reach J0 again.
            assert!(check_lengths(max, ctr_max + 1, 0).is_err());
            assert!(check_lengths(max, 1 << 36, 0).is_err());
            assert!(check_lengths(max, (1 << 36) + 16, 0).is_err());
            assert!(check_lengths(max, (1 << 36) + 17, 0).is_err());
            assert!(check_lengths(max, usize::MAX, 0).is_err());
            assert!(check_lengths(max, 0, a_max).is_ok());
            assert!(check_lengths(max, 0, a_max + 1).is_err());
            assert!(check_lengths(max, 0, usize::MAX).is_err());
            assert!(check_lengths(max, ctr_max, a_max).is_ok());
        }
    }

    /// On 32-bit targets no `usize` length reaches either limit.
    #[test]
    #[cfg(not(target_pointer_width = "64"))]
    fn length_limits_32() {
        assert!(check_lengths(P_MAX, usize::MAX, usize::MAX).is_ok());
        assert!(check_lengths(C_MAX, usize::MAX, usize::MAX).is_ok());
    }

    /// The published constants, unchanged.
    #[test]
    fn constants() {
        assert_eq!(A_MAX, 68_719_476_736);
        assert_eq!(P_MAX, 68_719_476_736);
        assert_eq!(C_MAX, 68_719_476_752);
    }
}
