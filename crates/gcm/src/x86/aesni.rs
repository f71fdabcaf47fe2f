//! AES round keys (FIPS-197 key expansion) with AES-NI, and single blocks.
//!
//! The expansion is the word-by-word schedule of FIPS-197 §5.2 for 128-, 192- and 256-bit
//! keys; `SubWord` is computed by `aeskeygenassist` (the AES S-box in hardware), so no table is
//! indexed by key bytes.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// Expanded AES round keys: `rounds + 1` 16-byte keys (at most 15).
#[derive(Clone)]
pub(crate) struct RoundKeys {
    /// The round keys, in memory order (the bytes `aesenc` takes).
    pub(crate) rk: [[u8; 16]; 15],
    /// 10, 12 or 14.
    pub(crate) rounds: usize,
}

#[cfg(feature = "zeroize")]
impl Drop for RoundKeys {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.rk);
    }
}

clmul_core::target_tier! {
    detect cpuid = ["aes", "sse2"];

    #[inline]
    fn sub_word(w: u32) -> u32 {
        // aeskeygenassist's dword 0 is SubWord(X1), X1 being dword 1 of its input.
        let v = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
        _mm_cvtsi128_si32(v) as u32
    }

    /// Expands a 16-, 24- or 32-byte key. Other lengths are the caller's bug (the caller's key
    /// type fixes the length); they get `None`.
    pub(crate) fn expand(key: &[u8]) -> Option<RoundKeys> {
        let nk = key.len() / 4;
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        let rounds = nk + 6;
        let total = 4 * (rounds + 1);
        let mut w = [0u32; 60];
        for (i, c) in key.chunks_exact(4).enumerate() {
            w[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let mut rcon = 1u32;
        for i in nk..total {
            let mut t = w[i - 1];
            if i % nk == 0 {
                // RotWord then SubWord, XOR Rcon (little-endian words: byte 0 is the low byte).
                t = sub_word(t.rotate_right(8)) ^ rcon;
                rcon = ((rcon << 1) & 0xff) ^ (((rcon >> 7) & 1) * 0x1b);
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut rk = [[0u8; 16]; 15];
        for (r, out) in rk.iter_mut().enumerate().take(rounds + 1) {
            for j in 0..4 {
                out[4 * j..4 * j + 4].copy_from_slice(&w[4 * r + j].to_le_bytes());
            }
        }
        Some(RoundKeys { rk, rounds })
    }

    /// Encrypts one block.
    pub(crate) fn encrypt_block(keys: &RoundKeys, block: &[u8; 16]) -> [u8; 16] {
        let load = |b: &[u8; 16]| {
            // SAFETY: 16 readable bytes, unaligned load.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        };
        let mut x = _mm_xor_si128(load(block), load(&keys.rk[0]));
        for r in 1..keys.rounds {
            x = _mm_aesenc_si128(x, load(&keys.rk[r]));
        }
        x = _mm_aesenclast_si128(x, load(&keys.rk[keys.rounds]));
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes, unaligned store.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
        out
    }
}

/// Our key schedule for `key`, if AES-NI is there, `key` has an AES length and the schedule
/// reproduces `h = E_K(0^128)` (which proves the caller's cipher is AES under `key`). The
/// comparison is constant time.
pub(crate) fn checked_schedule(key: &[u8], h: &[u8; 16]) -> Option<RoundKeys> {
    if !available() {
        return None;
    }
    // SAFETY: detection of AES-NI succeeded just above.
    let keys = unsafe { expand(key) }?;
    // SAFETY: as above.
    let e0 = unsafe { encrypt_block(&keys, &[0; 16]) };
    ctutils::CtEq::ct_eq(&e0[..], &h[..])
        .to_bool()
        .then_some(keys)
}
