//! AES round keys (FIPS-197 key expansion) with AES-NI, for every x86 engine.
//!
//! The expansion is the word-by-word schedule of FIPS-197 §5.2 for 128-, 192- and 256-bit
//! keys; `SubWord` is computed by `aeskeygenassist` (the AES S-box in hardware), so no table is
//! indexed by key bytes.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::tables::RoundKeys;

clmul_core::target_tier! {
    detect cpuid = ["aes", "sse2"];

    /// The AES S-box on each byte of `w`: [`sub_word_keygenassist`], or in the MemorySanitizer
    /// check's build (`ct_taint`) [`sub_word_enclast`], because MSan checks `aeskeygenassist`'s
    /// operand strictly and would report, then drop, the key's secret marking.
    #[inline]
    fn sub_word(w: u32) -> u32 {
        if cfg!(ct_taint) { sub_word_enclast(w) } else { sub_word_keygenassist(w) }
    }

    /// SubWord with `aeskeygenassist`: its dword 0 is SubWord(X1), X1 being dword 1 of its
    /// input.
    #[inline]
    fn sub_word_keygenassist(w: u32) -> u32 {
        let v = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
        _mm_cvtsi128_si32(v) as u32
    }

    /// SubWord with `aesenclast` on `w` in all four columns and a zero round key: ShiftRows
    /// only moves bytes between columns, which are equal, so each column comes out as
    /// SubBytes of `w`.
    #[inline]
    fn sub_word_enclast(w: u32) -> u32 {
        let v = _mm_aesenclast_si128(_mm_set1_epi32(w as i32), _mm_setzero_si128());
        _mm_cvtsi128_si32(v) as u32
    }

    /// Expands a 16-, 24- or 32-byte key (other lengths get `None`).
    pub(crate) fn expand(key: &[u8]) -> Option<RoundKeys> {
        RoundKeys::expand(key, |w| sub_word(w))
    }
}

#[cfg(test)]
mod tests {
    /// The checker build's SubWord (`aesenclast`) against the shipped one (`aeskeygenassist`)
    /// and FIPS-197's S-box values, so that the MemorySanitizer check runs the same key schedule.
    #[test]
    fn sub_word_variants_agree() {
        if !super::available() {
            std::eprintln!("note: no AES-NI here; skipping");
            return;
        }
        let mut w = 0x0123_4567_u32;
        for i in 0..100_000u32 {
            w = w.wrapping_mul(0x9e37_79b9).rotate_left(7) ^ i;
            // SAFETY: AES-NI detection succeeded above.
            let (a, b) = unsafe { (super::sub_word_keygenassist(w), super::sub_word_enclast(w)) };
            assert_eq!(a, b, "{w:#010x}");
        }
        // FIPS-197 section 5.1.1: S(0x00) = 0x63, S(0x53) = 0xed, S(0x01) = 0x7c, S(0xff) = 0x16.
        // SAFETY: as above.
        let s = unsafe { super::sub_word_enclast(0xff01_5300) };
        assert_eq!(s, 0x167c_ed63);
    }
}
