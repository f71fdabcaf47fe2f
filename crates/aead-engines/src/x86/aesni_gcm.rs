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
    lanes: __m128i, regs: 8,
    detect: ["aes", "pclmulqdq", "sse2", "ssse3"],
    engines: (Engine::AesNi, Engine::AesNi), shapes: false,
    asm: (xmm_reg, "sse2"),
    add32: _mm_add_epi32, aesenc: _mm_aesenc_si128, aesenclast: _mm_aesenclast_si128
}
