//! x86/x86_64 engines: the [`AesLanes`] of each register width, their detection, and the
//! AES-NI key expansion they share.
//!
//! The three widths (`xmm` with AES-NI, `ymm` and `zmm` with VAES) run the same kernel, and
//! their instructions differ only in name, so one macro ([`x86_engine!`]) writes each
//! engine's [`AesLanes`] implementation, detection and `#[target_feature]` entry point from a
//! table of intrinsics (the registers' GF(2^128) half, with AVX-512's masked partial loads
//! and `vpternlogq`, is `clmul_core::wide`'s). One token type, [`X86`], serves the three.
//!
//! The x86 `unsafe` code of the crate lives here, next to the intrinsics.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86")]
use core::arch::x86::__m128i;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::__m128i;
use core::marker::PhantomData;

use crate::engine::{Engine, Isa, Job};
use crate::lanes::AesLanes;
use crate::tables::RoundKeys;
use inout::InOutBuf;

pub(crate) mod aesni;
pub(crate) mod aesni_gcm;
#[cfg(target_arch = "x86_64")]
pub mod pace;
pub(crate) mod siv_short;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vaes256;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vaes512;

/// [`crate::store_words`]: `lo` and `hi` written to `dst` with one 16-byte `movdqu`.
#[cfg(any(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn store_words(dst: &mut [u8; 16], lo: u64, hi: u64) {
    #[cfg(target_arch = "x86")]
    use core::arch::x86::{_mm_set_epi64x, _mm_storeu_si128};
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::{_mm_set_epi64x, _mm_storeu_si128};
    // SAFETY: the build enables SSE2 (every x86_64 target, and the cfg above on x86).
    let mut v = unsafe { _mm_set_epi64x(hi as i64, lo as i64) };
    // SAFETY: an empty `asm!` with the value in a vector register (which SSE2 has), so that
    // the compiler stores it from there rather than splitting the store back into two
    // 8-byte ones from the general-purpose registers it was built from.
    unsafe {
        core::arch::asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack, preserves_flags));
    }
    // SAFETY: the build enables SSE2 (every x86_64 target, and the cfg above on x86), and
    // `dst` is 16 writable bytes (`movdqu` has no alignment requirement).
    unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
}

/// An x86 register width with its engine: detection and the `#[target_feature]` entry point
/// of its module.
pub(crate) trait Width: AesLanes {
    /// Whether the module has a schoolbook shape besides the Karatsuba one.
    const SHAPES: bool;

    /// The engine, with Karatsuba (or, `false`, schoolbook) multiplies.
    fn engine(karatsuba: bool) -> Engine;

    /// Whether this CPU has the module's features (detected once, then cached).
    fn available() -> bool;

    /// Runs `job` in the module's `#[target_feature]` entry point.
    ///
    /// # Safety
    /// `available()` returned true; the job's obligations hold.
    unsafe fn run<J: Job, const KARATSUBA: bool>(job: J) -> J::Output;
}

/// The token of the x86 engine of width `W`: it exists only where `W`'s detection succeeded
/// (its fields are private to this module, and [`Isa::detect`] is the only constructor).
pub(crate) struct X86<W> {
    karatsuba: bool,
    /// Whether a message may leave this (512-bit) engine for the 256-bit one
    /// ([`pace`]): keys made by `KeyInit` on Intel. Read only by the 64-bit build, the one with
    /// 512-bit engines.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        expect(dead_code, reason = "no 512-bit engine on 32-bit x86")
    )]
    paced: bool,
    width: PhantomData<W>,
}

impl<W> Clone for X86<W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W> Copy for X86<W> {}

