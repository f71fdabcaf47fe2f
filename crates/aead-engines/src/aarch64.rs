//! The stitched kernel ([`crate::kernel`]) on the ARMv8 Cryptography Extensions: AESE/AESMC
//! and PMULL on 128-bit NEON registers, one block per register, eight registers (blocks) per
//! iteration; and the AES key expansion.
//!
//! What ARMv8 changes: `AESE` is AddRoundKey + SubBytes + ShiftRows, with the key *first*, and
//! `AESMC` is MixColumns, so a round is `aesmc(aese(state, k_r))` (cores fuse the adjacent
//! pair) and the last is `aese(state, k_(n-1)) ^ k_n` ([`AesLanes::KEY_FIRST`] shifts the
//! kernel's round keys by one); the registers' PMULL half is `clmul_core::wide`'s. The key
//! schedule's `SubWord` is one `AESE` with a zero key on the word replicated in all four
//! columns (ShiftRows then moves nothing).
//!
//! The stitching interleaves the AES rounds of eight blocks with the PMULL products of the
//! eight blocks hashed in the same iteration, as Linux's arm64 `ghash-ce-core.S` interleaves
//! four blocks of AES with the GHASH of the previous four; the round keys stay in registers
//! (the 32 NEON registers hold them with the data).
//!
//! The only `unsafe` code here is at the intrinsics and raw buffer pointers.
#![allow(unsafe_code)]

use core::arch::aarch64::*;

use crate::engine::{Engine, Isa, Job};
use crate::lanes::AesLanes;
use crate::tables::RoundKeys;

/// [`crate::store_words`]: `lo` and `hi` written to `dst` with one 16-byte NEON store (lane 0
/// first: little-endian).
#[cfg(target_feature = "neon")]
#[inline(always)]
pub(crate) fn store_words(dst: &mut [u8; 16], lo: u64, hi: u64) {
    // SAFETY: the build enables NEON (the cfg above).
    let mut v = unsafe { vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi))) };
    // SAFETY: an empty `asm!` with the value in a vector register, so that the compiler stores
    // it from there rather than as two 8-byte stores from the general-purpose registers.
    unsafe {
        core::arch::asm!("/* {0:v} */", inout(vreg) v, options(pure, nomem, nostack, preserves_flags));
    }
    // SAFETY: NEON, as above; `dst` is 16 writable bytes (`vst1q_u8` stores bytes: no
    // alignment).
    unsafe { vst1q_u8(dst.as_mut_ptr(), v) }
}

/// Registers (blocks) per iteration.
const N: usize = 8;

impl AesLanes for uint8x16_t {
    const KEY_FIRST: bool = true;
    const CACHED_ROUND1: bool = true;

    #[inline(always)]
    unsafe fn load_u32(p: *const u32) -> Self {
        // SAFETY: the caller guarantees four readable bytes at `p`; NEON (the aarch64
        // baseline). A word put in a zero register: one `LDR s` (the load pipes only).
        unsafe { vreinterpretq_u8_u32(vsetq_lane_u32::<0>(p.read_unaligned(), vdupq_n_u32(0))) }
    }

    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: NEON.
        unsafe { vreinterpretq_u8_u32(vaddq_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b))) }
    }

    #[inline(always)]
    unsafe fn aes_round(x: Self, k: Self) -> Self {
        // SAFETY: the caller runs with this engine's features.
        unsafe { aese_aesmc(x, k) }
    }

    #[inline(always)]
    unsafe fn aes_last(x: Self, k: Self) -> Self {
        // SAFETY: as above.
        unsafe { aese(x, k) }
    }

    #[inline(always)]
    unsafe fn fence_asm(v: &mut Self) {
        // SAFETY: the template is empty: no instruction runs, `v` stays in its register.
        unsafe {
            core::arch::asm!(
                "/* {0:v} */",
                inout(vreg) * v,
                options(nomem, nostack, preserves_flags)
            )
        };
    }
}

