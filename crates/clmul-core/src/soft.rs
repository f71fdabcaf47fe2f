//! Portable, constant-time carry-less multiplication and POLYVAL field arithmetic.
//!
//! # The "holes" multiply
//!
//! An integer multiplier adds partial products with carries; a carry-less multiplier XORs them.
//! The two agree on a bit whenever no carry reaches it. Following Thomas Pornin's BearSSL
//! (`ghash_ctmul64.c`, also the basis of the generic code in Linux `lib/crypto`), each operand is
//! split into four *lanes*: lane `i` keeps the bits whose index is `i mod 4` and clears the other
//! three ("holes"). Multiplying lane `i` of `x` by lane `j` of `y` as integers puts every partial
//! product on a bit whose index is `i + j mod 4`; the coefficient at such a bit is the *number* of
//! partial products that land there, and its low bit is the carry-less result. The three holes
//! above each lane bit absorb the rest of the count as long as the count is at most 15: then the
//! carries stop before the next bit of the same lane. Masking each product back to its lane and
//! XORing the sixteen lane products gives the carry-less product.
//!
//! **The one collision.** A 64-bit lane has 16 bits, so for a full 64x64->128 product a count of
//! 16 is reachable: exactly at bit `i + j + 60`, and only when all sixteen bits of both lanes are
//! set (all-ones inputs). 16 carries into bit `i + j + 64`, which belongs to the same lane, and
//! the product is wrong there. We therefore clear the top nibble of one operand (bits 60..63)
//! before the lane products, so each of its lanes has at most 15 bits, and add the top nibble's
//! four partial products back with masked shifts (no branch on the data). [`clmul64_widening`]
//! clears `x`'s; [`clmul64_split`], whose `y` is a power of H split once per update, clears
//! `y`'s and keeps one mask per nibble bit in the split, so that its per-block work has no
//! multiply beyond the sixteen lane products. The low-half-only variant
//! ([`bmul64`]) never sees the collision: the count 16 sits at bit `60 + i + j` and can only carry
//! into bits >= 64, which it discards.
//!
//! Three variants:
//! - [`clmul64_widening`]: 64-bit lanes with a widening `u64 x u64 -> u128` multiply (one `mul`
//!   instruction on 64-bit targets). The default on 64-bit targets.
//! - [`clmul64_bitrev`]: only low halves (`u64` wrapping multiply); the high half is the low half
//!   of the product of the bit-reversed inputs, bit-reversed and shifted by one
//!   (`rev(x) * rev(y) = rev127(x * y)`). Worth it where `reverse_bits` is one instruction
//!   (ARM `rbit`) and a widening multiply is not cheaper.
//! - [`clmul64_word32`]: Karatsuba over three 32x32->64 lane products, for 32-bit targets whose
//!   widest cheap multiply is 32x32->64. With 8 bits per lane the count never exceeds 8.
//!
//! # POLYVAL's field and the Montgomery fold
//!
//! POLYVAL (RFC 8452) works in GF(2^128) = GF(2)\[x\] / P(x), `P = x^128 + x^127 + x^126 + x^121 + 1`,
//! with little-endian bit order: bit `k` of the little-endian `u128` is the coefficient of `x^k`.
//! Its product is `dot(a, b) = a * b * x^-128 mod P`, which lets the reduction run from the
//! bottom (Montgomery style) with cheap folds. Since
//! `x^64 * (x^64 + x^63 + x^62 + x^57) = x^128 + x^127 + x^126 + x^121 = 1 (mod P)`,
//! `x^-64 = x^64 + x^63 + x^62 + x^57`. A 256-bit product `X3:X2:X1:X0` (64-bit words) times
//! `x^-64` is therefore `X3:X2:X1 + X0 * x^64 + X0 * (x^63 + x^62 + x^57)`: the low word moves up
//! two words and a 127-bit fold `X0 * (x^63 + x^62 + x^57)` (three shifts here, one carry-less
//! multiply by `0xc200000000000000` in the SIMD backends) lands on the two words above it. Two
//! such folds give `dot`. The same folds serve *aggregated* reduction: the unreduced 256-bit
//! products of several blocks with different powers of H are XORed, and reduced once.
//!
//! Everything here is straight-line code on the data: no branch and no memory index depends on
//! an input.

