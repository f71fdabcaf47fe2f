//! aarch64 kernels: AES key expansion and the fused AES-CTR + GHASH loop on the ARMv8
//! Cryptography Extensions (AESE/AESMC and PMULL).
//!
//! Eight blocks per iteration: the AES rounds of iteration `i`'s counter blocks and the GHASH
//! multiplies (PMULL, Karatsuba, against H^8..H^1, one reduction per iteration) of iteration
//! `i - 1`'s ciphertext (encryption) or iteration `i`'s (decryption) are independent, so the
//! core overlaps them. The tail goes block by block, a partial block through a stack copy,
//! and is hashed together with the length block.
//!
//! ARMv8's `AESE` is AddRoundKey + SubBytes + ShiftRows (the key comes first) and `AESMC` is
//! MixColumns, so a round is `aesmc(aese(state, k_r))` and the last is `aese(state, k_{n-1}) ^
//! k_n`. The key schedule's `SubWord` is one `AESE` with a zero key on the word replicated in
//! all four columns (ShiftRows then moves nothing).
//!
//! The only `unsafe` code here is at the intrinsics and raw buffer pointers.
#![allow(unsafe_code)]

use core::arch::aarch64::*;

use crate::powers::Key;
use clmul_core::__private::{for_padded_blocks, pmull};
use inout::InOutBuf;

/// Blocks per iteration.
const BLOCKS: usize = 8;

use crate::fused::RoundKeys;

