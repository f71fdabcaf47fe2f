//! The stitched kernel ([`crate::kernel`]) on 512-bit registers: VAES, VPCLMULQDQ and
//! AVX-512, four blocks per `zmm`, eight registers (32 blocks) per iteration.
//!
//! What AVX-512 changes: partial registers are read and written with byte masks
//! (`vmovdqu8`), so nothing outside the buffers is touched and nothing goes through the
//! stack; three-way XORs are one `vpternlogq` (the `overrides` below).
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
    lanes: __m512i, blocks: 4, regs: 8,
    detect: [
        "aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2",
        "vaes", "vpclmulqdq", "avx512f", "avx512bw", "avx512vl"
    ],
    engines: (Engine::Vaes512, Engine::Vaes512Schoolbook), shapes: true,
    asm: (zmm_reg, "avx512f"),
    zero: _mm512_setzero_si512, load: _mm512_loadu_si512, store: _mm512_storeu_si512,
    xor: _mm512_xor_si512, and: _mm512_and_si512, add32: _mm512_add_epi32,
    shuffle_bytes: _mm512_shuffle_epi8, shuffle_words: _mm512_shuffle_epi32,
    unpack: (_mm512_unpacklo_epi64, _mm512_unpackhi_epi64), paired_middles: false,
    clmul: _mm512_clmulepi64_epi128,
    aesenc: _mm512_aesenc_epi128, aesenclast: _mm512_aesenclast_epi128,
    from128: _mm512_broadcast_i32x4, zext: _mm512_zextsi128_si512,
    to128: _mm512_castsi512_si128, fold: fold,
    overrides: {
        #[inline(always)]
        unsafe fn load_partial(p: *const u8, n: usize) -> Self {
            // SAFETY: the caller guarantees `n` readable bytes; masked-off bytes are not
            // accessed and cannot fault.
            unsafe { _mm512_maskz_loadu_epi8(byte_mask(n), p.cast()) }
        }

        #[inline(always)]
        unsafe fn store_partial(p: *mut u8, n: usize, v: Self) {
            // SAFETY: the caller guarantees `n` writable bytes; masked-off bytes are not
            // written.
            unsafe { _mm512_mask_storeu_epi8(p.cast(), byte_mask(n), v) }
        }

        #[inline(always)]
        unsafe fn truncate(v: Self, n: usize) -> Self {
            // SAFETY: the caller runs with this engine's features.
            unsafe { _mm512_maskz_mov_epi8(byte_mask(n), v) }
        }

        #[inline(always)]
        unsafe fn xor3_native(a: Self, b: Self, c: Self) -> Self {
            // SAFETY: as above.
            unsafe { _mm512_ternarylogic_epi64::<0x96>(a, b, c) }
        }
    }
}

/// The byte mask of the first `n` bytes of a register (all of them from 64 on).
#[inline(always)]
fn byte_mask(n: usize) -> __mmask64 {
    if n >= 64 { !0 } else { (1u64 << n) - 1 }
}

/// The XOR of the four 128-bit lanes.
///
/// # Safety
/// The CPU has AVX-512F.
#[inline(always)]
unsafe fn fold(v: __m512i) -> __m128i {
    // SAFETY: forwarded from the caller.
    unsafe {
        let a = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
        _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a))
    }
}
