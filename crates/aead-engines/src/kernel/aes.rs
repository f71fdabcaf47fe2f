//! The AES half of the kernel: the round keys in registers ([`AesKeys`]) and their rounds
//! over a group of registers, and AES-ECB of a few blocks ([`encrypt_blocks`]).
#![allow(unsafe_code)]

use super::*;

/// AES round keys in registers, laid out for the round count as data: the whitening key, up
/// to four extra rounds (the last `rounds - 10` slots of `extra`), nine middle rounds and the
/// last key, so that the middle and last rounds read the same registers for every key size.
///
/// With x86's `AESENC` (key added after the round) the slots hold `k_0`; `k_1..k_4` (AES-256)
/// or `k_1, k_2` (AES-192); `k_(R-9)..k_(R-1)`; `k_R`. With ARMv8's `AESE` (key added before
/// the round, [`AesLanes::KEY_FIRST`]) every round's key is the one before: no whitening,
/// `k_0..k_3` or `k_0, k_1`; `k_(R-10)..k_(R-2)`; and the last round needs two, `k_(R-1)`
/// (in `first`) and `k_R`.
#[derive(Clone, Copy)]
pub(crate) struct AesKeys<L> {
    pub(super) first: L,
    pub(super) extra: [L; 4],
    pub(super) mid: [L; 9],
    pub(super) last: L,
    pub(super) rounds: usize,
}

impl<L: AesLanes> AesKeys<L> {
    /// The registers for `rk` (loops, not closures: a closure in this generic code would be
    /// compiled without the engine's features).
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    pub(crate) unsafe fn new(rk: &RoundKeys) -> Self {
        // 10, 12 or 14 by `RoundKeys`' construction; the clamp (two conditional moves) lets
        // the compiler drop the bounds checks of every index below.
        let r = rk.rounds().clamp(10, 14);
        let shift = usize::from(L::KEY_FIRST);
        // The first slot of `extra` in use: 4, 2 or 0.
        let extra_from = 14 - r;
        // Every slot is written at a constant index (a slot chosen at run time would keep the
        // whole struct in memory, and returning it would copy a kilobyte).
        // SAFETY: forwarded from the caller.
        unsafe {
            let zero = L::zero();
            let mut extra = [zero; 4];
            for (j, k) in extra.iter_mut().enumerate() {
                if j >= extra_from {
                    *k = L::broadcast(rk.key(j - extra_from + 1 - shift));
                }
            }
            let mut mid = [zero; 9];
            for (i, k) in mid.iter_mut().enumerate() {
                *k = L::broadcast(rk.key(r - 9 + i - shift));
            }
            AesKeys {
                first: L::broadcast(rk.key(if L::KEY_FIRST { r - 1 } else { 0 })),
                extra,
                mid,
                last: L::broadcast(rk.key(r)),
                rounds: r,
            }
        }
    }

    /// The start of a block's encryption: the whitening key (x86), nothing (ARMv8).
    #[inline(always)]
    pub(super) unsafe fn begin(&self, x: L) -> L {
        if L::KEY_FIRST {
            x
        } else {
            // SAFETY: forwarded from the caller.
            unsafe { L::xor(x, self.first) }
        }
    }

    /// The extra rounds of AES-192 (two) and AES-256 (four), on every register of `x`.
    #[inline(always)]
    pub(super) unsafe fn extra<const N: usize>(&self, x: &mut [L; N]) {
        // Constant indices only (see `new`).
        // SAFETY: forwarded from the caller.
        unsafe {
            if self.rounds > 10 {
                if self.rounds > 12 {
                    round_all(x, self.extra[0]);
                    round_all(x, self.extra[1]);
                }
                round_all(x, self.extra[2]);
                round_all(x, self.extra[3]);
            }
        }
    }

    /// The keys of the first two rounds in the [`AesLanes::KEY_FIRST`] layout, `k_0` and
    /// `k_1`: the first two slots of `extra` in use, or the first two middle ones for AES-128.
    #[inline(always)]
    pub(super) fn first_two(&self) -> (L, L) {
        // Constant indices only (see `new`).
        if self.rounds > 12 {
            (self.extra[0], self.extra[1])
        } else if self.rounds > 10 {
            (self.extra[2], self.extra[3])
        } else {
            (self.mid[0], self.mid[1])
        }
    }

