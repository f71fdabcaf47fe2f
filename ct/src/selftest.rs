//! Seeded leaks: the checker must report each of them on every run, or it is blind and the
//! whole check means nothing.
//!
//! - `leak-*` operations branch on, or index memory with, a secret: each must be reported.
//!   Besides a plain branch and table lookup on a secret byte, they branch on a bit of a hash
//!   output computed by each backend in each GHASH domain it has (after its reduction) and
//!   of a tag computed by each
//!   engine, so that the secret marking is shown to survive every kernel, and they index a
//!   table with a byte of a secret held in a 256- and a 512-bit register, inside
//!   `#[target_feature]` functions (MSan instruments those like any other code).
//! - `clean-*` computes on a secret without branching or indexing: must not be reported.
//! - `lost-*` (MSan) launders a secret through an `asm!` block, whose outputs MSan counts as
//!   public: the harness must notice the missing marking.
//!
//! `leaky_branch`, `leaky_lookup` and `leaky_wide_lookup_avx2` are also the seeded bad
//! functions of the disassembly check of `cargo xtask ct`, which must flag them.

use crate::{Mode, Rng, build, engine_name, op, taint};
use aes_gcm::__Engine as Engine;
use aes_gcm::aead::AeadInOut;
use aes_gcm::aead::consts::U12;
use clmul_core::Backend;
use std::hint::black_box;
use std::ptr::read_volatile;

/// A table as a table-based AES S-box would have.
static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(7);
        i += 1;
    }
    t
};

/// Branches on a secret bit.
#[inline(never)]
pub fn leaky_branch(secret: &[u8]) -> u32 {
    // SAFETY: `secret` is a live slice of at least one byte (the callers' arrays); the
    // volatile read keeps the byte from being folded into a branch-free select.
    if unsafe { read_volatile(&secret[0]) } & 1 == 1 {
        black_box(17)
    } else {
        black_box(42)
    }
}

/// Reads a table at a secret index (a cache-timing leak, like a table-based AES S-box).
#[inline(never)]
pub fn leaky_lookup(secret: &[u8; 16]) -> u8 {
    // SAFETY: `secret[3]` is a live byte.
    TABLE[usize::from(unsafe { read_volatile(&secret[3]) })]
}

/// Reads a table at an index taken from a secret in a 256-bit register (the sign bits of a
/// byte shuffle of the secret by itself, which the compiler cannot turn into scalar code).
#[inline(never)]
#[target_feature(enable = "avx2")]
#[cfg(target_arch = "x86_64")]
pub fn leaky_wide_lookup_avx2(secret: &[u8; 32]) -> u8 {
    use core::arch::x86_64::*;
    // SAFETY: 32 readable bytes, unaligned load.
    let v = unsafe { _mm256_loadu_si256(secret.as_ptr().cast()) };
    let v = _mm256_shuffle_epi8(v, _mm256_xor_si256(v, _mm256_set1_epi8(0x5c)));
    TABLE[(_mm256_movemask_epi8(v) & 0xff) as usize]
}

/// Reads a table at an index taken from a secret in a 512-bit register.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
#[cfg(target_arch = "x86_64")]
pub fn leaky_wide_lookup_avx512(secret: &[u8; 64]) -> u8 {
    use core::arch::x86_64::*;
    // SAFETY: 64 readable bytes, unaligned load.
    let v = unsafe { _mm512_loadu_si512(secret.as_ptr().cast()) };
    let v = _mm512_shuffle_epi8(v, _mm512_set1_epi8(9));
    TABLE[(_mm_cvtsi128_si32(_mm512_castsi512_si128(v)) & 0xff) as usize]
}

/// Passes `v` through an empty `asm!` block.
#[inline(never)]
fn launder(mut v: u64) -> u64 {
    // SAFETY: the template is empty: no instruction runs and `v` stays in its register.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) v, options(nomem, nostack, preserves_flags))
    };
    v
}

/// Runs every seeded leak on secrets.
pub fn run() {
    let mut s = [0u8; 64];
    Rng(1).fill(&mut s);
    taint::secret(&mut s);
    op("selftest", "leak-branch", || {
        let mut r = leaky_branch(&s);
        taint::public(&mut r);
    });
    op("selftest", "leak-lookup", || {
        let mut r = leaky_lookup(s[..16].try_into().expect("16 bytes"));
        taint::public(&mut r);
    });
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            op("selftest", "leak-wide-lookup-avx2", || {
                // SAFETY: AVX2 was detected just above.
                let mut r =
                    unsafe { leaky_wide_lookup_avx2(s[..32].try_into().expect("32 bytes")) };
                taint::public(&mut r);
            });
        }
        if std::arch::is_x86_feature_detected!("avx512bw") {
            op("selftest", "leak-wide-lookup-avx512", || {
                // SAFETY: AVX-512F and BW were detected just above (BW implies F).
                let mut r = unsafe { leaky_wide_lookup_avx512(&s) };
                taint::public(&mut r);
            });
        }
    }
    // A branch on the output of every backend and engine, the key alone secret.
    let mut data = [[0u8; 16]; 45];
    for b in &mut data {
        Rng(2).fill(b);
    }
    for b in Backend::available() {
        op("selftest", &format!("leak-branch-after-{}", b.name()), || {
            let mut k: [u8; 16] = s[..16].try_into().expect("16 bytes");
            taint::secret(&mut k);
            let mut h = clmul_core::Ghash::with_backend(&k, b).expect("available");
            h.update(&data);
            let out = h.finalize();
            let mut r = leaky_branch(&out);
            taint::public(&mut r);
            k.fill(0);
        });
    }
    let key = aes_gcm::Key::<aes::Aes128>::from(<[u8; 16]>::try_from(&s[16..32]).expect("16"));
    let mut modes: Vec<(String, Mode)> = vec![("generic".into(), Mode::Generic(Backend::detect()))];
    modes.extend(
        Engine::available()
            .filter(|&e| e != Engine::Generic)
            .map(|e| (engine_name(e), Mode::Fused(e))),
    );
    for (name, mode) in modes {
        op("selftest", &format!("leak-branch-after-{name}"), || {
            let mut k = key;
            taint::secret(&mut k);
            let g = build::<aes::Aes128, U12>(&k, mode);
            let mut buf = vec![0u8; 700];
            let tag = g
                .encrypt_inout_detached(&[3u8; 12].into(), b"aad", buf.as_mut_slice().into())
                .expect("encrypt");
            let mut r = leaky_branch(&tag);
            taint::public(&mut r);
        });
    }
    // A constant-time select on the same secret must not be reported.
    op("selftest", "clean-select", || {
        // SAFETY: a live byte.
        let m = 0u8.wrapping_sub(unsafe { read_volatile(&s[0]) } & 1);
        let mut r = (m & 17) | (!m & 42);
        taint::public(&mut r);
        black_box(r);
    });
    // MSan only: a secret laundered through `asm!` comes out unmarked, which the harness
    // must notice (Valgrind follows the instructions, so the marking survives there).
    if cfg!(ct_taint) {
        op("selftest", "lost-asm", || {
            let v = u64::from_le_bytes(s[..8].try_into().expect("8 bytes"));
            let mut out = launder(v).to_le_bytes();
            taint::expect_secret(&out);
            taint::public(&mut out);
        });
    }
}
