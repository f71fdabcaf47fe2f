//! ARMv8 PMULL backend (`vmull_p64`, part of the Crypto Extension's `aes` feature).
//!
//! Up to seven blocks run here, as in the x86 PCLMULQDQ backend (`x86::pclmul`): Karatsuba
//! products against the kept powers of H, one Montgomery reduction by two multiplies with
//! `0xc200000000000000` per run of up to four. More go to the wide hash on `uint8x16_t`
//! ([`crate::wide::hash_kept`]: strides of `STRIDE` blocks, paired Karatsuba middles,
//! half-swapped GHASH data).
//!
//! The code is written once (`pmull_tier!`) and compiled twice: here with the `aes` feature,
//! and in [`eor3`] with FEAT_SHA3 as well, where LLVM fuses each `a ^ b ^ c` (the
//! accumulators' sums, the Karatsuba fix-up, the reduction's folds) into one `EOR3`
//! (`Backend::PmullEor3`).

use core::arch::aarch64::*;

use crate::powers::{Kept, SMALL};

/// Blocks per stride.
pub(crate) const STRIDE: usize = 8;

/// Whether an update of `n` blocks goes to `update_mid` (five to seven) rather than
/// `update_small`: the keyed state's dispatch decides, outside the backend's functions.
#[inline]
pub(crate) fn is_mid(n: usize) -> bool {
    n > SMALL && n < STRIDE
}

/// Unreduced Karatsuba accumulators.
#[derive(Clone, Copy)]
pub struct Acc {
    /// Sum of `lo * lo` products.
    pub lo: uint64x2_t,
    /// Sum of middle products.
    pub mid: uint64x2_t,
    /// Sum of `hi * hi` products.
    pub hi: uint64x2_t,
}

