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
//! Encryption runs the keystream over the whole buffer with the block cipher's parallel
//! backend (AES-NI / VAES / ARMv8 in the `aes` crate), then GHASHes the whole ciphertext in one
//! call to the wide GHASH kernel. Decryption GHASHes the ciphertext first, compares tags in
//! constant time, and only if they match runs the keystream: **on failure the buffer (and an
//! out-of-place output) is left exactly as it was**, with no plaintext in it.
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
//! succeeded. The repository's `cargo xtask ct` checks every engine with Valgrind,
//! MemorySanitizer (the `ct_taint` build) and rules on the release binary's disassembly.
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

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod aarch64;
mod fused;
mod generic;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86;

#[doc(hidden)]
pub use fused::Engine as __Engine;

pub use aead::{self, AeadCore, AeadInOut, Error, Key, KeyInit, KeySizeUser};

#[cfg(feature = "aes")]
pub use aes;

use aead::{TagPosition, inout::InOutBuf};
// `consts` names the nonce size of the `aes` aliases (and the docs' tag sizes).
#[cfg_attr(not(feature = "aes"), allow(unused_imports))]
use cipher::consts;
use cipher::{
    BlockCipherEncrypt, BlockSizeUser,
    array::{Array, ArraySize},
    consts::U16,
};
use core::{fmt, marker::PhantomData};
use ghash::GHash;

#[cfg(feature = "aes")]
use aes::{Aes128, Aes256};

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

/// AES-GCM with a 128-bit key and 96-bit nonce.
#[cfg(feature = "aes")]
#[cfg_attr(docsrs, doc(cfg(feature = "aes")))]
pub type Aes128Gcm = AesGcm<Aes128, consts::U12>;

/// AES-GCM with a 256-bit key and 96-bit nonce.
#[cfg(feature = "aes")]
#[cfg_attr(docsrs, doc(cfg(feature = "aes")))]
pub type Aes256Gcm = AesGcm<Aes256, consts::U12>;

/// A 16-byte block: a counter block, a keystream block, a GHASH block or a full tag.
pub(crate) type Block = Array<u8, U16>;

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
#[derive(Clone)]
pub struct AesGcm<Aes, NonceSize, TagSize = U16>
where
    TagSize: crate::TagSize,
{
    /// The block cipher, keyed.
    cipher: Aes,

    /// GHASH keyed with `H = E_K(0^128)`, its table of powers of H already filled, with an
    /// empty accumulator. Each message hashes with its own accumulator through `&self`.
    ghash: GHash,

    /// Our own AES round keys for a fused AES-CTR+GHASH kernel, when the key came through
    /// `KeyInit` and the CPU has a fused engine (see `fused`).
    fused: Option<fused::Fused>,

    /// All the powers of H for the fused kernel's GHASH steps (zero without a fused kernel).
    table: clmul_core::__private::Key,

    /// Length of the nonce.
    nonce_size: PhantomData<NonceSize>,

    /// Length of the tag.
    tag_size: PhantomData<TagSize>,
}

impl<Aes, NonceSize, TagSize> KeySizeUser for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: KeySizeUser,
    TagSize: crate::TagSize,
{
    type KeySize = Aes::KeySize;
}

impl<Aes, NonceSize, TagSize> KeyInit for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + KeyInit,
    TagSize: crate::TagSize,
{
    fn new(key: &Key<Self>) -> Self {
        Self::with_engine(key, fused::Engine::detect()).unwrap_or_else(|| Aes::new(key).into())
    }
}

impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + KeyInit,
    TagSize: crate::TagSize,
{
    /// Not part of the upstream API: an instance on the chosen engine, for our tests,
    /// benches and fuzzers. `None` if this CPU cannot run it or `Aes` is not AES under `key`
    /// (checked on `E_K(0)`); [`__Engine::Generic`] always works.
    #[doc(hidden)]
    pub fn with_engine(key: &Key<Self>, engine: fused::Engine) -> Option<Self> {
        let cipher = Aes::new(key);
        if engine == fused::Engine::Generic {
            return Some(cipher.into());
        }
        #[cfg_attr(not(feature = "zeroize"), allow(unused_mut))]
        let mut h = hash_key(&cipher);
        let fused = fused::Fused::new(engine, key.as_slice(), &h);
        let ghash = GHash::new(&h);
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(h.as_mut_slice());
        Some(Self::assemble(cipher, ghash).with_fused(Some(fused?)))
    }
}

impl<Aes, NonceSize, TagSize> From<Aes> for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    TagSize: crate::TagSize,
{
    fn from(cipher: Aes) -> Self {
        #[cfg_attr(not(feature = "zeroize"), allow(unused_mut))]
        let mut h = hash_key(&cipher);
        let ghash = GHash::new(&h);
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(h.as_mut_slice());
        Self::assemble(cipher, ghash)
    }
}

impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    TagSize: crate::TagSize,
{
    /// Not part of the upstream API: an instance whose GHASH runs on the chosen backend, for
    /// our tests, benches and fuzzers (so that every backend is exercised, not only the
    /// detected one). `None` if this CPU cannot run it.
    #[doc(hidden)]
    pub fn __with_ghash_backend(cipher: Aes, backend: clmul_core::Backend) -> Option<Self> {
        #[cfg_attr(not(feature = "zeroize"), allow(unused_mut))]
        let mut h = hash_key(&cipher);
        let ghash = GHash::__with_backend(&h, backend);
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(h.as_mut_slice());
        ghash.map(|ghash| Self::assemble(cipher, ghash))
    }

    /// Not part of the upstream API: the fused engine this instance runs on
    /// ([`__Engine::Generic`] for the two-pass path).
    #[doc(hidden)]
    pub fn __engine(&self) -> fused::Engine {
        self.fused
            .as_ref()
            .map_or(fused::Engine::Generic, fused::Fused::engine)
    }

    fn with_fused(mut self, fused: Option<fused::Fused>) -> Self {
        if fused.is_some() {
            self.table = self.ghash.__core().__full_key();
        }
        self.fused = fused;
        self
    }

    /// Not part of the upstream API: the GHASH backend this instance runs on.
    #[doc(hidden)]
    pub fn __ghash_backend(&self) -> clmul_core::Backend {
        self.ghash.__backend()
    }

    fn assemble(cipher: Aes, mut ghash: GHash) -> Self {
        // Fill the table of powers of H now, once per key: the GHASH state would otherwise
        // compute the powers its wide loop needs on first use, per message.
        ghash.__precompute();
        Self {
            cipher,
            ghash,
            fused: None,
            table: clmul_core::__private::Key::ZERO,
            nonce_size: PhantomData,
            tag_size: PhantomData,
        }
    }
}

/// The GHASH key `H = E_K(0^128)`.
fn hash_key<Aes: BlockCipherEncrypt<BlockSize = U16>>(cipher: &Aes) -> ghash::Key {
    let mut h = ghash::Key::default();
    cipher.encrypt_block(&mut h);
    h
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
        let j0 = self.j0(nonce);
        let full_tag = self.seal(&j0, associated_data, buffer);
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
        let j0 = self.j0(nonce);
        self.open(&j0, associated_data, buffer, tag)
    }
}

impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    NonceSize: ArraySize,
    TagSize: crate::TagSize,
{
    /// The pre-counter block J0 (NIST SP 800-38D, section 7.1, step 2):
    ///
    /// - a 96-bit nonce: `J0 = nonce || 0^31 || 1`;
    /// - any other length: `J0 = GHASH_H(nonce || 0^s || 0^64 || [len(nonce)]_64)`, where the
    ///   `0^s` pads the nonce to whole blocks and the length is in bits.
    fn j0(&self, nonce: &Nonce<NonceSize>) -> Block {
        if NonceSize::USIZE == 12 {
            let mut j0 = Block::default();
            j0[..12].copy_from_slice(nonce);
            j0[15] = 1;
            j0
        } else {
            let ghash = self.ghash.__core();
            let mut acc = [0u8; 16];
            ghash.update_detached_padded(&mut acc, nonce);
            let mut lengths = [0u8; 16];
            lengths[8..].copy_from_slice(&bits(NonceSize::USIZE).to_be_bytes());
            ghash.update_detached(&mut acc, &[lengths]);
            acc.into()
        }
    }

    /// Encrypts `buffer` (input to output) and returns the full 16-byte tag.
    ///
    /// **The single dispatch point for encryption.** Everything above it (length checks, J0,
    /// truncation) is common to every implementation; everything below it is one
    /// implementation of "CTR from inc32(J0), then the GHASH tag". Today that is always the
    /// generic two-pass path; fused AES-CTR+GHASH kernels for `aes::Aes128/192/256` will take
    /// over here when the keyed state holds one (see `generic` for the contract).
    #[inline]
    fn seal(&self, j0: &Block, associated_data: &[u8], buffer: InOutBuf<'_, '_, u8>) -> Block {
        match &self.fused {
            Some(f) => f.seal(&self.table, j0, associated_data, buffer),
            None => generic::seal(&self.cipher, &self.ghash, j0, associated_data, buffer),
        }
    }

    /// Checks `tag` against the input of `buffer` and, only if it matches, decrypts the input
    /// to the output. On failure the output is not written.
    ///
    /// **The single dispatch point for decryption** (see [`Self::seal`]).
    #[inline]
    fn open(
        &self,
        j0: &Block,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> Result<(), Error> {
        match &self.fused {
            Some(f) => f.open(&self.table, j0, associated_data, buffer, tag),
            None => generic::open(&self.cipher, &self.ghash, j0, associated_data, buffer, tag),
        }
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

/// `usize` to `u64`, saturating (only matters on a hypothetical >64-bit `usize`, where a
/// saturated length still exceeds both limits).
#[inline]
fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A byte length in bits, as GCM's length blocks encode it. Saturating: inputs that reach the
/// length block are within `A_MAX`/`P_MAX` (so the product fits), and a nonce cannot be 2^61
/// bytes long.
#[inline]
fn bits(len: usize) -> u64 {
    to_u64(len).saturating_mul(8)
}

/// `GHASH_H(A || pad || C || pad || [bits(A)]_64 || [bits(C)]_64) XOR mask`: the full tag, with
/// `mask = E_K(J0)`. `ghash` is the keyed, empty state; each input goes to the wide kernel in
/// one call.
pub(crate) fn ghash_tag(
    ghash: &GHash,
    associated_data: &[u8],
    ciphertext: &[u8],
    mask: &Block,
) -> Block {
    let ghash = ghash.__core();
    let mut acc = [0u8; 16];
    for data in [associated_data, ciphertext] {
        ghash.update_detached_padded(&mut acc, data);
    }
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&bits(associated_data.len()).to_be_bytes());
    lengths[8..].copy_from_slice(&bits(ciphertext.len()).to_be_bytes());
    ghash.update_detached(&mut acc, &[lengths]);

    let mut tag: Block = acc.into();
    for (t, m) in tag.iter_mut().zip(mask.iter()) {
        *t ^= m;
    }
    tag
}

/// Whether the first `tag.len()` bytes of `expected` equal `tag`, in constant time (no
/// data-dependent branch or early exit; the one branch is on the final verdict).
#[inline]
pub(crate) fn tag_matches(expected: &Block, tag: &[u8]) -> bool {
    match expected.get(..tag.len()) {
        Some(prefix) => ct_verdict(prefix, tag),
        None => false,
    }
}

/// Whether `a == b`, compared in constant time, as a public verdict: ctutils' comparison, or
/// in the MemorySanitizer check's build (`ct_taint`) [`eq_fold`], because MSan counts the
/// outputs of ctutils' `cmov` assembly as public, which would hide a branch on the comparison
/// of secrets. The result is declassified for that check (it is returned to the caller).
#[inline]
pub(crate) fn ct_verdict(a: &[u8], b: &[u8]) -> bool {
    let eq = if cfg!(ct_taint) {
        eq_fold(a, b)
    } else {
        ctutils::CtEq::ct_eq(a, b).to_bool()
    };
    clmul_core::__private::declassify(eq)
}

/// `a == b` without a data-dependent branch: the OR of the XOR of every byte pair is zero.
/// Slices of different lengths are unequal.
#[inline]
fn eq_fold(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

impl<Aes, NonceSize, TagSize> fmt::Debug for AesGcm<Aes, NonceSize, TagSize>
where
    TagSize: crate::TagSize,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AesGcm").finish_non_exhaustive()
    }
}

// No custom `Drop`: with `zeroize`, the key material is cleared by the fields' own drops (the
// cipher's, and the GHASH state's key table), which this marker promises.
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
        assert_eq!(bits(usize::MAX), (usize::MAX as u64) * 8);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn bit_lengths() {
        let a_max = usize::try_from(A_MAX).expect("64-bit test host");
        assert_eq!(bits(a_max), A_MAX * 8);
        assert_eq!(bits(usize::MAX), u64::MAX);
        assert_eq!(bits(12), 96);
    }

    /// The checker build's comparison against ctutils' (the shipped one): equal slices, one
    /// flipped bit at every position, and different lengths.
    #[test]
    fn comparison_variants_agree() {
        let a: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5a);
        for n in 0..=16 {
            assert!(eq_fold(&a[..n], &a[..n]));
            assert!(ctutils::CtEq::ct_eq(&a[..n], &a[..n]).to_bool());
            for bit in 0..8 * n {
                let mut b = a;
                b[bit / 8] ^= 1 << (bit % 8);
                assert!(!eq_fold(&a[..n], &b[..n]));
                assert!(!ctutils::CtEq::ct_eq(&a[..n], &b[..n]).to_bool());
            }
        }
        assert!(!eq_fold(&a[..4], &a[..5]));
        assert!(!ctutils::CtEq::ct_eq(&a[..4], &a[..5]).to_bool());
        assert!(ct_verdict(&a, &a) && !ct_verdict(&a, &a[..15]));
    }

    #[test]
    fn tag_prefix_comparison() {
        let expected = Block::from([0x5a; 16]);
        assert!(tag_matches(&expected, &[0x5a; 16]));
        assert!(tag_matches(&expected, &[0x5a; 4]));
        assert!(!tag_matches(&expected, &[0x5b; 16]));
        let mut last = [0x5a; 12];
        last[11] ^= 1;
        assert!(!tag_matches(&expected, &last));
        assert!(!tag_matches(&expected, &[0x5a; 17]));
    }
}
