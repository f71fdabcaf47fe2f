//! The portable backend: [`crate::soft`] arithmetic over strides of blocks, one reduction per
//! stride (aggregated reduction with precomputed powers of H).
//!
//! The stride breaks the serial dependency of Horner's rule: the products of a stride are
//! independent, so their multiplies overlap in an out-of-order core, and the reduction is paid
//! once per stride instead of once per block. The powers' 64-bit halves (and Karatsuba
//! middles) are split into multiplier lanes once per call, so the hot loop only splits the data.

use crate::powers::Kept;
use crate::soft::{self, Split, Wide};

/// Blocks per stride.
pub(crate) const STRIDE: usize = 4;

// The stride's powers are the state's kept ones.
const _: () = assert!(STRIDE == crate::powers::SMALL);

/// An input of at least this many blocks runs in strides, the portable backend computing
/// H^2..H^4 first if the state holds H alone (below it, Horner's rule with H alone is
/// cheaper: measured on AMD Zen 4, a fresh key hashing 8 blocks takes 0.67x the time with
/// Horner's rule, 16 blocks 0.79x, 32 blocks 1.04x; see [`update`] for kept powers).
pub(crate) const POWERS_FROM: usize = 32;

#[inline(always)]
fn read<const GHASH: bool>(b: &[u8; 16]) -> u128 {
    if GHASH {
        u128::from_be_bytes(*b)
    } else {
        u128::from_le_bytes(*b)
    }
}

/// The lanes of one power: its low half, high half and Karatsuba middle.
type PowerLanes = [Split; 3];

fn split_power(h: u128) -> PowerLanes {
    let (h0, h1) = (h as u64, (h >> 64) as u64);
    [soft::split(h0), soft::split(h1), soft::split(h0 ^ h1)]
}

/// `sum_i block_i * H^(n-i)` reduced, with `y` added to the first block.
#[inline(always)]
fn run<const GHASH: bool>(y: u128, blocks: &[[u8; 16]], lanes: &[PowerLanes]) -> u128 {
    let (mut lo, mut mid, mut hi) = (0u128, 0u128, 0u128);
    let mut first = y;
    for (b, l) in blocks.iter().zip(lanes) {
        let x = read::<GHASH>(b) ^ first;
        first = 0;
        let (x0, x1) = (x as u64, (x >> 64) as u64);
        lo ^= soft::clmul64_split(x0, &l[0]);
        hi ^= soft::clmul64_split(x1, &l[1]);
        mid ^= soft::clmul64_split(x0 ^ x1, &l[2]);
    }
    let mid = mid ^ lo ^ hi;
    let wide: Wide = (lo ^ (mid << 64), hi ^ (mid >> 64));
    soft::reduce(wide)
}

/// Absorbs `blocks`: an input of [`POWERS_FROM`] blocks or more in strides of four against
/// H^4..H^1 (computed and kept here if the state holds H alone); a shorter one a block at a
/// time against H (Horner's rule), even where the state keeps the powers: splitting three
/// more powers into multiplier lanes costs more than the reductions the strides save
/// (measured on Zen 4 with the powers kept: Horner's rule takes 0.64x the time of the strides
/// for one block, 0.86x for six, 0.96x for sixteen, 0.99x for 31). Not inlined: the keyed state's
/// dispatch stays a jump to the SIMD kernels, without this function's stack frame.
#[inline(never)]
pub(crate) fn update<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
    let mut y = *acc;
    if blocks.len() < POWERS_FROM {
        let lanes = [split_power(kept.h())];
        for b in blocks {
            y = run::<GHASH>(y, core::slice::from_ref(b), &lanes);
        }
        *acc = y;
        return;
    }
    if !kept.all() {
        let powers = powers4(kept.h());
        kept.set_powers(&powers);
    }
    // `lanes[STRIDE - k]` holds H^k (`STRIDE` is `SMALL`: the kept powers).
    let lanes: [PowerLanes; STRIDE] = core::array::from_fn(|i| split_power(kept.get(STRIDE - i)));
    let (chunks, tail) = blocks.as_chunks::<STRIDE>();
    for c in chunks {
        y = run::<GHASH>(y, c, &lanes);
    }
    if !tail.is_empty() {
        // The tail's n' blocks need H^n'..H^1: the last n' entries of the stride's table.
        y = run::<GHASH>(y, tail, &lanes[STRIDE - tail.len()..]);
    }
    *acc = y;
}

/// [H, H^2, H^3, H^4] (the portable stride's powers): H^2, then H^3 and H^4.
pub(crate) fn powers4(h: u128) -> [u128; 4] {
    let h2 = soft::dot(h, h);
    [h, h2, soft::dot(h2, h), soft::dot(h2, h2)]
}
