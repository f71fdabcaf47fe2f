//! The width-generic GHASH/POLYVAL: one multiply-accumulate-reduce, written once over a
//! register of one to four 16-byte lanes ([`Lanes`]), that every wide loop of the workspace
//! runs.
//!
//! - [`lanes`](Lanes): the register trait and its implementations per ISA (`x86`: `xmm`,
//!   `ymm`, `zmm`; `aarch64`: NEON with PMULL).
//! - `hash`: the hash domains ([`Domain`]: GHASH's blocks are byte-reflected POLYVAL
//!   elements), the products of a register of data and a register of powers ([`products`],
//!   Karatsuba or schoolbook, the middles of data from memory by loads on x86:
//!   [`folded_pair`]), their unreduced sums and the reduction ([`Acc`]), the end of a message
//!   with one reduction ([`Tail`]), a run aligned to the end of its powers ([`hash_head`]),
//!   and whole inputs in strides ([`hash_bytes`]).
//! - `table`: the powers of H the hash reads ([`PowerTable`], an AES-GCM key's
//!   [`KeptPowers`]).
//! - `powers`: how a table is filled, in registers, from H or from kept powers ([`grow`],
//!   [`fill_upto`], [`expand_kept`], [`Powers`]).
//!
//! Two kinds of caller instantiate it inside their own `#[target_feature]` functions: this crate's
//! `Pclmul`, `Avx2`, `Avx512`, `Pmull` and `PmullEor3` backends (the standalone POLYVAL/GHASH,
//! [`hash_kept`] from a keyed state's H^1..H^4), and `aead-engines`' stitched AES-GCM and
//! AES-GCM-SIV loops, which extend [`Lanes`] with the AES rounds and interleave them with these
//! steps (as Linux's single-source VAES AES-GCM does with its macros).
//!
//! Not a public API: hidden, for `aead-engines`, with no compatibility promise.
#![allow(unsafe_code)]
#![allow(missing_docs)]

mod hash;
mod lanes;
mod powers;
mod table;

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod aarch64;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86;

pub use hash::*;
pub use lanes::*;
pub use powers::*;
pub use table::*;
