//! AES-GCM-SIV encryption of a short message (RFC 8452, section 4 and 5) in one function on
//! AES-NI and PCLMULQDQ, for the messages of at most [`MAX`] bytes of AAD and text,
//! whose time is the chain of dependent steps, not the throughput of any unit:
//!
//! 1. the message keys, from the nonce's derivation blocks encrypted side by side;
//! 2. POLYVAL of the AAD, the text and the length block by Horner's rule under the
//!    authentication key, two blocks a step (`(y + x_i) H^2 + x_(i+1) H`, one reduction: half
//!    the chain of single steps), **interleaved with the schedule of the encryption key**: the
//!    two chains do not depend on each other, so each Horner step is written between two
//!    round keys and the core runs both at once (in separate calls, each waited for the
//!    other);
//! 3. the tag (the hash XOR the nonce, top bit cleared, encrypted) and the CTR of the few
//!    blocks from it.
//!
//! Three calls on the general path (the derivation and schedule, POLYVAL, the tag and CTR)
//! are one here, and its round keys go from the schedule to the tag through the stack once.
//! AES-192 (no register schedule) and the MemorySanitizer check's build (`ct_taint`, whose
//! schedule takes the word path) are left to the general path.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use inout::InOutBuf;

use super::aesni;
use crate::kernel::AesKeys;
use crate::lanes::Lanes;
use crate::tables::RoundKeys;
use clmul_core::wide::{mul_lanes, mul2_lanes};

/// The most bytes of AAD and text together this path takes: the bound of AES-GCM-SIV's
/// Horner path (`siv::HORNER_UPTO`, which `siv` checks before it calls here).
const MAX: usize = crate::SIV_HORNER_UPTO;

/// The most blocks hashed: the AAD and the text may each end in a partial block, and the
/// length block follows.
const BLOCKS: usize = MAX / 16 + 2;

// The text's blocks go in batches of at most 7 (`seal`).
const _: () = assert!(MAX.div_ceil(16) <= 7);