    /// [`Self::extra`] on registers that hold the first round's output already (a cached
    /// first round, [`AesLanes::KEY_FIRST`] layout), with `k2` as the second round's key:
    /// AES-256's second to fourth rounds, AES-192's second; nothing for AES-128, whose second
    /// round is middle round 1 ([`Self::mid_cached`]).
    #[inline(always)]
    pub(super) unsafe fn extra_cached<const N: usize>(&self, x: &mut [L; N], k2: L) {
        // Constant indices only (see `new`).
        // SAFETY: forwarded from the caller.
        unsafe {
            if self.rounds > 12 {
                round_all(x, k2);
                round_all(x, self.extra[2]);
                round_all(x, self.extra[3]);
            } else if self.rounds > 10 {
                round_all(x, k2);
            }
        }
    }

    /// The key of middle round 1 for registers whose first round is cached and whose second
    /// round's key is `k2`: `k2` itself for AES-128 (whose second round that is), the key
    /// schedule's otherwise. Chosen once a run, outside the loop.
    #[inline(always)]
    pub(super) fn mid1_cached(&self, k2: L) -> L {
        if self.rounds > 10 { self.mid[1] } else { k2 }
    }

    /// Middle round `i` of a register whose first round is cached (see
    /// [`Self::extra_cached`]), with `mid1` ([`Self::mid1_cached`]) as middle round 1's key:
    /// for AES-128 none at `i == 0` (the first round).
    #[inline(always)]
    pub(super) unsafe fn mid_cached(&self, i: usize, x: L, mid1: L) -> L {
        // SAFETY: forwarded from the caller.
        unsafe {
            if i == 0 && self.rounds == 10 {
                x
            } else if i == 1 {
                L::aes_round(x, mid1)
            } else {
                self.mid(i, x)
            }
        }
    }

    /// Middle round `i` (0..9).
    #[inline(always)]
    pub(super) unsafe fn mid(&self, i: usize, x: L) -> L {
        // SAFETY: forwarded from the caller.
        unsafe { L::aes_round(x, self.mid[i]) }
    }

    /// The last round, XORed with `data`: the CTR output.
    #[inline(always)]
    pub(super) unsafe fn end(&self, x: L, data: L) -> L {
        // SAFETY: forwarded from the caller.
        unsafe {
            if L::KEY_FIRST {
                xor3(L::aes_last(x, self.first), self.last, data)
            } else {
                L::xor(L::aes_last(x, self.last), data)
            }
        }
    }

    /// Encrypts `N` registers, each XORed with the matching `data` register.
    #[inline(always)]
    pub(crate) unsafe fn encrypt<const N: usize>(&self, mut x: [L; N], data: &[L; N]) -> [L; N] {
        // SAFETY: forwarded from the caller.
        unsafe {
            for v in &mut x {
                *v = self.begin(*v);
            }
            self.extra(&mut x);
            for i in 0..9 {
                for v in &mut x {
                    *v = self.mid(i, *v);
                }
            }
            for (v, d) in x.iter_mut().zip(data) {
                *v = self.end(*v, *d);
            }
        }
        x
    }

    /// One block (in every lane), for a tag mask or a key check.
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    pub(crate) unsafe fn encrypt_block(&self, block: &[u8; 16]) -> [u8; 16] {
        // SAFETY: forwarded from the caller.
        unsafe {
            let [c] = self.encrypt([L::broadcast(block)], &[L::zero()]);
            L::lane0(c)
        }
    }
}

/// One AES round with key `k` on every register of `x`.
#[inline(always)]
pub(super) unsafe fn round_all<L: AesLanes, const N: usize>(x: &mut [L; N], k: L) {
    for v in x.iter_mut() {
        // SAFETY: forwarded from the caller.
        *v = unsafe { L::aes_round(*v, k) };
    }
}

/// AES-ECB: encrypts each block of `blocks` in place, a register at a time.
///
/// # Safety
/// As the [`AesLanes`] methods.
#[inline(always)]
pub(crate) unsafe fn encrypt_blocks<L: AesLanes>(ks: &AesKeys<L>, blocks: &mut [[u8; 16]]) {
    for chunk in blocks.chunks_mut(L::BLOCKS) {
        let whole = chunk.len() == L::BLOCKS;
        let n = 16 * chunk.len();
        let p = chunk.as_mut_ptr().cast::<u8>();
        // SAFETY: `chunk` is `n` readable and writable bytes, `n <= 16 * BLOCKS`; the
        // caller's features.
        unsafe {
            let x = if whole {
                L::load(p)
            } else {
                L::load_partial(p, n)
            };
            let [r] = ks.encrypt([x], &[L::zero()]);
            if whole {
                L::store(p, r);
            } else {
                L::store_partial(p, n, r);
            }
        }
    }
}
