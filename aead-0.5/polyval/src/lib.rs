//! **POLYVAL** is a GHASH-like universal hash over GF(2^128), defined in
//! [RFC 8452](https://tools.ietf.org/html/rfc8452) for AES-GCM-SIV.
//!
//! This crate is a drop-in replacement for RustCrypto's `polyval` **0.6.2** (the
//! `universal-hash` 0.5 generation): the same types, traits, features and `cfg`s, on the wide
//! kernels of our `clmul-core` (the same ones as our `polyval` 0.7):
//!
//! | backend | target | selected when |
//! |---|---|---|
//! | VPCLMULQDQ, 512-bit | x86_64 | the CPU has `vpclmulqdq`, `avx512f`, `avx512bw`, `avx512vl` |
//! | VPCLMULQDQ, 256-bit | x86_64 | the CPU has `vpclmulqdq` and `avx2` |
//! | PCLMULQDQ | x86, x86_64 | the CPU has `pclmulqdq` and `ssse3` |
//! | PMULL | aarch64 | the CPU has `aes` (PMULL) |
//! | portable | everywhere | otherwise, or with `--cfg polyval_force_soft` or `--cfg polyval_backend="soft"` |
//!
//! The backend is chosen at run time, once per key; every backend gives the same results.
//!
//! # Differences from upstream, all invisible to code that compiles against it
//!
//! - **aarch64** uses PMULL whenever the CPU has it. Upstream 0.6.2 needs
//!   `--cfg polyval_armv8` for that and otherwise runs its software backend; the `cfg` is
//!   accepted here, and decides only the trait set below.
//! - [`Polyval::new_with_init_block`] behaves on every target as upstream's CLMUL (x86)
//!   backend: the accumulator starts at the field element whose little-endian bytes are
//!   `init_block.to_be_bytes()`, so `finalize` with no input returns `init_block.to_be_bytes()`.
//!   (Upstream's software backends start from `init_block` read the other way round, so the
//!   result depended on the CPU; the x86 behaviour is the one most users saw.)
//! - With `zeroize`, the key's powers and the accumulator are wiped when any `Polyval` is
//!   dropped (upstream's x86 build never wipes them).
//!
//! # Traits, by target (as upstream)
//!
//! On x86 and x86_64 (and aarch64 with `--cfg polyval_armv8`), `Polyval` implements
//! `KeySizeUser`, `KeyInit`, `BlockSizeUser`, `UniversalHash`, `Reset`, `Clone` and `Debug`.
//! Elsewhere, and with `--cfg polyval_force_soft`, it also implements `ParBlocksSizeUser`
//! (`U1`), `UhfBackend` and, with `zeroize`, `Drop`, as upstream's software-only type does.
//!
//! # Constant time
//!
//! Every backend is constant time with respect to the key and the data: the portable one uses
//! masked integer multiplies (no tables, no data-dependent branches), the others carry-less
//! multiply instructions. Lengths are not secret.
//!
//! # Minimum Rust version
//!
//! 1.89 (edition 2024), like the rest of this repository; upstream 0.6.2 builds with 1.56.
//!
//! # Example
//! ```
//! use polyval::{Polyval, universal_hash::{KeyInit, UniversalHash}};
//!
//! let mut mac = Polyval::new(&[0x25u8; 16].into());
//! mac.update_padded(b"hello, world");
//! let tag = mac.finalize();
//! assert_eq!(tag.len(), 16);
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use universal_hash;

use core::fmt::{self, Debug};
use universal_hash::{
    KeyInit, Reset, UhfBackend, UhfClosure, UniversalHash,
    consts::{U1, U16},
    crypto_common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
};

/// Size of a POLYVAL block in bytes.
pub const BLOCK_SIZE: usize = 16;

/// Size of a POLYVAL key in bytes.
pub const KEY_SIZE: usize = 16;

/// POLYVAL keys (16 bytes).
pub type Key = universal_hash::Key<Polyval>;

/// POLYVAL blocks (16 bytes).
pub type Block = universal_hash::Block<Polyval>;

/// POLYVAL tags (16 bytes).
pub type Tag = universal_hash::Block<Polyval>;

/// `mulX_POLYVAL` (RFC 8452, Appendix A): multiplies a field element by `x` (used to turn a
/// GHASH key into a POLYVAL key).
pub fn mulx(block: &Block) -> Block {
    let v = u128::from_le_bytes((*block).into());
    clmul_core::soft::mulx(v).to_le_bytes().into()
}

