//! The two keyed tables every engine reads, below both the dispatch (`fused`) and the kernels:
//! the AES round keys ([`RoundKeys`]) and the powers of the hash key ([`PowerTable`]).

#[cfg(test)]
use clmul_core::__private::Key;

/// The most powers of H a kernel multiplies by: H^1..H^33. A stride of the widest loop is 32
/// blocks (H^32..H^1); the last register of data and the length block after a bulk of
/// iterations can be 32 + 1 blocks, hashed with one reduction.
pub(crate) const TOP: usize = 33;

/// Zero entries after H^1, so that a register load of up to four powers starting at any
/// power stays inside the table (the lanes past the message meet zero data there).
const PAD: usize = 3;

/// Entries of each table.
const LEN: usize = TOP + PAD;

/// Powers of the hash key H in POLYVAL's field representation, highest first, with their
/// Karatsuba middles: `pow[TOP - k]` is H^k for `1 <= k <= TOP`, `powx[i]` is `lo64 ^ hi64` of
/// `pow[i]` in both halves, and the `PAD` entries after H^1 are zero. The `n` powers for a run
/// of `n` blocks, H^n (first block) down to H^1 (last), are then the contiguous run starting at
/// [`PowerTable::index`]`(n)`, and any register of consecutive powers is one load.
///
/// The same table serves GHASH (H in POLYVAL's domain, `mulX_POLYVAL(ByteReverse(H))`, the
/// data byte-reversed by the kernel) and POLYVAL (H as it is).
#[derive(Clone)]
#[repr(C, align(64))]
pub(crate) struct PowerTable {
    pow: [u128; LEN],
    powx: [u128; LEN],
}

/// A table of zeros, for calls that hash nothing (CTR only), which never read it.
pub(crate) static EMPTY: PowerTable = PowerTable {
    pow: [0; LEN],
    powx: [0; LEN],
};

impl PowerTable {
    /// All zero (a table to be filled, or the AES-GCM-SIV message table before its fill).
    pub(crate) fn zero() -> Self {
        PowerTable {
            pow: [0; LEN],
            powx: [0; LEN],
        }
    }

    /// The table for GHASH's key `h = E_K(0^128)`, its powers computed with the detected
    /// GHASH backend (the reference of the kernel's own fill, in the tests).
    #[cfg(test)]
    pub(crate) fn ghash(h: &[u8; 16]) -> Self {
        Self::from_key(&clmul_core::Ghash::new(h).__full_key())
    }

    /// The power and middle entries, for the kernel's fill of a message's table
    /// (`kernel::fill_table`).
    #[inline(always)]
    pub(crate) fn entries_mut(&mut self) -> (&mut [u128; LEN], &mut [u128; LEN]) {
        (&mut self.pow, &mut self.powx)
    }

    /// The table for POLYVAL's key `h`, with `clmul_core`'s multiplies (the reference of the
    /// kernel's own fill, `engine::polyval_table`, in the tests).
    #[cfg(test)]
    pub(crate) fn polyval(h: &[u8; 16]) -> Self {
        Self::from_key(&clmul_core::Polyval::new(h).__full_key())
    }

    /// H^1..H^32 from `clmul_core`'s table, and H^33 = H^32 * H (one portable multiply).
    #[cfg(test)]
    fn from_key(key: &Key) -> Self {
        let mut t = PowerTable {
            pow: [0; LEN],
            powx: [0; LEN],
        };
        for k in 1..=clmul_core::POWERS {
            t.set(k, key.get(k));
        }
        t.set(
            TOP,
            clmul_core::soft::dot(key.get(clmul_core::POWERS), key.get(1)),
        );
        t
    }

    #[cfg(test)]
    fn set(&mut self, k: usize, v: u128) {
        self.pow[TOP - k] = v;
        self.powx[TOP - k] = middle(v);
    }

    /// H^k, `1 <= k <= TOP`.
    #[cfg(test)]
    pub(crate) fn get(&self, k: usize) -> u128 {
        self.pow[TOP - k]
    }

    /// The index of H^n: a run of `n <= TOP` blocks starts there.
    #[inline(always)]
    pub(crate) const fn index(n: usize) -> usize {
        TOP - n
    }

    /// Four consecutive powers from index `i` (at most `TOP - 1`, the index of H^1; past H^1
    /// come zeros). Bounds-checked: `i` is a compile-time constant in the loops and a public
    /// block count in the tails.
    #[inline(always)]
    pub(crate) fn powers(&self, i: usize) -> &[u128; 4] {
        first4(&self.pow[i..])
    }

    /// The Karatsuba middles of [`Self::powers`]`(i)`.
    #[inline(always)]
    pub(crate) fn middles(&self, i: usize) -> &[u128; 4] {
        first4(&self.powx[i..])
    }
}

/// The Karatsuba middle operand of `v`: `lo64 ^ hi64`, in both halves.
#[cfg(test)]
fn middle(v: u128) -> u128 {
    let x = u128::from((v as u64) ^ ((v >> 64) as u64));
    x | (x << 64)
}

/// The first four entries (panics if there are fewer: never, for `i < TOP`).
#[inline(always)]
fn first4(s: &[u128]) -> &[u128; 4] {
    match s.first_chunk::<4>() {
        Some(c) => c,
        None => panic!("power index past the table"),
    }
}

#[cfg(feature = "zeroize")]
impl Drop for PowerTable {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.pow);
        zeroize::Zeroize::zeroize(&mut self.powx);
    }
}

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
