//! **AES-GCM-SIV** (RFC 8452): nonce-misuse-resistant authenticated encryption with associated
//! data.
//!
//! A drop-in replacement for RustCrypto's `aes-gcm-siv` 0.12: the same types, traits, features,
//! constants and results, bit for bit, on our POLYVAL kernels (`clmul-core`) and AES engines.
//! Two deliberate differences, both where upstream 0.12.1 is unsafe:
//!
//! - **A refused out-of-place decryption leaves the output untouched.** Upstream decrypts into
//!   the output before checking the tag and, on failure, XORs the keystream over the output
//!   once more, which leaves `input ^ keystream` there: the plaintext, whenever the tag was
//!   genuine but the associated data was not. Here the plaintext is hashed from a scratch
//!   buffer and the output is written only after the tag matched. In place, as upstream, a
//!   refused buffer comes back as the ciphertext.
//! - **Over-long input is an [`Error`], never a panic.** Upstream 0.12.1 panics (in its CTR)
//!   on a plaintext of exactly [`P_MAX`] bytes, and on a ciphertext of `P_MAX + 1 ..= C_MAX`
//!   bytes. Here encryption takes up to `P_MAX` bytes (2^32 blocks: every value of the 32-bit
//!   counter once) and decryption refuses, before reading it, any ciphertext longer than
//!   `P_MAX` (no encryption makes one). The published constants are kept.
//!
//! # Usage
//!
#![cfg_attr(all(feature = "getrandom", feature = "aes"), doc = "```")]
#![cfg_attr(not(all(feature = "getrandom", feature = "aes")), doc = "```ignore")]
//! # fn main() -> Result<(), Box<dyn core::error::Error>> {
//! use aes_gcm_siv::{
//!     aead::{Aead, Generate, Key, KeyInit},
//!     Aes256GcmSiv, Nonce, // or `Aes128GcmSiv`
//! };
//!
//! let key = Key::<Aes256GcmSiv>::generate();
//! let cipher = Aes256GcmSiv::new(&key);
//!
//! // Unique nonces are still the rule; a repeated one reveals only whether two messages (with
//! // their associated data) were equal.
//! let nonce = Nonce::generate();
//! let sealed = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;
//! assert_eq!(sealed.len(), b"plaintext message".len() + 16); // ciphertext || tag
//!
//! let opened = cipher.decrypt(&nonce, sealed.as_ref())?;
//! assert_eq!(opened, b"plaintext message");
//! # Ok(())
//! # }
//! ```
//!
//! ## In place, without a heap
//!
//! [`AeadInOut::encrypt_in_place`] and [`AeadInOut::decrypt_in_place`] work on any
//! [`aead::Buffer`]: `Vec<u8>` (feature `alloc`), `arrayvec::ArrayVec<u8, N>` (feature
//! `arrayvec`, re-exported as `aead::arrayvec`) or `bytes::BytesMut` (feature `bytes`). The
//! buffer needs room for the 16-byte tag.
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
//! use aes_gcm_siv::{
//!     aead::{AeadInOut, Generate, Key, KeyInit, arrayvec::ArrayVec},
//!     Aes128GcmSiv, Nonce,
//! };
//!
//! let cipher = Aes128GcmSiv::new(&Key::<Aes128GcmSiv>::generate());
//! let nonce = Nonce::generate();
//!
//! let mut buffer: ArrayVec<u8, 64> = ArrayVec::new(); // message + 16 bytes of tag
//! buffer.try_extend_from_slice(b"in-place message").unwrap();
//! cipher.encrypt_in_place(&nonce, b"header", &mut buffer)?;
//! let sealed = buffer.clone();
//!
//! // A wrong header (or a modified ciphertext or tag) is refused, and the buffer is unchanged.
//! assert!(cipher.decrypt_in_place(&nonce, b"HEADER", &mut buffer).is_err());
//! assert_eq!(buffer, sealed);
//!
//! cipher.decrypt_in_place(&nonce, b"header", &mut buffer)?;
//! assert_eq!(buffer.as_slice(), b"in-place message");
//! # Ok(())
//! # }
//! ```
//!
//! # How it works
//!
//! Each message derives its own keys from the key-generating key and the nonce (four AES
//! blocks for AES-128, six for AES-256), hashes `A || P || lengths` with POLYVAL under the
//! derived authentication key, encrypts that (XOR the nonce, top bit cleared) under the derived
//! encryption key to make the tag, and encrypts the plaintext in CTR mode from the tag (top bit
//! set; a 32-bit little-endian counter in the first four bytes that wraps modulo 2^32). See
//! `aead_engines::siv` for the details and the decryption rules.
//!
//! # Backends
//!
//! An `AesGcmSiv` made with [`KeyInit`] on a CPU with AES-NI and PCLMULQDQ (x86, x86_64) or
//! the ARMv8 AES and PMULL instructions runs on the fused engines of `aead-engines`, detected
//! once per key: the message keys derived in registers, POLYVAL and the SIV counter's CTR on
//! the widest engine the CPU has (VAES + VPCLMULQDQ on 512 or 256 bits, AES-NI, ARMv8), and
//! an in-place decryption in one pass. Otherwise (another `Aes` type, one made with `From`,
//! another CPU, or `--cfg polyval_backend="soft"`) AES runs on the `Aes` type's own backends
//! with a key schedule per message, as upstream, and POLYVAL on the backend detected once per
//! key (PCLMULQDQ, VPCLMULQDQ on 256 or 512 bits, PMULL, or portable).
//!
//! # Constant time
//!
//! No branch or memory address depends on keys or data: AES and carry-less multiply
//! instructions, or bitsliced AES and our masked-multiply POLYVAL. The tag comparison is
//! constant time. Running time depends on the lengths, and on whether decryption succeeded.
//!
//! # Limits
//!
//! Plaintext is limited to [`P_MAX`] bytes and associated data to [`A_MAX`] bytes; a longer
//! input, or a ciphertext longer than [`P_MAX`], returns [`Error`] without touching the buffer.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub use aead::{self, AeadCore, AeadInOut, Error, Key, KeyInit, KeySizeUser};

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

use aead::{TagPosition, inout::InOutBuf};
use cipher::{
    BlockCipherEncrypt, BlockSizeUser,
    array::Array,
    consts::{U12, U16},
};
use clmul_core::Backend;
use core::fmt;

aead_engines::siv_glue! {
    struct AesGcmSiv;
    generic: cipher05,
    aead: aead,
    cipher: cipher,
    encrypt: BlockCipherEncrypt,
    array: Array,
    force_portable: false,
    polyval_backend: Backend::detect,
}

impl<Aes> AeadCore for AesGcmSiv<Aes>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + KeyInit,
{
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<Aes> AeadInOut for AesGcmSiv<Aes>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + KeyInit,
{
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> Result<Tag, Error> {
        check_lengths(buffer.len(), associated_data.len())?;
        let tag = self.key.seal(&nonce.0, associated_data, buffer);
        Ok(tag.into())
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag,
    ) -> Result<(), Error> {
        check_lengths(buffer.len(), associated_data.len())?;
        self.key
            .open(&nonce.0, associated_data, buffer, &tag.0)
            .map_err(|_| Error)
    }
}

impl<Aes> fmt::Debug for AesGcmSiv<Aes> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AesGcmSiv").finish_non_exhaustive()
    }
}
