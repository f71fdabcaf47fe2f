//! Run-time detection of VPCLMULQDQ and VAES for 256-bit use.
//!
//! `cpufeatures` 0.3 reports `vpclmulqdq` and `vaes` only when the OS has also enabled the
//! AVX-512 (`zmm`) register state, which is right for their 512-bit forms but hides the
//! 256-bit forms on CPUs without AVX-512 (AMD Zen 3, Intel Alder Lake and later client cores):
//! there the wide AVX2 kernels would never run. This module checks what the 256-bit forms
//! actually need: the CPUID bits (leaf 7, ECX bits 9 and 10; Intel SDM Vol. 2A, CPUID) and the
//! AVX (`ymm`) state enabled in XCR0 (bits 1 and 2, read with `xgetbv` after checking OSXSAVE).
//! Features enabled at compile time count as present, as in `cpufeatures`; under Miri, which
//! cannot execute CPUID, only those do.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::sync::atomic::{AtomicU8, Ordering};

const INIT: u8 = 1;
const VPCLMULQDQ: u8 = 2;
const VAES: u8 = 4;

static CACHE: AtomicU8 = AtomicU8::new(0);

/// VPCLMULQDQ usable on 256-bit registers.
#[inline]
pub fn vpclmulqdq() -> bool {
    cfg!(target_feature = "vpclmulqdq") || flags() & VPCLMULQDQ != 0
}

/// VAES usable on 256-bit registers.
#[inline]
pub fn vaes() -> bool {
    cfg!(target_feature = "vaes") || flags() & VAES != 0
}

/// Whether every feature in `names` (each `"vpclmulqdq"` or `"vaes"`) is usable on 256 bits.
/// Inlined, so that a tier's list of names (constants) folds to its flag tests: every key
/// setup's engine detection asks.
#[inline]
pub fn has_all(names: &[&str]) -> bool {
    names.iter().all(|n| match *n {
        "vpclmulqdq" => vpclmulqdq(),
        "vaes" => vaes(),
        _ => false,
    })
}

#[inline]
fn flags() -> u8 {
    let f = CACHE.load(Ordering::Relaxed);
    if f & INIT != 0 {
        return f;
    }
    let f = INIT | detect();
    CACHE.store(f, Ordering::Relaxed);
    f
}

#[cfg(miri)]
fn detect() -> u8 {
    0
}

#[cfg(not(miri))]
fn detect() -> u8 {
    // SAFETY: CPUID is available on every x86_64 CPU and on every x86 CPU Rust targets
    // (i586 and later); leaf 0 is always valid.
    #[allow(unused_unsafe)]
    let max_leaf = unsafe { __cpuid(0) }.eax;
    if max_leaf < 7 {
        return 0;
    }
    // SAFETY: as above; leaf 1 exists since max_leaf >= 1.
    #[allow(unused_unsafe)]
    let leaf1 = unsafe { __cpuid(1) };
    let osxsave = leaf1.ecx & (1 << 27) != 0;
    let avx = leaf1.ecx & (1 << 28) != 0;
    if !(osxsave && avx) {
        return 0;
    }
    // SAFETY: OSXSAVE is set, so XGETBV is enabled and XCR0 can be read.
    let xcr0 = unsafe { xcr0() };
    if xcr0 & 0b110 != 0b110 {
        return 0;
    }
    // SAFETY: leaf 7 exists since max_leaf >= 7.
    #[allow(unused_unsafe)]
    let leaf7 = unsafe { __cpuid_count(7, 0) };
    let mut f = 0;
    if leaf7.ecx & (1 << 10) != 0 {
        f |= VPCLMULQDQ;
    }
    if leaf7.ecx & (1 << 9) != 0 {
        f |= VAES;
    }
    f
}

/// Reads XCR0.
///
/// # Safety
/// The CPU must report OSXSAVE (CPUID.1:ECX bit 27).
#[cfg(not(miri))]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: the caller checked OSXSAVE, so XGETBV does not fault.
    #[allow(unused_unsafe)]
    unsafe {
        _xgetbv(0)
    }
}
