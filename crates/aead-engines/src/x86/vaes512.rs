//! Fused AES-CTR + GHASH on VAES and VPCLMULQDQ with 512-bit registers.
//!
//! Thirty-two blocks (eight `zmm` registers) per iteration, then one iteration of sixteen,
//! then the tail:
//!
//! - **Encryption** runs the AES rounds of iteration `i`'s counter blocks while the GHASH
//!   multiplies of iteration `i - 2`'s ciphertext (read back from the output, byte-reflected
//!   in registers) proceed against H^32..H^1, with one reduction per iteration. The two
//!   instruction streams are independent, so the out-of-order core overlaps them, and the
//!   loop is bound by the AES and carry-less-multiply issue slots together rather than by
//!   either one's latency.
//! - **Decryption** hashes the ciphertext it is about to decrypt in the same iteration (it is
//!   already there).
//! - The rounds are unrolled in the source, each followed by one GHASH step, with an empty
//!   `asm!` fence (`pin`) on the live registers between them: without it LLVM hoists all
//!   GHASH work of an iteration above its AES rounds and the core runs the two streams in
//!   turn (measured: AES-256 at 16 KiB 18.7 GB/s unfenced, 25.8 fenced, on Zen 4).
//! - Counters are kept byte-reversed, so the 32-bit big-endian counter of GCM is the low dword
//!   of each lane and `vpaddd` increments it (wrapping modulo 2^32 as `inc32` does); one
//!   `vpshufb` turns them back into counter blocks.
//! - The tail (under 256 bytes, including a partial block) uses byte-masked loads and stores
//!   (`vmovdqu8` with a mask), so nothing is read or written outside the buffers; it, a short
//!   AAD and the length block are hashed from registers with one reduction ([`Tail`]).
//!
//! The structure follows the stitched-GCM design of Gueron and Krasnov ("The fragility of
//! AES-GCM authentication algorithm", and OpenSSL/BoringSSL `aesni-gcm-x86_64`) and the VAES
//! AES-GCM in Linux (`aes-gcm-avx10-x86_64.S`), written here from those descriptions.

use core::arch::x86_64::*;

use super::aesni::RoundKeys;
use crate::powers::{Key, POWERS};
use clmul_core::__private::{avx512 as gh, pclmul};
use inout::InOutBuf;

/// The last blocks of a message (short AAD, the tail of the text, the length block), hashed
/// from registers: each register's products against its powers of H are added unreduced,
/// and one reduction ends the message. Nothing goes through memory, so no load waits on a
/// store it cannot forward from.
struct Tail {
    /// Unreduced lo, mid, hi products.
    acc: [__m512i; 3],
    /// Blocks still to come, the length block included: the next block's power of H.
    left: usize,
    /// The running hash, added to the next block.
    y: __m128i,
}

