//! The stitched kernel ([`crate::kernel`]) on 256-bit registers: VAES and VPCLMULQDQ with
//! AVX2, two blocks per `ymm`, eight registers (16 blocks) per iteration; the CPUs with VAES
//! but without AVX-512 (AMD Zen 3, Intel Alder Lake and later client cores). VPCLMULQDQ and
//! VAES are detected with the AVX (`ymm`) state only (see `clmul_core`'s `x86::ymm`).
//!
//! What AVX2 changes: no masked loads and stores (a partial register goes through the
//! stack), no three-way XOR, and sixteen registers, so the round keys are read from the
//! stack (`vaesenc ymm, ymm, m256`).

use core::arch::x86_64::*;

use crate::engine::Isa;
use crate::fused::Engine;
use crate::kernel::{self, AesKeys, Hashing};
use crate::lanes::Lanes;
use crate::tables::{PowerTable, RoundKeys};

/// Registers per iteration.
const N: usize = 8;

impl Lanes for __m256i {
    const BLOCKS: usize = 2;
    const KEY_FIRST: bool = false;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller runs with this engine's features.
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 32 readable bytes; `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: the caller guarantees 32 writable bytes.
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }

    #[inline(always)]
    unsafe fn broadcast(b: &[u8; 16]) -> Self {
        // SAFETY: 16 readable bytes.
        unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(b.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn from_lane0(b: &[u8; 16]) -> Self {
        // SAFETY: 16 readable bytes.
        unsafe { _mm256_zextsi128_si256(_mm_loadu_si128(b.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn lane0(v: Self) -> [u8; 16] {
        let mut b = [0u8; 16];
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), _mm256_castsi256_si128(v)) };
        b
    }

    #[inline(always)]
    unsafe fn from_words(w: &[u32; 16]) -> Self {
        // SAFETY: 32 readable bytes.
        unsafe { _mm256_loadu_si256(w.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn load_powers(p: &[u128; 4]) -> Self {
        // SAFETY: 32 readable bytes.
        unsafe { _mm256_loadu_si256(p.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: the caller runs with this engine's features.
        unsafe { _mm256_xor_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_and_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn reverse(v: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let m = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            _mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(m))
        }
    }

    #[inline(always)]
    unsafe fn swap_halves(v: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_shuffle_epi32::<0x4e>(v) }
    }

    #[inline(always)]
    unsafe fn clmul_lo(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_clmulepi64_epi128::<0x00>(a, b) }
    }

    #[inline(always)]
    unsafe fn clmul_hi(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_clmulepi64_epi128::<0x11>(a, b) }
    }

    #[inline(always)]
    unsafe fn clmul_hi_lo(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_clmulepi64_epi128::<0x01>(a, b) }
    }

    #[inline(always)]
    unsafe fn clmul_lo_hi(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_clmulepi64_epi128::<0x10>(a, b) }
    }

    #[inline(always)]
    unsafe fn fold_lanes(v: Self) -> Self {
        // SAFETY: as above.
        unsafe {
            let s = _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            _mm256_zextsi128_si256(s)
        }
    }

    #[inline(always)]
    unsafe fn aes_round(x: Self, k: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_aesenc_epi128(x, k) }
    }

    #[inline(always)]
    unsafe fn aes_last(x: Self, k: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_aesenclast_epi128(x, k) }
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
/// The CPU has `avx`.
#[inline]
#[target_feature(enable = "avx")]
unsafe fn fence_asm(v: &mut __m256i) {
    // SAFETY: the template is empty: no instruction runs, `v` stays in its register.
    unsafe {
        core::arch::asm!(
            "/* {0} */",
            inout(ymm_reg) * v,
            options(nomem, nostack, preserves_flags)
        )
    };
}

clmul_core::target_tier! {
    detect cpuid = ["aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2"] + ymm ["vpclmulqdq", "vaes"];

    /// [`kernel::gcm`] on 256-bit registers (Karatsuba).
    ///
    /// # Safety
    /// As [`kernel::crypt`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn gcm(rk: &RoundKeys, tbl: &PowerTable, j0: &[u8; 16], aad: &[u8], inp: *const u8, out: *mut u8, len: usize, hashing: Hashing) -> [u8; 16] {
        // SAFETY: this function has the engine's features; buffers forwarded.
        unsafe { kernel::gcm::<__m256i, N, true>(rk, tbl, j0, aad, inp, out, len, hashing) }
    }

    /// [`kernel::gcm_tag`] on 256-bit registers.
    pub(super) fn gcm_tag(rk: &RoundKeys, tbl: &PowerTable, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        // SAFETY: this function has the engine's features.
        unsafe { kernel::gcm_tag::<__m256i, N, true>(rk, tbl, j0, aad, ct) }
    }

    /// AES-ECB of `blocks`, two to a register.
    pub(super) fn encrypt_blocks(rk: &RoundKeys, blocks: &mut [[u8; 16]]) {
        // SAFETY: this function has the engine's features.
        unsafe { kernel::encrypt_blocks(&AesKeys::<__m256i>::new(rk), blocks) }
    }
}

/// This engine's token: it exists only where VAES and VPCLMULQDQ (on `ymm`), AVX2 and AES-NI
/// are.
#[derive(Clone, Copy)]
pub(crate) struct Vaes256(());

// SAFETY: `detect` is the only constructor (the field is private to this module) and returns
// a token only after `available()`, which checks every feature of the module's functions.
unsafe impl Isa for Vaes256 {
    const ENGINE: Engine = Engine::Vaes256;

    fn detect() -> Option<Self> {
        available().then_some(Vaes256(()))
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
        unsafe { gcm(rk, tbl, j0, aad, inp, out, len, hashing) }
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
        unsafe { gcm_tag(rk, tbl, j0, aad, ct) }
    }
}
