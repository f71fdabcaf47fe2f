//! The stitched kernel ([`crate::kernel`]) on 512-bit registers: VAES, VPCLMULQDQ and
//! AVX-512, four blocks per `zmm`, eight registers (32 blocks) per iteration.
//!
//! What AVX-512 changes: partial registers are read and written with byte masks
//! (`vmovdqu8`), so nothing outside the buffers is touched and nothing goes through the
//! stack; three-way XORs are one `vpternlogq`.
//!
//! The loop comes in two shapes, chosen once per key from the CPU's vendor: Karatsuba (three
//! multiplies a register; AMD, whose Zen 4 issues a 512-bit `vpclmulqdq` every other cycle,
//! which then bounds the loop) and schoolbook (four multiplies, no `vpshufd` and no middle
//! XOR; Intel, whose port 5 runs all 512-bit multiplies and shuffles while port 0 runs the
//! AES rounds, so fewer µops beat fewer multiplies). See `cargo xtask mca` and the README
//! for the models' numbers.

use core::arch::x86_64::*;

use crate::engine::Isa;
use crate::fused::Engine;
use crate::kernel::{self, AesKeys, Hashing};
use crate::lanes::Lanes;
use crate::tables::{PowerTable, RoundKeys};

/// Registers per iteration.
const N: usize = 8;

impl Lanes for __m512i {
    const BLOCKS: usize = 4;
    const KEY_FIRST: bool = false;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller runs with this engine's features.
        unsafe { _mm512_setzero_si512() }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes; `loadu` needs no alignment.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: the caller guarantees 64 writable bytes.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }

    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        // SAFETY: the caller guarantees `n` readable bytes; masked-off bytes are not accessed
        // and cannot fault.
        unsafe { _mm512_maskz_loadu_epi8(byte_mask(n), p.cast()) }
    }

    #[inline(always)]
    unsafe fn store_partial(p: *mut u8, n: usize, v: Self) {
        // SAFETY: the caller guarantees `n` writable bytes; masked-off bytes are not written.
        unsafe { _mm512_mask_storeu_epi8(p.cast(), byte_mask(n), v) }
    }

    #[inline(always)]
    unsafe fn truncate(v: Self, n: usize) -> Self {
        // SAFETY: the caller runs with this engine's features.
        unsafe { _mm512_maskz_mov_epi8(byte_mask(n), v) }
    }

    #[inline(always)]
    unsafe fn broadcast(b: &[u8; 16]) -> Self {
        // SAFETY: 16 readable bytes.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(b.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn from_lane0(b: &[u8; 16]) -> Self {
        // SAFETY: 16 readable bytes.
        unsafe { _mm512_zextsi128_si512(_mm_loadu_si128(b.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn lane0(v: Self) -> [u8; 16] {
        let mut b = [0u8; 16];
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), _mm512_castsi512_si128(v)) };
        b
    }

    #[inline(always)]
    unsafe fn from_words(w: &[u32; 16]) -> Self {
        // SAFETY: 64 readable bytes.
        unsafe { _mm512_loadu_si512(w.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn load_powers(p: &[u128; 4]) -> Self {
        // SAFETY: 64 readable bytes.
        unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: the caller runs with this engine's features.
        unsafe { _mm512_xor_si512(a, b) }
    }

    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_and_si512(a, b) }
    }

    #[inline(always)]
    unsafe fn xor3_native(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_ternarylogic_epi64::<0x96>(a, b, c) }
    }

    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn reverse(v: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let m = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(m))
        }
    }

    #[inline(always)]
    unsafe fn swap_halves(v: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_shuffle_epi32::<0x4e>(v) }
    }

    #[inline(always)]
    unsafe fn clmul_lo(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_clmulepi64_epi128::<0x00>(a, b) }
    }

    #[inline(always)]
    unsafe fn clmul_hi(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_clmulepi64_epi128::<0x11>(a, b) }
    }

    #[inline(always)]
    unsafe fn clmul_hi_lo(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_clmulepi64_epi128::<0x01>(a, b) }
    }

    #[inline(always)]
    unsafe fn clmul_lo_hi(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_clmulepi64_epi128::<0x10>(a, b) }
    }

    #[inline(always)]
    unsafe fn fold_lanes(v: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let a = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            let b = _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a));
            _mm512_zextsi128_si512(b)
        }
    }

    #[inline(always)]
    unsafe fn aes_round(x: Self, k: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_aesenc_epi128(x, k) }
    }

    #[inline(always)]
    unsafe fn aes_last(x: Self, k: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_aesenclast_epi128(x, k) }
    }

    #[inline(always)]
    unsafe fn fence_asm(v: &mut Self) {
        // SAFETY: forwarded from the caller.
        unsafe { fence_asm(v) }
    }
}

