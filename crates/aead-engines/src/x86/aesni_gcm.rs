//! Fused AES-CTR + GHASH on AES-NI and 128-bit PCLMULQDQ (x86 and x86_64 without VAES).
//!
//! The design of [`super::vaes512`] on 128-bit registers: eight blocks per iteration; while the
//! AES rounds of iteration `i`'s counter blocks run, the GHASH multiplies of iteration
//! `i - 1`'s ciphertext (encryption) or of iteration `i`'s ciphertext (decryption) proceed
//! against H^8..H^1 (Karatsuba, three `pclmulqdq` a block), with one reduction per iteration.
//! The tail (under 128 bytes) goes block by block, a partial block through a stack copy, and
//! is hashed with the length block in one aggregated multiply.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::aesni::RoundKeys;
use crate::powers::Key;
use clmul_core::__private::{for_padded_blocks, pclmul};
use inout::InOutBuf;

/// Blocks per iteration.
const BLOCKS: usize = 8;

clmul_core::target_tier! {
    detect cpuid = ["aes", "pclmulqdq", "sse2", "ssse3"];

    #[inline]
    fn round_keys<const R: usize>(keys: &RoundKeys) -> [__m128i; 15] {
        let mut out = [_mm_setzero_si128(); 15];
        for (o, k) in out.iter_mut().zip(&keys.rk).take(R + 1) {
            *o = pclmul::load::<false>(k);
        }
        out
    }

    #[inline]
    fn aes_n<const R: usize, const N: usize>(rk: &[__m128i; 15], mut x: [__m128i; N]) -> [__m128i; N] {
        for v in &mut x {
            *v = _mm_xor_si128(*v, rk[0]);
        }
        for k in &rk[1..R] {
            for v in &mut x {
                *v = _mm_aesenc_si128(*v, *k);
            }
        }
        for v in &mut x {
            *v = _mm_aesenclast_si128(*v, rk[R]);
        }
        x
    }

    /// GHASH of eight byte-reflected blocks against H^8..H^1, `y` added to the first; reduced.
    #[inline]
    fn ghash8(key: &Key, y: __m128i, x: &[__m128i; BLOCKS]) -> __m128i {
        let (pow, powx) = key.tail(BLOCKS);
        let mut acc = pclmul::acc_zero();
        let mut first = y;
        for ((v, h), hx) in x.iter().zip(pow).zip(powx) {
            pclmul::mul_acc(&mut acc, _mm_xor_si128(*v, first), pclmul::load_u128(h), pclmul::load_u128(hx));
            first = _mm_setzero_si128();
        }
        pclmul::reduce(acc)
    }

    /// An empty `asm!` through which `v` passes: a scheduling fence for LLVM (volatile `asm`
    /// blocks keep their order), so that the AES rounds and GHASH steps stay interleaved.
    /// Compiled out under Miri and in the MemorySanitizer check's build (`ct_taint`), where an
    /// `asm!` output would count as public and hide the secret marking of `v`.
    #[inline]
    fn pin(v: &mut __m128i) {
        #[cfg(any(miri, ct_taint))]
        let _ = v;
        #[cfg(not(any(miri, ct_taint)))]
        // SAFETY: the template is empty: no instruction runs, `v` stays in its register.
        unsafe {
            core::arch::asm!("/* {0} */", inout(xmm_reg) *v, options(nomem, nostack, preserves_flags))
        };
    }

    /// CTR over `len` bytes from `inp` to `out`, counter `ctr` in byte-reversed form, hashing
    /// the ciphertext (`HASH`) of all whole iterations into `y`; the tail's ciphertext,
    /// zero-padded, goes to `tail_ct` (its block count is returned).
    ///
    /// # Safety
    /// `inp` is readable and `out` writable for `len` bytes; they are equal or do not overlap.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt<const R: usize, const ENC: bool, const HASH: bool>(
        keys: &RoundKeys,
        key: &Key,
        y: &mut __m128i,
        ctr: &mut __m128i,
        inp: *const u8,
        out: *mut u8,
        len: usize,
        tail_ct: &mut [[u8; 16]],
    ) -> usize {
        let rk = round_keys::<R>(keys);
        let bswap = pclmul::bswap_mask();
        let one = _mm_set_epi32(0, 0, 0, 1);
        let mut next = || {
            let c = _mm_shuffle_epi8(*ctr, bswap);
            *ctr = _mm_add_epi32(*ctr, one);
            c
        };
        let mut off = 0;
        let (pow, powx) = key.tail(BLOCKS);
        let kpoly = _mm_set_epi64x(0, 0xc200_0000_0000_0000_u64 as i64);
        let mut pending: Option<[__m128i; BLOCKS]> = None;
        macro_rules! rounds {
            ($x:ident, $acc:ident, $lo:ident, $hi:ident, $step:ident, $has:ident; $($r:literal)*) => {$(
                if $r < R {
                    for v in &mut $x {
                        *v = _mm_aesenc_si128(*v, rk[$r]);
                    }
                    $step($r - 1, &mut $acc, &mut $lo, &mut $hi);
                    if $has && $r <= BLOCKS + 1 {
                        for v in [&mut $acc.lo, &mut $acc.mid, &mut $acc.hi, &mut $lo, &mut $hi] {
                            pin(v);
                        }
                    }
                    for v in &mut $x {
                        pin(v);
                    }
                }
            )*};
        }
        // One iteration; `$has`: whether it hashes (a constant, so that the steady-state loop
        // body below has no branch between its AES and GHASH streams).
        macro_rules! iteration {
            ($has:expr) => {{
            let mut data = [_mm_setzero_si128(); BLOCKS];
            for (i, d) in data.iter_mut().enumerate() {
                // SAFETY: `off + 128 <= len`: these 16 bytes are in `inp`.
                *d = unsafe { _mm_loadu_si128(inp.add(off + 16 * i).cast()) };
            }
            // The blocks hashed in this iteration: this iteration's ciphertext (decryption) or
            // the previous one's (encryption).
            let hashed = if !HASH {
                None
            } else if ENC {
                pending
            } else {
                let mut c = data;
                for v in &mut c {
                    *v = _mm_shuffle_epi8(*v, bswap);
                }
                Some(c)
            };
            let has = $has;
            let g = hashed.unwrap_or([_mm_setzero_si128(); BLOCKS]);
            let mut x = [_mm_setzero_si128(); BLOCKS];
            for v in &mut x {
                *v = _mm_xor_si128(next(), rk[0]);
            }
            // AES round `r` is followed by GHASH step `r - 1`: the products of blocks 7..1,
            // block 0 (which adds the running hash), then the reduction; steps left when the
            // rounds run out follow the last round (see `super::vaes512::bulk`).
            let mut acc = pclmul::acc_zero();
            let (mut lo, mut hi) = (_mm_setzero_si128(), _mm_setzero_si128());
            let mut step = |i: usize, acc: &mut pclmul::Acc, lo: &mut __m128i, hi: &mut __m128i| {
                if !has {
                    return;
                }
                if i + 1 < BLOCKS {
                    let j = BLOCKS - 1 - i;
                    pclmul::mul_acc(acc, g[j], pclmul::load_u128(&pow[j]), pclmul::load_u128(&powx[j]));
                } else if i + 1 == BLOCKS {
                    let x0 = _mm_xor_si128(g[0], *y);
                    pclmul::mul_acc(acc, x0, pclmul::load_u128(&pow[0]), pclmul::load_u128(&powx[0]));
                } else if i == BLOCKS {
                    let mid = _mm_xor_si128(acc.mid, _mm_xor_si128(acc.lo, acc.hi));
                    *lo = _mm_xor_si128(acc.lo, _mm_slli_si128::<8>(mid));
                    *hi = _mm_xor_si128(acc.hi, _mm_srli_si128::<8>(mid));
                } else if i == BLOCKS + 1 {
                    let t = _mm_clmulepi64_si128::<0x00>(*lo, kpoly);
                    *lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(*lo), t);
                } else if i == BLOCKS + 2 {
                    let t = _mm_clmulepi64_si128::<0x00>(*lo, kpoly);
                    *y = _mm_xor_si128(*hi, _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(*lo), t));
                }
            };
            // Rounds unrolled in the source, each followed by its GHASH step and a `pin` of
            // the live registers, which keeps LLVM from moving all GHASH work ahead of the
            // AES rounds (see `super::vaes512`).
            rounds!(x, acc, lo, hi, step, has; 1 2 3 4 5 6 7 8 9 10 11 12 13);
            for v in &mut x {
                *v = _mm_aesenclast_si128(*v, rk[R]);
            }
            for i in R - 1..BLOCKS + 3 {
                step(i, &mut acc, &mut lo, &mut hi);
            }
            let mut res = [_mm_setzero_si128(); BLOCKS];
            for i in 0..BLOCKS {
                res[i] = _mm_xor_si128(data[i], x[i]);
                // SAFETY: as above, within `out`.
                unsafe { _mm_storeu_si128(out.add(off + 16 * i).cast(), res[i]) };
            }
            if HASH && ENC {
                for v in &mut res {
                    *v = _mm_shuffle_epi8(*v, bswap);
                }
                pending = Some(res);
            }
            off += 16 * BLOCKS;
            }};
        }
        if ENC && HASH && len - off >= 16 * BLOCKS {
            // The first encryption iteration has nothing to hash yet.
            iteration!(false);
        }
        while len - off >= 16 * BLOCKS {
            iteration!(HASH);
        }
        if let Some(p) = pending {
            *y = ghash8(key, *y, &p);
        }
        // Tail: block by block; a partial block through a zero-padded copy.
        let rest = len - off;
        let mut start = 0;
        while start < rest {
            let n = (rest - start).min(16);
            let [k] = aes_n::<R, 1>(&rk, [next()]);
            let mut block = [0u8; 16];
            // SAFETY: `off + start + n <= len`: `n` readable bytes of `inp`.
            unsafe { core::ptr::copy_nonoverlapping(inp.add(off + start), block.as_mut_ptr(), n) };
            let d = pclmul::load::<false>(&block);
            let mut res = [0u8; 16];
            // SAFETY: 16 writable bytes.
            unsafe { _mm_storeu_si128(res.as_mut_ptr().cast(), _mm_xor_si128(d, k)) };
            // SAFETY: `n` writable bytes of `out`.
            unsafe { core::ptr::copy_nonoverlapping(res.as_ptr(), out.add(off + start), n) };
            if HASH {
                let ct = &mut tail_ct[start / 16];
                ct[..n].copy_from_slice(if ENC { &res[..n] } else { &block[..n] });
            }
            start += 16;
        }
        rest.div_ceil(16)
    }

    /// GHASH of `data` zero-padded, into `y`.
    #[inline]
    fn ghash_padded(key: &Key, y: &mut __m128i, data: &[u8]) {
        let mut acc = 0u128;
        pclmul::store_u128(&mut acc, *y);
        for_padded_blocks(data, |b| pclmul::update::<true>(key, &mut acc, b));
        *y = pclmul::load_u128(&acc);
    }

    /// The tag from `GHASH(A, C)` (byte-reflected, as the kernels hold it) and `E(J0)`; for
    /// every x86 engine.
    #[inline]
    pub(super) fn make_tag(s: __m128i, ej0: __m128i) -> [u8; 16] {
        let s = _mm_shuffle_epi8(s, pclmul::bswap_mask());
        let mut tag = [0u8; 16];
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(tag.as_mut_ptr().cast(), _mm_xor_si128(s, ej0)) };
        tag
    }

    /// GHASH of `blocks` (the last of them the length block) into `y`, masked with `E(J0)`:
    /// the full tag.
    #[inline]
    fn finish(key: &Key, y: __m128i, blocks: &[[u8; 16]], ej0: __m128i) -> [u8; 16] {
        let mut acc = 0u128;
        pclmul::store_u128(&mut acc, y);
        pclmul::update::<true>(key, &mut acc, blocks);
        make_tag(pclmul::load_u128(&acc), ej0)
    }

    /// Encryption (`ENC`) or one-pass decryption; returns the full tag. Short messages hash
    /// AAD, ciphertext and lengths in one aggregated multiply.
    ///
    /// # Safety
    /// As [`crypt`]; `keys.rounds` is 10, 12 or 14.
    #[inline]
    unsafe fn aead<const ENC: bool>(keys: &RoundKeys, key: &Key, j0: &[u8; 16], aad: &[u8], inp: *const u8, out: *mut u8, len: usize) -> [u8; 16] {
        let ej0 = super::aesni::encrypt_xmm(keys, j0);
        let mut y = _mm_setzero_si128();
        let mut buf = [[0u8; 16]; 32];
        let mut n = 0;
        if len < 16 * BLOCKS && aad.len() <= 128 {
            n = crate::fused::copy_padded(aad, &mut buf);
        } else {
            ghash_padded(key, &mut y, aad);
        }
        let mut ctr = _mm_add_epi32(pclmul::load::<true>(j0), _mm_set_epi32(0, 0, 0, 1));
        // SAFETY: forwarded from the caller.
        n += unsafe {
            match keys.rounds {
                10 => crypt::<10, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut buf[n..]),
                12 => crypt::<12, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut buf[n..]),
                _ => crypt::<14, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut buf[n..]),
            }
        };
        buf[n] = crate::fused::length_block(aad.len(), len);
        finish(key, y, &buf[..=n], ej0)
    }

    /// Plain CTR from `inc32(J0)`.
    ///
    /// # Safety
    /// As [`crypt`].
    unsafe fn ctr(keys: &RoundKeys, j0: &[u8; 16], inp: *const u8, out: *mut u8, len: usize) {
        let mut y = _mm_setzero_si128();
        let mut ctr = _mm_add_epi32(pclmul::load::<true>(j0), _mm_set_epi32(0, 0, 0, 1));
        let key = &Key::ZERO;
        // SAFETY: forwarded from the caller.
        unsafe {
            match keys.rounds {
                10 => crypt::<10, false, false>(keys, key, &mut y, &mut ctr, inp, out, len, &mut []),
                12 => crypt::<12, false, false>(keys, key, &mut y, &mut ctr, inp, out, len, &mut []),
                _ => crypt::<14, false, false>(keys, key, &mut y, &mut ctr, inp, out, len, &mut []),
            };
        }
    }

    /// The full tag of `(aad, ct)` without decrypting.
    fn tag_only(keys: &RoundKeys, key: &Key, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let ej0 = super::aesni::encrypt_xmm(keys, j0);
        let mut y = _mm_setzero_si128();
        ghash_padded(key, &mut y, aad);
        ghash_padded(key, &mut y, ct);
        finish(key, y, &[crate::fused::length_block(aad.len(), ct.len())], ej0)
    }
}

crate::fused::engine_keys!(
    /// Round keys for this engine; holding one proves the CPU passed its detection.
    AesNiGcm = AesNi,
    super::aesni::checked_schedule
);