/// Lane masks: bit `k` is set in `LANE[k % 4]`.
pub(crate) const LANE: [u64; 4] = [
    0x1111_1111_1111_1111,
    0x2222_2222_2222_2222,
    0x4444_4444_4444_4444,
    0x8888_8888_8888_8888,
];

/// Carry-less 64x64 multiply by the holes method with a widening integer multiply.
///
/// Returns the 127-bit product (bit 127 is always zero).
#[inline(always)]
pub fn clmul64_widening(x: u64, y: u64) -> u128 {
    #[inline(always)]
    fn m(a: u64, b: u64) -> u128 {
        u128::from(a) * u128::from(b)
    }
    // Clear x's top nibble so that each lane of x holds at most 15 bits (see the module docs).
    let top = x >> 60;
    let x = x & 0x0fff_ffff_ffff_ffff;
    let [x0, x1, x2, x3] = LANE.map(|l| x & l);
    let [y0, y1, y2, y3] = LANE.map(|l| y & l);
    let z0 = m(x0, y0) ^ m(x1, y3) ^ m(x2, y2) ^ m(x3, y1);
    let z1 = m(x0, y1) ^ m(x1, y0) ^ m(x2, y3) ^ m(x3, y2);
    let z2 = m(x0, y2) ^ m(x1, y1) ^ m(x2, y0) ^ m(x3, y3);
    let z3 = m(x0, y3) ^ m(x1, y2) ^ m(x2, y1) ^ m(x3, y0);
    let wide = |l: u64| u128::from(l) | (u128::from(l) << 64);
    let mut z =
        (z0 & wide(LANE[0])) | (z1 & wide(LANE[1])) | (z2 & wide(LANE[2])) | (z3 & wide(LANE[3]));
    // The four partial products of the top nibble, added under masks.
    let y = u128::from(y);
    for k in 0..4 {
        let mask = 0u128.wrapping_sub(u128::from((top >> k) & 1));
        z ^= (y << (60 + k)) & mask;
    }
    z
}

/// `y` split for [`clmul64_split`]: the four lanes of `y` without its top nibble, `y`
/// itself, and one all-ones-or-zero mask per bit of the top nibble.
pub type Split = [u64; 9];

/// Splits `y` once, for reuse against many `x` (the powers of H in [`crate::Polyval`]).
///
/// Here it is `y`'s top nibble that is set aside (see the module docs): each lane of `y` then
/// has at most 15 bits, so no count reaches 16 whatever `x` is, and the nibble's four partial
/// products are `x` shifted under `y`'s bit masks, computed per `x` with shifts and ANDs (no
/// multiply, no branch).
#[inline(always)]
pub fn split(y: u64) -> Split {
    let low = y & 0x0fff_ffff_ffff_ffff;
    let bit = |k: u32| 0u64.wrapping_sub((y >> (60 + k)) & 1);
    [
        low & LANE[0],
        low & LANE[1],
        low & LANE[2],
        low & LANE[3],
        y,
        bit(0),
        bit(1),
        bit(2),
        bit(3),
    ]
}

/// The carry-less product of `x` and a pre-split `y` (a power of H, split once per update).
///
/// The lanes of [`clmul64_widening`] where a widening multiply is this target's choice, and
/// [`clmul64`] on `y` otherwise.
#[inline(always)]
pub fn clmul64_split(x: u64, y: &Split) -> u128 {
    #[cfg(any(
        clmul_soft = "bitrev",
        clmul_soft = "word32",
        not(any(clmul_soft = "widening", target_pointer_width = "64"))
    ))]
    {
        clmul64(x, y[4])
    }
    #[cfg(not(any(
        clmul_soft = "bitrev",
        clmul_soft = "word32",
        not(any(clmul_soft = "widening", target_pointer_width = "64"))
    )))]
    {
        clmul64_split_widening(x, y)
    }
}

