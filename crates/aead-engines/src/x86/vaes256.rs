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
    lanes: __m256i, regs: 8,
    detect: ["aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2"] + ymm ["vpclmulqdq", "vaes"],
    engines: (Engine::Vaes256, Engine::Vaes256), shapes: false,
    asm: (ymm_reg, "avx"),
    add32: _mm256_add_epi32, aesenc: _mm256_aesenc_epi128, aesenclast: _mm256_aesenclast_epi128
}
