//! x86 and x86_64 backends.

pub mod pclmul;
pub mod ymm;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;

/// Whether the CPU is Intel's (CPUID leaf 0 vendor `GenuineIntel`; detected once), for the
/// AES-GCM engines' choices between Intel's and AMD's cores (`aead-engines`). Under Miri:
/// `false`.
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
