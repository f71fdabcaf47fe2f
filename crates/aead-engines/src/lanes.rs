//! The register abstraction the stitched kernel ([`crate::kernel`]) is written against:
//! `clmul_core`'s [`Lanes`] (a SIMD register of one to four 16-byte lanes and the GF(2^128)
//! operations of the wide GHASH/POLYVAL it shares with the standalone backends), extended
//! here with what AES-CTR adds ([`AesLanes`]): the AES rounds, the counters' 32-bit additions
//! and the scheduling fence of the stitched loop.
//!
//! The pattern is memchr's `Vector` trait: every method is `unsafe` and `#[inline(always)]`,
//! never `#[target_feature]`, so the generic code inlines into each engine's
//! `#[target_feature]` entry points and compiles there with that engine's instructions. The
//! implementations live beside their intrinsics, in the engines' modules:
//!
//! | type | engine | lanes | instructions |
//! |---|---|---|---|
//! | `__m512i` | `crate::x86::vaes512` | 4 | VAES, VPCLMULQDQ, AVX-512 (masks, `vpternlogq`) |
//! | `__m256i` | `crate::x86::vaes256` | 2 | VAES, VPCLMULQDQ, AVX2 |
//! | `__m128i` | `crate::x86::aesni_gcm` | 1 | AES-NI, PCLMULQDQ, SSSE3 (also on 32-bit x86) |
//! | `uint8x16_t` | `crate::aarch64` | 1 | ARMv8 AES, PMULL (and SHA3's `EOR3` in its second tier) |
//!
//! Where the instruction set changes the algorithm, an associated constant says so
//! ([`AesLanes::KEY_FIRST`]: ARMv8's `AESE` adds the round key before the round, x86's
//! `AESENC` after it).
//!
//! [`fence`] (below) is plain code under Miri and in the MemorySanitizer build of
//! `cargo xtask ct` (`--cfg ct_taint`), where an `asm!` output would count as public; AES
//! `SubWord` in the key expansion has its own second form in `x86::aesni`.

#![allow(unsafe_code)]

pub(crate) use clmul_core::wide::{Lanes, xor3};

/// A [`Lanes`] register that also runs AES: the rounds, and the counters' additions.
///
/// # Safety
///
/// As [`Lanes`]: every method requires the target features of the implementing engine: call
/// it only from code inlined into that engine's `#[target_feature]` functions, which run only
/// after the engine's detection succeeded (its token exists).
pub(crate) trait AesLanes: Lanes {
    /// Whether the AES round instruction adds its round key before the round (ARMv8 `AESE`:
    /// AddRoundKey, SubBytes, ShiftRows; `AESMC` then MixColumns) rather than after it (x86
    /// `AESENC`: ShiftRows, SubBytes, MixColumns, AddRoundKey). It decides which round key
    /// each of [`crate::kernel::AesKeys`]'s registers holds.
    const KEY_FIRST: bool;

    /// Whether GCM's stitched loop takes each counter block's first AES round from a table of
    /// the 256 values its last byte gives (counter-mode caching, [`crate::kernel::Round1`]):
    /// the engines with [`AesLanes::KEY_FIRST`] and one block a register (ARMv8), where it
    /// saves three vector operations a block of a loop that the vector pipes bound.
    const CACHED_ROUND1: bool = false;

    /// Lane-wise 32-bit additions, wrapping.
    unsafe fn add32(a: Self, b: Self) -> Self;

    /// A register holding the four bytes at `p` in its first word, zero elsewhere (a 4-byte
    /// load).
    ///
    /// # Safety
    /// As the other methods; four bytes are readable at `p`.
    #[inline(always)]
    unsafe fn load_u32(p: *const u32) -> Self {
        let mut w = [0u32; 16];
        // SAFETY: the caller guarantees four readable bytes; no alignment needed.
        w[0] = unsafe { p.read_unaligned() };
        // SAFETY: forwarded from the caller.
        unsafe { Self::from_words(&w) }
    }

    /// One full AES round with round key `k` (see [`AesLanes::KEY_FIRST`] for where `k` is
    /// added).
    unsafe fn aes_round(x: Self, k: Self) -> Self;

    /// The last AES round's instruction (no MixColumns) with `k`: x86 `AESENCLAST` (`k` added
    /// after), ARMv8 `AESE` (`k` added before; the final key is the caller's to add).
    unsafe fn aes_last(x: Self, k: Self) -> Self;

    /// An empty `asm!` that `v` passes through: a scheduling fence for LLVM (volatile `asm`
    /// blocks keep their order). Called only through [`fence`] (so unused where that is
    /// compiled out).
    #[cfg_attr(any(miri, ct_taint), allow(dead_code))]
    unsafe fn fence_asm(v: &mut Self);
}

/// The scheduling fence of the stitched loop: LLVM would otherwise hoist all GHASH work of an
/// iteration above its AES rounds, and the core would run the two streams in turn instead of
/// side by side (measured on Zen 4 with the 512-bit engine: AES-256 at 16 KiB 18.7 GB/s
/// unfenced, 25.8 fenced).
///
/// Compiled out under Miri and in the MemorySanitizer check's build (`ct_taint`), where an
/// `asm!` output would count as public and hide the secret marking of `v`.
///
/// # Safety
/// As the [`AesLanes`] methods.
#[inline(always)]
pub(crate) unsafe fn fence<L: AesLanes>(v: &mut L) {
    #[cfg(not(any(miri, ct_taint)))]
    // SAFETY: forwarded from the caller.
    unsafe {
        L::fence_asm(v)
    };
    #[cfg(any(miri, ct_taint))]
    let _ = v;
}
