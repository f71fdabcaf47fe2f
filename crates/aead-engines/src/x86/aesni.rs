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

    #[inline]
    fn sub_word(w: u32) -> u32 {
        // aeskeygenassist's dword 0 is SubWord(X1), X1 being dword 1 of its input.
        let v = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
        _mm_cvtsi128_si32(v) as u32
    }

    /// Expands a 16-, 24- or 32-byte key (other lengths get `None`).
    pub(crate) fn expand(key: &[u8]) -> Option<RoundKeys> {
        RoundKeys::expand(key, |w| sub_word(w))
    }
}
