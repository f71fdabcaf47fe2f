//! [`Lanes`] on ARMv8 NEON registers (one block each), with PMULL for the carry-less
//! products: what the `Pmull` backends and `aead-engines`' ARMv8 engines run. PMULL multiplies
//! the low or the high halves only (the hash's Karatsuba form needs nothing else); there are no
//! masked loads and stores (a partial block goes through the stack, the trait's default).
//! GHASH's byte reflection is `REV64` + `EXT`; the hash takes its data half-swapped instead
//! (`SWAP_REFLECT`), one `REV64` a block.

use core::arch::aarch64::*;

use super::Lanes;

impl Lanes for uint8x16_t {
    const BLOCKS: usize = 1;
    const PAIRED_MIDDLES: bool = true;
    const SWAP_REFLECT: bool = true;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { vdupq_n_u8(0) }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes; no alignment requirement.
        unsafe { vld1q_u8(p) }
    }

    #[inline(always)]
    unsafe fn load_power(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes.
        let mut v = unsafe { vld1q_u8(p) };
        fence(&mut v);
        v
    }

    #[inline(always)]
    unsafe fn whole(mut v: Self) -> Self {
        fence(&mut v);
        v
    }

    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: the caller guarantees 16 writable bytes.
        unsafe { vst1q_u8(p, v) }
    }

    #[inline(always)]
    unsafe fn broadcast(b: &[u8; 16]) -> Self {
        // SAFETY: 16 readable bytes.
        unsafe { vld1q_u8(b.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn from_lane0(b: &[u8; 16]) -> Self {
        // SAFETY: 16 readable bytes.
        unsafe { vld1q_u8(b.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn lane0(v: Self) -> [u8; 16] {
        let mut b = [0u8; 16];
        // SAFETY: 16 writable bytes.
        unsafe { vst1q_u8(b.as_mut_ptr(), v) };
        b
    }

    #[inline(always)]
    unsafe fn from_words(w: &[u32; 16]) -> Self {
        // SAFETY: 16 readable bytes (the first four words).
        unsafe { vld1q_u8(w.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: NEON.
        unsafe { veorq_u8(a, b) }
    }

    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: NEON.
        unsafe { vandq_u8(a, b) }
    }

    #[inline(always)]
    unsafe fn reverse(v: Self) -> Self {
        // SAFETY: NEON; 16 readable bytes of indices.
        unsafe {
            let idx: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];
            vqtbl1q_u8(v, vld1q_u8(idx.as_ptr()))
        }
    }

    #[inline(always)]
    unsafe fn reverse_in_halves(v: Self) -> Self {
        // SAFETY: NEON.
        unsafe { vrev64q_u8(v) }
    }

    #[inline(always)]
    unsafe fn swap_halves(v: Self) -> Self {
        // SAFETY: NEON.
        unsafe { vextq_u8::<8>(v, v) }
    }

    #[inline(always)]
    unsafe fn zip_lo(a: Self, b: Self) -> Self {
        // SAFETY: NEON.
        unsafe {
            vreinterpretq_u8_u64(vtrn1q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)))
        }
    }

    #[inline(always)]
    unsafe fn zip_hi(a: Self, b: Self) -> Self {
        // SAFETY: NEON.
        unsafe {
            vreinterpretq_u8_u64(vtrn2q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)))
        }
    }

    #[inline(always)]
    unsafe fn clmul_lo(a: Self, b: Self) -> Self {
        // SAFETY: the caller runs with this type's features (PMULL is part of `aes`).
        unsafe { pmull(half::<0>(a), half::<0>(b)) }
    }

    #[inline(always)]
    unsafe fn clmul_hi(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { pmull2(a, b) }
    }

    #[inline(always)]
    unsafe fn clmul_hi_lo(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { pmull(half::<1>(a), half::<0>(b)) }
    }

    #[inline(always)]
    unsafe fn clmul_lo_hi(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { pmull(half::<0>(a), half::<1>(b)) }
    }

    #[inline(always)]
    unsafe fn fold_lanes(v: Self) -> Self {
        v
    }
}

/// 64-bit half `I` of `v`, as PMULL's operand.
#[inline(always)]
unsafe fn half<const I: i32>(v: uint8x16_t) -> u64 {
    // SAFETY: NEON.
    unsafe { vgetq_lane_u64::<I>(vreinterpretq_u64_u8(v)) }
}

/// An empty `asm!` that `v` passes through: LLVM loads a power of H whole before it, where it
/// would otherwise narrow the load to the low half and a replicating load of the high one
/// (`LD1R`, which also takes a vector pipe). Compiled out under Miri and in the
/// MemorySanitizer check's build (`ct_taint`), where an `asm!` output would count as public.
#[inline(always)]
fn fence(v: &mut uint8x16_t) {
    #[cfg(not(any(miri, ct_taint)))]
    // SAFETY: the template is empty: no instruction runs, `v` stays in its register.
    unsafe {
        core::arch::asm!(
            "/* {0:v} */",
            inout(vreg) * v,
            options(nomem, nostack, preserves_flags)
        )
    };
    #[cfg(any(miri, ct_taint))]
    let _ = v;
}

crate::target_tier! {
    detect cpuid = ["aes"];

    /// PMULL: the carry-less product of two 64-bit values.
    #[inline]
    fn pmull(a: u64, b: u64) -> uint8x16_t {
        vreinterpretq_u8_p128(vmull_p64(a, b))
    }

    /// PMULL2: the carry-less product of the high halves.
    #[inline]
    fn pmull2(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        vreinterpretq_u8_p128(vmull_high_p64(vreinterpretq_p64_u8(a), vreinterpretq_p64_u8(b)))
    }
}
