//! x86 and x86_64 backends.

pub mod pclmul;
pub mod ymm;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;

/// Whether the CPU is Intel's (CPUID leaf 0 vendor `GenuineIntel`; detected once): there
/// `vpshufb` and `vpclmulqdq` share port 5 of the vector units, so the 512-bit backend runs
/// GHASH's long inputs (`avx512::NATURAL_FROM` blocks or more) in its natural bit order
/// (`avx512::GHASH_NATURAL`), which reads blocks with GF2P8AFFINEQB (port 0) instead of a byte
/// shuffle: 4-20% faster from 4 KiB on an AVX-512 Xeon, and no faster below (where its
/// conversions of the powers and the running hash are not paid back). AMD's Zen 4 runs both
/// at the same speed. Under Miri: `false`.
#[cfg(target_arch = "x86_64")]
pub fn is_intel() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    // 0: not yet detected; 1: not Intel; 2: Intel.
    static VENDOR: AtomicU8 = AtomicU8::new(0);
    match VENDOR.load(Ordering::Relaxed) {
        0 => {
            let intel = vendor_is_intel();
            VENDOR.store(1 + u8::from(intel), Ordering::Relaxed);
            intel
        }
        v => v == 2,
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn vendor_is_intel() -> bool {
    // SAFETY: CPUID is available on every x86_64 CPU; leaf 0 is always valid.
    #[allow(unused_unsafe)]
    let leaf0 = unsafe { core::arch::x86_64::__cpuid(0) };
    // "GenuineIntel" in EBX, EDX, ECX.
    (leaf0.ebx, leaf0.edx, leaf0.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e)
}

#[cfg(all(target_arch = "x86_64", miri))]
fn vendor_is_intel() -> bool {
    false
}
