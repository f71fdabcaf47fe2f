//! 128-bit PCLMULQDQ backend (x86 and x86_64).
//!
//! Per block: three carry-less multiplies (Karatsuba: `lo*lo`, `hi*hi`, `(lo^hi)*(lo^hi)` with
//! the key's middle operand precomputed), summed unreduced over a stride of `STRIDE` blocks
//! against H^STRIDE..H^1, then one Montgomery reduction by two multiplies with
//! `0xc200000000000000` (the fold `x^63 + x^62 + x^57`, see [`crate::soft`]). This is the
//! aggregated-reduction technique of Gueron and Kounavis ("Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode", 2010) in POLYVAL's bit order, where
//! no bit reflection is needed (RFC 8452 Appendix A; Gueron, Langley, Lindell, AES-GCM-SIV).
//!
//! The inline helpers here are also used by the wider backends for their 128-bit epilogues.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::state::Key;

/// Blocks per stride.
pub(crate) const STRIDE: usize = 8;

/// Unreduced Karatsuba accumulators: `lo`, `mid` (before the `lo ^ hi` fix-up), `hi`.
#[derive(Clone, Copy)]
pub struct Acc {
    /// Sum of `lo * lo` products.
    pub lo: __m128i,
    /// Sum of middle products.
    pub mid: __m128i,
    /// Sum of `hi * hi` products.
    pub hi: __m128i,
}

