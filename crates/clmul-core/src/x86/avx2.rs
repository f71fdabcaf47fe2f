//! 256-bit VPCLMULQDQ backend (AVX2, no AVX-512): the wide hash ([`crate::wide`]) on `ymm`
//! registers, as the 512-bit backend ([`super::avx512`]) runs it on `zmm`: two blocks per
//! register, 8 or 16 blocks (four or eight registers) per reduction, Karatsuba products
//! summed lane by lane (the blocks' middles from loads 8 bytes off, [`wide::folded_pair`],
//! blended with `vpblendd`, off the shuffle port), a lane-parallel reduction, and the two
//! lanes XORed.

use core::arch::x86_64::*;

use super::pclmul;
use crate::powers::Kept;
use crate::wide;

crate::target_tier! {
    detect cpuid = ["pclmulqdq", "sse2", "ssse3", "avx", "avx2"] + ymm ["vpclmulqdq"];

    /// Absorbs `blocks` into `acc` with a keyed state's powers H^1..H^len (`len` 1 or 4): up
    /// to seven blocks with 128-bit multiplies ([`pclmul::vex::update_mid`], shorter latency);
    /// longer inputs by [`wide::hash_kept`] from H^4..H^1 (kept, or computed and kept first:
    /// [`pclmul::kept4`]), in strides of 8, or from 32 blocks on 16.
    pub fn update_small<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
        if blocks.len() < pclmul::STRIDE {
            return pclmul::vex::update_mid::<GHASH>(kept, acc, blocks);
        }
        let [h4, h3, h2, h1] = pclmul::vex::kept4(&mut kept, |a, b| pclmul::vex::dot(a, b), |a| pclmul::vex::square(a));
        // H^2, H^1 and H^4, H^3, highest in lane 0 (`wide::first_powers`' layout).
        let z = _mm256_setzero_si256();
        let first = [_mm256_set_m128i(h1, h2), _mm256_set_m128i(h3, h4), z, z];
        let y = _mm256_zextsi128_si256(pclmul::vex::load_state(acc));
        // SAFETY: this function has the tier's features, which include those of `__m256i`'s
        // `wide::Lanes` (VPCLMULQDQ on 256 bits, AVX2, SSSE3).
        let y = unsafe {
            if blocks.len() < 32 {
                wide::hash_kept::<__m256i, GHASH, 4, true>(&first, y, blocks)
            } else {
                wide::hash_kept::<__m256i, GHASH, 8, true>(&first, y, blocks)
            }
        };
        pclmul::vex::store_u128(acc, _mm256_castsi256_si128(y));
    }
}
