//! The AES round keys every engine reads ([`RoundKeys`]), below both the dispatch (`fused`)
//! and the kernels. The powers of the hash key are `clmul_core::wide`'s
//! ([`PowerTable`](clmul_core::wide::PowerTable),
//! [`KeptPowers`](clmul_core::wide::KeptPowers)).

/// Expanded AES round keys: `rounds + 1` keys of 16 bytes (at most 15), `rounds` 10, 12 or 14
/// by construction ([`RoundKeys::expand`] and [`RoundKeys::zero`] are the only ways to make
/// one, [`RoundKeys::fill`] the only way to change one).
#[derive(Clone)]
pub(crate) struct RoundKeys {
    rk: [[u8; 16]; 15],
    rounds: usize,
}

#[cfg(feature = "zeroize")]
impl Drop for RoundKeys {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.rk);
    }
}

impl RoundKeys {
    /// FIPS-197 key expansion (section 5.2) of a 16-, 24- or 32-byte key, with `sub_word` the
    /// S-box on each byte of a word, computed by the caller's AES instruction (so no table is
    /// indexed by key bytes). Other key lengths get `None`.
    #[inline(always)]
    pub(crate) fn expand(key: &[u8], sub_word: impl Fn(u32) -> u32) -> Option<Self> {
        // One instance per key length: with `NK` a constant, the schedule's `i % NK` tests are
        // masks and compares, not divisions (AES-GCM-SIV expands a key per message).
        match key.len() {
            16 => Some(Self::expand_nk::<4>(key, sub_word)),
            24 => Some(Self::expand_nk::<6>(key, sub_word)),
            32 => Some(Self::expand_nk::<8>(key, sub_word)),
            _ => None,
        }
    }

    /// [`Self::expand`] of a key of `NK` words.
    #[inline(always)]
    fn expand_nk<const NK: usize>(key: &[u8], sub_word: impl Fn(u32) -> u32) -> Self {
        let rounds = NK + 6;
        let mut w = [0u32; 60];
        for (i, c) in key.chunks_exact(4).take(NK).enumerate() {
            w[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let mut rcon = 1u32;
        for i in NK..4 * (rounds + 1) {
            let mut t = w[i - 1];
            if i % NK == 0 {
                // RotWord then SubWord, XOR Rcon (little-endian words: byte 0 is the low byte).
                t = sub_word(t.rotate_right(8)) ^ rcon;
                rcon = ((rcon << 1) & 0xff) ^ (((rcon >> 7) & 1) * 0x1b);
            } else if NK > 6 && i % NK == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - NK] ^ t;
        }
        let mut rk = [[0u8; 16]; 15];
        for (r, out) in rk.iter_mut().enumerate().take(rounds + 1) {
            for j in 0..4 {
                out[4 * j..4 * j + 4].copy_from_slice(&w[4 * r + j].to_le_bytes());
            }
        }
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut w);
        Self { rk, rounds }
    }

    /// Overwrites the schedule in place with one that `fill` writes into the round keys (its
    /// first `rounds + 1`) and whose round count it returns; the keys past them are zeroed.
    /// `false`, the schedule all zero, if that count is not 10, 12 or 14 (`x86::aesni`'s
    /// schedule of 128- and 256-bit keys in registers).
    #[inline(always)]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(dead_code)
    )]
    pub(crate) fn fill(&mut self, fill: impl FnOnce(&mut [[u8; 16]; 15]) -> usize) -> bool {
        let rounds = fill(&mut self.rk);
        for k in &mut self.rk[(rounds + 1).min(15)..] {
            *k = [0; 16];
        }
        let ok = matches!(rounds, 10 | 12 | 14);
        if ok {
            self.rounds = rounds;
        } else {
            self.rk = [[0; 16]; 15];
        }
        ok
    }

    /// All zero, ten rounds (never used to encrypt: a schedule
    /// to be overwritten in place by `Isa::expand_into`).
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        RoundKeys {
            rk: [[0; 16]; 15],
            rounds: 10,
        }
    }

    /// 10, 12 or 14.
    #[inline(always)]
    pub(crate) fn rounds(&self) -> usize {
        self.rounds
    }

    /// Round key `r` (all zero past `rounds`).
    #[inline(always)]
    pub(crate) fn key(&self, r: usize) -> &[u8; 16] {
        &self.rk[r]
    }
}
