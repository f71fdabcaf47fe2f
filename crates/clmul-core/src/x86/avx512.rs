//! 512-bit VPCLMULQDQ backend (AVX-512).
//!
//! Four blocks per `zmm` register, [`STRIDE`] = 32 blocks (eight registers) per reduction:
//!
//! - Each register of blocks is multiplied by the matching register of powers H^n..H^(n-3)
//!   with Karatsuba (three `vpclmulqdq` per register: `lo*lo`, `hi*hi`, and the middle term
//!   against the key's precomputed `lo ^ hi`). On AMD Zen 4, `vpclmulqdq` issues once per two
//!   cycles at every width, so the carry-less multiply count per byte is the bound, and
//!   Karatsuba's 3 beats schoolbook's 4.
//! - The 32 products are summed unreduced, lane by lane, then reduced lane-parallel (two
//!   `vpclmulqdq` by `0xc200000000000000`, the fold of [`crate::soft`]), and the four lanes are
//!   XORed together: reduction is linear, so reducing lanes then summing equals summing then
//!   reducing. 26 multiplies per 512 bytes.
//! - Only the first register of a stride depends on the previous stride's result, so the
//!   out-of-order core starts the next stride's 31 other products while the reduction runs.
//! - A short input or the tail of a long one runs the same code on its `n < 32` blocks against
//!   H^n..H^1 (a contiguous slice of the key table, see [`crate::state::Key`]); a final partial
//!   register is read with masked loads, whose masked-off lanes are zero and cannot fault. No
//!   scalar path, one reduction.
//! - GHASH's byte reflection is a `vpshufb` on each register after its load.
//!
//! The layout follows the approach of Gueron and Kounavis's aggregated reduction, and of the
//! VPCLMULQDQ GHASH in Linux `arch/x86/crypto/aes-gcm-avx10-x86_64.S` (Eric Biggers), written
//! here from the description, in POLYVAL's unreflected bit order.

use core::arch::x86_64::*;

use super::pclmul;
use crate::state::Key;

/// Blocks per stride.
pub(crate) const STRIDE: usize = 32;

crate::target_tier! {
    detect cpuid = [
        "pclmulqdq", "sse2", "ssse3", "avx", "avx2",
        "vpclmulqdq", "avx512f", "avx512bw", "avx512vl"
    ];

    #[inline]
    fn bswap_mask512() -> __m512i {
        _mm512_broadcast_i32x4(pclmul::bswap_mask())
    }

    /// Loads `blocks.len()` (1 to 4) blocks into one register, zero-filling the unused lanes.
    #[inline]
    fn load_blocks<const GHASH: bool>(blocks: &[[u8; 16]]) -> __m512i {
        debug_assert!((1..=4).contains(&blocks.len()));
        let v = load_lanes(blocks.as_ptr().cast(), blocks.len());
        if GHASH { _mm512_shuffle_epi8(v, bswap_mask512()) } else { v }
    }

    /// Loads `n` (1 to 4) 16-byte lanes from `p`, which must point to `16 * n` readable bytes.
    #[inline]
    fn load_lanes(p: *const u8, n: usize) -> __m512i {
        if n == 4 {
            // SAFETY: the caller's `p` has 64 readable bytes; `loadu` needs no alignment.
            unsafe { _mm512_loadu_si512(p.cast()) }
        } else {
            let mask: __mmask8 = ((1u32 << (2 * n)) - 1) as u8;
            // SAFETY: the mask selects the first `2 * n` qwords, i.e. `16 * n` readable bytes;
            // masked-off elements are not accessed and cannot fault.
            unsafe { _mm512_maskz_loadu_epi64(mask, p.cast()) }
        }
    }

    #[inline]
    fn swap_halves(v: __m512i) -> __m512i {
        _mm512_shuffle_epi32::<0x4e>(v)
    }

    #[inline]
    fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi64::<0x96>(a, b, c)
    }

    /// Lane-parallel Karatsuba fix-up and Montgomery reduction.
    #[inline]
    fn reduce512(lo: __m512i, mid: __m512i, hi: __m512i) -> __m512i {
        let mid = xor3(mid, lo, hi);
        let lo = _mm512_xor_si512(lo, _mm512_bslli_epi128::<8>(mid));
        let hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128::<8>(mid));
        let k = _mm512_set1_epi64(0xc200_0000_0000_0000_u64 as i64);
        let t = _mm512_clmulepi64_epi128::<0x00>(lo, k);
        let lo = _mm512_xor_si512(swap_halves(lo), t);
        let t = _mm512_clmulepi64_epi128::<0x00>(lo, k);
        xor3(hi, swap_halves(lo), t)
    }

    /// XOR of the four 128-bit lanes.
    #[inline]
    fn hsum(v: __m512i) -> __m128i {
        let a = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
        _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a))
    }

    /// Hashes `blocks` (1 to 32) against `pow`/`powx` of the same length, `y` (in lane 0)
    /// added to the first block; returns the reduced result.
    #[inline]
    fn run<const GHASH: bool>(y: __m512i, blocks: &[[u8; 16]], pow: &[u128], powx: &[u128]) -> __m128i {
        let (mut lo, mut mid, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
        let mut first = y;
        let mut i = 0;
        while i < blocks.len() {
            let n = (blocks.len() - i).min(4);
            let x = _mm512_xor_si512(load_blocks::<GHASH>(&blocks[i..i + n]), first);
            first = _mm512_setzero_si512();
            let h = load_lanes(pow[i..i + n].as_ptr().cast(), n);
            let hx = load_lanes(powx[i..i + n].as_ptr().cast(), n);
            let xx = _mm512_xor_si512(x, swap_halves(x));
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(x, h));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(x, h));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128::<0x00>(xx, hx));
            i += n;
        }
        hsum(reduce512(lo, mid, hi))
    }

    /// Absorbs `blocks` into `acc`.
    pub(crate) fn update<const GHASH: bool>(key: &Key, acc: &mut u128, blocks: &[[u8; 16]]) {
        let mut y = pclmul::load_u128(acc);
        let (chunks, tail) = blocks.as_chunks::<STRIDE>();
        let (pow, powx) = key.tail(STRIDE);
        for c in chunks {
            y = run::<GHASH>(_mm512_zextsi128_si512(y), c, pow, powx);
        }
        if !tail.is_empty() {
            let (pow, powx) = key.tail(tail.len());
            y = run::<GHASH>(_mm512_zextsi128_si512(y), tail, pow, powx);
        }
        pclmul::store_u128(acc, y);
    }
}