clmul_core::target_tier! {
    detect cpuid = ["aes"];

    #[inline]
    fn load(b: &[u8; 16]) -> uint8x16_t {
        // SAFETY: 16 readable bytes; no alignment requirement.
        unsafe { vld1q_u8(b.as_ptr()) }
    }

    #[inline]
    fn store(b: &mut [u8; 16], v: uint8x16_t) {
        // SAFETY: 16 writable bytes; no alignment requirement.
        unsafe { vst1q_u8(b.as_mut_ptr(), v) }
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

    #[inline]
    fn round_keys<const R: usize>(keys: &RoundKeys) -> [uint8x16_t; 15] {
        let mut out = [vdupq_n_u8(0); 15];
        for (o, k) in out.iter_mut().zip(&keys.rk).take(R + 1) {
            *o = load(k);
        }
        out
    }

    #[inline]
    fn aes_n<const R: usize, const N: usize>(rk: &[uint8x16_t; 15], mut x: [uint8x16_t; N]) -> [uint8x16_t; N] {
        for k in &rk[..R - 1] {
            for v in &mut x {
                *v = vaesmcq_u8(vaeseq_u8(*v, *k));
            }
        }
        for v in &mut x {
            *v = veorq_u8(vaeseq_u8(*v, rk[R - 1]), rk[R]);
        }
        x
    }

    /// One block with a runtime round count (the tag mask and the key check).
    fn encrypt_block(keys: &RoundKeys, block: &[u8; 16]) -> [u8; 16] {
        let mut x = load(block);
        for k in &keys.rk[..keys.rounds - 1] {
            x = vaesmcq_u8(vaeseq_u8(x, load(k)));
        }
        x = veorq_u8(vaeseq_u8(x, load(&keys.rk[keys.rounds - 1])), load(&keys.rk[keys.rounds]));
        let mut out = [0u8; 16];
        store(&mut out, x);
        out
    }

    /// GHASH of eight blocks (`GHASH` byte order, as stored) against H^8..H^1, `y` added to
    /// the first; reduced, in POLYVAL's domain.
    #[inline]
    fn ghash8(key: &Key, y: uint64x2_t, blocks: &[[u8; 16]; BLOCKS]) -> uint64x2_t {
        let (pow, powx) = key.tail(BLOCKS);
        let zero = vdupq_n_u64(0);
        let mut acc = pmull::Acc { lo: zero, mid: zero, hi: zero };
        let mut first = y;
        for ((b, h), hx) in blocks.iter().zip(pow).zip(powx) {
            let x = veorq_u64(pmull::load::<true>(b), first);
            first = zero;
            pmull::mul_acc(&mut acc, x, pmull::load_u128(h), pmull::load_u128(hx));
        }
        pmull::reduce(acc)
    }

    /// CTR from counter value `ctr` (the 32-bit big-endian word of the counter block) over
    /// `len` bytes, hashing the ciphertext of whole iterations into `y`; the tail's ciphertext,
    /// zero-padded, goes to `tail_ct` (its block count is returned).
    ///
    /// # Safety
    /// `inp` is readable and `out` writable for `len` bytes; they are equal or do not overlap.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt<const R: usize, const ENC: bool, const HASH: bool>(
        keys: &RoundKeys,
        key: &Key,
        y: &mut uint64x2_t,
        j0: &[u8; 16],
        inp: *const u8,
        out: *mut u8,
        len: usize,
        tail_ct: &mut [[u8; 16]],
    ) -> usize {
        let rk = round_keys::<R>(keys);
        let base = vreinterpretq_u32_u8(load(j0));
        let mut ctr = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
        let mut next = || {
            ctr = ctr.wrapping_add(1);
            vreinterpretq_u8_u32(vsetq_lane_u32::<3>(ctr.to_be(), base))
        };
        let mut off = 0;
        let mut pending: Option<[[u8; 16]; BLOCKS]> = None;
        while len - off >= 16 * BLOCKS {
            let mut c = [vdupq_n_u8(0); BLOCKS];
            for v in &mut c {
                *v = next();
            }
            let ks = aes_n::<R, BLOCKS>(&rk, c);
            let mut data = [[0u8; 16]; BLOCKS];
            // SAFETY: `off + 128 <= len`: these bytes are in `inp`.
            unsafe { core::ptr::copy_nonoverlapping(inp.add(off), data.as_mut_ptr().cast::<u8>(), 16 * BLOCKS) };
            if HASH && !ENC {
                *y = ghash8(key, *y, &data);
            }
            if HASH
                && ENC
                && let Some(p) = &pending
            {
                *y = ghash8(key, *y, p);
            }
            let mut res = [[0u8; 16]; BLOCKS];
            for i in 0..BLOCKS {
                store(&mut res[i], veorq_u8(load(&data[i]), ks[i]));
            }
            // SAFETY: as above, within `out`.
            unsafe { core::ptr::copy_nonoverlapping(res.as_ptr().cast::<u8>(), out.add(off), 16 * BLOCKS) };
            if HASH && ENC {
                pending = Some(res);
            }
            off += 16 * BLOCKS;
        }
        if let Some(p) = &pending {
            *y = ghash8(key, *y, p);
        }
        let rest = len - off;
        let mut start = 0;
        while start < rest {
            let n = (rest - start).min(16);
            let [k] = aes_n::<R, 1>(&rk, [next()]);
            let mut block = [0u8; 16];
            // SAFETY: `n` readable bytes of `inp`.
            unsafe { core::ptr::copy_nonoverlapping(inp.add(off + start), block.as_mut_ptr(), n) };
            let mut res = [0u8; 16];
            store(&mut res, veorq_u8(load(&block), k));
            // SAFETY: `n` writable bytes of `out`.
            unsafe { core::ptr::copy_nonoverlapping(res.as_ptr(), out.add(off + start), n) };
            if HASH {
                tail_ct[start / 16][..n].copy_from_slice(if ENC { &res[..n] } else { &block[..n] });
            }
            start += 16;
        }
        rest.div_ceil(16)
    }

    #[inline]
    fn ghash_padded(key: &Key, y: &mut uint64x2_t, data: &[u8]) {
        let mut acc = pmull::to_u128(*y);
        for_padded_blocks(data, |b| pmull::update::<true>(key, &mut acc, b));
        *y = pmull::load_u128(&acc);
    }

    #[inline]
    fn finish(key: &Key, y: uint64x2_t, blocks: &[[u8; 16]], ej0: &[u8; 16]) -> [u8; 16] {
        let mut acc = pmull::to_u128(y);
        pmull::update::<true>(key, &mut acc, blocks);
        let mut tag = acc.to_be_bytes();
        for (t, m) in tag.iter_mut().zip(ej0) {
            *t ^= m;
        }
        tag
    }

    /// Encryption (`ENC`) or one-pass decryption; returns the full tag.
    ///
    /// # Safety
    /// As [`crypt`].
    #[inline]
    unsafe fn aead<const ENC: bool>(keys: &RoundKeys, key: &Key, j0: &[u8; 16], aad: &[u8], inp: *const u8, out: *mut u8, len: usize) -> [u8; 16] {
        let ej0 = encrypt_block(keys, j0);
        let mut y = vdupq_n_u64(0);
        let mut buf = [[0u8; 16]; 32];
        let mut n = 0;
        if len < 16 * BLOCKS && aad.len() <= 128 {
            n = crate::fused::copy_padded(aad, &mut buf);
        } else {
            ghash_padded(key, &mut y, aad);
        }
        // SAFETY: forwarded from the caller.
        n += unsafe {
            match keys.rounds {
                10 => crypt::<10, ENC, true>(keys, key, &mut y, j0, inp, out, len, &mut buf[n..]),
                12 => crypt::<12, ENC, true>(keys, key, &mut y, j0, inp, out, len, &mut buf[n..]),
                _ => crypt::<14, ENC, true>(keys, key, &mut y, j0, inp, out, len, &mut buf[n..]),
            }
        };
        buf[n] = crate::fused::length_block(aad.len(), len);
        finish(key, y, &buf[..=n], &ej0)
    }

    /// Plain CTR from `inc32(J0)`.
    ///
    /// # Safety
    /// As [`crypt`].
    unsafe fn ctr(keys: &RoundKeys, j0: &[u8; 16], inp: *const u8, out: *mut u8, len: usize) {
        let mut y = vdupq_n_u64(0);
        let key = &Key::ZERO;
        // SAFETY: forwarded from the caller.
        unsafe {
            match keys.rounds {
                10 => crypt::<10, false, false>(keys, key, &mut y, j0, inp, out, len, &mut []),
                12 => crypt::<12, false, false>(keys, key, &mut y, j0, inp, out, len, &mut []),
                _ => crypt::<14, false, false>(keys, key, &mut y, j0, inp, out, len, &mut []),
            };
        }
    }

    fn tag_only(keys: &RoundKeys, key: &Key, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let ej0 = encrypt_block(keys, j0);
        let mut y = vdupq_n_u64(0);
        ghash_padded(key, &mut y, aad);
        ghash_padded(key, &mut y, ct);
        finish(key, y, &[crate::fused::length_block(aad.len(), ct.len())], &ej0)
    }
}

/// Our key schedule for `key`, if the CPU has AES and it reproduces `h = E_K(0^128)`
/// (compared in constant time).
fn checked_schedule(key: &[u8], h: &[u8; 16]) -> Option<RoundKeys> {
    if !available() {
        return None;
    }
    // SAFETY: detection succeeded just above.
    let keys = unsafe { expand(key) }?;
    // SAFETY: as above.
    let e0 = unsafe { encrypt_block(&keys, &[0; 16]) };
    ctutils::CtEq::ct_eq(&e0[..], &h[..])
        .to_bool()
        .then_some(keys)
}

crate::fused::engine_keys!(
    /// Round keys for this engine; holding one proves the CPU passed its detection.
    Armv8Gcm = Armv8,
    checked_schedule
);
