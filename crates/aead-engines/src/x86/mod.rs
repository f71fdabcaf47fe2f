//! x86/x86_64 engines: the [`Lanes`](crate::lanes::Lanes) of each register width with the
//! entry points of the stitched kernel, and the AES-NI key expansion they share.
//!
//! The x86 `unsafe` code of the crate lives here, next to the intrinsics.
#![allow(unsafe_code)]

pub(crate) mod aesni;
pub(crate) mod aesni_gcm;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vaes256;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vaes512;

/// Whether the CPU is Intel's (CPUID leaf 0 vendor `GenuineIntel`): the 512-bit engine's loop
/// shape follows the vendor's execution ports (see [`vaes512`]). Read once, then cached. Under
/// Miri, which cannot execute CPUID, false.
#[cfg(target_arch = "x86_64")]
fn intel() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    static CACHE: AtomicU8 = AtomicU8::new(0);
    match CACHE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let intel = vendor_is_intel();
            CACHE.store(1 + u8::from(intel), Ordering::Relaxed);
            intel
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn vendor_is_intel() -> bool {
    // SAFETY: CPUID leaf 0 exists on every x86_64 CPU (the intrinsic is safe on newer Rust).
    #[allow(unused_unsafe)]
    let r = unsafe { core::arch::x86_64::__cpuid(0) };
    // "GenuineIntel" in EBX, EDX, ECX.
    (r.ebx, r.edx, r.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e)
}

#[cfg(all(target_arch = "x86_64", miri))]
fn vendor_is_intel() -> bool {
    false
}
