//! The register abstraction the width-generic GHASH/POLYVAL ([`super::hash`]) is written
//! against: a SIMD register of one to four 16-byte lanes and the operations GF(2^128)
//! arithmetic needs on it. `aead-engines` extends it with the AES rounds and counter additions
//! of its stitched loops (its `AesLanes`), so that one hash serves the standalone backends and
//! the AES-GCM and AES-GCM-SIV engines.
//!
//! The pattern is memchr's `Vector` trait: every method is `unsafe` and `#[inline(always)]`,
//! never `#[target_feature]`, so the generic code inlines into each caller's
//! `#[target_feature]` functions and compiles there with that caller's instructions. The
//! implementations live beside their intrinsics (`x86`, `aarch64` in this module):
//!
//! | type | lanes | instructions | run by |
//! |---|---|---|---|
//! | `__m512i` | 4 | VPCLMULQDQ, AVX-512 (masks, `vpternlogq`) | `Avx512`; VAES-512 |
//! | `__m256i` | 2 | VPCLMULQDQ, AVX2 | `Avx2`; VAES-256 |
//! | `__m128i` | 1 | PCLMULQDQ, SSSE3 (also on 32-bit x86) | `Pclmul`; AES-NI |
//! | `uint8x16_t` | 1 | PMULL (SHA3's `EOR3` where enabled) | `Pmull`, `PmullEor3`; ARMv8 |
//!
//! (The backends of this crate; the engines of `aead-engines`.)
//!
//! Where an instruction set changes what an operation costs, the trait has a default that
//! the implementation overrides (partial loads and stores and `truncate`: AVX-512 masks
//! them, the others go through a stack copy; `load_top` and `lane0_to_top`: the 256- and
//! 512-bit registers; `blend_odd`: every x86 register; three-way XOR: `vpternlogq` on
//! AVX-512).
//!
//! One operation has a second form for the checkers, and only here: [`xor3`] (below) is plain
//! code under Miri and in the MemorySanitizer build of `cargo xtask ct` (`--cfg ct_taint`),
//! where `vpternlogq`'s operands are checked strictly.
#![allow(unsafe_code)]

/// A SIMD register of [`Lanes::BLOCKS`] 16-byte lanes, each an AES block or a GF(2^128)
/// element in POLYVAL's bit order (bit `i` of the little-endian 128-bit lane is the
/// coefficient of `x^i`).
///
/// # Safety
///
/// Every method requires the target features of the implementing type's instructions (the
/// table above): call it only from code inlined into `#[target_feature]` functions with them,
/// which run only after their detection succeeded. Methods taking pointers state what must
/// be readable or writable there.
pub trait Lanes: Copy {
    /// 16-byte blocks per register.
    const BLOCKS: usize;

    /// Whether Karatsuba's middle products of two registers are multiplied together (see
    /// [`Prod::middles`](super::Prod::middles)): two unpacks and an XOR for both registers' folded
    /// halves instead of a shuffle and an XOR each. One vector operation fewer a pair: ARMv8's loop
    /// is bound by its vector pipes' operation count.
    const PAIRED_MIDDLES: bool;

    /// Whether Karatsuba's middle operands of data read from memory are made by loads 8 bytes
    /// off instead of a shuffle per register ([`folded_pair`](super::folded_pair)):
    /// on x86, where the shuffle runs on the port (Intel's port 5) or the pipes (AMD's FP
    /// pipes) of the carry-less multiplies, and a load does not. ARMv8 pairs its registers'
    /// middles with unpacks instead ([`Lanes::PAIRED_MIDDLES`]): its loop is bound by vector
    /// operations, which an unaligned load's XOR would not save.
    const MIDDLES_BY_LOADS: bool = false;

    /// All zero.
    unsafe fn zero() -> Self;

    /// `16 * BLOCKS` bytes from `p` (no alignment needed).
    ///
    /// # Safety
    /// `16 * BLOCKS` bytes at `p` are readable.
    unsafe fn load(p: *const u8) -> Self;