clmul_core::target_tier! {
    detect cpuid = [
        "aes", "pclmulqdq", "sse2", "ssse3", "avx", "avx2",
        "vaes", "vpclmulqdq", "avx512f", "avx512bw", "avx512vl", "gfni"
    ];

    #[inline]
    fn broadcast_keys<const R: usize>(keys: &RoundKeys) -> [__m512i; 15] {
        let mut out = [_mm512_setzero_si512(); 15];
        for (o, k) in out.iter_mut().zip(&keys.rk).take(R + 1) {
            *o = _mm512_broadcast_i32x4(pclmul::load::<false>(k));
        }
        out
    }

    /// AES-encrypts `N` registers of counter blocks.
    #[inline]
    fn aes_n<const R: usize, const N: usize>(rk: &[__m512i; 15], mut x: [__m512i; N]) -> [__m512i; N] {
        for v in &mut x {
            *v = _mm512_xor_si512(*v, rk[0]);
        }
        for k in &rk[1..R] {
            for v in &mut x {
                *v = _mm512_aesenc_epi128(*v, *k);
            }
        }
        for v in &mut x {
            *v = _mm512_aesenclast_epi128(*v, rk[R]);
        }
        x
    }

    /// An empty `asm!` through which `v` passes: a scheduling fence for LLVM (volatile `asm`
    /// blocks keep their order), so that the AES rounds and GHASH steps stay interleaved.
    /// Compiled out under Miri and in the MemorySanitizer check's build (`ct_taint`), where an
    /// `asm!` output would count as public and hide the secret marking of `v`.
    #[inline]
    fn pin(v: &mut __m512i) {
        #[cfg(any(miri, ct_taint))]
        let _ = v;
        #[cfg(not(any(miri, ct_taint)))]
        // SAFETY: the template is empty: no instruction runs, `v` stays in its register.
        unsafe {
            core::arch::asm!("/* {0} */", inout(zmm_reg) *v, options(nomem, nostack, preserves_flags))
        };
    }

    #[inline]
    fn byte_mask(n: usize) -> __mmask64 {
        if n >= 64 { !0 } else { (1u64 << n) - 1 }
    }

    /// Byte-masked load of `n <= 64` bytes at `p` (the rest zero).
    #[inline]
    fn load_bytes(p: *const u8, n: usize) -> __m512i {
        let mask = byte_mask(n);
        // SAFETY: the caller guarantees `n` readable bytes at `p`; masked-off bytes are not
        // accessed and cannot fault.
        unsafe { _mm512_maskz_loadu_epi8(mask, p.cast()) }
    }

    /// Byte-masked store of the first `n <= 64` bytes of `v` to `p`.
    #[inline]
    fn store_bytes(p: *mut u8, n: usize, v: __m512i) {
        let mask = byte_mask(n);
        // SAFETY: the caller guarantees `n` writable bytes at `p`; masked-off bytes are not
        // written.
        unsafe { _mm512_mask_storeu_epi8(p.cast(), mask, v) }
    }

    /// GHASH of `N` registers of byte-reflected blocks against H^(4N)..H^1, `y` added to the
    /// first block; reduced.
    #[inline]
    fn ghash_n<const N: usize>(key: &Key, y: __m128i, x: &[__m512i; N]) -> __m128i {
        let (pow, _) = key.pow.as_chunks::<4>();
        let (powx, _) = key.powx.as_chunks::<4>();
        let first = POWERS / 4 - N;
        let mut acc = [_mm512_setzero_si512(); 3];
        let y = _mm512_zextsi128_si512(y);
        gh::mul_acc(&mut acc, _mm512_xor_si512(x[0], y), gh::load_pow(&pow[first]), gh::load_pow(&powx[first]));
        for g in 1..N {
            gh::mul_acc(&mut acc, x[g], gh::load_pow(&pow[first + g]), gh::load_pow(&powx[first + g]));
        }
        gh::hsum(gh::reduce512(acc[0], acc[1], acc[2]))
    }

    /// One iteration of the stitched loop: `N` registers (`4N` blocks) of CTR at `off`, while
    /// (if `H`) the GHASH steps of the `4N` ciphertext blocks at `src` run between the AES
    /// rounds: round `r` is followed by step `r - 1`. Steps `0..N` multiply groups `N-1..0`
    /// (group 0, last, adds the running hash, so that it is needed as late as possible);
    /// steps `N..N+4` reduce. Steps left when the rounds run out follow the last round.
    ///
    /// # Safety
    /// As [`crypt`], and `off + 64N <= len`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn iteration<const R: usize, const ENC: bool, const H: bool, const N: usize>(
        rk: &[__m512i; 15],
        key: &Key,
        y: &mut __m128i,
        ctr: &mut __m512i,
        src: *const u8,
        inp: *const u8,
        out: *mut u8,
        off: usize,
    ) {
        let bswap = gh::bswap_mask512();
        let (pow, _) = key.pow.as_chunks::<4>();
        let (powx, _) = key.powx.as_chunks::<4>();
        let first = POWERS / 4 - N;
        let kpoly = _mm512_set1_epi64(0xc200_0000_0000_0000_u64 as i64);
        // SAFETY: `off + 64N <= len`, so these 64-byte loads are within `inp`.
        let load = |g: usize| unsafe { _mm512_loadu_si512(inp.add(off + 64 * g).cast()) };
        // SAFETY: `src` has `64N` readable bytes when `H`.
        let hashed = |g: usize| _mm512_shuffle_epi8(unsafe { _mm512_loadu_si512(src.add(64 * g).cast()) }, bswap);
        // Counter blocks: `ctr` holds four consecutive counters byte-reversed (the 32-bit
        // counter is then each lane's low dword, which `vpaddd` increments). While the low
        // byte of the big-endian counter does not wrap within the iteration, one shuffle gives
        // the first register's blocks and the others follow by adding `4i` to that byte
        // directly (bits 24..31 of each lane's high dword); otherwise each register is
        // shuffled from its own reversed counters. The counter is not secret.
        let mut x = [_mm512_setzero_si512(); N];
        let low = _mm_cvtsi128_si32(_mm512_castsi512_si128(*ctr)) as u32 & 0xff;
        if low as usize + 4 * N <= 256 {
            let be = _mm512_shuffle_epi8(*ctr, bswap);
            for (i, v) in x.iter_mut().enumerate() {
                let s = _mm512_broadcast_i32x4(_mm_set_epi32(((4 * i) << 24) as i32, 0, 0, 0));
                *v = _mm512_xor_si512(_mm512_add_epi32(be, s), rk[0]);
            }
        } else {
            let step4 = _mm512_broadcast_i32x4(_mm_set_epi32(0, 0, 0, 4));
            let mut c = *ctr;
            for v in &mut x {
                *v = _mm512_xor_si512(_mm512_shuffle_epi8(c, bswap), rk[0]);
                c = _mm512_add_epi32(c, step4);
            }
        }
        *ctr = _mm512_add_epi32(*ctr, _mm512_broadcast_i32x4(_mm_set_epi32(0, 0, 0, (4 * N) as i32)));
        // GHASH step `i < N` multiplies group `N-1-i` (Karatsuba: three products); an even
        // step keeps its products in `pend`, the next (odd) one adds both pairs into `acc`
        // with three-way XORs. Group 0 (step N-1) adds the running hash first. Steps `N` to
        // `N+3` are the Karatsuba fix-up, the two folds of the reduction, and the lane sum.
        let mut acc = [_mm512_setzero_si512(); 3];
        let mut pend = [_mm512_setzero_si512(); 3];
        let (mut lo, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        let step = |i: usize, acc: &mut [__m512i; 3], pend: &mut [__m512i; 3], lo: &mut __m512i, hi: &mut __m512i, y: &mut __m128i| {
            if !H {
            } else if i < N {
                let j = N - 1 - i;
                let x = if j == 0 { _mm512_xor_si512(hashed(0), _mm512_zextsi128_si512(*y)) } else { hashed(j) };
                let (h, hx) = (gh::load_pow(&pow[first + j]), gh::load_pow(&powx[first + j]));
                let xx = _mm512_xor_si512(x, gh::swap_halves(x));
                let p = [
                    _mm512_clmulepi64_epi128::<0x00>(x, h),
                    _mm512_clmulepi64_epi128::<0x00>(xx, hx),
                    _mm512_clmulepi64_epi128::<0x11>(x, h),
                ];
                for k in 0..3 {
                    if i.is_multiple_of(2) {
                        pend[k] = p[k];
                    } else if i == 1 {
                        acc[k] = _mm512_xor_si512(pend[k], p[k]);
                    } else {
                        acc[k] = gh::xor3(acc[k], pend[k], p[k]);
                    }
                }
            } else if i == N {
                let mid = gh::xor3(acc[1], acc[0], acc[2]);
                *lo = _mm512_xor_si512(acc[0], _mm512_bslli_epi128::<8>(mid));
                *hi = _mm512_xor_si512(acc[2], _mm512_bsrli_epi128::<8>(mid));
            } else if i == N + 1 {
                let t = _mm512_clmulepi64_epi128::<0x00>(*lo, kpoly);
                *lo = _mm512_xor_si512(gh::swap_halves(*lo), t);
            } else if i == N + 2 {
                let t = _mm512_clmulepi64_epi128::<0x00>(*lo, kpoly);
                *lo = gh::xor3(*hi, gh::swap_halves(*lo), t);
            } else if i == N + 3 {
                *y = gh::hsum(*lo);
            }
        };
        // Rounds 1..R unrolled in the source (R is a constant, so the `r < R` tests fold),
        // each followed by its GHASH step and a `pin` of every live register: LLVM would
        // otherwise schedule all GHASH work ahead of all AES rounds, and the core would then
        // run the two in turn instead of side by side.
        macro_rules! rounds {
            ($($r:literal)*) => {$(
                if $r < R {
                    for v in &mut x {
                        *v = _mm512_aesenc_epi128(*v, rk[$r]);
                    }
                    step($r - 1, &mut acc, &mut pend, &mut lo, &mut hi, y);
                    if H && $r <= N + 2 {
                        let [a0, a1, a2] = &mut acc;
                        let [p0, p1, p2] = &mut pend;
                        for v in [a0, a1, a2, p0, p1, p2, &mut lo, &mut hi] {
                            pin(v);
                        }
                    }
                    for v in &mut x {
                        pin(v);
                    }
                }
            )*};
        }
        rounds!(1 2 3 4 5 6 7 8 9 10 11 12 13);
        for v in &mut x {
            *v = _mm512_aesenclast_epi128(*v, rk[R]);
        }
        for i in R - 1..N + 4 {
            step(i, &mut acc, &mut pend, &mut lo, &mut hi, y);
        }
        for (i, v) in x.iter().enumerate() {
            // SAFETY: as above, within `out`.
            unsafe { _mm512_storeu_si512(out.add(off + 64 * i).cast(), _mm512_xor_si512(load(i), *v)) };
        }
    }

    /// GHASH of the `N` registers of blocks at `p` (`64N` readable bytes), into `y`.
    ///
    /// # Safety
    /// `p` is readable for `64N` bytes.
    #[inline]
    unsafe fn ghash_at<const N: usize>(key: &Key, y: &mut __m128i, p: *const u8) {
        let bswap = gh::bswap_mask512();
        let mut x = [_mm512_setzero_si512(); N];
        for (i, v) in x.iter_mut().enumerate() {
            // SAFETY: within the caller's `64N` bytes.
            *v = _mm512_shuffle_epi8(unsafe { _mm512_loadu_si512(p.add(64 * i).cast()) }, bswap);
        }
        *y = ghash_n::<N>(key, *y, &x);
    }

    /// The stitched loop: [`iteration`]s of `N` registers while at least `64N` bytes remain
    /// from `*off`. Decryption hashes each iteration's own input. Encryption hashes the
    /// ciphertext written `LAG` iterations earlier, read back from `out`: the multiplies then
    /// never wait for this iteration's AES, and no registers carry ciphertext across
    /// iterations. Its first `LAG` iterations are peeled (nothing to hash yet), so that the
    /// steady-state loop body has no branch between its AES and GHASH instruction streams,
    /// and the last `LAG` iterations' ciphertext is hashed after the loop.
    ///
    /// # Safety
    /// As [`crypt`].
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn bulk<const R: usize, const ENC: bool, const HASH: bool, const N: usize>(
        rk: &[__m512i; 15],
        key: &Key,
        y: &mut __m128i,
        ctr: &mut __m512i,
        inp: *const u8,
        out: *mut u8,
        len: usize,
        off: &mut usize,
    ) {
        const LAG: usize = 2;
        let it = 64 * N;
        let start = *off;
        if ENC && HASH {
            // The first LAG iterations have nothing to hash yet.
            for _ in 0..LAG {
                if len - *off < it {
                    break;
                }
                // SAFETY: forwarded; `*off + 64N <= len` was checked.
                unsafe { iteration::<R, ENC, false, N>(rk, key, y, ctr, inp, inp, out, *off) };
                *off += it;
            }
        }
        while len - *off >= it {
            let src = if ENC { out.wrapping_add(*off - LAG * it) } else { inp.wrapping_add(*off) };
            // SAFETY: forwarded; `*off + 64N <= len` was checked; `src` is ciphertext written
            // LAG iterations ago (encryption) or this iteration's input (decryption).
            unsafe { iteration::<R, ENC, HASH, N>(rk, key, y, ctr, src, inp, out, *off) };
            *off += it;
        }
        if ENC && HASH {
            let mut p = (*off - start).saturating_sub(LAG * it) + start;
            while p < *off {
                // SAFETY: `[p, p + 64N)` was written above.
                unsafe { ghash_at::<N>(key, y, out.wrapping_add(p)) };
                p += it;
            }
        }
    }

    /// Runs CTR over `len` bytes from `inp` to `out` starting with counter `ctr` (byte-reversed
    /// form), optionally hashing the ciphertext (`ENC`: the output; `!ENC`: the input): the
    /// bulk into `y`, then the tail (under 256 bytes) into `t`, to which `y` is handed first.
    ///
    /// # Safety
    /// `inp` is readable and `out` writable for `len` bytes; they are equal or do not overlap.
    /// `key` holds H^1..H^32 when `HASH`, and `t` has room for the tail's blocks.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt<const R: usize, const ENC: bool, const HASH: bool>(
        keys: &RoundKeys,
        key: &Key,
        y: &mut __m128i,
        ctr: &mut __m512i,
        inp: *const u8,
        out: *mut u8,
        len: usize,
        t: &mut Tail,
    ) {
        let rk = broadcast_keys::<R>(keys);
        let bswap = gh::bswap_mask512();
        let inc4 = _mm512_broadcast_i32x4(_mm_set_epi32(0, 0, 0, 4));
        let mut off = 0;
        // SAFETY: forwarded from the caller.
        unsafe {
            bulk::<R, ENC, HASH, 8>(&rk, key, y, ctr, inp, out, len, &mut off);
            bulk::<R, ENC, HASH, 4>(&rk, key, y, ctr, inp, out, len, &mut off);
        }
        t.y = _mm_xor_si128(t.y, *y);
        let mut next = || {
            let c = _mm512_shuffle_epi8(*ctr, bswap);
            *ctr = _mm512_add_epi32(*ctr, inc4);
            c
        };
        // Tail: up to 255 bytes, in registers of 64 bytes with byte masks.
        let mut start = off;
        while start < len {
            let n = (len - start).min(64);
            let [k] = aes_n::<R, 1>(&rk, [next()]);
            let d = load_bytes(inp.wrapping_add(start), n);
            let r = _mm512_xor_si512(d, k);
            store_bytes(out.wrapping_add(start), n, r);
            if HASH {
                let c = _mm512_maskz_mov_epi8(byte_mask(n), if ENC { r } else { d });
                tail_add(key, t, _mm512_shuffle_epi8(c, bswap), n.div_ceil(16));
            }
            start += 64;
        }
    }

    #[inline]
    fn tail_new(left: usize) -> Tail {
        Tail { acc: [_mm512_setzero_si512(); 3], left, y: _mm_setzero_si128() }
    }

    /// Adds the `nb <= 4` byte-reflected blocks in the low lanes of `x` (the others zero).
    #[inline]
    fn tail_add(key: &Key, t: &mut Tail, x: __m512i, nb: usize) {
        debug_assert!(nb <= 4 && nb <= t.left && t.left <= POWERS);
        let x = _mm512_xor_si512(x, _mm512_zextsi128_si512(t.y));
        t.y = _mm_setzero_si128();
        let i = POWERS - t.left;
        let m = ((1u32 << (2 * nb)) - 1) as __mmask8;
        // SAFETY: entries `i..i + nb` of the tables are in bounds (`nb <= left`); the masked
        // lanes are not accessed.
        let (h, hx) = unsafe {
            (
                _mm512_maskz_loadu_epi64(m, key.pow.as_ptr().wrapping_add(i).cast()),
                _mm512_maskz_loadu_epi64(m, key.powx.as_ptr().wrapping_add(i).cast()),
            )
        };
        gh::mul_acc(&mut t.acc, x, h, hx);
        t.left -= nb;
    }

    /// Adds `n <= 64` bytes at `p`, zero-padded to whole blocks.
    #[inline]
    fn tail_add_bytes(key: &Key, t: &mut Tail, p: *const u8, n: usize) {
        let x = _mm512_shuffle_epi8(load_bytes(p, n), gh::bswap_mask512());
        tail_add(key, t, x, n.div_ceil(16));
    }

    /// Adds the length block and reduces: `GHASH(A, C)`, byte-reflected.
    #[inline]
    fn tail_finish(key: &Key, mut t: Tail, aad_len: usize, ct_len: usize) -> __m128i {
        // The reflected length block: bits(C) in the low, bits(A) in the high half.
        let lens = _mm_set_epi64x(crate::bits(aad_len) as i64, crate::bits(ct_len) as i64);
        tail_add(key, &mut t, _mm512_zextsi128_si512(lens), 1);
        gh::hsum(gh::reduce512(t.acc[0], t.acc[1], t.acc[2]))
    }

    /// The counter register for the first data block, `inc32(J0)`, and its three successors.
    #[inline]
    fn first_counters(j0: &[u8; 16]) -> __m512i {
        let r = pclmul::load::<true>(j0);
        _mm512_add_epi32(_mm512_broadcast_i32x4(r), _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1))
    }

    /// GHASH of `data` zero-padded, into `y`.
    #[inline]
    fn ghash_padded(key: &Key, y: &mut __m128i, data: &[u8]) {
        let (blocks, rest) = data.as_chunks::<16>();
        if !blocks.is_empty() {
            let mut acc = 0u128;
            pclmul::store_u128(&mut acc, *y);
            gh::update::<true>(key, &mut acc, blocks);
            *y = pclmul::load_u128(&acc);
        }
        if !rest.is_empty() {
            let mut t = tail_new(1);
            t.y = *y;
            tail_add_bytes(key, &mut t, rest.as_ptr(), rest.len());
            *y = gh::hsum(gh::reduce512(t.acc[0], t.acc[1], t.acc[2]));
        }
    }

    /// Encryption (`ENC`) or one-pass decryption of `len` bytes from `inp` to `out`; returns
    /// the full tag `GHASH(A, C) ^ E(J0)`.
    ///
    /// Short messages (no full 256-byte iteration, AAD of at most eight blocks) hash AAD,
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
        // The tail's blocks, the length block, and the AAD if short: at most 8 + 16 + 1.
        let mut left = (len % 256).div_ceil(16) + 1;
        let short = len < 256 && aad.len() <= 128;
        if short {
            left += aad.len().div_ceil(16);
        }
        let mut t = tail_new(left);
        if short {
            let mut off = 0;
            while off < aad.len() {
                let n = (aad.len() - off).min(64);
                tail_add_bytes(key, &mut t, aad.as_ptr().wrapping_add(off), n);
                off += 64;
            }
        } else {
            ghash_padded(key, &mut y, aad);
        }
        let mut ctr = first_counters(j0);
        // SAFETY: forwarded from the caller.
        unsafe {
            match keys.rounds {
                10 => crypt::<10, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut t),
                12 => crypt::<12, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut t),
                _ => crypt::<14, ENC, true>(keys, key, &mut y, &mut ctr, inp, out, len, &mut t),
            }
        };
        super::aesni_gcm::make_tag(tail_finish(key, t, aad.len(), len), ej0)
    }

    /// The full tag of `(aad, ct)` without decrypting: the first pass of an out-of-place
    /// decryption, which must not write its output before the tag is checked.
    fn tag_only(keys: &RoundKeys, key: &Key, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let ej0 = super::aesni::encrypt_xmm(keys, j0);
        let mut y = _mm_setzero_si128();
        ghash_padded(key, &mut y, aad);
        ghash_padded(key, &mut y, ct);
        let mut t = tail_new(1);
        t.y = y;
        super::aesni_gcm::make_tag(tail_finish(key, t, aad.len(), ct.len()), ej0)
    }

    /// Plain CTR from `inc32(J0)`: undoes [`open`] on a failed tag, or decrypts after a
    /// separate check.
    ///
    /// # Safety
    /// As [`seal`].
    unsafe fn ctr(keys: &RoundKeys, j0: &[u8; 16], inp: *const u8, out: *mut u8, len: usize) {
        let mut y = _mm_setzero_si128();
        let mut ctr = first_counters(j0);
        // Neither the key table nor the tail state is used when HASH is false.
        let key = &Key::ZERO;
        let mut t = tail_new(0);
        // SAFETY: forwarded from the caller.
        unsafe {
            match keys.rounds {
                10 => crypt::<10, false, false>(keys, key, &mut y, &mut ctr, inp, out, len, &mut t),
                12 => crypt::<12, false, false>(keys, key, &mut y, &mut ctr, inp, out, len, &mut t),
                _ => crypt::<14, false, false>(keys, key, &mut y, &mut ctr, inp, out, len, &mut t),
            };
        }
    }
}

crate::fused::engine_keys!(
    /// Round keys for this engine; holding one proves the CPU passed its detection.
    Vaes512 = Vaes512,
    super::aesni::checked_schedule
);
