//! The stitched kernel ([`crate::kernel`]) on 512-bit registers: VAES, VPCLMULQDQ and
//! AVX-512, four blocks per `zmm`, eight registers (32 blocks) per iteration.
//!
//! What AVX-512 changes: partial registers are read and written with byte masks
//! (`vmovdqu8`), so nothing outside the buffers is touched, except where the 64-byte window
//! would cross onto a page the buffer is not on, which goes through the stack; three-way XORs
//! are one `vpternlogq` (both in `clmul_core::wide`'s `__m512i`).
//!
//! The loop comes in two shapes, two engines for dispatch: [`Engine::Vaes512`] with
//! Karatsuba multiplies (three a register) and [`Engine::Vaes512Schoolbook`] (four a
//! register, no `vpshufd` and no middle XOR), which [`Engine::detect`] picks on Intel's CPUs.
//! On AMD's Zen 4 a 512-bit `vpclmulqdq` issues every other cycle and bounds the loop, so
//! fewer multiplies win (measured: Karatsuba 2-10% faster at 16 KiB); Intel's server cores
//! run every 512-bit multiply and shuffle on port 5 while port 0 runs the AES rounds, so
//! fewer µops win (llvm-mca, sapphirerapids: schoolbook about 3% faster). See
//! `cargo xtask mca`.
//!
//! [`Engine::Vaes512`]: crate::Engine::Vaes512
//! [`Engine::Vaes512Schoolbook`]: crate::Engine::Vaes512Schoolbook
//! [`Engine::detect`]: crate::Engine::detect

use core::arch::x86_64::*;

use crate::engine::Engine;

super::x86_engine! {
    lanes: __m512i, regs: 8,
    detect: [
        "aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2",
        "vaes", "vpclmulqdq", "avx512f", "avx512bw", "avx512vl"
    ],
    engines: (Engine::Vaes512, Engine::Vaes512Schoolbook), shapes: true,
    asm: (zmm_reg, "avx512f"),
    add32: _mm512_add_epi32, aesenc: _mm512_aesenc_epi128, aesenclast: _mm512_aesenclast_epi128
}
