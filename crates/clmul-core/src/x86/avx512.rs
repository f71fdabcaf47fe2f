//! 512-bit VPCLMULQDQ backend (AVX-512).
//!
//! Four blocks per `zmm` register, 32 blocks (eight registers) per reduction:
//!
//! - Each register of blocks is multiplied by the matching register of powers H^n..H^(n-3)
//!   with Karatsuba (three `vpclmulqdq` per register: `lo*lo`, `hi*hi`, and the middle term
//!   against the power's `lo ^ hi`). On AMD Zen 4, `vpclmulqdq` issues once per two
//!   cycles at every width, so the carry-less multiply count per byte is the bound, and
//!   Karatsuba's 3 beats schoolbook's 4.
//! - The 32 products are summed unreduced, lane by lane, then reduced lane-parallel (two
//!   `vpclmulqdq` by `0xc200000000000000`, the fold of [`crate::soft`]), and the four lanes are
//!   XORed together: reduction is linear, so reducing lanes then summing equals summing then
//!   reducing. 26 multiplies per 512 bytes.
//! - Only the first register of a stride depends on the previous stride's result, so the
//!   out-of-order core starts the next stride's 31 other products while the reduction runs.
//! - A short input or the tail of a long one runs the same code on its `n < 32` blocks against
//!   H^n..H^1, groups of four aligned to the end of the powers; a final partial register of
//!   data is read with masked loads, whose masked-off lanes are zero and cannot fault. No
//!   scalar path, one reduction.
//! - The blocks' Karatsuba middles (`x_lo ^ x_hi`) come from loads 8 bytes off, two
//!   registers of blocks at a time, not from a word swap in registers (`mul_acc_pair`).
//! - GHASH's byte reflection is a `vpshufb` on each register after its load.
//!
//! [`update_small`] serves a keyed POLYVAL/GHASH state, which keeps H^1..H^4 at most (see the
//! `powers` module): up to four blocks go to the 128-bit code (shorter latency), up to 31 to
//! strides of 8, up to 255 to strides of 16, longer inputs to strides of 32. The powers above
//! H^4 are computed in registers for the call, in doubling rounds of whole registers
//! (`doubled`: every new register of four powers is one multiply by the highest power so far).
//!
//! The layout follows the approach of Gueron and Kounavis's aggregated reduction, and of the
//! VPCLMULQDQ GHASH in Linux `arch/x86/crypto/aes-gcm-avx10-x86_64.S` (Eric Biggers), written
//! here from the description, in POLYVAL's unreflected bit order.

use core::arch::x86_64::*;

use super::pclmul;
use crate::powers::{SMALL, Small};

/// Inputs of at least this many blocks get H^17..H^32 computed for strides of 32 (below it,
/// strides of 16 and two fewer multiplies per call).
pub(crate) const WIDE_FROM: usize = 256;