/// (Unused by 32-bit targets' portable backend, but tested everywhere.)
#[cfg_attr(not(target_pointer_width = "64"), allow(dead_code))]
#[inline(always)]
fn clmul64_split_widening(x: u64, y: &Split) -> u128 {
    #[inline(always)]
    fn m(a: u64, b: u64) -> u128 {
        u128::from(a) * u128::from(b)
    }
    let wide = |l: u64| u128::from(l) | (u128::from(l) << 64);
    let [x0, x1, x2, x3] = LANE.map(|l| x & l);
    let z0 = (m(x0, y[0]) ^ m(x1, y[3]) ^ m(x2, y[2]) ^ m(x3, y[1])) & wide(LANE[0]);
    let z1 = (m(x0, y[1]) ^ m(x1, y[0]) ^ m(x2, y[3]) ^ m(x3, y[2])) & wide(LANE[1]);
    let z2 = (m(x0, y[2]) ^ m(x1, y[1]) ^ m(x2, y[0]) ^ m(x3, y[3])) & wide(LANE[2]);
    let z3 = (m(x0, y[3]) ^ m(x1, y[2]) ^ m(x2, y[1]) ^ m(x3, y[0])) & wide(LANE[3]);
    // The top nibble of `y`: `x` shifted to each of its bits, kept where the bit is set.
    let xw = u128::from(x);
    let fix = ((xw << 60) & wide(y[5]))
        ^ ((xw << 61) & wide(y[6]))
        ^ ((xw << 62) & wide(y[7]))
        ^ ((xw << 63) & wide(y[8]));
    z0 ^ z1 ^ z2 ^ z3 ^ fix
}

/// Low 64 bits of the carry-less product of `x` and `y`, by the holes method with wrapping
/// 64-bit multiplies (BearSSL's `bmul64`).
#[inline(always)]
pub fn bmul64(x: u64, y: u64) -> u64 {
    let [x0, x1, x2, x3] = LANE.map(|l| x & l);
    let [y0, y1, y2, y3] = LANE.map(|l| y & l);
    let m = u64::wrapping_mul;
    let z0 = m(x0, y0) ^ m(x1, y3) ^ m(x2, y2) ^ m(x3, y1);
    let z1 = m(x0, y1) ^ m(x1, y0) ^ m(x2, y3) ^ m(x3, y2);
    let z2 = m(x0, y2) ^ m(x1, y1) ^ m(x2, y0) ^ m(x3, y3);
    let z3 = m(x0, y3) ^ m(x1, y2) ^ m(x2, y1) ^ m(x3, y0);
    (z0 & LANE[0]) | (z1 & LANE[1]) | (z2 & LANE[2]) | (z3 & LANE[3])
}

/// Carry-less 64x64 multiply from two low-half products: `hi = rev(low(rev x * rev y)) >> 1`.
#[inline(always)]
pub fn clmul64_bitrev(x: u64, y: u64) -> u128 {
    let lo = bmul64(x, y);
    let hi = bmul64(x.reverse_bits(), y.reverse_bits()).reverse_bits() >> 1;
    u128::from(lo) | (u128::from(hi) << 64)
}

/// Carry-less 32x32->64 multiply by the holes method (8 bits per lane: no collision).
#[inline(always)]
pub fn clmul32(x: u32, y: u32) -> u64 {
    const L: [u32; 4] = [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888];
    const W: [u64; 4] = [
        0x1111_1111_1111_1111,
        0x2222_2222_2222_2222,
        0x4444_4444_4444_4444,
        0x8888_8888_8888_8888,
    ];
    #[inline(always)]
    fn m(a: u32, b: u32) -> u64 {
        u64::from(a) * u64::from(b)
    }
    let [x0, x1, x2, x3] = L.map(|l| x & l);
    let [y0, y1, y2, y3] = L.map(|l| y & l);
    let z0 = m(x0, y0) ^ m(x1, y3) ^ m(x2, y2) ^ m(x3, y1);
    let z1 = m(x0, y1) ^ m(x1, y0) ^ m(x2, y3) ^ m(x3, y2);
    let z2 = m(x0, y2) ^ m(x1, y1) ^ m(x2, y0) ^ m(x3, y3);
    let z3 = m(x0, y3) ^ m(x1, y2) ^ m(x2, y1) ^ m(x3, y0);
    (z0 & W[0]) | (z1 & W[1]) | (z2 & W[2]) | (z3 & W[3])
}