crate::target_tier! {
    detect cpuid = ["pclmulqdq", "sse2", "ssse3"];

    /// The byte-reversal shuffle for GHASH's reflected blocks.
    #[inline]
    pub fn bswap_mask() -> __m128i {
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    }

    /// Loads one block as a POLYVAL field element.
    #[inline]
    pub fn load<const GHASH: bool>(block: &[u8; 16]) -> __m128i {
        // SAFETY: `block` is 16 readable bytes and `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        if GHASH { _mm_shuffle_epi8(v, bswap_mask()) } else { v }
    }

    /// Loads a `u128` (a power of H or the accumulator) from memory.
    #[inline]
    pub fn load_u128(v: &u128) -> __m128i {
        // SAFETY: a `u128` is 16 readable bytes, little-endian on x86.
        unsafe { _mm_loadu_si128((v as *const u128).cast()) }
    }

    /// Stores a register to a `u128`.
    #[inline]
    pub fn store_u128(out: &mut u128, v: __m128i) {
        // SAFETY: a `u128` is 16 writable bytes, little-endian on x86.
        unsafe { _mm_storeu_si128((out as *mut u128).cast(), v) }
    }

    /// An empty accumulator.
    #[inline]
    pub fn acc_zero() -> Acc {
        let z = _mm_setzero_si128();
        Acc { lo: z, mid: z, hi: z }
    }

    /// `acc += x * h` (unreduced), `hx` holding `lo64(h) ^ hi64(h)` in its low half.
    #[inline]
    pub fn mul_acc(acc: &mut Acc, x: __m128i, h: __m128i, hx: __m128i) {
        let xx = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
        acc.lo = _mm_xor_si128(acc.lo, _mm_clmulepi64_si128::<0x00>(x, h));
        acc.hi = _mm_xor_si128(acc.hi, _mm_clmulepi64_si128::<0x11>(x, h));
        acc.mid = _mm_xor_si128(acc.mid, _mm_clmulepi64_si128::<0x00>(xx, hx));
    }

    /// Karatsuba fix-up and Montgomery reduction of an accumulator: `sum * x^-128 mod P`.
    #[inline]
    pub fn reduce(acc: Acc) -> __m128i {
        let mid = _mm_xor_si128(acc.mid, _mm_xor_si128(acc.lo, acc.hi));
        let lo = _mm_xor_si128(acc.lo, _mm_slli_si128::<8>(mid));
        let hi = _mm_xor_si128(acc.hi, _mm_srli_si128::<8>(mid));
        let k = _mm_set_epi64x(0, 0xc200_0000_0000_0000_u64 as i64);
        // Fold the low word twice: x0 * x^-64 = x0 * x^64 + x0 * (x^63 + x^62 + x^57).
        let t = _mm_clmulepi64_si128::<0x00>(lo, k);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        let t = _mm_clmulepi64_si128::<0x00>(lo, k);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        _mm_xor_si128(hi, lo)
    }

    /// `a * b * x^-128 mod P` for one pair.
    #[inline]
    pub fn dot(a: __m128i, b: __m128i) -> __m128i {
        let mut acc = acc_zero();
        let bx = _mm_xor_si128(b, _mm_shuffle_epi32::<0x4e>(b));
        mul_acc(&mut acc, a, b, bx);
        reduce(acc)
    }

    /// Hashes `blocks` against the matching powers (`pow.len() == blocks.len()`), the first
    /// block plus `y`; returns the reduced result.
    #[inline]
    pub fn run<const GHASH: bool>(
        y: __m128i,
        blocks: &[[u8; 16]],
        pow: &[u128],
        powx: &[u128],
    ) -> __m128i {
        let mut acc = acc_zero();
        let mut first = y;
        for ((b, h), hx) in blocks.iter().zip(pow).zip(powx) {
            let x = _mm_xor_si128(load::<GHASH>(b), first);
            first = _mm_setzero_si128();
            mul_acc(&mut acc, x, load_u128(h), load_u128(hx));
        }
        reduce(acc)
    }

    /// Absorbs `blocks` into `acc`.
    pub fn update<const GHASH: bool>(key: &Key, acc: &mut u128, blocks: &[[u8; 16]]) {
        let mut y = load_u128(acc);
        let (chunks, tail) = blocks.as_chunks::<STRIDE>();
        let (pow, powx) = key.tail(STRIDE);
        for c in chunks {
            y = run::<GHASH>(y, c, pow, powx);
        }
        if !tail.is_empty() {
            let (pow, powx) = key.tail(tail.len());
            y = run::<GHASH>(y, tail, pow, powx);
        }
        store_u128(acc, y);
    }

    /// The first absorption of 2 to 4 blocks by a state that has only H^1: H^2..H^n are
    /// computed in registers (H^3 and H^4 in parallel from H^2) and used at once, the blocks
    /// are summed with one reduction, and the powers are stored afterwards. Key setup plus a
    /// short message (AES-GCM-SIV keys POLYVAL per nonce) then never waits for a power to
    /// travel through memory, as `fill_powers` followed by `update` does.
    pub fn update_fresh<const GHASH: bool>(key: &mut Key, acc: &mut u128, blocks: &[[u8; 16]]) {
        use crate::POWERS;
        let n = blocks.len();
        debug_assert!((2..=4).contains(&n));
        let xor_halves = |h: __m128i| _mm_xor_si128(h, _mm_shuffle_epi32::<0x4e>(h));
        let h1 = load_u128(&key.pow[POWERS - 1]);
        let h2 = dot(h1, h1);
        // H^n..H^1 for the blocks; H^3 and H^4 both come from H^2, side by side.
        let pw = match n {
            2 => [h2, h1, h1, h1],
            3 => [dot(h2, h1), h2, h1, h1],
            _ => [dot(h2, h2), dot(h2, h1), h2, h1],
        };
        let mut a = acc_zero();
        let x0 = _mm_xor_si128(load::<GHASH>(&blocks[0]), load_u128(acc));
        mul_acc(&mut a, x0, pw[0], xor_halves(pw[0]));
        for i in 1..n {
            mul_acc(&mut a, load::<GHASH>(&blocks[i]), pw[i], xor_halves(pw[i]));
        }
        store_u128(acc, reduce(a));
        // pw[i] is H^(n - i); H^1 is there already.
        for k in 2..=n {
            let h = pw[n - k];
            store_u128(&mut key.pow[POWERS - k], h);
            store_u128(&mut key.powx[POWERS - k], xor_halves(h));
        }
    }

    /// Computes H^(have+1)..H^want.
    ///
    /// Doubling rounds (H^(h+1..2h) = H^(1..h) * H^h), in registers, so the multiplies of a
    /// round are independent and overlap: a dependency depth of log2(want).
    pub fn fill_powers(key: &mut Key, have: usize, want: usize) {
        use crate::POWERS;
        let mut h = have;
        while h < want {
            let next = want.min(2 * h);
            let top = load_u128(&key.pow[POWERS - h]);
            let topx = _mm_xor_si128(top, _mm_shuffle_epi32::<0x4e>(top));
            let mut k = h + 1;
            while k <= next {
                let mut acc = acc_zero();
                mul_acc(&mut acc, load_u128(&key.pow[POWERS - (k - h)]), top, topx);
                let p = reduce(acc);
                // Whole-register stores, so that later loads of these entries are forwarded
                // from the store buffer (a load spanning two 8-byte stores is not).
                store_u128(&mut key.pow[POWERS - k], p);
                store_u128(&mut key.powx[POWERS - k], _mm_xor_si128(p, _mm_shuffle_epi32::<0x4e>(p)));
                k += 1;
            }
            h = next;
        }
    }
}