/// This backend's items (`available`, `FEATURES`, the kernels), compiled with the target
/// features `$f` and detected by them.
macro_rules! pmull_tier {
    ($($f:tt),+) => {
        crate::target_tier! {
            detect cpuid = [$($f),+];

            #[inline]
            fn clmul_lo(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
                vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<0>(a), vgetq_lane_u64::<0>(b)))
            }

            #[inline]
            fn clmul_hi(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
                vreinterpretq_u64_p128(vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b)))
            }

            #[inline]
            fn swap(a: uint64x2_t) -> uint64x2_t {
                vextq_u64::<1>(a, a)
            }

            /// Loads one block as a POLYVAL field element (byte-reversed for GHASH).
            #[inline]
            pub fn load<const GHASH: bool>(block: &[u8; 16]) -> uint64x2_t {
                // SAFETY: `block` is 16 readable bytes; `vld1q_u8` has no alignment requirement.
                let v = unsafe { vld1q_u8(block.as_ptr()) };
                let v = if GHASH { vextq_u8::<8>(vrev64q_u8(v), vrev64q_u8(v)) } else { v };
                vreinterpretq_u64_u8(v)
            }

            /// Loads a `u128` into a register.
            #[inline]
            pub fn load_u128(v: &u128) -> uint64x2_t {
                vreinterpretq_u64_p128(*v)
            }

            /// A register as a `u128`.
            #[inline]
            pub fn to_u128(v: uint64x2_t) -> u128 {
                vreinterpretq_p128_u64(v)
            }

            /// `acc += x * h` (unreduced), `hx` holding `lo64(h) ^ hi64(h)` in its low half.
            #[inline]
            pub fn mul_acc(acc: &mut Acc, x: uint64x2_t, h: uint64x2_t, hx: uint64x2_t) {
                let xx = veorq_u64(x, swap(x));
                acc.lo = veorq_u64(acc.lo, clmul_lo(x, h));
                acc.hi = veorq_u64(acc.hi, clmul_hi(x, h));
                acc.mid = veorq_u64(acc.mid, clmul_lo(xx, hx));
            }

            /// Karatsuba fix-up and Montgomery reduction: the product
            /// `hi * x^128 + mid * x^64 + lo` (`mid` once fixed up) times `x^-128` is
            /// `hi + fold(mid + fold(lo))`, with `fold(v) = swap(v) + lo64(v) * P1` (times
            /// `x^-64`): the first fold on the low product alone, beside the middle's fix-up,
            /// and no `ext` to split the middle across the other two.
            #[inline]
            pub fn reduce(acc: Acc) -> uint64x2_t {
                let k = vdupq_n_u64(0xc200_0000_0000_0000);
                let t = clmul_lo(acc.lo, k);
                let mid = veorq_u64(veorq_u64(acc.mid, acc.hi), veorq_u64(acc.lo, swap(acc.lo)));
                let mid = veorq_u64(mid, t);
                veorq_u64(acc.hi, veorq_u64(swap(mid), clmul_lo(mid, k)))
            }

            /// Hashes `blocks` against the powers in registers (`pw.len() == blocks.len()`, `px` their
            /// middles), the first block plus `y`; reduced.
            #[inline]
            fn run_regs<const GHASH: bool>(y: uint64x2_t, blocks: &[[u8; 16]], pw: &[uint64x2_t], px: &[uint64x2_t]) -> uint64x2_t {
                let zero = vdupq_n_u64(0);
                let mut acc = Acc { lo: zero, mid: zero, hi: zero };
                let mut first = y;
                for ((b, &h), &hx) in blocks.iter().zip(pw).zip(px) {
                    let x = veorq_u64(load::<GHASH>(b), first);
                    first = zero;
                    mul_acc(&mut acc, x, h, hx);
                }
                reduce(acc)
            }

            /// `a * b`, reduced.
            #[inline]
            fn dot(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
                let zero = vdupq_n_u64(0);
                let mut acc = Acc { lo: zero, mid: zero, hi: zero };
                mul_acc(&mut acc, a, b, middle(b));
                reduce(acc)
            }

            /// `a * a`, reduced: carry-less squaring has no cross terms, so its Karatsuba middle
            /// (before the fix-up) is `lo ^ hi`, and two multiplies suffice.
            #[inline]
            fn square(a: uint64x2_t) -> uint64x2_t {
                let (lo, hi) = (clmul_lo(a, a), clmul_hi(a, a));
                reduce(Acc { lo, mid: veorq_u64(lo, hi), hi })
            }

            /// The Karatsuba middle of a power (`lo ^ hi` in both halves).
            #[inline]
            fn middle(h: uint64x2_t) -> uint64x2_t {
                veorq_u64(h, swap(h))
            }

            /// H^k from a state's kept powers (`k == 1`, or the count `SMALL`: [`Kept::get`]
            /// asserts it), read as two 8-byte words: key setup and `clone` may write H as 8-byte
            /// stores, which a 16-byte load cannot take its bytes from while they are in flight
            /// (see the PCLMULQDQ backend's `load_kept`).
            #[inline]
            fn load_kept(kept: &Kept<'_>, k: usize) -> uint64x2_t {
                load_u128(&kept.get(k))
            }

            /// H^4..H^1 (highest first) from H: H^2, then H^4 and H^3 side by side. The one ladder of
            /// this backend's key setup and kept powers.
            #[inline]
            fn ladder4(h: uint64x2_t) -> [uint64x2_t; SMALL] {
                let h2 = square(h);
                [square(h2), dot(h2, h), h2, h]
            }

            /// A state's H^4..H^1 (highest first) in registers: loaded if kept, else computed from H
            /// ([`ladder4`]) and kept, `len` raised to 4.
            #[inline]
            fn kept4(kept: &mut Kept<'_>) -> [uint64x2_t; SMALL] {
                if kept.all() {
                    // H^1..H^4, stored (the count is `SMALL`).
                    return core::array::from_fn(|i| load_kept(kept, SMALL - i));
                }
                let pw = ladder4(load_u128(&kept.h()));
                for (i, &v) in pw.iter().enumerate().take(SMALL - 1) {
                    // SAFETY: `slot_ptr` points to the 16 bytes of H^(4 - i)'s slot in a table
                    // this function holds exclusively (`&mut`); `vst1q_u8` needs no alignment. The
                    // power stays in a vector register up to the store.
                    unsafe { vst1q_u8(kept.slot_ptr(SMALL - i), vreinterpretq_u8_u64(v)) };
                }
                // SAFETY: the loop above stored H^4, H^3 and H^2.
                unsafe { kept.set_all() };
                pw
            }

            /// Absorbs five to seven blocks ([`is_mid`]) into `acc` with a keyed state's powers
            /// H^1..H^len (`len` 1 or 4): four against H^4..H^1 (computed and kept first if the state
            /// holds H alone: [`kept4`]), reduced, then the rest (Horner's rule over the two runs,
            /// the powers in registers for both, as the x86 backends' `update_mid`: no table of
            /// H^5..H^8 for a few blocks more than the kept powers cover).
            pub fn update_mid<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
                // The runs below cover at most seven blocks (four, then three).
                assert!(blocks.len() < STRIDE, "a stride's worth of blocks on the five-to-seven path");
                let (head, tail) = blocks.split_at(SMALL.min(blocks.len()));
                let kept = kept4(&mut kept);
                let mids = kept.map(|h| middle(h));
                let y = run_regs::<GHASH>(load_u128(acc), head, &kept, &mids);
                // One call per tail length, each with constant bounds: straight-line code.
                let y = match tail.len() {
                    0 => y,
                    1 => run_regs::<GHASH>(y, tail, &kept[3..], &mids[3..]),
                    2 => run_regs::<GHASH>(y, tail, &kept[2..], &mids[2..]),
                    _ => run_regs::<GHASH>(y, tail, &kept[1..], &mids[1..]),
                };
                *acc = to_u128(y);
            }

            /// Absorbs `blocks` into `acc` with a keyed state's powers H^1..H^len (`len` 1 or 4): one
            /// block against H; up to four against H^4..H^1, computed and kept first if the state
            /// holds H alone (`kept4`); longer inputs by [`crate::wide::hash_kept`], in strides of 8
            /// against H^8..H^1, H^8..H^5 computed for the call. The caller sends five to seven
            /// blocks to [`update_mid`] instead ([`is_mid`]): a branch to it here would tell the
            /// compiler that the wide path has eight blocks or more, and with the call's powers
            /// then known to be H^1..H^8 it kept them in registers across the loop rather than
            /// reading them from the table, with register copies and spills on the vector pipes
            /// (llvm-mca: 122 instructions an 8-block stride against 102, 26.3 cycles per 64
            /// bytes on Neoverse N1 against 21.5).
            pub fn update_small<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
                let n = blocks.len();
                if n > SMALL {
                    let first = kept4(&mut kept).map(|v| vreinterpretq_u8_u64(v));
                    let [h4, h3, h2, h1] = first;
                    let y = vreinterpretq_u8_u64(load_u128(acc));
                    // SAFETY: this function has the tier's features, which include those of
                    // `uint8x16_t`'s `wide::Lanes` (`aes`, PMULL).
                    let y = unsafe { crate::wide::hash_kept::<uint8x16_t, GHASH, STRIDE, true>(&[h1, h2, h3, h4], y, blocks) };
                    *acc = to_u128(vreinterpretq_u64_u8(y));
                    return;
                }
                let mut y = load_u128(acc);
                if n <= 1 {
                    let h = load_u128(&kept.h());
                    y = run_regs::<GHASH>(y, blocks, &[h], &[middle(h)]);
                } else {
                    let kept = kept4(&mut kept);
                    let k = SMALL - n;
                    y = run_regs::<GHASH>(y, blocks, &kept[k..], &kept.map(|h| middle(h))[k..]);
                }
                *acc = to_u128(y);
            }

            /// [H, H^2, H^3, H^4] (`ladder4`).
            #[inline]
            pub fn powers4(h: u128) -> [u128; 4] {
                let mut pw = ladder4(load_u128(&h)).map(|v| to_u128(v));
                pw.reverse();
                pw
            }

        }
    };
}

pmull_tier!("aes");

/// The backend compiled with FEAT_SHA3 too: `Backend::PmullEor3`.
pub mod eor3 {
    use core::arch::aarch64::*;

    use super::{Acc, STRIDE};
    use crate::powers::{Kept, SMALL};

    pmull_tier!("aes", "sha2", "sha3");
}