/// Carry-less 64x64 multiply as Karatsuba over three [`clmul32`] products.
#[inline(always)]
pub fn clmul64_word32(x: u64, y: u64) -> u128 {
    let (x0, x1) = (x as u32, (x >> 32) as u32);
    let (y0, y1) = (y as u32, (y >> 32) as u32);
    let lo = clmul32(x0, y0);
    let hi = clmul32(x1, y1);
    let mid = clmul32(x0 ^ x1, y0 ^ y1) ^ lo ^ hi;
    u128::from(lo) ^ (u128::from(mid) << 32) ^ (u128::from(hi) << 64)
}

/// The carry-less 64x64 multiply this target uses for its portable backend.
///
/// `--cfg clmul_soft="widening"|"bitrev"|"word32"` overrides the choice (for benchmarks and
/// tests); the default is `word32` on targets narrower than 64 bits and `widening` elsewhere.
#[inline(always)]
pub fn clmul64(x: u64, y: u64) -> u128 {
    #[cfg(clmul_soft = "bitrev")]
    {
        clmul64_bitrev(x, y)
    }
    #[cfg(clmul_soft = "word32")]
    {
        clmul64_word32(x, y)
    }
    #[cfg(clmul_soft = "widening")]
    {
        clmul64_widening(x, y)
    }
    #[cfg(not(any(clmul_soft = "bitrev", clmul_soft = "word32", clmul_soft = "widening")))]
    {
        #[cfg(target_pointer_width = "64")]
        {
            clmul64_widening(x, y)
        }
        #[cfg(not(target_pointer_width = "64"))]
        {
            clmul64_word32(x, y)
        }
    }
}

/// An unreduced 256-bit carry-less product, as `(low 128 bits, high 128 bits)`.
pub type Wide = (u128, u128);

#[inline(always)]
fn halves(a: u128) -> (u64, u64) {
    (a as u64, (a >> 64) as u64)
}

/// 128x128 -> 256 carry-less multiply (Karatsuba: three 64x64 products).
#[inline(always)]
pub fn clmul128(a: u128, b: u128) -> Wide {
    let (a0, a1) = halves(a);
    let (b0, b1) = halves(b);
    clmul128_kara(a0, a1, b0, b1, b0 ^ b1)
}

/// Karatsuba 128x128 with the middle operand of `b` (`b0 ^ b1`) supplied by the caller, who may
/// have it precomputed (powers of H).
#[inline(always)]
pub fn clmul128_kara(a0: u64, a1: u64, b0: u64, b1: u64, bx: u64) -> Wide {
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, bx) ^ lo ^ hi;
    (lo ^ (mid << 64), hi ^ (mid >> 64))
}

/// `w * (x^63 + x^62 + x^57)` as a 128-bit value.
#[inline(always)]
fn fold(w: u64) -> u128 {
    let w = u128::from(w);
    (w << 63) ^ (w << 62) ^ (w << 57)
}

/// Montgomery reduction: `(hi:lo) * x^-128 mod P` (see the module docs for the derivation).
#[inline(always)]
pub fn reduce((lo, hi): Wide) -> u128 {
    let (x0, x1) = halves(lo);
    let (x2, x3) = halves(hi);
    let (c0, c1) = halves(fold(x0));
    // After one fold: x3 : x2 ^ x0 ^ c1 : x1 ^ c0
    let w0 = x1 ^ c0;
    let w1 = x2 ^ x0 ^ c1;
    let (d0, d1) = halves(fold(w0));
    u128::from(w1 ^ d0) | (u128::from(x3 ^ w0 ^ d1) << 64)
}

