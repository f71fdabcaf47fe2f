//! **POLYVAL** is a GHASH-like universal hash over GF(2^128), defined in
//! [RFC 8452](https://tools.ietf.org/html/rfc8452) for AES-GCM-SIV.
//!
//! This crate is a drop-in replacement for RustCrypto's `polyval` 0.7: the same types, traits,
//! features and `cfg`s, with faster backends underneath (from our `clmul-core`):
//!
//! | backend | target | selected when |
//! |---|---|---|
//! | VPCLMULQDQ, 512-bit | x86_64 | the CPU has `vpclmulqdq`, `avx512f`, `avx512bw`, `avx512vl` |
//! | VPCLMULQDQ, 256-bit | x86_64 | the CPU has `vpclmulqdq` and `avx2` |
//! | PCLMULQDQ | x86, x86_64 | the CPU has `pclmulqdq` and `ssse3` |
//! | PMULL with `EOR3` | aarch64 | the CPU has `aes` (PMULL) and `sha3` |
//! | PMULL | aarch64 | the CPU has `aes` (PMULL) |
//! | portable | everywhere | otherwise, or with `--cfg polyval_backend="soft"` |
//!
//! The backend is chosen at run time, once per key. Build with
//! `RUSTFLAGS='--cfg polyval_backend="soft"'` to force the portable backend.
//!
//! Long inputs given to [`UniversalHash::update`] or [`UniversalHash::update_padded`] go to the
//! backend's wide loop (`clmul_core`'s shared one) in one call (8 to 32 blocks per reduction
//! against powers of H), not through 4-block [`UhfBackend::proc_par_blocks`] calls.
//!
//! # Constant time
//!
//! Every backend is constant time with respect to the key and the data: the portable one uses
//! masked integer multiplies (no tables, no data-dependent branches), the others carry-less
//! multiply instructions. Lengths are not secret.
//!
//! # Example
//! ```
//! use polyval::{Polyval, universal_hash::UniversalHash};
//!
//! let key = [0x25u8; 16];
//! let mut mac = Polyval::new(&key.into());
//! mac.update_padded(b"hello, world");
//! let tag = mac.finalize();
//! assert_eq!(tag.len(), 16);
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "hazmat")]
mod field_element;

/// Hazardous materials: the raw field arithmetic.
#[cfg(feature = "hazmat")]
pub mod hazmat {
    pub use crate::field_element::FieldElement;
}

pub use universal_hash;

use core::fmt::{self, Debug};
use universal_hash::{
    KeyInit, Reset, UhfBackend, UhfClosure, UniversalHash,
    common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
    consts::{U4, U16},
};

/// Size of a POLYVAL block in bytes.
pub const BLOCK_SIZE: usize = 16;

/// Size of a POLYVAL key in bytes.
pub const KEY_SIZE: usize = 16;

/// POLYVAL keys (16 bytes).
pub type Key = universal_hash::Key<Polyval>;

/// POLYVAL blocks (16 bytes).
pub type Block = universal_hash::Block<Polyval>;

/// POLYVAL parallel blocks (4 x 16 bytes).
pub type ParBlocks = universal_hash::ParBlocks<Polyval>;

/// POLYVAL tags (16 bytes).
pub type Tag = universal_hash::Block<Polyval>;

/// **POLYVAL**: GHASH-like universal hash over GF(2^128).
#[derive(Clone)]
pub struct Polyval {
    inner: clmul_core::Polyval,
}

impl Polyval {
    /// Initialize POLYVAL with the given `H` field element.
    #[must_use]
    #[inline]
    pub fn new(h: &Key) -> Self {
        // The detected backend (the portable one when the build forces it), the state built
        // straight into place.
        Self {
            inner: clmul_core::Polyval::new(&h.0),
        }
    }
}

impl KeySizeUser for Polyval {
    type KeySize = U16;
}

impl KeyInit for Polyval {
    /// Initialize POLYVAL with the given `H` field element.
    #[inline]
    fn new(h: &Key) -> Self {
        Polyval::new(h)
    }
}

impl BlockSizeUser for Polyval {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Polyval {
    type ParBlocksSize = U4;
}

impl UhfBackend for Polyval {
    #[inline]
    fn proc_block(&mut self, block: &Block) {
        self.inner.update(core::slice::from_ref(&block.0));
    }

    #[inline]
    fn proc_par_blocks(&mut self, blocks: &ParBlocks) {
        self.inner
            .update(Block::cast_slice_to_core(blocks.as_slice()));
    }
}

impl UniversalHash for Polyval {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        f.call(self);
    }

    /// Absorbs whole blocks in the backend's wide loop.
    #[inline]
    fn update(&mut self, blocks: &[Block]) {
        self.inner.update(Block::cast_slice_to_core(blocks));
    }

    /// Absorbs `data`, zero-padding a final partial block, in the backend's wide loop (the
    /// dispatch to the backend inlined into the caller).
    #[inline(always)]
    fn update_padded(&mut self, data: &[u8]) {
        self.inner.update_padded(data);
    }

    /// Get POLYVAL output.
    #[inline]
    fn finalize(self) -> Tag {
        self.inner.finalize().into()
    }

    /// Output and reset by reference: no copy of the key table (the default clones the state).
    #[inline]
    fn finalize_reset(&mut self) -> Tag {
        let tag = self.inner.finalize().into();
        self.inner.reset();
        tag
    }
}

impl Reset for Polyval {
    /// Resets the accumulator, keeping the key.
    #[inline]
    fn reset(&mut self) {
        self.inner.reset();
    }
}

impl Debug for Polyval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Polyval").finish_non_exhaustive()
    }
}

impl Drop for Polyval {
    /// With the `zeroize` feature, the key's powers and the accumulator are wiped (by the inner
    /// state's own `Drop`); otherwise nothing happens.
    #[inline]
    fn drop(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    /// RFC 8452 Appendix A.
    #[test]
    fn rfc8452_vector() {
        let h = hex!("25629347589242761d31f826ba4b757b");
        let x1 = hex!("4f4f95668c83dfb6401762bb2d01a262");
        let x2 = hex!("d1a24ddd2721d006bbe45f20d3c9f362");
        let mut p = Polyval::new(&h.into());
        p.update(&[x1.into(), x2.into()]);
        assert_eq!(p.finalize().0, hex!("f7a3b47b846119fae5b7866cf5e5b77e"));
    }

    #[test]
    fn debug_prints_no_state() {
        let p = Polyval::new(&[7u8; 16].into());
        assert_eq!(format!("{p:?}"), "Polyval { .. }");
    }

    extern crate std;
    use std::format;
}