/// **POLYVAL**: GHASH-like universal hash over GF(2^128).
#[derive(Clone)]
pub struct Polyval {
    inner: clmul_core::Polyval,
}

/// Whether the build forces the portable backend (`polyval_force_soft` as upstream, or our
/// `polyval_backend="soft"`); otherwise a new key gets the detected one.
#[inline]
fn forced_soft() -> bool {
    cfg!(any(polyval_force_soft, polyval_backend = "soft"))
}

impl Polyval {
    /// Initialize POLYVAL with the given `H` field element and initial block (see the crate
    /// docs for how `init_block` is read: as upstream's x86 backend does, on every target).
    pub fn new_with_init_block(h: &Key, init_block: u128) -> Self {
        let h: [u8; 16] = (*h).into();
        let state = init_block.to_be_bytes();
        Self {
            inner: clmul_core::Polyval::with_state(&h, forced_soft(), &state),
        }
    }

    /// Not part of the upstream API: a state on a chosen backend, for our tests, benches and
    /// fuzzers. `None` if this CPU cannot run it.
    #[doc(hidden)]
    pub fn __with_backend(h: &Key, backend: clmul_core::Backend) -> Option<Self> {
        let h: [u8; 16] = (*h).into();
        clmul_core::Polyval::with_backend(&h, backend).map(|inner| Self { inner })
    }

    /// Not part of the upstream API: the backend this state runs on.
    #[doc(hidden)]
    pub fn __backend(&self) -> clmul_core::Backend {
        self.inner.backend()
    }
}

/// Not part of the upstream API: absorbs `blocks` into a `clmul_core` state in the backend's
/// wide loop (for our `ghash` 0.5 too). generic-array 0.14 has no safe view of a slice of
/// blocks as one of `[u8; 16]`, so the blocks are copied into a stack buffer sized to the
/// input (1 to 4 blocks exactly, then 8, 16, or 32 at a time): a streaming caller's short
/// update does not pay for clearing a large buffer.
#[doc(hidden)]
pub fn __update_blocks<const GHASH: bool>(state: &mut clmul_core::Hasher<GHASH>, blocks: &[Block]) {
    match blocks.len() {
        0 => {}
        1 => update_copied::<GHASH, 1>(state, blocks),
        2 => update_copied::<GHASH, 2>(state, blocks),
        3 => update_copied::<GHASH, 3>(state, blocks),
        4 => update_copied::<GHASH, 4>(state, blocks),
        5..=8 => update_copied::<GHASH, 8>(state, blocks),
        9..=16 => update_copied::<GHASH, 16>(state, blocks),
        _ => {
            for chunk in blocks.chunks(32) {
                update_copied::<GHASH, 32>(state, chunk);
            }
        }
    }
}

/// [`__update_blocks`] of at most `N` blocks through an `N`-block buffer.
#[inline(always)]
fn update_copied<const GHASH: bool, const N: usize>(
    state: &mut clmul_core::Hasher<GHASH>,
    blocks: &[Block],
) {
    let mut buf = [[0u8; 16]; N];
    for (b, x) in buf.iter_mut().zip(blocks) {
        b.copy_from_slice(x);
    }
    state.update(&buf[..blocks.len().min(N)]);
}

impl KeySizeUser for Polyval {
    type KeySize = U16;
}

impl KeyInit for Polyval {
    /// Initialize POLYVAL with the given `H` field element.
    fn new(h: &Key) -> Self {
        Self::new_with_init_block(h, 0)
    }
}

impl BlockSizeUser for Polyval {
    type BlockSize = U16;
}

/// Whether this build has upstream's software-only `Polyval` type (see the crate docs).
macro_rules! soft_only {
    ($($item:item)*) => {$(
        #[cfg(any(
            polyval_force_soft,
            not(any(
                target_arch = "x86",
                target_arch = "x86_64",
                all(target_arch = "aarch64", polyval_armv8)
            ))
        ))]
        $item
    )*};
}

/// Upstream's run-time-detected `Polyval` type is not itself a backend: closures get this one.
struct Backend<'a>(&'a mut clmul_core::Polyval);

impl BlockSizeUser for Backend<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Backend<'_> {
    type ParBlocksSize = U1;
}

impl UhfBackend for Backend<'_> {
    #[inline]
    fn proc_block(&mut self, block: &Block) {
        self.0.update(&[(*block).into()]);
    }
}