clmul_core::target_tier! {
    detect cpuid = ["aes"];

    // The instructions of the `aes` feature, for the `AesLanes` methods (which have no target
    // features of their own: an intrinsic marked `#[inline(always)]` needs them at its call).

    /// One full round: AESE then AESMC.
    #[inline]
    fn aese_aesmc(x: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
        vaesmcq_u8(vaeseq_u8(x, k))
    }

    /// AESE alone (the last round).
    #[inline]
    fn aese(x: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
        vaeseq_u8(x, k)
    }

    #[inline]
    fn sub_word(w: u32) -> u32 {
        let v = vaeseq_u8(vreinterpretq_u8_u32(vdupq_n_u32(w)), vdupq_n_u8(0));
        vgetq_lane_u32::<0>(vreinterpretq_u32_u8(v))
    }

    /// FIPS-197 key expansion for 16-, 24- and 32-byte keys.
    fn expand(key: &[u8]) -> Option<RoundKeys> {
        RoundKeys::expand(key, |w| sub_word(w))
    }

    /// AES-GCM-SIV's message keys (RFC 8452, section 4) under the key-generating key whose
    /// round keys are `kgk`: the derivation blocks `LE32(i) || nonce` encrypted side by side,
    /// their first halves paired in registers and stored whole (the authentication key to
    /// `mac`, the encryption key to a stack buffer that the word-by-word expansion into `out`
    /// reads). For AES-128 and AES-256 keys; `false`, nothing written, for AES-192.
    fn siv_message_keys(
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        mac: &mut [u8; 16],
        out: &mut RoundKeys,
    ) -> bool {
        let rounds = kgk.rounds();
        let n = match rounds {
            10 => 4,
            14 => 6,
            _ => return false,
        };
        let load = |b: &[u8; 16]| {
            // SAFETY: 16 readable bytes.
            unsafe { vld1q_u8(b.as_ptr()) }
        };
        let mut base = [0u8; 16];
        base[4..].copy_from_slice(nonce);
        let base = load(&base);
        let mut x = [base; 6];
        for (i, v) in x.iter_mut().enumerate() {
            *v = vsetq_lane_u8::<0>(i as u8, base);
        }
        for r in 0..rounds - 1 {
            let k = load(kgk.key(r));
            for v in &mut x[..n] {
                *v = aese_aesmc(*v, k);
            }
        }
        let (k, last) = (load(kgk.key(rounds - 1)), load(kgk.key(rounds)));
        for v in &mut x[..n] {
            *v = veorq_u8(aese(*v, k), last);
        }
        let pair = |a: uint8x16_t, b: uint8x16_t| vcombine_u8(vget_low_u8(a), vget_low_u8(b));
        let mut key = [0u8; 32];
        // SAFETY: `mac` and both halves of `key` are 16 writable bytes.
        unsafe {
            vst1q_u8(mac.as_mut_ptr(), pair(x[0], x[1]));
            vst1q_u8(key.as_mut_ptr(), pair(x[2], x[3]));
            vst1q_u8(key[16..].as_mut_ptr(), pair(x[4], x[5]));
        }
        let len = 4 * (rounds - 6);
        let ok = match RoundKeys::expand(&key[..len], |w| sub_word(w)) {
            Some(rk) => {
                *out = rk;
                true
            }
            None => false,
        };
        crate::wipe::wipe(&mut key);
        ok
    }

    /// Runs `job` on NEON registers, eight to an iteration (Karatsuba): every kernel of the
    /// engine is instantiated here.
    ///
    /// # Safety
    /// The job's obligations.
    fn run<J: Job>(job: J) -> J::Output {
        // SAFETY: this function has the engine's features; the job's obligations are the
        // caller's.
        unsafe { job.run::<uint8x16_t, N, true>() }
    }
}

/// The same kernels compiled with FEAT_SHA3 as well (Neoverse V1/V2/N2, Apple M1 and later):
/// LLVM fuses each `a ^ b ^ c` of the kernel (the accumulators' sums, the reduction, the last
/// AES round's key and data) into one three-way `EOR3`, which is what the vector pipes spend
/// fewer operations on. The kernel's source is the same as the plain tier's.
mod eor3 {
    use super::{Job, N, uint8x16_t};

    clmul_core::target_tier! {
        detect cpuid_eor3 = ["aes", "sha2", "sha3"];

        /// [`super::run`] with `EOR3`.
        ///
        /// # Safety
        /// The job's obligations.
        pub(super) fn run<J: Job>(job: J) -> J::Output {
            // SAFETY: this function has the engine's features (the plain tier's and SHA3);
            // the job's obligations are the caller's.
            unsafe { job.run::<uint8x16_t, N, true>() }
        }
    }
}

/// This engine's token: it exists only where the ARMv8 AES and PMULL instructions are, and
/// with `eor3` only where SHA3 is too.
#[derive(Clone, Copy)]
pub(crate) struct Armv8 {
    eor3: bool,
}

impl Armv8 {
    /// The token of the `EOR3` shape, if this CPU has FEAT_SHA3 (and the plain tier's
    /// features).
    pub(crate) fn detect_eor3() -> Option<Self> {
        (available() && eor3::available()).then_some(Armv8 { eor3: true })
    }
}

// SAFETY: `detect` and `detect_eor3` are the only constructors (the field is private to this
// module); `detect` returns a token only after `available()`, which checks every feature of
// this module's functions, and `detect_eor3` one with `eor3` set only after `eor3::available()`
// too, which checks every feature of `eor3::run`.
unsafe impl Isa for Armv8 {
    fn engine(self) -> Engine {
        if self.eor3 {
            Engine::Armv8Eor3
        } else {
            Engine::Armv8
        }
    }

    fn detect() -> Option<Self> {
        available().then_some(Armv8 { eor3: false })
    }

    fn expand(self, aes_key: &[u8]) -> Option<RoundKeys> {
        // SAFETY: the token proves the features.
        unsafe { expand(aes_key) }
    }

    fn siv_message_keys(
        self,
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        mac: &mut [u8; 16],
        out: &mut RoundKeys,
    ) -> bool {
        // SAFETY: the token proves the features.
        unsafe { siv_message_keys(kgk, nonce, mac, out) }
    }

    unsafe fn run<J: Job>(self, job: J) -> J::Output {
        // SAFETY: the token proves the features (SHA3's too when `eor3` is set); the job's
        // obligations are the caller's.
        unsafe { if self.eor3 { eor3::run(job) } else { run(job) } }
    }
}