    /// [`Lanes::load`] of a power of H or its middle operand: a register whose halves the
    /// multiplies read separately. ARMv8 loads it whole past a fence (LLVM would otherwise
    /// narrow it to a load of the low half and a replicating load of the high one, `LD1R`,
    /// which also takes a vector pipe).
    ///
    /// # Safety
    /// As [`Lanes::load`].
    #[inline(always)]
    unsafe fn load_power(p: *const u8) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe { Self::load(p) }
    }

    /// Stores `16 * BLOCKS` bytes to `p`.
    ///
    /// # Safety
    /// `16 * BLOCKS` bytes at `p` are writable.
    unsafe fn store(p: *mut u8, v: Self);

    /// A hint to bring the cache line holding `p` into the cache: no access, so `p` need not
    /// point into any allocation. The wide loops hint at their input some strides ahead
    /// ([`prefetch_first`](super::prefetch_first), [`prefetch_ahead`](super::prefetch_ahead)).
    /// Nothing by default (ARMv8 for now).
    ///
    /// # Safety
    /// As the other methods.
    #[inline(always)]
    unsafe fn prefetch(p: *const u8) {
        let _ = p;
    }

    /// The first `n <= 16 * BLOCKS` bytes from `p`, the rest zero: a zero-padded copy on the
    /// stack, loaded whole (the 256-bit registers override it without the copy, AVX-512 with a
    /// byte-masked load).
    ///
    /// # Safety
    /// `n` bytes at `p` are readable and `n <= 16 * BLOCKS`.
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        let mut buf = [0u8; 64];
        let n = n.min(16 * Self::BLOCKS);
        // SAFETY: the caller guarantees `n` readable bytes at `p`; `buf` has 64 >= n.
        unsafe {
            core::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), n);
            Self::load(buf.as_ptr())
        }
    }

    /// The `n` whole blocks at `p` (`1 <= n < BLOCKS`) in the top `n` lanes, the lanes below
    /// zero: the first, partial register of a run aligned to the end of its powers (so that
    /// its powers are a whole register of a table: see [`hash_head`](super::hash_head)). The
    /// default goes through the stack; the 256- and 512-bit registers override it.
    ///
    /// # Safety
    /// `16 * n` bytes at `p` are readable and `1 <= n < BLOCKS`.
    #[inline(always)]
    unsafe fn load_top(p: *const u8, n: usize) -> Self {
        let mut buf = [0u8; 64];
        let n = n.min(Self::BLOCKS);
        let at = 16 * (Self::BLOCKS - n);
        // SAFETY: the caller guarantees `16 n` readable bytes at `p`; `buf` has
        // `at + 16 n = 16 * BLOCKS <= 64` bytes.
        unsafe {
            core::ptr::copy_nonoverlapping(p, buf.as_mut_ptr().add(at), 16 * n);
            Self::load(buf.as_ptr())
        }
    }

    /// Lane 0 of `v` in lane `BLOCKS - n` (`1 <= n <= BLOCKS`), the other lanes zero: the
    /// running hash added to the first block of a [`Lanes::load_top`] register. The default
    /// goes through the stack; the 256- and 512-bit registers override it.
    ///
    /// # Safety
    /// As the other methods; `1 <= n <= BLOCKS`.
    #[inline(always)]
    unsafe fn lane0_to_top(v: Self, n: usize) -> Self {
        let mut buf = [0u8; 64];
        let at = 16 * (Self::BLOCKS - n.clamp(1, Self::BLOCKS));
        // SAFETY: the caller's features; `buf` has 64 >= 16 * BLOCKS readable bytes.
        unsafe {
            buf[at..at + 16].copy_from_slice(&Self::lane0(v));
            Self::load(buf.as_ptr())
        }
    }

    /// Stores the first `n <= 16 * BLOCKS` bytes of `v` to `p`, through a stack copy (the
    /// 256-bit registers override it without the copy, AVX-512 with a byte-masked store).
    ///
    /// # Safety
    /// `n` bytes at `p` are writable and `n <= 16 * BLOCKS`.
    #[inline(always)]
    unsafe fn store_partial(p: *mut u8, n: usize, v: Self) {
        let mut buf = [0u8; 64];
        let n = n.min(16 * Self::BLOCKS);
        // SAFETY: `buf` has 64 >= 16 * BLOCKS writable bytes; the caller guarantees `n`
        // writable bytes at `p`.
        unsafe {
            Self::store(buf.as_mut_ptr(), v);
            core::ptr::copy_nonoverlapping(buf.as_ptr(), p, n);
        }
    }

    /// `v` with every byte from `n` on set to zero (`n <= 64`): an AND with a window of a
    /// constant (AVX-512 overrides it with a zero-masked move).
    #[inline(always)]
    unsafe fn truncate(v: Self, n: usize) -> Self {
        /// 64 bytes of ones, then 64 of zeros: the 64 bytes from `64 - n` keep `n` bytes.
        static WINDOW: [u8; 128] = {
            let mut w = [0u8; 128];
            let mut i = 0;
            while i < 64 {
                w[i] = 0xff;
                i += 1;
            }
            w
        };
        let start = 64 - n.min(64);
        // SAFETY: `start + 16 * BLOCKS <= 64 + 64`: the load stays inside `WINDOW`.
        unsafe { Self::and(v, Self::load(WINDOW[start..].as_ptr())) }
    }

    /// The 16 bytes of `b` in every lane.
    unsafe fn broadcast(b: &[u8; 16]) -> Self;

    /// The 16 bytes of `b` in lane 0, zero in the others.
    unsafe fn from_lane0(b: &[u8; 16]) -> Self;

    /// Lane 0.
    unsafe fn lane0(v: Self) -> [u8; 16];

    /// `v`, which the compiler must make as it is before any use (an empty `asm!` on types
    /// that need it): [`Prod::middles`](super::Prod::middles)' folded pair, which LLVM
    /// otherwise splits back into one shuffle and XOR a register for a pair whose second
    /// register holds the running hash (two operations more, on ARMv8). The value itself.
    ///
    /// # Safety
    /// As [`Lanes::load`].
    #[inline(always)]
    unsafe fn whole(v: Self) -> Self {
        v
    }

    /// The first `4 * BLOCKS` words of `w` as the lanes' 32-bit words (lane `l`, word `j` is
    /// `w[4l + j]`): the constants of the hash and of `aead-engines`' kernels.
    unsafe fn from_words(w: &[u32; 16]) -> Self;

    /// `a ^ b`.
    unsafe fn xor(a: Self, b: Self) -> Self;

    /// `a & b`.
    unsafe fn and(a: Self, b: Self) -> Self;

    /// `a ^ b ^ c` in one instruction where there is one (AVX-512's `vpternlogq`), else two
    /// XORs. Called only through [`xor3`].
    #[inline(always)]
    unsafe fn xor3_native(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe { Self::xor(a, Self::xor(b, c)) }
    }

    /// Every lane with its 16 bytes in reverse order (GHASH's byte reflection; it also turns
    /// GCM's big-endian counter into the low little-endian word and back).
    unsafe fn reverse(v: Self) -> Self;

    /// Every lane with its two 64-bit halves swapped.
    unsafe fn swap_halves(v: Self) -> Self;

    /// Whether GHASH's data is hashed half-swapped ([`swapped`](super::swapped)): where reversing
    /// the bytes of each 64-bit half is one instruction and the whole reflection two (ARMv8:
    /// `REV64`, and `EXT`), the `EXT` of every block goes.
    const SWAP_REFLECT: bool = false;

    /// Every lane with the bytes of each 64-bit half in reverse order:
    /// `swap_halves(reverse(v))`.
    #[inline(always)]
    unsafe fn reverse_in_halves(v: Self) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe { Self::swap_halves(Self::reverse(v)) }
    }

    /// The even 64-bit words of `a` and the odd ones of `b` (a blend, on x86 off the shuffle
    /// port). Used where [`Lanes::MIDDLES_BY_LOADS`] holds; the default is a shuffle and an
    /// unpack.
    #[inline(always)]
    unsafe fn blend_odd(a: Self, b: Self) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe { Self::zip_lo(a, Self::swap_halves(b)) }
    }

    /// Every lane's low halves of `a` and `b`, in that order.
    unsafe fn zip_lo(a: Self, b: Self) -> Self;

    /// Every lane's high halves of `a` and `b`, in that order.
    unsafe fn zip_hi(a: Self, b: Self) -> Self;

    /// Carry-less products, lane by lane, of `a`'s and `b`'s low halves.
    unsafe fn clmul_lo(a: Self, b: Self) -> Self;

    /// Carry-less products of `a`'s and `b`'s high halves.
    unsafe fn clmul_hi(a: Self, b: Self) -> Self;

    /// Carry-less products of `a`'s high and `b`'s low halves.
    unsafe fn clmul_hi_lo(a: Self, b: Self) -> Self;

    /// Carry-less products of `a`'s low and `b`'s high halves.
    unsafe fn clmul_lo_hi(a: Self, b: Self) -> Self;

    /// The XOR of all lanes, in lane 0; the others zero.
    unsafe fn fold_lanes(v: Self) -> Self;
}

/// `a ^ b ^ c`: [`Lanes::xor3_native`], or two XORs under Miri (which does not implement
/// `vpternlogq`) and in the MemorySanitizer check's build (`ct_taint`: MSan checks
/// `vpternlogq`'s operands strictly and would report, then drop, their secret marking).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn xor3<L: Lanes>(a: L, b: L, c: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        if cfg!(any(miri, ct_taint)) {
            L::xor(a, L::xor(b, c))
        } else {
            L::xor3_native(a, b, c)
        }
    }
}