clmul_core::target_tier! {
    detect cpuid = ["aes", "pclmulqdq", "sse2", "ssse3"];

    /// The tag of `aad` and the input of `buffer` under the key-generating key `kgk` and
    /// `nonce`, the ciphertext written to the output of `buffer`; `None`, nothing written,
    /// for more than [`MAX`] bytes of AAD and text, an AES-192 key or the
    /// MemorySanitizer check's build (the caller then takes the general path).
    pub(crate) fn seal(
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        aad: &[u8],
        mut buffer: InOutBuf<'_, '_, u8>,
    ) -> Option<[u8; 16]> {
        let len = buffer.len();
        if cfg!(ct_taint) || aad.len() + len > MAX || !matches!(kgk.rounds(), 10 | 14) {
            return None;
        }
        // Every block hashed, zero-padded: the AAD's, the text's (read once, here, before
        // any output is written: input and output may be the same memory), the length block.
        // (Every index below goes through `get`: no bounds check and its panic path in the
        // code the disassembly check of `cargo xtask ct` follows.)
        let zero = _mm_setzero_si128();
        let mut x = [zero; BLOCKS];
        let mut data = 0;
        for (v, c) in x.iter_mut().zip(aad.chunks(16).chain(buffer.get_in().chunks(16))) {
            *v = block(c);
            data += 1;
        }
        // Block `i` of the `nb` hashed: the data's, then the length block.
        let lengths = block(&crate::siv_length_block(aad.len(), len));
        let blk = |i: usize| if i < data { x.get(i).copied().unwrap_or(zero) } else { lengths };
        let nb = data + 1;
        let text = aad.len().div_ceil(16);

        // The message keys, then POLYVAL between the round keys (and the blocks left after
        // the schedule): with an odd count the first block alone, times H, while H^2 is made;
        // then two blocks a step, `(y + x_i) * H^2 + x_(i+1) * H` with one reduction.
        let mut keys = RoundKeys::zero();
        let [h, k0, k1] = if kgk.rounds() == 10 {
            aesni::derive::<4>(kgk, nonce)
        } else {
            aesni::derive::<6>(kgk, nonce)
        };
        let h2 = mul(h, h);
        let (mut y, mut i) = if nb % 2 == 1 {
            (mul(blk(0), h), 1)
        } else {
            (zero, 0)
        };
        let mut step = || {
            if i < nb {
                y = mul2(_mm_xor_si128(y, blk(i)), h2, blk(i + 1), h);
                i += 2;
            }
        };
        let filled = keys.fill(|rk| {
            if kgk.rounds() == 10 {
                aesni::schedule128_with(k0, rk, |_| step())
            } else {
                aesni::schedule256_with(k0, k1, rk, |_, _| step())
            }
        });
        // Never taken: the key-generating key has 10 or 14 rounds (checked above), and so
        // has the derived key.
        if !filled {
            return None;
        }
        for _ in 0..nb {
            step();
        }

        // The tag: the hash XOR the nonce, the top bit cleared, encrypted; then CTR from it
        // with the top bit set (the counter is the first word, little-endian, wrapping:
        // `_mm_add_epi32` carries nothing into the next word), the text's blocks (at most 7)
        // in one batch whose size is a function of the public length. The kernel's rounds
        // (`AesKeys`) and the engine's partial stores (`Lanes`).
        // The nonce as a register from its words (not a block written and loaded back, which
        // would wait for the narrower stores to reach the cache).
        let [n0, n1, n2] = crate::nonce_words(nonce);
        let n = _mm_set_epi32(0, n2 as i32, n1 as i32, n0 as i32);
        let top = _mm_set_epi32(i32::MIN, 0, 0, 0);
        let t = _mm_andnot_si128(top, _mm_xor_si128(y, n));
        let out = buffer.get_out();
        let blocks = len.div_ceil(16);
        // SAFETY: the `Lanes` implementation of `__m128i` and `AesKeys` over it need AES-NI,
        // PCLMULQDQ, SSE2 and SSSE3 (this function's features); `keys` has 10 or 14 rounds
        // (`filled`); every store writes `chunk.len()` bytes inside `chunk`.
        let tag = unsafe {
            let ks = AesKeys::<__m128i>::new(&keys);
            let [tag] = ks.encrypt([t], &[zero]);
            let c = _mm_or_si128(tag, top);
            let ctr = |j: usize| _mm_add_epi32(c, _mm_cvtsi32_si128(j as i32));
            let text = |j: usize| blk(text + j);
            let mut ct = [zero; BLOCKS];
            macro_rules! batch {
                ($n:literal) => {{
                    let r: [__m128i; $n] =
                        ks.encrypt(core::array::from_fn(ctr), &core::array::from_fn(text));
                    ct[..$n].copy_from_slice(&r);
                }};
            }
            match blocks {
                0 => {}
                1 => batch!(1),
                2 => batch!(2),
                3 | 4 => batch!(4),
                _ => batch!(7),
            }
            for (chunk, v) in out.chunks_mut(16).zip(ct) {
                if chunk.len() == 16 {
                    __m128i::store(chunk.as_mut_ptr(), v);
                } else {
                    __m128i::store_partial(chunk.as_mut_ptr(), chunk.len(), v);
                }
            }
            __m128i::lane0(tag)
        };
        Some(tag)
    }

    /// `a * b` in POLYVAL's field.
    #[inline]
    fn mul(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: the `Lanes` implementation of `__m128i` (the AES-NI engine's) needs AES-NI,
        // PCLMULQDQ, SSE2 and SSSE3: this function's features.
        unsafe { mul_lanes(a, b) }
    }

    /// `a * h2 + b * h` in POLYVAL's field, one reduction.
    #[inline]
    fn mul2(a: __m128i, h2: __m128i, b: __m128i, h: __m128i) -> __m128i {
        // SAFETY: as `mul`.
        unsafe { mul2_lanes(a, h2, b, h) }
    }

    /// `c` (at most 16 bytes) zero-padded to a block, in a register (the engine's loads).
    #[inline]
    fn block(c: &[u8]) -> __m128i {
        let n = c.len().min(16);
        // SAFETY: `n` bytes at `c` are readable; the `Lanes` implementation of `__m128i`
        // needs this function's features.
        unsafe {
            if n == 16 {
                __m128i::load(c.as_ptr())
            } else {
                __m128i::load_partial(c.as_ptr(), n)
            }
        }
    }
}
