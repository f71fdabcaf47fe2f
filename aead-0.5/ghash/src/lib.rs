//! **GHASH**: the universal hash over GF(2^128) that authenticates AES-GCM
//! (NIST SP 800-38D).
//!
//! A drop-in replacement for RustCrypto's `ghash` **0.5.1** (the `universal-hash` 0.5
//! generation): the same types, traits and features. GHASH runs as byte-reflected POLYVAL
//! (RFC 8452, Appendix A):
//! `GHASH(H, X) = ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)), ByteReverse(X_1), ...))`,
//! with the byte reversal of each block folded into the backend's load, on the same wide
//! kernels as our `polyval` (0.6 and 0.7) and `ghash` 0.6.
//!
//! Backend selection (run time, once per key; `--cfg polyval_force_soft` or
//! `--cfg polyval_backend="soft"` forces the portable backend), the constant-time guarantees and
//! the reading of `new_with_init_block`'s initial block (upstream's x86 behaviour, on every
//! target) are those of our `polyval` 0.6.
//!
//! # Example
//! ```
//! use ghash::{GHash, universal_hash::{KeyInit, UniversalHash}};
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
    consts::{U1, U16},
    crypto_common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
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

impl KeySizeUser for GHash {
    type KeySize = U16;
}

/// Whether the build forces the portable backend (`polyval_force_soft` as upstream, or our
/// `polyval_backend="soft"`); otherwise a new key gets the detected one.
#[inline]
fn forced_soft() -> bool {
    cfg!(any(polyval_force_soft, polyval_backend = "soft"))
}

impl GHash {
    /// Initialize GHASH with the given `H` field element and initial block.
    ///
    /// As upstream, `init_block` goes unreversed to the underlying POLYVAL (see our
    /// `polyval::Polyval::new_with_init_block`), so `finalize` with no input returns
    /// `init_block.to_le_bytes()`.
    #[inline]
    pub fn new_with_init_block(h: &Key, init_block: u128) -> Self {
        #[cfg_attr(not(feature = "zeroize"), allow(unused_mut))]
        let mut h: [u8; 16] = (*h).into();
        let inner = clmul_core::Ghash::with_state(&h, forced_soft(), &init_block.to_le_bytes());
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut h);
        Self(inner)
    }
}

impl KeyInit for GHash {
    /// Initialize GHASH with the given `H` field element.
    #[inline]
    fn new(h: &Key) -> Self {
        Self::new_with_init_block(h, 0)
    }
}

/// The backend handed to `update_with_backend` closures (one block at a time, as upstream's).
struct GHashBackend<'a>(&'a mut clmul_core::Ghash);

impl BlockSizeUser for GHashBackend<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for GHashBackend<'_> {
    type ParBlocksSize = U1;
}

impl UhfBackend for GHashBackend<'_> {
    #[inline]
    fn proc_block(&mut self, x: &Block) {
        self.0.update(&[(*x).into()]);
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
        polyval::__update_blocks(&mut self.0, blocks);
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
        f.write_str("GHash { ... }")
    }
}

#[doc(hidden)]
impl GHash {
    /// Not part of the upstream API: a state on a chosen backend, for our tests, benches and
    /// fuzzers. `None` if this CPU cannot run it.
    pub fn __with_backend(h: &Key, backend: clmul_core::Backend) -> Option<Self> {
        let h: [u8; 16] = (*h).into();
        clmul_core::Ghash::with_backend(&h, backend).map(Self)
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use hex_literal::hex;
    use std::format;

    /// RFC 8452 Appendix A, on every backend this CPU has.
    #[test]
    fn rfc8452_vector_every_backend() {
        let h = hex!("25629347589242761d31f826ba4b757b");
        let x1 = hex!("4f4f95668c83dfb6401762bb2d01a262");
        let x2 = hex!("d1a24ddd2721d006bbe45f20d3c9f362");
        for b in clmul_core::Backend::available() {
            let mut g = GHash::__with_backend(&h.into(), b).expect("available");
            g.update(&[x1.into(), x2.into()]);
            assert_eq!(
                g.finalize()[..],
                hex!("bd9b3997046731fb96251b91f9c99d7a"),
                "{b}"
            );
        }
    }

    /// Upstream passes the initial block to POLYVAL unreversed and reverses the output: an
    /// untouched state finalizes to `init_block.to_le_bytes()`. Hunts a reflection applied to
    /// the initial block.
    #[test]
    fn init_block_as_upstream_x86() {
        let init = u128::from_be_bytes(hex!("000102030405060708090a0b0c0d0e0f"));
        let g = GHash::new_with_init_block(&[0x42; 16].into(), init);
        assert_eq!(g.finalize()[..], init.to_le_bytes());
    }

    #[test]
    fn debug_is_opaque() {
        let g = GHash::new(&[7u8; 16].into());
        assert_eq!(format!("{g:?}"), "GHash { ... }");
    }
}
