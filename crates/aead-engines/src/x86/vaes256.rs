//! The stitched kernel ([`crate::kernel`]) on 256-bit registers: VAES and VPCLMULQDQ with
//! AVX2, two blocks per `ymm`, eight registers (16 blocks) per iteration; the CPUs with VAES
//! but without AVX-512 (AMD Zen 3, Intel Alder Lake and later client cores). VPCLMULQDQ and
//! VAES are detected with the AVX (`ymm`) state only (see `clmul_core`'s `x86::ymm`).
//!
//! What AVX2 changes: no masked loads and stores (a partial register goes through the
//! stack, the trait's default), no three-way XOR, and sixteen registers, so the round keys
//! are read from the stack (`vaesenc ymm, ymm, m256`).

use core::arch::x86_64::*;

use crate::engine::Engine;

super::x86_engine! {
    lanes: __m256i, blocks: 2, regs: 8,
    detect: ["aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2"] + ymm ["vpclmulqdq", "vaes"],
    engines: (Engine::Vaes256, Engine::Vaes256), shapes: false,
    asm: (ymm_reg, "avx"),
    zero: _mm256_setzero_si256, load: _mm256_loadu_si256, store: _mm256_storeu_si256,
    xor: _mm256_xor_si256, and: _mm256_and_si256, add32: _mm256_add_epi32,
    shuffle_bytes: _mm256_shuffle_epi8, shuffle_words: _mm256_shuffle_epi32,
    unpack: (_mm256_unpacklo_epi64, _mm256_unpackhi_epi64), paired_middles: false,
    clmul: _mm256_clmulepi64_epi128,
    aesenc: _mm256_aesenc_epi128, aesenclast: _mm256_aesenclast_epi128,
    from128: _mm256_broadcastsi128_si256, zext: _mm256_zextsi128_si256,
    to128: _mm256_castsi256_si128, fold: fold,
    overrides: {}
}

/// The XOR of the two 128-bit lanes.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn fold(v: __m256i) -> __m128i {
    // SAFETY: forwarded from the caller.
    unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)) }
}
