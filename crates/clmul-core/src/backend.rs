//! Which implementation runs, and run-time detection.

/// A carry-less multiplication backend.
///
/// A `Backend` value is only a name: a keyed state built with [`crate::Polyval::with_backend`]
/// checks [`Backend::is_available`] before storing it, and the hot path relies on that check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable constant-time code ([`crate::soft`]).
    Portable,
    /// 128-bit PCLMULQDQ.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Pclmul,
    /// 256-bit VPCLMULQDQ with AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 512-bit VPCLMULQDQ with AVX-512.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// ARMv8 PMULL (`vmull_p64`), on little-endian aarch64 (as the fused engines: its loads
    /// and its moves between `u128` and vector registers are written for that byte order;
    /// big-endian aarch64 runs the portable backend).
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Pmull,
    /// ARMv8 PMULL with FEAT_SHA3's three-way `EOR3` (Neoverse V1/V2/N2, Apple M1 and later):
    /// the same wide hash compiled with SHA3, where LLVM fuses its XOR trees into `EOR3`
    /// (llvm-mca, GHASH in strides of 8 blocks, `cargo xtask mca`: 9.2 cycles per 64 bytes
    /// against [`Backend::Pmull`]'s 11.1 on `neoverse-v1` and `neoverse-v2`), as
    /// `aead-engines`' EOR3 engine does for the stitched AES-GCM loop. What
    /// [`Backend::detect`] picks where the CPU has SHA3.
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    PmullEor3,
}

use core::sync::atomic::{AtomicU8, Ordering};

/// [`Backend::detect`]'s result: 0 before detection, otherwise 1 + its index in
/// [`Backend::ALL`].
static DETECTED: AtomicU8 = AtomicU8::new(0);

impl Backend {
    /// Every backend compiled for this target, slowest first.
    pub const ALL: &'static [Backend] = &[
        Backend::Portable,
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::Pclmul,
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2,
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512,
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Backend::Pmull,
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Backend::PmullEor3,
    ];

    /// Whether this CPU can run the backend (the result of detection is cached).
    #[inline]
    pub fn is_available(self) -> bool {
        match self {
            Backend::Portable => true,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Pclmul => crate::x86::pclmul::available(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => crate::x86::avx2::available(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => crate::x86::avx512::available(),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Pmull => crate::aarch64::pmull::available(),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::PmullEor3 => crate::aarch64::pmull::eor3::available(),
        }
    }

    /// The backends this CPU can run, slowest first.
    pub fn available() -> impl Iterator<Item = Backend> {
        Self::ALL.iter().copied().filter(|b| b.is_available())
    }

    /// The fastest backend this CPU can run (detected once, then one relaxed atomic load);
    /// always [`Backend::Portable`] in a build with `--cfg polyval_backend="soft"`.
    #[inline]
    pub fn detect() -> Backend {
        if cfg!(polyval_backend = "soft") {
            return Backend::Portable;
        }
        match DETECTED.load(Ordering::Relaxed) {
            0 => Self::detect_first(),
            i => Self::ALL[usize::from(i - 1)],
        }
    }

    /// [`Self::detect`]'s first call: runs detection and caches the result. Out of line, so
    /// that every later call is the load and a table lookup.
    #[cold]
    #[inline(never)]
    fn detect_first() -> Backend {
        let b = Self::available().last().unwrap_or(Backend::Portable);
        let i = Self::ALL.iter().position(|&a| a == b).unwrap_or(0);
        DETECTED.store(i as u8 + 1, Ordering::Relaxed);
        b
    }

    /// The target features the backend checks at run time and enables in its kernels.
    pub fn features(self) -> &'static [&'static str] {
        match self {
            Backend::Portable => &[],
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Pclmul => crate::x86::pclmul::FEATURES,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => crate::x86::avx2::FEATURES,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => crate::x86::avx512::FEATURES,
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Pmull => crate::aarch64::pmull::FEATURES,
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::PmullEor3 => crate::aarch64::pmull::eor3::FEATURES,
        }
    }

    /// A short lowercase name (`portable`, `pclmul`, `avx2`, `avx512`, `pmull`, `pmull-eor3`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Pclmul => "pclmul",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => "avx512",
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Pmull => "pmull",
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::PmullEor3 => "pmull-eor3",
        }
    }
}

/// A backend this CPU runs: the constructors are [`Available::new`] (after
/// [`Backend::is_available`]), [`Available::detected`] (detection's pick, which is one of
/// [`Backend::available`] by construction) and [`Available::portable`]; the field is private
/// to this module. Holding one proves the CPU has every target feature of that backend's
/// kernels: it is what a keyed state stores and what its `unsafe` calls of the kernels rest
/// on.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Available(Backend);

impl Available {
    /// `backend`, if this CPU runs it.
    #[inline]
    pub(crate) fn new(backend: Backend) -> Option<Self> {
        backend.is_available().then_some(Available(backend))
    }

    /// The detected backend ([`Backend::detect`]: the last of [`Backend::available`], or the
    /// portable one).
    #[inline]
    pub(crate) fn detected() -> Self {
        Available(Backend::detect())
    }

    /// The portable backend, which every CPU runs.
    #[inline]
    pub(crate) fn portable() -> Self {
        Available(Backend::Portable)
    }

    /// The backend.
    #[inline]
    pub(crate) fn get(self) -> Backend {
        self.0
    }
}

impl core::fmt::Display for Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
