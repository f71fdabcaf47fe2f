//! AES round keys (FIPS-197 key expansion) with AES-NI, for every x86 engine.
//!
//! AES-128 and AES-256 keys (the sizes AES-GCM-SIV expands for every message) are expanded in
//! registers: each new round key is the previous one (two back for AES-256) with its words
//! prefix-XORed (three byte shifts and XORs), XORed with `RotWord(SubWord(w)) ^ Rcon` of the
//! last word `w` in all four words for a new group of words, or plain `SubWord(w)` for
//! AES-256's middle step. The S-box runs on `aesenclast` with `w` (rotated, by a byte shuffle)
//! in all four columns, where ShiftRows moves nothing and the round key adds `Rcon`: a
//! shorter chain than `aeskeygenassist`'s (the technique of OpenSSL's and BoringSSL's
//! `_aesni_set_encrypt_key` "alt" path), which matters because every round key waits for the
//! one before. The rounds are unrolled, `Rcon` a constant in each. AES-192 keys (and
//! every key in the MemorySanitizer check's build) go word by word (FIPS-197 §5.2,
//! `RoundKeys::expand`), `SubWord` by `aeskeygenassist` or `aesenclast`. No table is indexed
//! by key bytes.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::tables::RoundKeys;

clmul_core::target_tier! {
    detect cpuid = ["aes", "sse2", "ssse3"];

    /// The AES S-box on each byte of `w`: [`sub_word_keygenassist`], or in the MemorySanitizer
    /// check's build (`ct_taint`) [`sub_word_enclast`], because MSan checks `aeskeygenassist`'s
    /// operand strictly and would report, then drop, the key's secret marking.
    #[inline]
    fn sub_word(w: u32) -> u32 {
        if cfg!(ct_taint) { sub_word_enclast(w) } else { sub_word_keygenassist(w) }
    }

    /// SubWord with `aeskeygenassist`: its dword 0 is SubWord(X1), X1 being dword 1 of its
    /// input.
    #[inline]
    fn sub_word_keygenassist(w: u32) -> u32 {
        let v = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
        _mm_cvtsi128_si32(v) as u32
    }

    /// SubWord with `aesenclast` on `w` in all four columns and a zero round key: ShiftRows
    /// only moves bytes between columns, which are equal, so each column comes out as
    /// SubBytes of `w`.
    #[inline]
    fn sub_word_enclast(w: u32) -> u32 {
        let v = _mm_aesenclast_si128(_mm_set1_epi32(w as i32), _mm_setzero_si128());
        _mm_cvtsi128_si32(v) as u32
    }

    /// `k`'s words prefix-XORed: word `i` becomes `k_0 ^ .. ^ k_i`, the part of a new round key
    /// that comes from the one before (FIPS-197's `w[i] = w[i - Nk] ^ w[i - 1]`, four at once).
    #[inline]
    fn prefix(k: __m128i) -> __m128i {
        let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        _mm_xor_si128(k, _mm_slli_si128::<8>(k))
    }

    /// The first 16 bytes of `b`, loaded as two 8-byte halves: AES-GCM-SIV's derived key is
    /// written in 8-byte halves just before, and a 16-byte load of two such stores would miss
    /// store-to-load forwarding (some 15 cycles of every message).
    #[inline]
    pub(crate) fn load(b: &[u8]) -> __m128i {
        let b: &[u8; 16] = b.first_chunk().expect("16 bytes");
        // SAFETY: 16 readable bytes, read as two 8-byte loads; no alignment needed.
        unsafe {
            let lo = _mm_loadl_epi64(b.as_ptr().cast());
            let hi = _mm_loadl_epi64(b[8..].as_ptr().cast());
            _mm_unpacklo_epi64(lo, hi)
        }
    }

    #[inline]
    fn store(b: &mut [u8; 16], v: __m128i) {
        // SAFETY: 16 writable bytes; no alignment needed.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
    }

    /// Expands a 16-, 24- or 32-byte key (other lengths get `None`).
    pub(crate) fn expand(key: &[u8]) -> Option<RoundKeys> {
        let mut rk = RoundKeys::zero();
        expand_into(key, &mut rk).then_some(rk)
    }

    /// Expands a 16-, 24- or 32-byte key into `out`, in place; `false`, `out` unchanged, for
    /// another length.
    pub(crate) fn expand_into(key: &[u8], out: &mut RoundKeys) -> bool {
        // The MemorySanitizer check's build (`ct_taint`) takes the word schedule with its
        // `aesenclast` SubWord: MSan checks `aeskeygenassist`'s operand strictly.
        if key.len() == 24 || cfg!(ct_taint) {
            return match RoundKeys::expand(key, |w| sub_word(w)) {
                Some(rk) => {
                    *out = rk;
                    true
                }
                None => false,
            };
        }
        if key.len() != 16 && key.len() != 32 {
            return false;
        }
        out.fill(|rk| {
            if key.len() == 16 {
                schedule128(load(key), rk)
            } else {
                schedule256(load(&key[..16]), load(&key[16..]), rk)
            }
        })
    }

    /// The round key after `prev`, from the last word `w3` of `last`: with `SEL` 0xff
    /// `RotWord(SubWord(w3)) ^ RCON` (a new group of words), with 0xaa `SubWord(w3)` alone
    /// (AES-256's middle step), in every word, XORed into `prev`'s prefix-XORed words.
    #[inline]
    fn next_key<const RCON: i32, const SEL: i32>(prev: __m128i, last: __m128i) -> __m128i {
        // `w3` in all four columns, rotated by a byte (`RotWord`) for a new group: bytes
        // 13, 14, 15, 12 in every word.
        let w = if SEL == 0xff {
            _mm_shuffle_epi8(last, _mm_set1_epi32(0x0c0f_0e0d))
        } else {
            _mm_shuffle_epi32::<0xff>(last)
        };
        // SubBytes of equal columns, ShiftRows a no-op, then `RCON` in every word.
        let assist = _mm_aesenclast_si128(w, _mm_set1_epi32(RCON));
        _mm_xor_si128(prefix(prev), assist)
    }

    /// The round keys of the AES-128 key `k` (in a register) into `rk`; returns 10, the
    /// rounds.
    #[inline]
    fn schedule128(k: __m128i, rk: &mut [[u8; 16]; 15]) -> usize {
        schedule128_with(k, rk, |_| {})
    }

    /// [`schedule128`], calling `between` with each round key after the first as it is made:
    /// another computation's steps interleaved with the schedule's chain (AES-GCM-SIV's
    /// POLYVAL of a short message, in `x86::siv_short`; `E_K(0)`'s rounds, [`expand_e0`]).
    #[inline]
    pub(crate) fn schedule128_with(
        k: __m128i,
        rk: &mut [[u8; 16]; 15],
        mut between: impl FnMut(__m128i),
    ) -> usize {
        let mut k = k;
        store(&mut rk[0], k);
        macro_rules! round {
            ($($rcon:literal => $i:literal),*) => {$(
                k = next_key::<$rcon, 0xff>(k, k);
                store(&mut rk[$i], k);
                between(k);
            )*};
        }
        round!(0x01 => 1, 0x02 => 2, 0x04 => 3, 0x08 => 4, 0x10 => 5, 0x20 => 6, 0x40 => 7,
               0x80 => 8, 0x1b => 9, 0x36 => 10);
        10
    }

    /// The round keys of the AES-256 key `a || b` (in registers) into `rk`; returns 14, the
    /// rounds.
    #[inline]
    fn schedule256(a: __m128i, b: __m128i, rk: &mut [[u8; 16]; 15]) -> usize {
        schedule256_with(a, b, rk, |_, _| {})
    }

    /// [`schedule256`], calling `between` with each pair of round keys after the first two
    /// (`rk[2i]`, `rk[2i + 1]`, for `i` 1 to 6) as it is made (see [`schedule128_with`]); the
    /// last key, `rk[14]`, is made after them.
    #[inline]
    pub(crate) fn schedule256_with(
        a: __m128i,
        b: __m128i,
        rk: &mut [[u8; 16]; 15],
        mut between: impl FnMut(__m128i, __m128i),
    ) -> usize {
        let (mut a, mut b) = (a, b);
        store(&mut rk[0], a);
        store(&mut rk[1], b);
        // Each new group of words (`a`), then AES-256's middle step (`b`); the last round key
        // is a group's alone.
        macro_rules! round {
            ($($rcon:literal => $i:literal),*) => {$(
                a = next_key::<$rcon, 0xff>(a, b);
                store(&mut rk[$i], a);
                b = next_key::<0x00, 0xaa>(b, a);
                store(&mut rk[$i + 1], b);
                between(a, b);
            )*};
        }
        round!(0x01 => 2, 0x02 => 4, 0x04 => 6, 0x08 => 8, 0x10 => 10, 0x20 => 12);
        store(&mut rk[14], next_key::<0x40, 0xff>(a, b));
        14
    }

    /// [`expand_into`] and `E_K(0^128)` (GCM's hash key block) in one call: for AES-128 and
    /// AES-256 keys the block's rounds run as the schedule makes their keys, each round one
    /// `aesenc` behind its key instead of the ten or fourteen of a block encrypted after the
    /// schedule (key setup's latency chain: schedule, `E_K(0)`, the powers of H). `None`,
    /// `out` unchanged, for any other key (AES-192, or not AES's length) and in the
    /// MemorySanitizer check's build (whose schedule is the word-by-word one, see
    /// [`expand_into`]): the caller expands, then encrypts (`engine::expand_then_e0`).
    pub(crate) fn expand_e0(key: &[u8], out: &mut RoundKeys) -> Option<[u8; 16]> {
        if cfg!(ct_taint) || (key.len() != 16 && key.len() != 32) {
            return None;
        }
        // The zero block XOR the first round key is that key; then a round with each key as
        // it is made, the last one's `aesenclast`.
        let mut x = load(key);
        let filled = out.fill(|rk| {
            if key.len() == 16 {
                let mut n = 0;
                schedule128_with(x, rk, |k| {
                    n += 1;
                    x = if n < 10 { _mm_aesenc_si128(x, k) } else { _mm_aesenclast_si128(x, k) };
                })
            } else {
                let (a, b) = (load(&key[..16]), load(&key[16..]));
                x = _mm_aesenc_si128(x, b);
                schedule256_with(a, b, rk, |a, b| {
                    x = _mm_aesenc_si128(_mm_aesenc_si128(x, a), b);
                })
            }
        });
        if !filled {
            return None;
        }
        if key.len() == 32 {
            x = _mm_aesenclast_si128(x, load(out.key(14)));
        }
        let mut e0 = [0u8; 16];
        store(&mut e0, x);
        Some(e0)
    }

    /// AES-GCM-SIV's message keys (RFC 8452, section 4) under the key-generating key whose
    /// round keys are `kgk`, in registers from the nonce to the schedule: the derivation blocks
    /// `LE32(i) || nonce` encrypted side by side, their first halves paired into the
    /// authentication key (stored to `mac`) and the encryption key, which is expanded into
    /// `out` without a trip through memory. For AES-128 and AES-256 keys; `false`, nothing
    /// written, for AES-192 (and in the MemorySanitizer check's build, whose schedule takes
    /// the word-by-word path: see `expand_into`).
    pub(crate) fn siv_message_keys(
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        mac: &mut [u8; 16],
        out: &mut RoundKeys,
    ) -> bool {
        if cfg!(ct_taint) {
            return false;
        }
        match kgk.rounds() {
            10 => {
                let [m, k, _] = derive::<4>(kgk, nonce);
                store(mac, m);
                out.fill(|rk| schedule128(k, rk))
            }
            14 => {
                let [m, a, b] = derive::<6>(kgk, nonce);
                store(mac, m);
                out.fill(|rk| schedule256(a, b, rk))
            }
            _ => false,
        }
    }

    /// The `N` (4 or 6) derivation blocks for `nonce` encrypted under `kgk` (10 or 14 rounds:
    /// the caller's match), their first halves paired: the authentication key, then the
    /// encryption key's one or two registers (the third zero for `N` = 4).
    #[inline]
    pub(crate) fn derive<const N: usize>(kgk: &RoundKeys, nonce: &[u8; 12]) -> [__m128i; 3] {
        // `0^32 || nonce`: the nonce's words (`crate::nonce_words`), shifted up by one.
        let [n0, n1, n2] = crate::nonce_words(nonce);
        let n = _mm_set_epi32(n2 as i32, n1 as i32, n0 as i32, 0);
        let k0 = load(kgk.key(0));
        let mut x: [__m128i; N] =
            core::array::from_fn(|i| _mm_xor_si128(_mm_or_si128(n, _mm_cvtsi32_si128(i as i32)), k0));
        let rounds = kgk.rounds();
        for r in 1..rounds {
            let k = load(kgk.key(r));
            for v in &mut x {
                *v = _mm_aesenc_si128(*v, k);
            }
        }
        let k = load(kgk.key(rounds));
        for v in &mut x {
            *v = _mm_aesenclast_si128(*v, k);
        }
        let pair = |i: usize| {
            if i + 1 < N {
                _mm_unpacklo_epi64(x[i], x[i + 1])
            } else {
                _mm_setzero_si128()
            }
        };
        [pair(0), pair(2), pair(4)]
    }

    /// FIPS-197's word-by-word schedule for every key length (the reference of the tests).
    #[cfg(test)]
    pub(crate) fn expand_words(key: &[u8]) -> Option<RoundKeys> {
        RoundKeys::expand(key, |w| sub_word(w))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::{eprintln, vec::Vec};

    /// The register schedule of 128- and 256-bit keys against FIPS-197's word by word: hunts a
    /// wrong Rcon, a wrong assist word or a shifted round key. Every key byte is varied; the
    /// all-ones and all-zero keys are in.
    #[test]
    fn register_schedule_is_fips197() {
        if !super::available() {
            eprintln!("note: no AES-NI on this CPU, skipped");
            return;
        }
        let mut seed = 0x243f_6a88_85a3_08d3_u64;
        for len in [16, 24, 32] {
            for round in 0..200 {
                let key: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        match round {
                            0 => 0,
                            1 => 0xff,
                            _ => seed as u8,
                        }
                    })
                    .collect();
                // SAFETY: detection succeeded above.
                let (fast, words) = unsafe { (super::expand(&key), super::expand_words(&key)) };
                let (fast, words) = (fast.expect("AES length"), words.expect("AES length"));
                assert_eq!(fast.rounds(), words.rounds());
                for r in 0..15 {
                    assert_eq!(
                        fast.key(r),
                        words.key(r),
                        "{len}-byte key {key:02x?}, round {r}"
                    );
                }
            }
        }
    }

    /// The checker build's SubWord (`aesenclast`) against the shipped one (`aeskeygenassist`)
    /// and FIPS-197's S-box values, so that the MemorySanitizer check runs the same key schedule.
    #[test]
    fn sub_word_variants_agree() {
        if !super::available() {
            eprintln!("note: no AES-NI here; skipping");
            return;
        }
        let mut w = 0x0123_4567_u32;
        for i in 0..100_000u32 {
            w = w.wrapping_mul(0x9e37_79b9).rotate_left(7) ^ i;
            // SAFETY: AES-NI detection succeeded above.
            let (a, b) = unsafe { (super::sub_word_keygenassist(w), super::sub_word_enclast(w)) };
            assert_eq!(a, b, "{w:#010x}");
        }
        // FIPS-197 section 5.1.1: S(0x00) = 0x63, S(0x53) = 0xed, S(0x01) = 0x7c, S(0xff) = 0x16.
        // SAFETY: as above.
        let s = unsafe { super::sub_word_enclast(0xff01_5300) };
        assert_eq!(s, 0x167c_ed63);
    }
}