soft_only! {
    impl ParBlocksSizeUser for Polyval {
        type ParBlocksSize = U1;
    }

    impl UhfBackend for Polyval {
        #[inline]
        fn proc_block(&mut self, block: &Block) {
            self.inner.update(&[(*block).into()]);
        }
    }

    #[cfg(feature = "zeroize")]
    impl Drop for Polyval {
        /// The key's powers and the accumulator are wiped by the inner state's own `Drop`.
        fn drop(&mut self) {}
    }
}

impl UniversalHash for Polyval {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        f.call(&mut Backend(&mut self.inner));
    }

    /// Absorbs whole blocks in the backend's wide loop.
    #[inline]
    fn update(&mut self, blocks: &[Block]) {
        __update_blocks(&mut self.inner, blocks);
    }

    /// Absorbs `data`, zero-padding a final partial block, in the backend's wide loop (the
    /// dispatch to the backend inlined into the caller).
    #[inline(always)]
    fn update_padded(&mut self, data: &[u8]) {
        self.inner.update_padded(data);
    }

    /// Get POLYVAL output.
    fn finalize(self) -> Tag {
        self.inner.finalize().into()
    }

    /// Output and reset by reference: no copy of the key table (the default clones the state).
    fn finalize_reset(&mut self) -> Tag {
        let tag = self.inner.finalize().into();
        self.inner.reset();
        tag
    }
}

impl Reset for Polyval {
    /// Resets the accumulator to zero (not to an initial block), keeping the key.
    fn reset(&mut self) {
        self.inner.reset();
    }
}

impl Debug for Polyval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Polyval { ... }")
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
            let mut p = Polyval::__with_backend(&h.into(), b).expect("available");
            p.update(&[x1.into(), x2.into()]);
            assert_eq!(
                p.finalize()[..],
                hex!("f7a3b47b846119fae5b7866cf5e5b77e"),
                "{b}"
            );
        }
    }

    /// RFC 8452 Appendix A (with the errata): `mulX_POLYVAL`.
    #[test]
    fn mulx_rfc8452() {
        let x = Block::from(hex!("9c98c04df9387ded828175a92ba652d8"));
        assert_eq!(mulx(&x)[..], hex!("3931819bf271fada0503eb52574ca572"));
    }

    /// Hunts a byte-order slip in the initial block: upstream's x86 backend finalizes an
    /// untouched state to `init_block.to_be_bytes()`, and `reset` goes to zero, not back to
    /// the initial block.
    #[test]
    fn init_block_as_upstream_x86() {
        let init = u128::from_be_bytes(hex!("000102030405060708090a0b0c0d0e0f"));
        let h = Key::from([0x42; 16]);
        let p = Polyval::new_with_init_block(&h, init);
        assert_eq!(p.clone().finalize()[..], init.to_be_bytes());
        // One block after the initial state: (init ^ x) * h, the same as starting from zero
        // with x ^ init as the first block.
        let x = Block::from([0x17; 16]);
        let mut a = p.clone();
        a.update(&[x]);
        let mut y: [u8; 16] = x.into();
        for (y, i) in y.iter_mut().zip(init.to_be_bytes()) {
            *y ^= i;
        }
        let mut b = Polyval::new(&h);
        b.update(&[y.into()]);
        assert_eq!(a.finalize(), b.finalize());
        let mut r = p;
        r.reset();
        assert_eq!(r.finalize()[..], [0; 16]);
    }

    #[test]
    fn debug_is_opaque() {
        let p = Polyval::new(&[7u8; 16].into());
        assert_eq!(format!("{p:?}"), "Polyval { ... }");
    }

    /// `update` copies blocks a stack buffer (32 blocks) at a time: every count around that
    /// size, against `update_padded` of the same bytes.
    #[test]
    fn update_blocks_chunking() {
        let h = Key::from([0x99; 16]);
        let data: std::vec::Vec<u8> = (0..16 * 100).map(|i| (i * 7 + 3) as u8).collect();
        // Every buffer size's arm and both ends of each (1..=4 exactly, 8, 16, chunks of 32).
        for n in (0..=40).chain([63, 64, 65, 100]) {
            let blocks: std::vec::Vec<Block> = data[..16 * n]
                .chunks(16)
                .map(Block::clone_from_slice)
                .collect();
            let mut a = Polyval::new(&h);
            a.update(&blocks);
            let mut b = Polyval::new(&h);
            b.update_padded(&data[..16 * n]);
            assert_eq!(a.finalize(), b.finalize(), "{n} blocks");
        }
    }
}
