//! 256-bit VPCLMULQDQ backend (AVX2, no AVX-512).
//!
//! The algorithm of the 512-bit backend ([`super::avx512`]) on two blocks per `ymm` register:
//! [`STRIDE`] = 16 blocks (eight registers) per reduction, Karatsuba products summed lane by
//! lane, a lane-parallel reduction, and the two lanes XORed. A final odd block is read with an
//! AVX2 masked load (`vpmaskmovq`, which does not fault on masked-off elements).

use core::arch::x86_64::*;

use super::pclmul;
use crate::state::Key;

/// Blocks per stride.
pub(crate) const STRIDE: usize = 16;

crate::target_tier! {
    detect cpuid = ["pclmulqdq", "sse2", "ssse3", "avx", "avx2", "vpclmulqdq"];

    /// Loads `n` (1 or 2) 16-byte lanes from `p`, which must point to `16 * n` readable bytes.
    #[inline]
    fn load_lanes(p: *const u8, n: usize) -> __m256i {
        if n == 2 {
            // SAFETY: the caller's `p` has 32 readable bytes; `loadu` needs no alignment.
            unsafe { _mm256_loadu_si256(p.cast()) }
        } else {
            let mask = _mm256_set_epi64x(0, 0, -1, -1);
            // SAFETY: the mask selects the first two qwords, 16 readable bytes; masked-off
            // elements are not accessed and cannot fault.
            unsafe { _mm256_maskload_epi64(p.cast(), mask) }
        }
    }

    #[inline]
    fn load_blocks<const GHASH: bool>(blocks: &[[u8; 16]]) -> __m256i {
        let v = load_lanes(blocks.as_ptr().cast(), blocks.len());
        if GHASH { _mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(pclmul::bswap_mask())) } else { v }
    }

    #[inline]
    fn swap_halves(v: __m256i) -> __m256i {
        _mm256_shuffle_epi32::<0x4e>(v)
    }

    #[inline]
    fn reduce256(lo: __m256i, mid: __m256i, hi: __m256i) -> __m256i {
        let mid = _mm256_xor_si256(mid, _mm256_xor_si256(lo, hi));
        let lo = _mm256_xor_si256(lo, _mm256_bslli_epi128::<8>(mid));
        let hi = _mm256_xor_si256(hi, _mm256_bsrli_epi128::<8>(mid));
        let k = _mm256_set1_epi64x(0xc200_0000_0000_0000_u64 as i64);
        let t = _mm256_clmulepi64_epi128::<0x00>(lo, k);
        let lo = _mm256_xor_si256(swap_halves(lo), t);
        let t = _mm256_clmulepi64_epi128::<0x00>(lo, k);
        _mm256_xor_si256(hi, _mm256_xor_si256(swap_halves(lo), t))
    }

    #[inline]
    fn run<const GHASH: bool>(y: __m256i, blocks: &[[u8; 16]], pow: &[u128], powx: &[u128]) -> __m128i {
        let (mut lo, mut mid, mut hi) = (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        let mut first = y;
        let mut i = 0;
        while i < blocks.len() {
            let n = (blocks.len() - i).min(2);
            let x = _mm256_xor_si256(load_blocks::<GHASH>(&blocks[i..i + n]), first);
            first = _mm256_setzero_si256();
            let h = load_lanes(pow[i..i + n].as_ptr().cast(), n);
            let hx = load_lanes(powx[i..i + n].as_ptr().cast(), n);
            let xx = _mm256_xor_si256(x, swap_halves(x));
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128::<0x00>(x, h));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128::<0x11>(x, h));
            mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128::<0x00>(xx, hx));
            i += n;
        }
        let r = reduce256(lo, mid, hi);
        _mm_xor_si128(_mm256_castsi256_si128(r), _mm256_extracti128_si256::<1>(r))
    }

    /// Absorbs `blocks` into `acc`.
    pub(crate) fn update<const GHASH: bool>(key: &Key, acc: &mut u128, blocks: &[[u8; 16]]) {
        let mut y = pclmul::load_u128(acc);
        let (chunks, tail) = blocks.as_chunks::<STRIDE>();
        let (pow, powx) = key.tail(STRIDE);
        for c in chunks {
            y = run::<GHASH>(_mm256_zextsi128_si256(y), c, pow, powx);
        }
        if !tail.is_empty() {
            let (pow, powx) = key.tail(tail.len());
            y = run::<GHASH>(_mm256_zextsi128_si256(y), tail, pow, powx);
        }
        pclmul::store_u128(acc, y);
    }
}