/// [`Lanes::fence_asm`]: the register class needs the feature enabled where the `asm!` is.
///
/// # Safety
/// The CPU has `avx512f`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn fence_asm(v: &mut __m512i) {
    // SAFETY: the template is empty: no instruction runs, `v` stays in its register.
    unsafe {
        core::arch::asm!(
            "/* {0} */",
            inout(zmm_reg) * v,
            options(nomem, nostack, preserves_flags)
        )
    };
}

/// The byte mask of the first `n` bytes of a register (all of them from 64 on).
#[inline(always)]
fn byte_mask(n: usize) -> __mmask64 {
    if n >= 64 { !0 } else { (1u64 << n) - 1 }
}

clmul_core::target_tier! {
    detect cpuid = [
        "aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2",
        "vaes", "vpclmulqdq", "avx512f", "avx512bw", "avx512vl", "gfni"
    ];

    /// [`kernel::gcm`] on 512-bit registers, Karatsuba (`KARATSUBA`) or schoolbook.
    ///
    /// # Safety
    /// As [`kernel::crypt`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn gcm<const KARATSUBA: bool>(rk: &RoundKeys, tbl: &PowerTable, j0: &[u8; 16], aad: &[u8], inp: *const u8, out: *mut u8, len: usize, hashing: Hashing) -> [u8; 16] {
        // SAFETY: this function has the engine's features; buffers forwarded.
        unsafe { kernel::gcm::<__m512i, N, KARATSUBA>(rk, tbl, j0, aad, inp, out, len, hashing) }
    }

    /// [`kernel::gcm_tag`] on 512-bit registers.
    pub(super) fn gcm_tag<const KARATSUBA: bool>(rk: &RoundKeys, tbl: &PowerTable, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        // SAFETY: this function has the engine's features.
        unsafe { kernel::gcm_tag::<__m512i, N, KARATSUBA>(rk, tbl, j0, aad, ct) }
    }

    /// AES-ECB of `blocks`, four to a register.
    pub(super) fn encrypt_blocks(rk: &RoundKeys, blocks: &mut [[u8; 16]]) {
        // SAFETY: this function has the engine's features.
        unsafe { kernel::encrypt_blocks(&AesKeys::<__m512i>::new(rk), blocks) }
    }
}

/// This engine's token: it exists only where VAES, VPCLMULQDQ, AVX-512 (F, BW, VL) and AES-NI
/// are. It carries the loop shape chosen for the CPU.
#[derive(Clone, Copy)]
pub(crate) struct Vaes512 {
    karatsuba: bool,
}

// SAFETY: `detect` is the only constructor (the field is private to this module) and returns
// a token only after `available()`, which checks every feature of the module's functions.
unsafe impl Isa for Vaes512 {
    const ENGINE: Engine = Engine::Vaes512;

    fn detect() -> Option<Self> {
        available().then(|| Vaes512 {
            karatsuba: !super::intel(),
        })
    }

    fn expand(self, aes_key: &[u8]) -> Option<RoundKeys> {
        // SAFETY: the token proves AES-NI and SSE2 (in this tier's list).
        unsafe { super::aesni::expand(aes_key) }
    }

    fn encrypt_block(self, rk: &RoundKeys, block: &[u8; 16]) -> [u8; 16] {
        // SAFETY: as above.
        unsafe { super::aesni::encrypt_block(rk, block) }
    }

    fn encrypt_blocks(self, rk: &RoundKeys, blocks: &mut [[u8; 16]]) {
        // SAFETY: the token proves this module's features.
        unsafe { encrypt_blocks(rk, blocks) }
    }

    unsafe fn gcm(
        self,
        rk: &RoundKeys,
        tbl: &PowerTable,
        j0: &[u8; 16],
        aad: &[u8],
        inp: *const u8,
        out: *mut u8,
        len: usize,
        hashing: Hashing,
    ) -> [u8; 16] {
        // SAFETY: the features as above; the buffers are the caller's obligation.
        unsafe {
            if self.karatsuba {
                gcm::<true>(rk, tbl, j0, aad, inp, out, len, hashing)
            } else {
                gcm::<false>(rk, tbl, j0, aad, inp, out, len, hashing)
            }
        }
    }

    fn gcm_tag(
        self,
        rk: &RoundKeys,
        tbl: &PowerTable,
        j0: &[u8; 16],
        aad: &[u8],
        ct: &[u8],
    ) -> [u8; 16] {
        // SAFETY: the features as above.
        unsafe { gcm_tag::<true>(rk, tbl, j0, aad, ct) }
    }
}
