//! 512-bit VPCLMULQDQ backend (AVX-512): the wide hash ([`crate::wide`]) on `zmm` registers.
//!
//! - Four blocks per register, up to 32 blocks (eight registers) per reduction: each register
//!   of blocks is multiplied by the matching register of powers H^n..H^(n-3) with Karatsuba
//!   (three `vpclmulqdq` per register: `lo*lo`, `hi*hi`, and the middle term against the
//!   power's `lo ^ hi`). On AMD Zen 4, `vpclmulqdq` issues once per two cycles at every width,
//!   so the carry-less multiply count per byte is the bound, and Karatsuba's 3 beats
//!   schoolbook's 4. The blocks' middles come from loads 8 bytes off instead of a shuffle
//!   ([`wide::folded_pair`]): on Intel's cores, where 512-bit shuffles and multiplies share
//!   port 5, that is three port-5 operations a register, as schoolbook's four would be but
//!   with fewer multiplies.
//! - The products are summed unreduced, lane by lane, then reduced lane-parallel (two
//!   `vpclmulqdq` by `0xc200000000000000`, the fold of [`crate::soft`]), and the four lanes are
//!   XORed together: reduction is linear, so reducing lanes then summing equals summing then
//!   reducing.
//! - Only the first register of a stride depends on the previous stride's result, and it is
//!   multiplied last: the out-of-order core starts the stride's other products while the last
//!   reduction runs.
//! - The blocks short of a whole stride go first, aligned to the end of their powers
//!   ([`wide::hash_head`]: a partial register in its top lanes, by a masked load of a window
//!   on the input's own pages, moved into place through the stack where that window is not
//!   the register's), one reduction; then whole strides.
//! - GHASH's byte reflection is a `vpshufb` on each register after its load.
//!
//! [`update_small`] serves a keyed POLYVAL/GHASH state, which keeps H^1..H^4 at most (see the
//! `powers` module): up to 15 blocks go to the 128-bit code (shorter latency), up to 31 to
//! strides of 8, up to 255 to strides of 16, longer inputs to strides of 32. The powers above
//! H^4 are computed for the call, in doubling rounds of whole registers (every new register
//! of four powers is one multiply by the highest power so far), into a table on the stack
//! ([`wide::hash_kept`]).
//!
//! The layout follows the approach of Gueron and Kounavis's aggregated reduction, and of the
//! VPCLMULQDQ GHASH in Linux `arch/x86/crypto/aes-gcm-avx10-x86_64.S` (Eric Biggers), written
//! here from the description, in POLYVAL's unreflected bit order.

use core::arch::x86_64::*;

use super::pclmul;
use crate::powers::Kept;
use crate::wide;

/// Inputs of at least this many blocks get H^17..H^32 computed for strides of 32 (below it,
/// strides of 16 and four fewer multiplies per call).
pub(crate) const WIDE_FROM: usize = 256;

/// Inputs of fewer blocks than this run the 128-bit code ([`pclmul::vex::update_small`]: up to
/// seven blocks as four and the rest, 8 to 15 in strides of four against the kept H^4..H^1);
/// from here, the 512-bit strides. Below 16 blocks the wide path pays for its setup (H^5..H^8
/// computed, a table stored, a partial register's own reduction before the stride) with one
/// stride at most. Measured on an Intel Xeon (AVX-512, KVM model 0xa7, 3.58 GHz; `polyval`
/// 0.7 under `lto = "fat"`, a kept key cloned per message, fastest of 31 rounds, two runs,
/// 512-bit strides against 128-bit): 8 blocks 11.2 -> 10.0 ns, 9 blocks 16.2 -> 11.5, 10
/// blocks 15.1 -> 12.6, 12 blocks 15.2 -> 13.0, 13 blocks 16.8 -> 14.9, 15 blocks 16.9 ->
/// 16.6; from 16 blocks the 512-bit strides lead (16 blocks 14.5 against 16.6, 24 blocks
/// 18.0 against 24.2). Not measured on AMD Zen 4.
pub(crate) const ZMM_FROM: usize = 16;

crate::target_tier! {
    detect cpuid = [
        "pclmulqdq", "sse2", "ssse3", "avx", "avx2",
        "vpclmulqdq", "avx512f", "avx512bw", "avx512vl"
    ];

    /// Absorbs `blocks` into `acc` with a keyed state's powers H^1..H^len (`len` 1 or 4): up
    /// to 15 blocks with 128-bit multiplies ([`pclmul::vex::update_small`], below
    /// [`ZMM_FROM`]: shorter latency, no time spent setting up 512-bit registers); longer
    /// inputs by [`wide::hash_kept`] from H^4..H^1 (kept, or computed and kept first:
    /// [`pclmul::kept4`]): up to 31 blocks in strides of 8, up to 255 in strides of 16, longer
    /// ones in strides of 32.
    pub fn update_small<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
        let n = blocks.len();
        if n < ZMM_FROM {
            return pclmul::vex::update_small::<GHASH>(kept, acc, blocks);
        }
        let [h4, h3, h2, h1] = pclmul::vex::kept4(&mut kept, |a, b| pclmul::vex::dot(a, b), |a| pclmul::vex::square(a));
        // H^4..H^1 in one register, highest in lane 0 (`wide::first_powers`' layout).
        let v = _mm512_castsi128_si512(h4);
        let v = _mm512_inserti32x4::<1>(v, h3);
        let v = _mm512_inserti32x4::<2>(v, h2);
        let z = _mm512_setzero_si512();
        let first = [_mm512_inserti32x4::<3>(v, h1), z, z, z];
        let y = _mm512_zextsi128_si512(pclmul::vex::load_state(acc));
        // SAFETY: this function has the tier's features, which include those of `__m512i`'s
        // `wide::Lanes` (VPCLMULQDQ, AVX-512F/BW, AVX2, SSSE3).
        let y = unsafe {
            if n < 32 {
                wide::hash_kept::<__m512i, GHASH, 2, true>(&first, y, blocks)
            } else if n < WIDE_FROM {
                wide::hash_kept::<__m512i, GHASH, 4, true>(&first, y, blocks)
            } else {
                wide::hash_kept::<__m512i, GHASH, 8, true>(&first, y, blocks)
            }
        };
        pclmul::vex::store_u128(acc, _mm512_castsi512_si128(y));
    }
}