/// POLYVAL's field product `a * b * x^-128 mod P`.
#[inline(always)]
pub fn dot(a: u128, b: u128) -> u128 {
    reduce(clmul128(a, b))
}

/// `mulX_POLYVAL` (RFC 8452, Appendix A): `a * x mod P`, constant time.
#[inline]
pub fn mulx(a: u128) -> u128 {
    let carry = a >> 127;
    // x^128 = x^127 + x^126 + x^121 + 1 (mod P)
    (a << 1) ^ (0u128.wrapping_sub(carry) & 0xc200_0000_0000_0000_0000_0000_0000_0001)
}

/// XOR of two unreduced products.
#[inline(always)]
pub fn wide_xor(a: Wide, b: Wide) -> Wide {
    (a.0 ^ b.0, a.1 ^ b.1)
}

/// Bit-at-a-time reference implementations, written from the definitions with no shared code,
/// for tests only. Deliberately slow and obviously correct; **not constant time**.
#[doc(hidden)]
pub mod oracle {
    /// Carry-less product of `x` and `y`, one bit at a time.
    pub fn clmul64(x: u64, y: u64) -> u128 {
        let mut z = 0u128;
        for i in 0..64 {
            if (y >> i) & 1 == 1 {
                z ^= u128::from(x) << i;
            }
        }
        z
    }

    /// `a * b * x^-128 mod P` by shift-and-add multiplication modulo P followed by 128
    /// divisions by x.
    pub fn dot(a: u128, b: u128) -> u128 {
        // P without its x^128 term.
        const P_LOW: u128 = (1 << 127) | (1 << 126) | (1 << 121) | 1;
        let mut acc = 0u128;
        let mut a_xi = a; // a * x^i mod P
        for i in 0..128 {
            if (b >> i) & 1 == 1 {
                acc ^= a_xi;
            }
            let carry = a_xi >> 127;
            a_xi <<= 1;
            if carry == 1 {
                a_xi ^= P_LOW;
            }
        }
        // Divide by x 128 times: if the constant term is set, add P (making it divisible by x).
        for _ in 0..128 {
            let odd = acc & 1 == 1;
            acc >>= 1;
            if odd {
                // (acc + P) / x: P / x contributes x^127 (from x^128) and P_LOW / x.
                acc ^= (1 << 127) | (P_LOW >> 1);
            }
        }
        acc
    }
}

