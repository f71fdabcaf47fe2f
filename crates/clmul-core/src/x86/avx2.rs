//! 256-bit VPCLMULQDQ backend (AVX2, no AVX-512).
//!
//! The algorithm of the 512-bit backend ([`super::avx512`]) on two blocks per `ymm` register:
//! 16 blocks (eight registers) per reduction, Karatsuba products summed lane by
//! lane, a lane-parallel reduction, and the two lanes XORed. An odd block count puts the first
//! block alone in the top lane of the first register.

use core::arch::x86_64::*;

use super::pclmul;
use crate::powers::{SMALL, Small};

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

    /// Swaps the 64-bit halves of both lanes.
    #[inline]
    pub fn swap_halves(v: __m256i) -> __m256i {
        _mm256_shuffle_epi32::<0x4e>(v)
    }

    /// Lane-parallel Karatsuba fix-up and Montgomery reduction: `hi + fold(mid + fold(lo))`
    /// per lane, as `pclmul::reduce`.
    #[inline]
    pub fn reduce256(lo: __m256i, mid: __m256i, hi: __m256i) -> __m256i {
        let k = _mm256_set1_epi64x(0xc200_0000_0000_0000_u64 as i64);
        let t = _mm256_clmulepi64_epi128::<0x00>(lo, k);
        let mid = _mm256_xor_si256(_mm256_xor_si256(mid, hi), _mm256_xor_si256(lo, swap_halves(lo)));
        let mid = _mm256_xor_si256(mid, t);
        let t = _mm256_clmulepi64_epi128::<0x00>(mid, k);
        _mm256_xor_si256(hi, _mm256_xor_si256(swap_halves(mid), t))
    }

    /// `acc += x * h` (unreduced, lane by lane).
    #[inline]
    pub fn mul_acc(acc: &mut [__m256i; 3], x: __m256i, h: __m256i, hx: __m256i) {
        let xx = _mm256_xor_si256(x, swap_halves(x));
        acc[0] = _mm256_xor_si256(acc[0], _mm256_clmulepi64_epi128::<0x00>(x, h));
        acc[1] = _mm256_xor_si256(acc[1], _mm256_clmulepi64_epi128::<0x00>(xx, hx));
        acc[2] = _mm256_xor_si256(acc[2], _mm256_clmulepi64_epi128::<0x11>(x, h));
    }

    /// `x * h` for both lanes (`hx` the middles of `h`), reduced.
    #[inline]
    fn mul_pow(x: __m256i, h: __m256i, hx: __m256i) -> __m256i {
        let mut acc = [_mm256_setzero_si256(); 3];
        mul_acc(&mut acc, x, h, hx);
        reduce256(acc[0], acc[1], acc[2])
    }

    /// The Karatsuba middles of every power in `pw`.
    #[inline]
    fn middles<const G: usize>(pw: &[__m256i; G]) -> [__m256i; G] {
        pw.map(|v| _mm256_xor_si256(v, swap_halves(v)))
    }

    /// `pw` (H^(2G)..H^1, two to a register, highest first) and the next 2G powers above them:
    /// `2G` registers. Each new register is one multiply by H^(2G).
    #[inline]
    fn doubled<const G: usize, const G2: usize>(pw: &[__m256i; G]) -> [__m256i; G2] {
        debug_assert!(G2 == 2 * G);
        let top = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(pw[0]));
        let topx = _mm256_xor_si256(top, swap_halves(top));
        core::array::from_fn(|i| if i < G { mul_pow(pw[i], top, topx) } else { pw[i - G] })
    }

    /// H^4..H^1 (highest first, one per register) as two registers of two.
    #[inline]
    fn pairs(kept: &[__m128i; SMALL]) -> [__m256i; 2] {
        [_mm256_set_m128i(kept[1], kept[0]), _mm256_set_m128i(kept[3], kept[2])]
    }

    /// Hashes `blocks` (1 to 2G), `y` added to the first block, against the powers in
    /// registers (`pw[g]` = H^(2(G-g)), H^(2(G-g)-1); `px` their middles); reduced. An odd
    /// first block sits alone in the top lane of its register.
    #[inline]
    fn run_regs<const GHASH: bool, const G: usize>(y: __m128i, blocks: &[[u8; 16]], pw: &[__m256i; G], px: &[__m256i; G]) -> __m128i {
        let n = blocks.len();
        let first = G - n.div_ceil(2);
        let mut acc = [_mm256_setzero_si256(); 3];
        let (x0, y, rest) = if n % 2 == 1 {
            (load_top::<GHASH>(&blocks[0]), _mm256_inserti128_si256::<1>(_mm256_setzero_si256(), y), &blocks[1..])
        } else {
            (load2::<GHASH>(blocks.as_ptr()), _mm256_zextsi128_si256(y), &blocks[2..])
        };
        mul_acc(&mut acc, _mm256_xor_si256(x0, y), pw[first], px[first]);
        let (rest, _) = rest.as_chunks::<2>();
        for (g, b) in rest.iter().enumerate() {
            mul_acc(&mut acc, load2::<GHASH>(b.as_ptr()), pw[first + 1 + g], px[first + 1 + g]);
        }
        let r = reduce256(acc[0], acc[1], acc[2]);
        _mm_xor_si128(_mm256_castsi256_si128(r), _mm256_extracti128_si256::<1>(r))
    }

    /// Strides of `2G` blocks against the powers in registers, then the tail.
    #[inline]
    fn strides_regs<const GHASH: bool, const G: usize, const S: usize>(mut y: __m128i, blocks: &[[u8; 16]], pw: &[__m256i; G]) -> __m128i {
        debug_assert!(S == 2 * G);
        let px = middles(pw);
        let (chunks, tail) = blocks.as_chunks::<S>();
        for c in chunks {
            y = run_regs::<GHASH, G>(y, c, pw, &px);
        }
        if !tail.is_empty() {
            y = run_regs::<GHASH, G>(y, tail, pw, &px);
        }
        y
    }

    /// Absorbs `blocks` into `acc` with a keyed state's powers H^1..H^len (`len` 1 or 4): up
    /// to four blocks with 128-bit multiplies ([`pclmul::vex::update_short`], shorter latency);
    /// longer inputs in strides of 8, or from 32 blocks on 16, against powers computed for the
    /// call from H^4..H^1 (kept, or computed and kept first: [`pclmul::kept4`]): H^8..H^5 in
    /// two multiplies by H^4, H^16..H^9 in four by H^8.
    pub fn update_small<const GHASH: bool>(small: &mut Small, len: &mut u8, acc: &mut u128, blocks: &[[u8; 16]]) {
        if blocks.len() <= SMALL {
            return pclmul::vex::update_short::<GHASH>(small, len, acc, blocks);
        }
        let mut y = pclmul::load_state(acc);
        let r8 = doubled::<2, 4>(&pairs(&pclmul::kept4(small, len, |a, b| pclmul::dot(a, b), |a| pclmul::square(a))));
        y = if blocks.len() < 32 {
            strides_regs::<GHASH, 4, 8>(y, blocks, &r8)
        } else {
            strides_regs::<GHASH, 8, 16>(y, blocks, &doubled::<4, 8>(&r8))
        };
        pclmul::store_u128(acc, y);
    }

}