#[cfg(target_arch = "x86_64")]
impl<W: Width> X86<W> {
    /// The token with the chosen loop shape (only the 512-bit engine has two).
    pub(crate) fn karatsuba(self, karatsuba: bool) -> Self {
        X86 {
            karatsuba: karatsuba || !W::SHAPES,
            ..self
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Vaes512 {
    /// The token whose messages [`pace`] may move to the 256-bit engine.
    pub(crate) fn paced(self) -> Self {
        X86 {
            paced: true,
            ..self
        }
    }

    /// Whether a message of `len` bytes (AAD and text) whose 96-bit nonce folds to `fold`
    /// (`None`: no public nonce) runs on this engine: always, unless the token is paced and
    /// [`pace::wide`] says otherwise.
    #[inline]
    pub(crate) fn runs(self, len: usize, fold: Option<u8>) -> bool {
        !self.paced || pace::wide(len, fold)
    }

    /// [`X86::runs`] as the thread's pacing stands, without reading the clock ([`pace::peek`]).
    #[inline]
    pub(crate) fn runs_now(self, len: usize) -> bool {
        !self.paced || pace::peek(len)
    }
}

/// The AES-NI engine (128-bit registers, x86 and x86_64).
pub(crate) type AesNi = X86<__m128i>;
/// The 256-bit VAES engine.
#[cfg(target_arch = "x86_64")]
pub(crate) type Vaes256 = X86<core::arch::x86_64::__m256i>;
/// The 512-bit VAES engine (both shapes).
#[cfg(target_arch = "x86_64")]
pub(crate) type Vaes512 = X86<core::arch::x86_64::__m512i>;

// SAFETY: `detect` is the only constructor (the fields are private to this module) and returns
// a token only after `W::available()`, the detection of `W`'s module, whose features are those
// of `W::run` (and include AES-NI, SSE2 and SSSE3, which `expand` needs).
unsafe impl<W: Width> Isa for X86<W> {
    const GCM_HALF_BELOW: usize = match W::BLOCKS {
        2 => 1536,
        4 => 4096,
        _ => 0,
    };

    const GCM_GROUPED_BELOW: usize = crate::kernel::grouped_below(W::BLOCKS);

    fn engine(self) -> Engine {
        W::engine(self.karatsuba)
    }

    fn detect() -> Option<Self> {
        W::available().then_some(X86 {
            karatsuba: true,
            paced: false,
            width: PhantomData,
        })
    }

    fn expand(self, aes_key: &[u8]) -> Option<RoundKeys> {
        // SAFETY: every x86 engine's features include AES-NI, SSE2 and SSSE3 (the token proves
        // them).
        unsafe { aesni::expand(aes_key) }
    }

    fn expand_into(self, aes_key: &[u8], out: &mut RoundKeys) -> bool {
        // SAFETY: as `expand`.
        unsafe { aesni::expand_into(aes_key, out) }
    }

    fn expand_e0(self, aes_key: &[u8], out: &mut RoundKeys) -> Option<[u8; 16]> {
        // SAFETY: as `expand`.
        if let Some(e0) = unsafe { aesni::expand_e0(aes_key, out) } {
            return Some(e0);
        }
        crate::engine::expand_then_e0(self, aes_key, out)
    }

    fn siv_message_keys(
        self,
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        mac: &mut [u8; 16],
        out: &mut RoundKeys,
    ) -> bool {
        // SAFETY: as `expand`.
        unsafe { aesni::siv_message_keys(kgk, nonce, mac, out) }
    }

    fn siv_seal_short(
        self,
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> Option<[u8; 16]> {
        // SAFETY: every x86 engine's features include AES-NI, PCLMULQDQ, SSE2 and SSSE3 (the
        // token proves them), those of `siv_short`.
        unsafe { siv_short::seal(kgk, nonce, aad, buffer) }
    }

    unsafe fn run<J: Job>(self, job: J) -> J::Output {
        // SAFETY: the token proves detection; the job's obligations are the caller's.
        unsafe {
            if W::SHAPES && J::SHAPED && !self.karatsuba {
                W::run::<J, false>(job)
            } else {
                W::run::<J, true>(job)
            }
        }
    }
}

/// Writes an x86 engine's module body from its intrinsics: `impl AesLanes for $ty` (the
/// register's [`Lanes`](clmul_core::wide::Lanes) half is `clmul_core`'s), the module's
/// detection and `#[target_feature]` entry point `run` (instantiating a [`Job`] with `$ty` and
/// `$n` registers to an iteration), and `impl Width for $ty`. `($reg, $feat)` is the `asm!`
/// register class of the fence and the feature it needs.
macro_rules! x86_engine {
    (
        lanes: $ty:ident, regs: $n:expr,
        detect: [$($f:tt),+] $(+ ymm [$($y:tt),+])?,
        engines: ($karatsuba:expr, $schoolbook:expr), shapes: $shapes:expr,
        asm: ($reg:ident, $feat:literal),
        add32: $add32:ident, aesenc: $aesenc:ident, aesenclast: $aesenclast:ident
    ) => {
        impl $crate::lanes::AesLanes for $ty {
            const KEY_FIRST: bool = false;

            #[inline(always)]
            unsafe fn add32(a: Self, b: Self) -> Self {
                // SAFETY: the caller runs with this engine's features (in every method below
                // too).
                unsafe { $add32(a, b) }
            }

            #[inline(always)]
            unsafe fn aes_round(x: Self, k: Self) -> Self {
                // SAFETY: as above.
                unsafe { $aesenc(x, k) }
            }

            #[inline(always)]
            unsafe fn aes_last(x: Self, k: Self) -> Self {
                // SAFETY: as above.
                unsafe { $aesenclast(x, k) }
            }

            #[inline(always)]
            unsafe fn fence_asm(v: &mut Self) {
                // SAFETY: forwarded from the caller.
                unsafe { fence_asm(v) }
            }
        }

        /// [`crate::lanes::AesLanes::fence_asm`]: the register class needs its feature enabled
        /// where the `asm!` is.
        ///
        /// # Safety
        /// The CPU has the feature.
        #[inline]
        #[target_feature(enable = $feat)]
        #[cfg_attr(any(miri, ct_taint), allow(dead_code))]
        unsafe fn fence_asm(v: &mut $ty) {
            // SAFETY: the template is empty: no instruction runs, `v` stays in its register.
            unsafe { core::arch::asm!("/* {0} */", inout($reg) *v, options(nomem, nostack, preserves_flags)) };
        }

        clmul_core::target_tier! {
            detect cpuid = [$($f),+] $(+ ymm [$($y),+])?;

            /// Runs `job` on this engine's registers, `$n` to an iteration: every kernel of
            /// the engine is instantiated here.
            ///
            /// # Safety
            /// The job's obligations.
            fn run<J: $crate::engine::Job, const KARATSUBA: bool>(job: J) -> J::Output {
                // SAFETY: this function has the engine's features; the job's obligations are
                // the caller's.
                unsafe { job.run::<$ty, { $n }, KARATSUBA>() }
            }
        }

        impl $crate::x86::Width for $ty {
            const SHAPES: bool = $shapes;

            fn engine(karatsuba: bool) -> $crate::engine::Engine {
                if karatsuba { $karatsuba } else { $schoolbook }
            }

            fn available() -> bool {
                available()
            }

            unsafe fn run<J: $crate::engine::Job, const KARATSUBA: bool>(job: J) -> J::Output {
                // SAFETY: forwarded from the caller (detection and the job's obligations).
                unsafe { run::<J, KARATSUBA>(job) }
            }
        }
    };
}
pub(crate) use x86_engine;

/// Whether the CPU is Intel's (CPUID leaf 0 vendor `GenuineIntel`, read once, by
/// `clmul-core`'s detection module): [`Engine::detect`] gives Intel the
/// 512-bit engine's schoolbook shape (see [`vaes512`]). Under Miri, false.
#[cfg(target_arch = "x86_64")]
pub(crate) fn intel() -> bool {
    clmul_core::__private::is_intel()
}
