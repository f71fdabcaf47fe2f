//! The portable backend: [`crate::soft`] arithmetic over strides of blocks, one reduction per
//! stride (aggregated reduction with precomputed powers of H).
//!
//! The stride breaks the serial dependency of Horner's rule: the four products of a stride are
//! independent, so their multiplies overlap in an out-of-order core, and the reduction is paid
//! once per stride instead of once per block.

use crate::soft::{self, Wide};
use crate::state::Key;

/// Blocks per stride.
pub(crate) const STRIDE: usize = 4;

#[inline(always)]
fn read<const GHASH: bool>(b: &[u8; 16]) -> u128 {
    if GHASH {
        u128::from_be_bytes(*b)
    } else {
        u128::from_le_bytes(*b)
    }
}

/// `sum_i block_i * H^(n-i)` unreduced, with `y` added to the first block.
#[inline(always)]
fn run<const GHASH: bool>(y: u128, blocks: &[[u8; 16]], pow: &[u128], powx: &[u128]) -> u128 {
    let mut sum: Wide = (0, 0);
    let mut first = y;
    for ((b, &h), &hx) in blocks.iter().zip(pow).zip(powx) {
        let x = read::<GHASH>(b) ^ first;
        first = 0;
        let p = soft::clmul128_kara(
            x as u64,
            (x >> 64) as u64,
            h as u64,
            (h >> 64) as u64,
            hx as u64,
        );
        sum = soft::wide_xor(sum, p);
    }
    soft::reduce(sum)
}

pub(crate) fn update<const GHASH: bool>(key: &Key, acc: &mut u128, blocks: &[[u8; 16]]) {
    let mut y = *acc;
    let (chunks, tail) = blocks.as_chunks::<STRIDE>();
    let (pow, powx) = key.tail(STRIDE);
    for c in chunks {
        y = run::<GHASH>(y, c, pow, powx);
    }
    if !tail.is_empty() {
        let (pow, powx) = key.tail(tail.len());
        y = run::<GHASH>(y, tail, pow, powx);
    }
    *acc = y;
}
