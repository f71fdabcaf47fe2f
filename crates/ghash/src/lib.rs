//! **GHASH**: the universal hash over GF(2^128) that authenticates AES-GCM
//! (NIST SP 800-38D).
//!
//! A drop-in replacement for RustCrypto's `ghash` 0.6: the same types, traits and features. GHASH
//! runs as byte-reflected POLYVAL (RFC 8452, Appendix A):
//! `GHASH(H, X) = ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)), ByteReverse(X_1), ...))`.
//! The byte reversal of each block is folded into the backend's load (a byte shuffle in a
//! register, or a big-endian read on the portable path), so no block is copied or reversed in
//! memory, and GHASH runs on the same wide kernels as our `polyval`.
//!
//! Backend selection (run time, once per key; `--cfg polyval_backend="soft"` forces the portable
//! backend) and the constant-time guarantees are those of our `polyval`.
//!
//! # Example
//! ```
//! use ghash::{GHash, universal_hash::UniversalHash};
//!
//! let mut mac = GHash::new(&[0x42u8; 16].into());
//! mac.update_padded(b"associated data");
//! let tag = mac.finalize();
//! assert_eq!(tag.len(), 16);
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use polyval::universal_hash;

use core::fmt::{self, Debug};
use universal_hash::{
    KeyInit, UhfBackend, UhfClosure, UniversalHash,
    array::Array,
    common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
    consts::{U4, U16},
};

/// GHASH keys (16 bytes).
pub type Key = universal_hash::Key<GHash>;

/// GHASH blocks (16 bytes).
pub type Block = universal_hash::Block<GHash>;

/// GHASH tags (16 bytes).
pub type Tag = universal_hash::Block<GHash>;

/// **GHASH**: universal hash over GF(2^128) used by AES-GCM.
///
/// GHASH is a polynomial evaluation over GF(2^128) with the hash key H; the field, its bit
/// order and its reduction polynomial differ from POLYVAL's only by a reflection.
#[derive(Clone)]
pub struct GHash(clmul_core::Ghash);

impl GHash {
    /// Initialize GHASH with the given `H` field element.
    #[inline]
    pub fn new(h: &Key) -> Self {
        // The detected backend (the portable one when the build forces it), the state built
        // straight into place.
        Self(clmul_core::Ghash::new(&h.0))
    }
}

impl KeySizeUser for GHash {
    type KeySize = U16;
}

impl KeyInit for GHash {
    /// Initialize GHASH with the given `H` field element.
    #[inline]
    fn new(h: &Key) -> Self {
        GHash::new(h)
    }
}

/// The backend handed to `update_with_backend` closures: whole groups of blocks go straight to
/// the reflecting kernels.
struct GHashBackend<'a>(&'a mut clmul_core::Ghash);

impl BlockSizeUser for GHashBackend<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for GHashBackend<'_> {
    type ParBlocksSize = U4;
}

impl UhfBackend for GHashBackend<'_> {
    #[inline]
    fn proc_block(&mut self, x: &Block) {
        self.0.update(core::slice::from_ref(&x.0));
    }

    #[inline]
    fn proc_par_blocks(&mut self, blocks: &Array<Block, U4>) {
        self.0.update(Block::cast_slice_to_core(blocks.as_slice()));
    }
}

impl BlockSizeUser for GHash {
    type BlockSize = U16;
}

impl UniversalHash for GHash {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        f.call(&mut GHashBackend(&mut self.0));
    }

    /// Absorbs whole blocks in the backend's wide loop.
    #[inline]
    fn update(&mut self, blocks: &[Block]) {
        self.0.update(Block::cast_slice_to_core(blocks));
    }

    /// Absorbs `data`, zero-padding a final partial block, in the backend's wide loop (the
    /// dispatch to the backend inlined into the caller).
    #[inline(always)]
    fn update_padded(&mut self, data: &[u8]) {
        self.0.update_padded(data);
    }

    /// Get GHASH output.
    #[inline]
    fn finalize(self) -> Tag {
        self.0.finalize().into()
    }
}

impl Debug for GHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("GHash").finish_non_exhaustive()
    }
}

#[doc(hidden)]
impl GHash {
    /// Not part of the upstream API: a state on a chosen backend, for our benches, tests and
    /// fuzzers. `None` if this CPU cannot run it.
    pub fn __with_backend(h: &Key, backend: clmul_core::Backend) -> Option<Self> {
        clmul_core::Ghash::with_backend(&h.0, backend).map(Self)
    }

    /// Not part of the upstream API: the underlying keyed state (for our `aes-gcm`, which
    /// hashes each message with its own accumulator through `&self`).
    pub fn __core(&self) -> &clmul_core::Ghash {
        &self.0
    }

    /// Not part of the upstream API: computes the powers of H a state keeps now (see
    /// `clmul_core::Hasher::precompute`).
    pub fn __precompute(&mut self) {
        self.0.precompute();
    }

    /// Not part of the upstream API: the backend this state runs on.
    pub fn __backend(&self) -> clmul_core::Backend {
        self.0.backend()
    }
}
