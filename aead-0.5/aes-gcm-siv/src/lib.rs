//! **AES-GCM-SIV** (RFC 8452): nonce-misuse-resistant authenticated encryption with associated
//! data.
//!
//! A drop-in replacement for RustCrypto's `aes-gcm-siv` **0.11.1** (the aead 0.5 / cipher 0.4
//! generation): the same types, traits, features, constants and results, bit for bit, on the
//! same POLYVAL kernels and AES engines as our `aes-gcm-siv` 0.12.
//!
//! # Usage
//!
#![cfg_attr(all(feature = "getrandom", feature = "aes"), doc = "```")]
#![cfg_attr(not(all(feature = "getrandom", feature = "aes")), doc = "```ignore")]
//! # fn main() -> Result<(), aes_gcm_siv::Error> {
//! use aes_gcm_siv::{
//!     aead::{Aead, KeyInit, OsRng},
//!     Aes256GcmSiv, Nonce, // or `Aes128GcmSiv`
//! };
//!
//! let key = Aes256GcmSiv::generate_key(&mut OsRng);
//! let cipher = Aes256GcmSiv::new(&key);
//! let nonce = Nonce::from_slice(b"unique nonce"); // 96 bits; unique per message
//! let sealed = cipher.encrypt(nonce, b"plaintext message".as_ref())?;
//! assert_eq!(sealed.len(), b"plaintext message".len() + 16); // ciphertext || tag
//!
//! let opened = cipher.decrypt(nonce, sealed.as_ref())?;
//! assert_eq!(opened, b"plaintext message");
//! # Ok(())
//! # }
//! ```
//!
//! [`AeadInPlace::encrypt_in_place`] and [`AeadInPlace::decrypt_in_place`] work on any
//! [`aead::Buffer`] (`Vec<u8>` with `alloc`, `heapless::Vec` with `heapless`); the `_detached`
//! methods work on a slice and keep the tag apart. With `stream`, `aead::stream` builds the
//! STREAM construction on top. **A refused decryption leaves the buffer as it was** (the same
//! keystream applied once more restores the ciphertext).
//!
//! # How it works
//!
//! Each message derives its own keys from the key-generating key and the nonce, hashes
//! `A || P || lengths` with POLYVAL under the derived authentication key, encrypts that under
//! the derived encryption key to make the tag, and encrypts the plaintext in CTR mode from the
//! tag (a 32-bit little-endian counter that wraps modulo 2^32); see `aead_engines::siv`, shared
//! with our `aes-gcm-siv` 0.12.
//!
//! # Backends
//!
//! An `AesGcmSiv` made with `KeyInit` on a CPU with AES-NI and PCLMULQDQ (x86, x86_64) or
//! the ARMv8 AES and PMULL instructions runs on the fused engines of `aead-engines`, detected
//! once per key (the same as the 0.12 crate's). Otherwise (another `Aes` type, one made with
//! `From`, another CPU, or `--cfg polyval_force_soft` / `--cfg polyval_backend="soft"`) AES
//! runs on the `Aes` type's own backends, keyed anew per message, as upstream, and POLYVAL on
//! the backend detected once per key.
//!
//! # Constant time
//!
//! No branch or memory address depends on keys or data: AES and carry-less multiply
//! instructions, or bitsliced AES and our masked-multiply POLYVAL. The tag comparison is
//! constant time. Running time depends on the lengths, and on whether decryption succeeded.
//!
//! # Limits
//!
//! The constants are upstream's. A plaintext longer than [`P_MAX`] or associated data longer
//! than [`A_MAX`] is refused with [`Error`], as upstream; so is a ciphertext longer than
//! [`P_MAX`] without its tag (upstream accepts up to [`C_MAX`], runs its counter past 2^32
//! blocks onto the first keystream block again, and then refuses the tag, which no encryption
//! made): here it is refused before it is read. Nothing panics on any input.
//!
//! # Minimum Rust version
//!
//! 1.89 (edition 2024), like the rest of this repository; upstream 0.11.1 builds with 1.56.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use aead::{self, AeadCore, AeadInPlace, Error, Key, KeyInit, KeySizeUser};

#[doc(hidden)]
pub use aead_engines::Engine as __Engine;
/// Not part of the upstream API: how keys on Intel's 512-bit engine pace their messages (a
/// message after a rest may run on the 256-bit engine), and the override of our tests and
/// benches.
#[doc(hidden)]
#[cfg(target_arch = "x86_64")]
pub use aead_engines::pace as __pace;

use cipher::{
    BlockEncrypt, BlockSizeUser,
    consts::{U0, U12, U16},
    generic_array::GenericArray,
};
use clmul_core::Backend;

aead_engines::siv_glue! {
    struct AesGcmSiv;
    generic: cipher04,
    aead: aead,
    cipher: cipher,
    encrypt: BlockEncrypt,
    array: GenericArray,
    // `polyval_force_soft` asks upstream's generation for portable code only (our
    // `polyval_backend="soft"` is honoured by `Engine::detect` itself).
    force_portable: cfg!(polyval_force_soft),
    polyval_backend: polyval_backend,
}

/// The backend a new key gets: the detected one, or the portable one when the build forces it
/// (`polyval_force_soft` as upstream's generation, or our `polyval_backend="soft"`).
#[inline]
fn polyval_backend() -> Backend {
    if cfg!(any(polyval_force_soft, polyval_backend = "soft")) {
        Backend::Portable
    } else {
        Backend::detect()
    }
}

impl<Aes> AeadCore for AesGcmSiv<Aes>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockEncrypt + KeyInit,
{
    type NonceSize = U12;
    type TagSize = U16;
    type CiphertextOverhead = U0;
}

impl<Aes> AeadInPlace for AesGcmSiv<Aes>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockEncrypt + KeyInit,
{
    fn encrypt_in_place_detached(
        &self,
        nonce: &Nonce,
        associated_data: &[u8],
        buffer: &mut [u8],
    ) -> Result<Tag, Error> {
        check_lengths(buffer.len(), associated_data.len())?;
        let nonce: [u8; 12] = (*nonce).into();
        let buffer = buffer.into();
        let tag = self.key.seal(&nonce, associated_data, buffer);
        Ok(tag.into())
    }

    fn decrypt_in_place_detached(
        &self,
        nonce: &Nonce,
        associated_data: &[u8],
        buffer: &mut [u8],
        tag: &Tag,
    ) -> Result<(), Error> {
        check_lengths(buffer.len(), associated_data.len())?;
        let nonce: [u8; 12] = (*nonce).into();
        let (buffer, tag) = (buffer.into(), (*tag).into());
        self.key
            .open(&nonce, associated_data, buffer, &tag)
            .map_err(|_| Error)
    }
}
