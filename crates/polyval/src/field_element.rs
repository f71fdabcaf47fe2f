//! POLYVAL field elements (`hazmat`).

use crate::Block;
use core::{
    fmt::{self, Debug},
    ops::{Add, Mul, MulAssign},
};

/// An element of POLYVAL's field GF(2^128) = GF(2)\[x\] / (x^128 + x^127 + x^126 + x^121 + 1),
/// stored as 16 little-endian bytes: bit `k` of the little-endian integer is the coefficient of
/// `x^k`.
///
/// Multiplication is POLYVAL's `dot(a, b) = a * b * x^-128`, computed by the portable
/// constant-time code on every platform.
#[derive(Clone, Copy, Default)]
#[repr(align(16))]
pub struct FieldElement([u8; 16]);

impl FieldElement {
    #[inline]
    fn to_u128(self) -> u128 {
        u128::from_le_bytes(self.0)
    }

    #[inline]
    fn from_u128(v: u128) -> Self {
        Self(v.to_le_bytes())
    }

    /// Reverses the order of the bytes (GHASH's byte reflection).
    #[inline]
    #[must_use]
    pub fn reverse(mut self) -> Self {
        self.0.reverse();
        self
    }

    /// `mulX_POLYVAL` (RFC 8452, Appendix A): multiplies by `x`.
    #[must_use]
    pub fn mulx(self) -> Self {
        Self::from_u128(clmul_core::soft::mulx(self.to_u128()))
    }
}

impl Debug for FieldElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FieldElement(")?;
        for b in &self.0 {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl From<Block> for FieldElement {
    #[inline]
    fn from(block: Block) -> Self {
        Self(block.0)
    }
}

impl From<&Block> for FieldElement {
    #[inline]
    fn from(block: &Block) -> Self {
        Self(block.0)
    }
}

impl From<FieldElement> for Block {
    #[inline]
    fn from(fe: FieldElement) -> Self {
        fe.0.into()
    }
}

impl From<&FieldElement> for Block {
    #[inline]
    fn from(fe: &FieldElement) -> Self {
        fe.0.into()
    }
}

impl From<[u8; 16]> for FieldElement {
    #[inline]
    fn from(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }
}

impl From<FieldElement> for [u8; 16] {
    #[inline]
    fn from(fe: FieldElement) -> Self {
        fe.0
    }
}

impl From<u128> for FieldElement {
    /// Little-endian: the low bit of `x` is the constant coefficient.
    #[inline]
    fn from(x: u128) -> Self {
        Self::from_u128(x)
    }
}

impl From<FieldElement> for u128 {
    #[inline]
    fn from(fe: FieldElement) -> u128 {
        fe.to_u128()
    }
}

impl Add for FieldElement {
    type Output = Self;

    /// Addition in GF(2^128): XOR.
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn add(self, rhs: Self) -> Self {
        Self::from_u128(self.to_u128() ^ rhs.to_u128())
    }
}

impl Mul for FieldElement {
    type Output = Self;

    /// POLYVAL's field product `self * rhs * x^-128`, constant time.
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        Self::from_u128(clmul_core::soft::dot(self.to_u128(), rhs.to_u128()))
    }
}

impl MulAssign for FieldElement {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        *self = *self * rhs;
    }
}

#[cfg(feature = "zeroize")]
impl zeroize::Zeroize for FieldElement {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::FieldElement;
    use hex_literal::hex;

    extern crate std;
    use std::format;

    const A: [u8; 16] = hex!("66e94bd4ef8a2c3b884cfa59ca342b2e");
    const B: [u8; 16] = hex!("ff000000000000000000000000000000");

    #[test]
    fn fe_add() {
        let r: [u8; 16] = (FieldElement::from(A) + FieldElement::from(B)).into();
        assert_eq!(r, hex!("99e94bd4ef8a2c3b884cfa59ca342b2e"));
    }

    #[test]
    fn fe_mul() {
        let r: [u8; 16] = (FieldElement::from(A) * FieldElement::from(B)).into();
        assert_eq!(r, hex!("ebe563401e7e91ea3ad6426b8140c394"));
        let r2: [u8; 16] = (FieldElement::from(B) * FieldElement::from(A)).into();
        assert_eq!(r, r2);
    }

    /// RFC 8452 errata vector for mulX_POLYVAL, and 128 chained doublings from 1 wrapping to
    /// x^128 = x^127 + x^126 + x^121 + 1.
    #[test]
    fn mulx_vectors() {
        let r: [u8; 16] = FieldElement::from(hex!("9c98c04df9387ded828175a92ba652d8"))
            .mulx()
            .into();
        assert_eq!(r, hex!("3931819bf271fada0503eb52574ca572"));
        let mut x = FieldElement::from(1u128);
        for i in 1..128 {
            x = x.mulx();
            assert_eq!(u128::from(x), 1u128 << i);
        }
        let r: [u8; 16] = x.mulx().into();
        assert_eq!(r, hex!("010000000000000000000000000000c2"));
    }

    #[test]
    fn debug_and_conversions() {
        let fe = FieldElement::from(hex!("000102030405060708090a0b0c0d0e0f"));
        assert_eq!(
            format!("{fe:?}"),
            "FieldElement(000102030405060708090a0b0c0d0e0f)"
        );
        assert_eq!(
            u128::from(fe),
            u128::from_le_bytes(hex!("000102030405060708090a0b0c0d0e0f"))
        );
        let r: [u8; 16] = fe.reverse().into();
        assert_eq!(r, hex!("0f0e0d0c0b0a09080706050403020100"));
        assert_eq!(core::mem::align_of::<FieldElement>(), 16);
    }
}
