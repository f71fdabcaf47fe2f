//! The stitched kernel ([`crate::kernel`]) on 128-bit registers: AES-NI and PCLMULQDQ, one
//! block per `xmm`, eight registers (blocks) per iteration; x86 and x86_64 CPUs without VAES.
//!
//! What the instruction set changes: no masked loads and stores (a partial block goes
//! through the stack, the trait's default), no three-way XOR; on 32-bit x86 only eight `xmm`
//! registers, so the round keys and products are read from the stack (`aesenc xmm, m128`).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::engine::Engine;

super::x86_engine! {
    lanes: __m128i, blocks: 1, regs: 8,
    detect: ["aes", "pclmulqdq", "sse2", "ssse3"],
    engines: (Engine::AesNi, Engine::AesNi), shapes: false,
    asm: (xmm_reg, "sse2"),
    zero: _mm_setzero_si128, load: _mm_loadu_si128, store: _mm_storeu_si128,
    xor: _mm_xor_si128, and: _mm_and_si128, add32: _mm_add_epi32,
    shuffle_bytes: _mm_shuffle_epi8, shuffle_words: _mm_shuffle_epi32,
    unpack: (_mm_unpacklo_epi64, _mm_unpackhi_epi64), paired_middles: false,
    clmul: _mm_clmulepi64_si128,
    aesenc: _mm_aesenc_si128, aesenclast: _mm_aesenclast_si128,
    from128: same, zext: same, to128: same, fold: same,
    overrides: {}
}

/// The register as it is (one lane: broadcasting, widening and folding are nothing).
///
/// # Safety
/// None (`unsafe` for the table's sake: its other entries are intrinsics).
#[inline(always)]
unsafe fn same(v: __m128i) -> __m128i {
    v
}
