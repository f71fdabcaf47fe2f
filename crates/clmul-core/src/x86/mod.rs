//! x86 and x86_64 backends.

pub mod pclmul;
pub mod ymm;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;

/// `a.to_be_bytes()` (a GHASH state's output), byte-reversed in a vector register with SSE2
/// (every x86_64 CPU has it) and written with one 16-byte store. `to_be_bytes` compiles to two
/// 8-byte loads, byte swaps and stores through general registers, and a caller that reads the
/// result as one 16-byte value (as a tag usually is read) then waits for those two stores to
/// reach the cache, on Intel's cores: `uhf_paired`'s GHASH rows at 16 B took 9.2-10.3 ns
/// against 4.9 for POLYVAL's (Intel Xeon, KVM model 0xa7, `lto = "fat"`); a probe that reads
/// the result by halves timed them 0.3-0.5 ns apart.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(miri)))]
#[inline]
pub(crate) fn be_bytes(a: u128) -> [u8; 16] {
    use core::arch::x86_64::*;
    let mut out = [0u8; 16];
    // SAFETY: the build enables SSE2 (the cfg above; part of every x86_64 target); `out` is 16
    // writable bytes, and `storeu` needs no alignment.
    unsafe {
        let v = _mm_set_epi64x((a >> 64) as i64, a as i64);
        // The 32-bit words reversed, then the 16-bit halves of each, then the bytes of each
        // half.
        let v = _mm_shuffle_epi32::<0x1b>(v);
        let v = _mm_shufflehi_epi16::<0xb1>(_mm_shufflelo_epi16::<0xb1>(v));
        let v = _mm_or_si128(_mm_slli_epi16::<8>(v), _mm_srli_epi16::<8>(v));
        _mm_storeu_si128(out.as_mut_ptr().cast(), v);
    }
    out
}

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
