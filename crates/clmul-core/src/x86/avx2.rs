//! 256-bit VPCLMULQDQ backend (AVX2, no AVX-512).
//!
//! The algorithm of the 512-bit backend ([`super::avx512`]) on two blocks per `ymm` register:
//! `STRIDE` = 16 blocks (eight registers) per reduction, Karatsuba products summed lane by
//! lane, a lane-parallel reduction, and the two lanes XORed. An odd block count puts the first
//! block alone in the top lane of the first register.

use core::arch::x86_64::*;

use super::pclmul;
use crate::state::{Key, POWERS};

/// Blocks per stride.
pub(crate) const STRIDE: usize = 16;

crate::target_tier! {
    detect cpuid = ["pclmulqdq", "sse2", "ssse3", "avx", "avx2"] + ymm ["vpclmulqdq"];

    /// Loads 2 blocks from `p`, which must point to 32 readable bytes.
    #[inline]
    fn load2<const GHASH: bool>(p: *const [u8; 16]) -> __m256i {
        // SAFETY: the caller's `p` has 32 readable bytes; `loadu` needs no alignment.
        let v = unsafe { _mm256_loadu_si256(p.cast()) };
        if GHASH { _mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(pclmul::bswap_mask())) } else { v }
    }

    /// Loads one block into the *top* lane of a register, zeroing the bottom one.
    #[inline]
    fn load_top<const GHASH: bool>(block: &[u8; 16]) -> __m256i {
        _mm256_inserti128_si256::<1>(_mm256_setzero_si256(), pclmul::load::<GHASH>(block))
    }

    /// Loads two powers (or their Karatsuba middles).
    #[inline]
    pub fn load_pow(p: &[u128; 2]) -> __m256i {
        // SAFETY: `p` is 32 readable bytes; `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(p.as_ptr().cast()) }
    }

    /// Swaps the 64-bit halves of both lanes.
    #[inline]
    pub fn swap_halves(v: __m256i) -> __m256i {
        _mm256_shuffle_epi32::<0x4e>(v)
    }

    /// Lane-parallel Karatsuba fix-up and Montgomery reduction.
    #[inline]
    pub fn reduce256(lo: __m256i, mid: __m256i, hi: __m256i) -> __m256i {
        let mid = _mm256_xor_si256(mid, _mm256_xor_si256(lo, hi));
        let lo = _mm256_xor_si256(lo, _mm256_bslli_epi128::<8>(mid));
        let hi = _mm256_xor_si256(hi, _mm256_bsrli_epi128::<8>(mid));
        let k = _mm256_set1_epi64x(0xc200_0000_0000_0000_u64 as i64);
        let t = _mm256_clmulepi64_epi128::<0x00>(lo, k);
        let lo = _mm256_xor_si256(swap_halves(lo), t);
        let t = _mm256_clmulepi64_epi128::<0x00>(lo, k);
        _mm256_xor_si256(hi, _mm256_xor_si256(swap_halves(lo), t))
    }

    /// `acc += x * h` (unreduced, lane by lane).
    #[inline]
    pub fn mul_acc(acc: &mut [__m256i; 3], x: __m256i, h: __m256i, hx: __m256i) {
        let xx = _mm256_xor_si256(x, swap_halves(x));
        acc[0] = _mm256_xor_si256(acc[0], _mm256_clmulepi64_epi128::<0x00>(x, h));
        acc[1] = _mm256_xor_si256(acc[1], _mm256_clmulepi64_epi128::<0x00>(xx, hx));
        acc[2] = _mm256_xor_si256(acc[2], _mm256_clmulepi64_epi128::<0x11>(x, h));
    }

    /// Hashes `blocks` (1 to 16), `y` added to the first block, against H^n..H^1. As in the
    /// 512-bit backend, pairs are aligned to the end: an odd first block sits in the top lane,
    /// so every power load is a whole pair of the key table.
    #[inline]
    fn run<const GHASH: bool>(y: __m128i, blocks: &[[u8; 16]], key: &Key) -> __m128i {
        let n = blocks.len();
        let odd = n % 2;
        let (pow, _) = key.pow.as_chunks::<2>();
        let (powx, _) = key.powx.as_chunks::<2>();
        let first = POWERS / 2 - n.div_ceil(2);
        let mut acc = [_mm256_setzero_si256(); 3];
        let (x0, y, rest) = if odd == 1 {
            (load_top::<GHASH>(&blocks[0]), _mm256_inserti128_si256::<1>(_mm256_setzero_si256(), y), &blocks[1..])
        } else {
            (load2::<GHASH>(blocks.as_ptr()), _mm256_zextsi128_si256(y), &blocks[2..])
        };
        mul_acc(&mut acc, _mm256_xor_si256(x0, y), load_pow(&pow[first]), load_pow(&powx[first]));
        let (rest, _) = rest.as_chunks::<2>();
        for (g, b) in rest.iter().enumerate() {
            let j = first + 1 + g;
            mul_acc(&mut acc, load2::<GHASH>(b.as_ptr()), load_pow(&pow[j]), load_pow(&powx[j]));
        }
        let r = reduce256(acc[0], acc[1], acc[2]);
        _mm_xor_si128(_mm256_castsi256_si128(r), _mm256_extracti128_si256::<1>(r))
    }

    /// Absorbs `blocks` into `acc`.
    pub fn update<const GHASH: bool>(key: &Key, acc: &mut u128, blocks: &[[u8; 16]]) {
        let mut y = pclmul::load_u128(acc);
        let (chunks, tail) = blocks.as_chunks::<STRIDE>();
        for c in chunks {
            y = run::<GHASH>(y, c, key);
        }
        if !tail.is_empty() {
            y = run::<GHASH>(y, tail, key);
        }
        pclmul::store_u128(acc, y);
    }
}