/// `rest` (1 to 15 bytes) zero-padded to a block, with a few overlapping word reads instead
/// of calls to `memset` and `memcpy` (the length is public; the branches are on it only).
#[inline]
pub fn pad_block(rest: &[u8]) -> [u8; 16] {
    let n = rest.len();
    debug_assert!((1..16).contains(&n));
    let word = |at: usize, w: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(&rest[at..at + w]);
        u64::from_le_bytes(b)
    };
    let v: u128 = if n >= 8 {
        // Bytes 0..8, and bytes n-8..n shifted down so that only bytes 8..n remain.
        let lo = word(0, 8);
        let hi = word(n - 8, 8).checked_shr(8 * (16 - n) as u32).unwrap_or(0);
        u128::from(lo) | (u128::from(hi) << 64)
    } else if n >= 4 {
        // Bytes 0..4 and n-4..n (overlapping bytes are equal).
        let a = word(0, 4);
        let b = word(n - 4, 4) << (8 * (n - 4) as u32);
        u128::from(a | b)
    } else {
        let (a, b, c) = (rest[0], rest[n / 2], rest[n - 1]);
        u128::from(a) | (u128::from(b) << (8 * (n / 2))) | (u128::from(c) << (8 * (n - 1)))
    };
    v.to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::SmallRng};

    fn edge_u64() -> impl Iterator<Item = u64> {
        [
            0,
            1,
            2,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            1 << 60,
            0x0fff_ffff_ffff_ffff,
            0xf000_0000_0000_0000,
        ]
        .into_iter()
        .chain(LANE)
        .chain(LANE.map(|l| !l))
    }

    /// Hunts carry collisions in the masked multiply: all-ones lanes reach the 16-term count.
    #[test]
    fn clmul64_variants_match_oracle_on_edges() {
        for x in edge_u64() {
            for y in edge_u64() {
                let want = oracle::clmul64(x, y);
                assert_eq!(clmul64_widening(x, y), want, "widening {x:x} {y:x}");
                assert_eq!(clmul64_bitrev(x, y), want, "bitrev {x:x} {y:x}");
                assert_eq!(clmul64_word32(x, y), want, "word32 {x:x} {y:x}");
                assert_eq!(u128::from(bmul64(x, y)), want & u128::from(u64::MAX));
                assert_eq!(
                    clmul64_split_widening(x, &split(y)),
                    want,
                    "split {x:x} {y:x}"
                );
                assert_eq!(clmul64_split(x, &split(y)), want);
            }
        }
    }

    #[test]
    fn clmul64_variants_match_oracle_random() {
        let mut rng = SmallRng::seed_from_u64(1);
        let n = if cfg!(miri) { 64 } else { 20_000 };
        for _ in 0..n {
            // Random inputs with a random density so long runs of ones are common too.
            let (mut x, mut y): (u64, u64) = (rng.random(), rng.random());
            if rng.random::<bool>() {
                x |= rng.random::<u64>();
                y |= rng.random::<u64>();
            }
            let want = oracle::clmul64(x, y);
            assert_eq!(clmul64_widening(x, y), want);
            assert_eq!(clmul64_bitrev(x, y), want);
            assert_eq!(clmul64_word32(x, y), want);
            assert_eq!(clmul64_split_widening(x, &split(y)), want);
        }
    }

    #[test]
    fn dot_matches_oracle() {
        let mut rng = SmallRng::seed_from_u64(2);
        let n = if cfg!(miri) { 16 } else { 3000 };
        let edges = [
            0u128,
            1,
            u128::MAX,
            1 << 127,
            u128::from(u64::MAX),
            u128::MAX << 64,
        ];
        for &a in &edges {
            for &b in &edges {
                assert_eq!(dot(a, b), oracle::dot(a, b), "{a:x} {b:x}");
            }
        }
        for _ in 0..n {
            let (a, b): (u128, u128) = (rng.random(), rng.random());
            assert_eq!(dot(a, b), oracle::dot(a, b));
        }
    }

    /// The oracle itself against RFC 8452's one published field product.
    #[test]
    fn oracle_dot_rfc8452() {
        // RFC 8452 Appendix A: H, X1 and POLYVAL(H, X1) = dot(X1, H).
        let h = u128::from_le_bytes(hex16("25629347589242761d31f826ba4b757b"));
        let x1 = u128::from_le_bytes(hex16("4f4f95668c83dfb6401762bb2d01a262"));
        let x2 = u128::from_le_bytes(hex16("d1a24ddd2721d006bbe45f20d3c9f362"));
        let s = oracle::dot(oracle::dot(x1, h) ^ x2, h);
        assert_eq!(s.to_le_bytes(), hex16("f7a3b47b846119fae5b7866cf5e5b77e"));
    }

    #[test]
    fn mulx_rfc8452_errata() {
        let a = u128::from_le_bytes(hex16("9c98c04df9387ded828175a92ba652d8"));
        assert_eq!(
            mulx(a).to_le_bytes(),
            hex16("3931819bf271fada0503eb52574ca572")
        );
        // mulx is multiplication by x: dot(a, x * x^128) = a * x. x^129 mod P = x * (x^127 +
        // x^126 + x^121 + 1).
        let x129 = mulx(0xc200_0000_0000_0000_0000_0000_0000_0001);
        assert_eq!(oracle::dot(a, x129), mulx(a));
    }

    pub(crate) fn hex16(s: &str) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }
}