crate::target_tier! {
    detect cpuid = [
        "pclmulqdq", "sse2", "ssse3", "avx", "avx2",
        "vpclmulqdq", "avx512f", "avx512bw", "avx512vl"
    ];

    /// The byte-reversal shuffle, in every lane.
    #[inline]
    pub fn bswap_mask512() -> __m512i {
        _mm512_broadcast_i32x4(pclmul::bswap_mask())
    }

    /// Loads 4 blocks from `p`, which must point to 64 readable bytes.
    #[inline]
    pub fn load4<const GHASH: bool>(p: *const [u8; 16]) -> __m512i {
        // SAFETY: the caller's `p` has 64 readable bytes; `loadu` needs no alignment.
        let v = unsafe { _mm512_loadu_si512(p.cast()) };
        to_domain512::<GHASH>(v)
    }

    /// Loads `blocks` (1 to 3 of them) into the *top* lanes of a register, zeroing the others.
    #[inline]
    pub fn load_partial<const GHASH: bool>(blocks: &[[u8; 16]]) -> __m512i {
        let m = blocks.len();
        debug_assert!((1..4).contains(&m));
        // Lanes 4-m..3 come from `blocks`; the qword mask selects exactly those.
        let mask: __mmask8 = !((1u8 << (8 - 2 * m)) - 1);
        let base = blocks.as_ptr().wrapping_sub(4 - m);
        // SAFETY: the selected elements are exactly the `16 * m` bytes of `blocks`; masked-off
        // elements (which `base` may point before the slice for) are not accessed and cannot
        // fault.
        let v = unsafe { _mm512_maskz_loadu_epi64(mask, base.cast()) };
        to_domain512::<GHASH>(v)
    }

    /// H^4..H^1 (highest first, one per register) in one register.
    #[inline]
    fn quad(kept: &[__m128i; SMALL]) -> __m512i {
        let v = _mm512_castsi128_si512(kept[0]);
        let v = _mm512_inserti32x4::<1>(v, kept[1]);
        let v = _mm512_inserti32x4::<2>(v, kept[2]);
        _mm512_inserti32x4::<3>(v, kept[3])
    }

    /// Swaps the 64-bit halves of every lane.
    #[inline]
    pub fn swap_halves(v: __m512i) -> __m512i {
        _mm512_shuffle_epi32::<0x4e>(v)
    }

    /// Three-way XOR: one `vpternlogq`, or [`xor3_two`] under Miri (which does not implement
    /// it) and in the MemorySanitizer check's build (`ct_taint`: MSan checks `vpternlogq`'s
    /// operands strictly and would report, then drop, their secret marking).
    #[inline]
    pub fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        if cfg!(any(miri, ct_taint)) {
            xor3_two(a, b, c)
        } else {
            _mm512_ternarylogic_epi64::<0x96>(a, b, c)
        }
    }

    /// `a ^ b ^ c` as two XORs: the same value as [`xor3`]'s `vpternlogq`.
    #[inline]
    pub fn xor3_two(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        _mm512_xor_si512(a, _mm512_xor_si512(b, c))
    }

    /// Lane-parallel Karatsuba fix-up and Montgomery reduction: `hi + fold(mid + fold(lo))`
    /// per lane, as `pclmul::reduce`.
    #[inline]
    pub fn reduce512(lo: __m512i, mid: __m512i, hi: __m512i) -> __m512i {
        let k = _mm512_set1_epi64(0xc200_0000_0000_0000_u64 as i64);
        let t = _mm512_clmulepi64_epi128::<0x00>(lo, k);
        let mid = xor3(mid, hi, xor3(lo, swap_halves(lo), t));
        let t = _mm512_clmulepi64_epi128::<0x00>(mid, k);
        xor3(hi, swap_halves(mid), t)
    }

    /// XOR of the four 128-bit lanes.
    #[inline]
    pub fn hsum(v: __m512i) -> __m128i {
        let a = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
        _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a))
    }

    /// `acc += x * h` (unreduced, lane by lane).
    #[inline]
    pub fn mul_acc(acc: &mut [__m512i; 3], x: __m512i, h: __m512i, hx: __m512i) {
        let xx = _mm512_xor_si512(x, swap_halves(x));
        mul_acc_mid::<0x00>(acc, x, xx, h, hx);
    }

    /// `acc += x * h` with the Karatsuba middles of `x` given: each lane's `x_lo ^ x_hi` in
    /// `xx`'s low (`SEL = 0x00`) or high (`SEL = 0x01`) word; `hx` holds `h_lo ^ h_hi` in its
    /// low words.
    #[inline]
    fn mul_acc_mid<const SEL: i32>(acc: &mut [__m512i; 3], x: __m512i, xx: __m512i, h: __m512i, hx: __m512i) {
        acc[0] = _mm512_xor_si512(acc[0], _mm512_clmulepi64_epi128::<0x00>(x, h));
        acc[1] = _mm512_xor_si512(acc[1], _mm512_clmulepi64_epi128::<SEL>(xx, hx));
        acc[2] = _mm512_xor_si512(acc[2], _mm512_clmulepi64_epi128::<0x11>(x, h));
    }

    /// `acc += X1 * h1 + X2 * h2` for the eight blocks at `p` (`X1` the first four, in the
    /// state's domain), with their Karatsuba middles made by loads instead of a shuffle: loads
    /// 8 bytes off put each block's high word beside its low word (`X1`'s in the even words,
    /// `X2`'s in the odd ones), so two XORs give all eight `x_lo ^ x_hi` in one register.
    ///
    /// `x ^ swap_halves(x)` per register cost a `vpshufd`, on the port that runs
    /// `vpclmulqdq` on Intel's cores (port 5) and on the FP pipes it shares on AMD's. Per 8
    /// blocks that leaves POLYVAL no shuffle (was 2); in GHASH LLVM merges the word blend
    /// into the byte shuffles (a `vpalignr` and 3 `vpshufb`, as many as before). llvm-mca,
    /// `sapphirerapids`, a stride of 32 blocks: POLYVAL 43 -> 34 cycles.
    #[inline]
    fn mul_acc_pair<const GHASH: bool>(acc: &mut [__m512i; 3], p: &[[[u8; 16]; 4]; 2], h: [__m512i; 2], hx: [__m512i; 2]) {
        let b = p.as_ptr().cast::<u8>();
        // SAFETY: `p` is 128 readable bytes; the loads read b[0..64], b[64..128], b[8..72] and
        // b[56..120], all inside it (`loadu` needs no alignment).
        let (x1, x2, at1, at2) = unsafe {
            (
                _mm512_loadu_si512(b.cast()),
                _mm512_loadu_si512(b.add(64).cast()),
                _mm512_loadu_si512(b.add(8).cast()),
                _mm512_loadu_si512(b.add(56).cast()),
            )
        };
        // Word 2i of `at1` is X1's block i's high word, word 2i + 1 of `at2` X2's block i's low
        // word. Even words: X1's x_lo ^ x_hi; odd words: X2's.
        let xx = _mm512_mask_xor_epi64(_mm512_xor_si512(x1, at1), 0xaa, x2, at2);
        let (x1, x2, xx) = (to_domain512::<GHASH>(x1), to_domain512::<GHASH>(x2), to_domain512::<GHASH>(xx));
        // A byte reversal swaps each lane's words (and reverses each word's bytes, which is
        // the middle of the reversed block).
        if GHASH {
            mul_acc_mid::<0x01>(acc, x1, xx, h[0], hx[0]);
            mul_acc_mid::<0x00>(acc, x2, xx, h[1], hx[1]);
        } else {
            mul_acc_mid::<0x00>(acc, x1, xx, h[0], hx[0]);
            mul_acc_mid::<0x01>(acc, x2, xx, h[1], hx[1]);
        }
    }

    /// `acc += X * h` for the four blocks at `p`, in the state's domain, the middles made as
    /// in [`mul_acc_pair`] by a masked load (for one register: a shuffle fewer for POLYVAL,
    /// the same count for GHASH).
    #[inline]
    fn mul_acc_one<const GHASH: bool>(acc: &mut [__m512i; 3], p: &[[u8; 16]; 4], h: __m512i, hx: __m512i) {
        let b = p.as_ptr().cast::<u8>();
        // SAFETY: `p` is 64 readable bytes; the masked load reads only b[8 + 16i..16 + 16i],
        // i in 0..4, inside `p`; masked-off words are not accessed and cannot fault.
        let (x, hi) = unsafe { (_mm512_loadu_si512(b.cast()), _mm512_maskz_loadu_epi64(0x55, b.add(8).cast())) };
        let xx = to_domain512::<GHASH>(_mm512_xor_si512(x, hi));
        let x = to_domain512::<GHASH>(x);
        if GHASH {
            mul_acc_mid::<0x01>(acc, x, xx, h, hx);
        } else {
            mul_acc_mid::<0x00>(acc, x, xx, h, hx);
        }
    }

    /// Every whole group of four in `rest` (`rest[g]` against `pw(g)`, `px(g)`), in pairs.
    #[inline]
    fn mul_acc_groups<const GHASH: bool>(acc: &mut [__m512i; 3], rest: &[[[u8; 16]; 4]], pw: impl Fn(usize) -> __m512i, px: impl Fn(usize) -> __m512i) {
        let (pairs, one) = rest.as_chunks::<2>();
        for (i, pr) in pairs.iter().enumerate() {
            let g = 2 * i;
            mul_acc_pair::<GHASH>(acc, pr, [pw(g), pw(g + 1)], [px(g), px(g + 1)]);
        }
        if let [b] = one {
            let g = rest.len() - 1;
            mul_acc_one::<GHASH>(acc, b, pw(g), px(g));
        }
    }

    /// Blocks as loaded to the keyed state's domain: as they are (POLYVAL), or byte-reversed
    /// (GHASH as byte-reflected POLYVAL, RFC 8452 Appendix A).
    #[inline]
    fn to_domain512<const GHASH: bool>(v: __m512i) -> __m512i {
        if GHASH { _mm512_shuffle_epi8(v, bswap_mask512()) } else { v }
    }

    /// `x * h` for every lane (`hx` the middles of `h`), reduced.
    #[inline]
    fn mul_pow(x: __m512i, h: __m512i, hx: __m512i) -> __m512i {
        let mut acc = [_mm512_setzero_si512(); 3];
        mul_acc(&mut acc, x, h, hx);
        reduce512(acc[0], acc[1], acc[2])
    }

    /// Lane 0 of `v` in every lane.
    #[inline]
    fn lane0(v: __m512i) -> __m512i {
        _mm512_broadcast_i32x4(_mm512_castsi512_si128(v))
    }

    /// The Karatsuba middles of every power in `pw`.
    #[inline]
    fn middles<const G: usize>(pw: &[__m512i; G]) -> [__m512i; G] {
        pw.map(|v| _mm512_xor_si512(v, swap_halves(v)))
    }

    /// `pw` (H^(4G)..H^1, four to a register, highest first) and the next 4G powers above
    /// them: `2G` registers, H^(8G)..H^1. Each new register is one multiply by H^(4G)
    /// (independent of the others).
    #[inline]
    fn doubled<const G: usize, const G2: usize>(pw: &[__m512i; G]) -> [__m512i; G2] {
        debug_assert!(G2 == 2 * G);
        let top = lane0(pw[0]);
        let topx = _mm512_xor_si512(top, swap_halves(top));
        core::array::from_fn(|i| if i < G { mul_pow(pw[i], top, topx) } else { pw[i - G] })
    }

    /// Hashes `blocks` (1 to 4G) in the state's domain, `y` added to the first block, against
    /// the powers in registers (`pw[g]` = H^(4(G-g))..H^(4(G-g)-3), `px` their middles);
    /// reduced.
    ///
    /// Groups of four are aligned to the end: a partial first group sits in the top lanes of
    /// its register; the power lanes below it meet zero data.
    #[inline]
    fn run_regs<const GHASH: bool, const G: usize>(y: __m128i, blocks: &[[u8; 16]], pw: &[__m512i; G], px: &[__m512i; G]) -> __m128i {
        let n = blocks.len();
        let m = n % 4;
        let groups = n.div_ceil(4);
        let first = G - groups;
        let lane = (4 - m) % 4;
        let y = _mm512_maskz_broadcast_i32x4(0xf << (4 * lane), y);
        let mut acc = [_mm512_setzero_si512(); 3];
        let (x0, rest) = if m == 0 {
            (load4::<GHASH>(blocks.as_ptr()), &blocks[4..])
        } else {
            (load_partial::<GHASH>(&blocks[..m]), &blocks[m..])
        };
        // The first group, which needs the running hash, is multiplied last, so that the
        // other products are summed while the previous stride's reduction completes.
        let (rest, _) = rest.as_chunks::<4>();
        mul_acc_groups::<GHASH>(&mut acc, rest, |g| pw[first + 1 + g], |g| px[first + 1 + g]);
        mul_acc(&mut acc, _mm512_xor_si512(x0, y), pw[first], px[first]);
        hsum(reduce512(acc[0], acc[1], acc[2]))
    }

    /// Strides of `4G` blocks against the powers in registers, then the tail.
    #[inline]
    fn strides_regs<const GHASH: bool, const G: usize, const S: usize>(mut y: __m128i, blocks: &[[u8; 16]], pw: &[__m512i; G]) -> __m128i {
        debug_assert!(S == 4 * G);
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
    /// to four blocks with 128-bit multiplies ([`pclmul::vex::update_short`]: shorter latency,
    /// no time spent setting up 512-bit registers); longer inputs against powers computed in
    /// registers for the call from H^4..H^1 (kept, or computed and kept first:
    /// [`pclmul::kept4`]), in doubling rounds (each new register of four powers one
    /// multiply): up to 31 blocks in strides of 8 (H^8..H^5, one multiply), up to 255 in
    /// strides of 16 (H^16..H^9, two more), longer ones in strides of 32 (H^32..H^17, four
    /// more). GHASH runs as byte-reflected POLYVAL (blocks byte-reversed as they are loaded).
    pub fn update_small<const GHASH: bool>(small: &mut Small, len: &mut u8, acc: &mut u128, blocks: &[[u8; 16]]) {
        let n = blocks.len();
        if n <= SMALL {
            return pclmul::vex::update_short::<GHASH>(small, len, acc, blocks);
        }
        let mut y = pclmul::load_state(acc);
        let kept = pclmul::kept4(small, len, |a, b| pclmul::dot(a, b), |a| pclmul::square(a));
        let r8 = doubled::<1, 2>(&[quad(&kept)]);
        y = if n < 32 {
            strides_regs::<GHASH, 2, 8>(y, blocks, &r8)
        } else {
            let r16 = doubled::<2, 4>(&r8);
            if n < WIDE_FROM {
                strides_regs::<GHASH, 4, 16>(y, blocks, &r16)
            } else {
                strides_regs::<GHASH, 8, 32>(y, blocks, &doubled::<4, 8>(&r16))
            }
        };
        pclmul::store_u128(acc, y);
    }

}
