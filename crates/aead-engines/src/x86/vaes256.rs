//! Fused AES-CTR + GHASH on VAES and VPCLMULQDQ with 256-bit registers (AVX2 CPUs with
//! VAES, such as AMD Zen 3 and Intel Alder Lake, which lack AVX-512).
//!
//! The design of [`super::vaes512`] on two blocks per `ymm` register: sixteen blocks (eight
//! registers) per iteration, AES rounds of one iteration interleaved with the GHASH steps of
//! the previous iteration's ciphertext (encryption) or this one's (decryption), then one
//! eight-block iteration, then the tail (under 128 bytes) with a stack copy for a partial
//! register. VPCLMULQDQ and VAES are detected with the AVX (ymm) state only (see
//! `clmul_core`'s `x86::ymm`).

use core::arch::x86_64::*;

use super::aesni::RoundKeys;
use crate::powers::{Key, POWERS};
use clmul_core::__private::{avx2 as gh, for_padded_blocks, pclmul};
use inout::InOutBuf;

clmul_core::target_tier! {
    detect cpuid = ["aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2"] + ymm ["vpclmulqdq", "vaes"];

    #[inline]
    fn broadcast_keys<const R: usize>(keys: &RoundKeys) -> [__m256i; 15] {
        let mut out = [_mm256_setzero_si256(); 15];
        for (o, k) in out.iter_mut().zip(&keys.rk).take(R + 1) {
            *o = _mm256_broadcastsi128_si256(pclmul::load::<false>(k));
        }
        out
    }

    /// AES-encrypts `N` registers of counter blocks.
    #[inline]
    fn aes_n<const R: usize, const N: usize>(rk: &[__m256i; 15], mut x: [__m256i; N]) -> [__m256i; N] {
        for v in &mut x {
            *v = _mm256_xor_si256(*v, rk[0]);
        }
        for k in &rk[1..R] {
            for v in &mut x {
                *v = _mm256_aesenc_epi128(*v, *k);
            }
        }
        for v in &mut x {
            *v = _mm256_aesenclast_epi128(*v, rk[R]);
        }
        x
    }

    /// Three-way XOR.
    #[inline]
    fn xor3(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
        _mm256_xor_si256(a, _mm256_xor_si256(b, c))
    }

    /// XOR of the two 128-bit lanes.
    #[inline]
    fn hsum(v: __m256i) -> __m128i {
        _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
    }

    /// GHASH of `N` registers of byte-reflected blocks against H^(2N)..H^1, `y` added to the
    /// first block; reduced.
    #[inline]
    fn ghash_n<const N: usize>(key: &Key, y: __m128i, x: &[__m256i; N]) -> __m128i {
        let (pow, _) = key.pow.as_chunks::<2>();
        let (powx, _) = key.powx.as_chunks::<2>();
        let first = POWERS / 2 - N;
        let mut acc = [_mm256_setzero_si256(); 3];
        let y = _mm256_zextsi128_si256(y);
        gh::mul_acc(&mut acc, _mm256_xor_si256(x[0], y), gh::load_pow(&pow[first]), gh::load_pow(&powx[first]));
        for g in 1..N {
            gh::mul_acc(&mut acc, x[g], gh::load_pow(&pow[first + g]), gh::load_pow(&powx[first + g]));
        }
        hsum(gh::reduce256(acc[0], acc[1], acc[2]))
    }

    /// The stitched loop: `N` registers (`2N` blocks) per iteration while at least `64N` bytes
    /// remain from `*off`. AES round `r` of this iteration's counters is followed by GHASH
    /// step `r - 1` of the blocks being hashed (the previous iteration's ciphertext when
    /// encrypting, this iteration's when decrypting): the products of groups `N-1..1`, then
    /// group 0 (which adds the running hash), then the reduction in four steps; steps left
    /// when the rounds run out follow the last round. Program order keeps both instruction
    /// streams in the scheduler together, and group 0 comes last so that the running hash is
    /// needed as late as possible.
    ///
    /// # Safety
    /// As [`crypt`].
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn bulk<const R: usize, const ENC: bool, const HASH: bool, const N: usize>(
        rk: &[__m256i; 15],
        key: &Key,
        y: &mut __m128i,
        next: &mut impl FnMut() -> __m256i,
        inp: *const u8,
        out: *mut u8,
        len: usize,
        off: &mut usize,
    ) {
        let bswap = _mm256_broadcastsi128_si256(pclmul::bswap_mask());
        let (pow, _) = key.pow.as_chunks::<2>();
        let (powx, _) = key.powx.as_chunks::<2>();
        let first = POWERS / 2 - N;
        let kpoly = _mm256_set1_epi64x(0xc200_0000_0000_0000_u64 as i64);
        let mut pending: Option<[__m256i; N]> = None;
        while len - *off >= 32 * N {
            let mut data = [_mm256_setzero_si256(); N];
            for (g, d) in data.iter_mut().enumerate() {
                // SAFETY: `off + 32N <= len`, so these 32 bytes are in `inp`.
                *d = unsafe { _mm256_loadu_si256(inp.add(*off + 32 * g).cast()) };
            }
            let hashed = if !HASH {
                None
            } else if ENC {
                pending
            } else {
                let mut c = data;
                for v in &mut c {
                    *v = _mm256_shuffle_epi8(*v, bswap);
                }
                Some(c)
            };
            let has = hashed.is_some();
            let g = hashed.unwrap_or([_mm256_setzero_si256(); N]);
            let mut x = [_mm256_setzero_si256(); N];
            for v in &mut x {
                *v = _mm256_xor_si256(next(), rk[0]);
            }
            let mut acc = [_mm256_setzero_si256(); 3];
            let (mut lo, mut hi) = (_mm256_setzero_si256(), _mm256_setzero_si256());
            let mut step = |i: usize, acc: &mut [__m256i; 3], lo: &mut __m256i, hi: &mut __m256i| {
                if !has {
                    return;
                }
                if i + 1 < N {
                    let j = N - 1 - i;
                    gh::mul_acc(acc, g[j], gh::load_pow(&pow[first + j]), gh::load_pow(&powx[first + j]));
                } else if i + 1 == N {
                    let x0 = _mm256_xor_si256(g[0], _mm256_zextsi128_si256(*y));
                    gh::mul_acc(acc, x0, gh::load_pow(&pow[first]), gh::load_pow(&powx[first]));
                } else if i == N {
                    let mid = xor3(acc[1], acc[0], acc[2]);
                    *lo = _mm256_xor_si256(acc[0], _mm256_bslli_epi128::<8>(mid));
                    *hi = _mm256_xor_si256(acc[2], _mm256_bsrli_epi128::<8>(mid));
                } else if i == N + 1 {
                    let t = _mm256_clmulepi64_epi128::<0x00>(*lo, kpoly);
                    *lo = _mm256_xor_si256(gh::swap_halves(*lo), t);
                } else if i == N + 2 {
                    let t = _mm256_clmulepi64_epi128::<0x00>(*lo, kpoly);
                    *lo = xor3(*hi, gh::swap_halves(*lo), t);
                } else if i == N + 3 {
                    *y = hsum(*lo);
                }
            };
            // An index loop on purpose: LLVM fully unrolls it (R is a constant), so each
            // `step` call resolves to straight-line code; the iterator form measured 4x slower.
            #[allow(clippy::needless_range_loop)]
            for r in 1..R {
                for v in &mut x {
                    *v = _mm256_aesenc_epi128(*v, rk[r]);
                }
                step(r - 1, &mut acc, &mut lo, &mut hi);
            }
            for v in &mut x {
                *v = _mm256_aesenclast_epi128(*v, rk[R]);
            }
            for i in R - 1..N + 4 {
                step(i, &mut acc, &mut lo, &mut hi);
            }
            let mut res = [_mm256_setzero_si256(); N];
            for i in 0..N {
                res[i] = _mm256_xor_si256(data[i], x[i]);
                // SAFETY: as above, within `out`.
                unsafe { _mm256_storeu_si256(out.add(*off + 32 * i).cast(), res[i]) };
            }
            if HASH && ENC {
                for v in &mut res {
                    *v = _mm256_shuffle_epi8(*v, bswap);
                }
                pending = Some(res);
            }
            *off += 32 * N;
        }
        if let Some(p) = pending {
            *y = ghash_n::<N>(key, *y, &p);
        }
    }

    /// Runs CTR over `len` bytes from `inp` to `out` starting with counter `ctr` (byte-reversed
    /// form), optionally hashing the ciphertext (`ENC`: the output; `!ENC`: the input).
    ///
    /// # Safety
    /// `inp` is readable and `out` writable for `len` bytes; they are equal or do not overlap.
    /// `key` holds H^1..H^16.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt<const R: usize, const ENC: bool, const HASH: bool>(
        keys: &RoundKeys,
        key: &Key,
        y: &mut __m128i,
        ctr: &mut __m256i,
        inp: *const u8,
        out: *mut u8,
        len: usize,
        tail_ct: &mut [[u8; 16]],
    ) -> usize {
        let rk = broadcast_keys::<R>(keys);
        let bswap = _mm256_broadcastsi128_si256(pclmul::bswap_mask());
        let inc2 = _mm256_broadcastsi128_si256(_mm_set_epi32(0, 0, 0, 2));
        let mut next = || {
            let c = _mm256_shuffle_epi8(*ctr, bswap);
            *ctr = _mm256_add_epi32(*ctr, inc2);
            c
        };
        let mut off = 0;
        // SAFETY: forwarded from the caller.
        unsafe {
            bulk::<R, ENC, HASH, 8>(&rk, key, y, &mut next, inp, out, len, &mut off);
            bulk::<R, ENC, HASH, 4>(&rk, key, y, &mut next, inp, out, len, &mut off);
        }
        // Tail: up to 255 bytes, 32 at a time; a partial register through a zero-padded stack
        // copy. Its ciphertext, zero-padded, goes to `tail_ct` for the caller to hash together
        // with what follows.
        let rest = len - off;
        let mut start = 0;
        while start < rest {
            let n = (rest - start).min(32);
            let [k] = aes_n::<R, 1>(&rk, [next()]);
            let mut buf = [0u8; 32];
            // SAFETY: `off + start + n <= len`: `n` readable bytes of `inp`.
            unsafe { core::ptr::copy_nonoverlapping(inp.add(off + start), buf.as_mut_ptr(), n) };
            // SAFETY: 32 readable bytes.
            let d = unsafe { _mm256_loadu_si256(buf.as_ptr().cast()) };
            let mut res = [0u8; 32];
            // SAFETY: 32 writable bytes.
            unsafe { _mm256_storeu_si256(res.as_mut_ptr().cast(), _mm256_xor_si256(d, k)) };
            // SAFETY: `n` writable bytes of `out`.
            unsafe { core::ptr::copy_nonoverlapping(res.as_ptr(), out.add(off + start), n) };
            if HASH {
                let src = if ENC { &res[..n] } else { &buf[..n] };
                for (i, chunk) in src.chunks(16).enumerate() {
                    tail_ct[start / 16 + i][..chunk.len()].copy_from_slice(chunk);
                }
            }
            start += 32;
        }
        rest.div_ceil(16)
    }

    /// The counter register for the first data block, `inc32(J0)`, and its successor.
    #[inline]
    fn first_counters(j0: &[u8; 16]) -> __m256i {
        let r = pclmul::load::<true>(j0);
        _mm256_add_epi32(_mm256_broadcastsi128_si256(r), _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 1))
    }

    /// GHASH of `data` zero-padded, into `y`.
    #[inline]
    fn ghash_padded(key: &Key, y: &mut __m128i, data: &[u8]) {
        let mut acc = 0u128;
        pclmul::store_u128(&mut acc, *y);
        for_padded_blocks(data, |b| gh::update::<true>(key, &mut acc, b));
        *y = pclmul::load_u128(&acc);
    }

    /// GHASH of `blocks` (the last of them the length block) into `y`, masked with `E(J0)`:
    /// the full tag.
    #[inline]
    fn finish(key: &Key, y: __m128i, blocks: &[[u8; 16]], ej0: __m128i) -> [u8; 16] {
        let mut acc = 0u128;
        pclmul::store_u128(&mut acc, y);
        gh::update::<true>(key, &mut acc, blocks);
        super::aesni_gcm::make_tag(pclmul::load_u128(&acc), ej0)
    }

    /// Encryption (`ENC`) or one-pass decryption of `len` bytes from `inp` to `out`; returns
    /// the full tag `GHASH(A, C) ^ E(J0)`.
    ///
    /// Short messages (no full 128-byte iteration, AAD of at most eight blocks) hash AAD,
    /// ciphertext and the length block in one aggregated multiply with a single reduction;
    /// longer ones hash the AAD first and the tail with the length block.
    ///
    /// # Safety
    /// `inp` is readable and `out` writable for `len` bytes; they are equal or do not overlap.
    /// `keys.rounds` is 10, 12 or 14; `key` holds H^1..H^32.
    #[inline]
    unsafe fn aead<const ENC: bool>(keys: &RoundKeys, key: &Key, j0: &[u8; 16], aad: &[u8], inp: *const u8, out: *mut u8, len: usize) -> [u8; 16] {
        let ej0 = super::aesni::encrypt_xmm(keys, j0);
        let mut y = _mm_setzero_si128();
        // AAD (if short) | tail ciphertext | length block; at most 8 + 16 + 1 blocks.
        let mut buf = [[0u8; 16]; 32];
        let mut n = 0;
        if len < 128 && aad.len() <= 128 {
            n = crate::fused::copy_padded(aad, &mut buf);
        } else {
            ghash_padded(key, &mut y, aad);
        }
        let mut ctr = first_counters(j0);
        // SAFETY: forwarded from the caller.
        n += unsafe {
            match keys.rounds {
                10 => crypt::<10, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut buf[n..]),
                12 => crypt::<12, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut buf[n..]),
                _ => crypt::<14, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut buf[n..]),
            }
        };
        buf[n] = crate::fused::length_block(aad.len(), len);
        finish(key, y, &buf[..n + 1], ej0)
    }

    /// The full tag of `(aad, ct)` without decrypting: the first pass of an out-of-place
    /// decryption, which must not write its output before the tag is checked.
    fn tag_only(keys: &RoundKeys, key: &Key, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let ej0 = super::aesni::encrypt_xmm(keys, j0);
        let mut y = _mm_setzero_si128();
        ghash_padded(key, &mut y, aad);
        ghash_padded(key, &mut y, ct);
        finish(key, y, &[crate::fused::length_block(aad.len(), ct.len())], ej0)
    }

    /// Plain CTR from `inc32(J0)`: undoes [`open`] on a failed tag, or decrypts after a
    /// separate check.
    ///
    /// # Safety
    /// As [`seal`].
    unsafe fn ctr(keys: &RoundKeys, j0: &[u8; 16], inp: *const u8, out: *mut u8, len: usize) {
        let mut y = _mm_setzero_si128();
        let mut ctr = first_counters(j0);
        // The key table is not read when HASH is false.
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
}

crate::fused::engine_keys!(
    /// Round keys for this engine; holding one proves the CPU passed its detection.
    Vaes256 = Vaes256,
    super::aesni::checked_schedule
);
