//! Keyed POLYVAL/GHASH state: powers of H, the accumulator, and dispatch to the backend.

use crate::{Backend, soft};

/// The most powers of H any backend uses (the AVX-512 stride).
pub const POWERS: usize = 32;

/// Powers of the hash key, laid out for the wide kernels.
///
/// `pow[POWERS - k]` holds H^k, so the `n` powers a run of `n` blocks needs, H^n (first block)
/// down to H^1 (last block), are the contiguous tail `pow[POWERS - n..]`: one unaligned vector
/// load per group of blocks, for any `n`. `powx[j]` holds the Karatsuba middle operand of
/// `pow[j]`, `lo64 ^ hi64`, in both 64-bit halves.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct Key {
    /// `pow[POWERS - k]` = H^k.
    pub pow: [u128; POWERS],
    /// `powx[j]` = the Karatsuba middle operand of `pow[j]`, in both halves.
    pub powx: [u128; POWERS],
}

impl Key {
    /// The all-zero table.
    pub const ZERO: Key = Key {
        pow: [0; POWERS],
        powx: [0; POWERS],
    };

    /// H^k for `1 <= k <= POWERS`, if computed.
    #[inline]
    pub(crate) fn get(&self, k: usize) -> u128 {
        self.pow[POWERS - k]
    }

    #[inline]
    fn set(&mut self, k: usize, v: u128) {
        self.pow[POWERS - k] = v;
        let x = (v as u64) ^ ((v >> 64) as u64);
        self.powx[POWERS - k] = u128::from(x) | (u128::from(x) << 64);
    }

    /// The `n` powers H^n..H^1, in the order the blocks use them.
    #[inline]
    pub fn tail(&self, n: usize) -> (&[u128], &[u128]) {
        (&self.pow[POWERS - n..], &self.powx[POWERS - n..])
    }

    /// Extends the table from H^1..H^have to H^1..H^want with `mul`, doubling so that the
    /// products of one round are independent (a dependency depth of log2(want)).
    #[inline(always)]
    pub(crate) fn fill(&mut self, have: usize, want: usize, mul: impl Fn(u128, u128) -> u128) {
        debug_assert!(have >= 1 && want <= POWERS);
        let mut have = have;
        while have < want {
            let top = self.get(have);
            let next = want.min(2 * have);
            for k in have + 1..=next {
                let v = mul(self.get(k - have), top);
                self.set(k, v);
            }
            have = next;
        }
    }
}

/// Hands `data` to `f` as its whole blocks, then, if there is one, its final partial block
/// zero-padded (GHASH's and POLYVAL's padding of a byte string).
#[inline]
pub fn for_padded_blocks(data: &[u8], mut f: impl FnMut(&[[u8; 16]])) {
    let (blocks, rest) = data.as_chunks::<16>();
    f(blocks);
    if !rest.is_empty() {
        let mut last = [0u8; 16];
        last[..rest.len()].copy_from_slice(rest);
        f(&[last]);
    }
}

/// A keyed POLYVAL (`GHASH = false`) or GHASH (`GHASH = true`) state.
///
/// GHASH runs as byte-reflected POLYVAL (RFC 8452, Appendix A): the key is
/// `mulX_POLYVAL(ByteReverse(H))`, each block is read big-endian instead of little-endian (a free
/// reinterpretation on the portable path, one byte shuffle in registers on the SIMD paths), and
/// the result is written big-endian.
#[derive(Clone)]
pub struct Hasher<const GHASH: bool> {
    key: Key,
    acc: u128,
    /// Powers computed so far: H^1..H^npow. More are computed when a long input first needs them,
    /// so a short message does not pay for the wide loop's table.
    npow: usize,
    /// Only ever set to a backend whose `is_available()` returned true.
    backend: Backend,
}

/// A keyed POLYVAL state.
pub type Polyval = Hasher<false>;
/// A keyed GHASH state.
pub type Ghash = Hasher<true>;

impl<const GHASH: bool> Hasher<GHASH> {
    /// A state for key `h` (the POLYVAL key, or GHASH's H) on the detected backend.
    #[inline]
    pub fn new(h: &[u8; 16]) -> Self {
        Self::build(h, Backend::detect())
    }

    /// A state on `backend`, or `None` if this CPU cannot run it.
    pub fn with_backend(h: &[u8; 16], backend: Backend) -> Option<Self> {
        backend.is_available().then(|| Self::build(h, backend))
    }

    fn build(h: &[u8; 16], backend: Backend) -> Self {
        let h = if GHASH {
            soft::mulx(u128::from_be_bytes(*h))
        } else {
            u128::from_le_bytes(*h)
        };
        let mut key = Key::ZERO;
        key.set(1, h);
        Self {
            key,
            acc: 0,
            npow: 1,
            backend,
        }
    }

    /// The backend this state runs on.
    #[inline]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Absorbs whole blocks.
    #[inline]
    pub fn update(&mut self, blocks: &[[u8; 16]]) {
        if blocks.is_empty() {
            return;
        }
        let want = blocks.len().min(self.backend.powers());
        if want > self.npow {
            if self.npow == 1 && want <= 4 && self.update_fresh(blocks) {
                self.npow = want;
                return;
            }
            self.extend_powers(want);
        }
        let mut acc = self.acc;
        self.kernel(&mut acc, blocks);
        self.acc = acc;
    }

    /// Runs the backend's kernel; the caller has made sure the powers it needs are there.
    #[inline]
    fn kernel(&self, acc: &mut u128, blocks: &[[u8; 16]]) {
        let key = &self.key;
        match self.backend {
            Backend::Portable => crate::portable::update::<GHASH>(key, acc, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            // SAFETY: `backend` is only stored after `is_available()` confirmed the CPU has every
            // feature this kernel is compiled with.
            Backend::Pclmul => unsafe { crate::x86::pclmul::update::<GHASH>(key, acc, blocks) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, detection of the AVX2 tier's features succeeded.
            Backend::Avx2 => unsafe { crate::x86::avx2::update::<GHASH>(key, acc, blocks) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, detection of the AVX-512 tier's features succeeded.
            Backend::Avx512 => unsafe { crate::x86::avx512::update::<GHASH>(key, acc, blocks) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above, detection of the PMULL tier's features succeeded.
            Backend::Pmull => unsafe { crate::aarch64::pmull::update::<GHASH>(key, acc, blocks) },
        }
    }

    /// A fresh key's first short update (2 to 4 blocks, only H^1 computed) with the powers
    /// computed in registers as they are used; `false` where the backend has no such path.
    #[inline]
    fn update_fresh(&mut self, blocks: &[[u8; 16]]) -> bool {
        let (key, acc) = (&mut self.key, &mut self.acc);
        let _ = (&key, &acc, blocks);
        match self.backend {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            // SAFETY: `backend` is only stored after `is_available()` succeeded (see `update`).
            Backend::Pclmul => unsafe {
                crate::x86::pclmul::update_fresh::<GHASH>(key, acc, blocks);
                true
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above; the AVX2 and AVX-512 tiers' feature lists include every feature
            // of the PCLMULQDQ tier (`pclmulqdq`, `sse2`, `ssse3`).
            Backend::Avx2 | Backend::Avx512 => unsafe {
                crate::x86::pclmul::update_fresh::<GHASH>(key, acc, blocks);
                true
            },
            _ => false,
        }
    }

    #[cold]
    fn extend_powers(&mut self, want: usize) {
        let (key, have) = (&mut self.key, self.npow);
        match self.backend {
            Backend::Portable => key.fill(have, want, soft::dot),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            // SAFETY: `backend` is only stored after `is_available()` succeeded (see `update`).
            Backend::Pclmul => unsafe { crate::x86::pclmul::fill_powers(key, have, want) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above; the AVX2 and AVX-512 tiers' feature lists include every feature
            // of the PCLMULQDQ tier (`pclmulqdq`, `sse2`, `ssse3`).
            Backend::Avx2 | Backend::Avx512 => unsafe {
                crate::x86::pclmul::fill_powers(key, have, want)
            },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above.
            Backend::Pmull => unsafe { crate::aarch64::pmull::fill_powers(key, have, want) },
        }
        self.npow = want;
    }

    /// Computes every power of H the wide loops use now, instead of on first use: for a key
    /// that hashes many messages through clones or [`Self::update_detached`].
    pub fn precompute(&mut self) {
        if self.npow < POWERS {
            self.extend_powers(POWERS);
        }
    }

    /// Absorbs `blocks` into an accumulator kept outside the state (`acc` as
    /// [`Self::set_state`]/[`Self::finalize`] would take and give it), so one keyed state can
    /// serve many messages through `&self`. Uses the powers computed so far (all of them after
    /// [`Self::precompute`]), in smaller strides if fewer are there.
    pub fn update_detached(&self, acc: &mut [u8; 16], blocks: &[[u8; 16]]) {
        let mut a = if GHASH {
            u128::from_be_bytes(*acc)
        } else {
            u128::from_le_bytes(*acc)
        };
        let step = self.npow.min(self.backend.powers());
        if step >= blocks.len().min(self.backend.powers()) {
            self.kernel(&mut a, blocks);
        } else {
            for chunk in blocks.chunks(step) {
                self.kernel(&mut a, chunk);
            }
        }
        *acc = if GHASH {
            a.to_be_bytes()
        } else {
            a.to_le_bytes()
        };
    }

    /// For the fused AES-GCM kernels: the key table (with the powers computed so far).
    #[doc(hidden)]
    pub fn __key(&self) -> (&Key, usize) {
        (&self.key, self.npow)
    }

    /// For the fused AES-GCM kernels: makes sure H^1..H^n are computed (`n <= POWERS`) and
    /// returns the key table with the accumulator (in POLYVAL's domain: for GHASH, the
    /// byte-reflected state). Not a stable API.
    #[doc(hidden)]
    pub fn __key_and_acc(&mut self, n: usize) -> (&Key, &mut u128) {
        let n = n.clamp(1, POWERS);
        if n > self.npow {
            self.extend_powers(n);
        }
        (&self.key, &mut self.acc)
    }

    /// Absorbs `data`, zero-padding a final partial block.
    #[inline]
    pub fn update_padded(&mut self, data: &[u8]) {
        for_padded_blocks(data, |b| self.update(b));
    }

    /// [`Self::update_detached`] of `data`, zero-padding a final partial block.
    #[inline]
    pub fn update_detached_padded(&self, acc: &mut [u8; 16], data: &[u8]) {
        for_padded_blocks(data, |b| self.update_detached(acc, b));
    }

    /// The hash of everything absorbed so far.
    #[inline]
    pub fn finalize(&self) -> [u8; 16] {
        if GHASH {
            self.acc.to_be_bytes()
        } else {
            self.acc.to_le_bytes()
        }
    }

    /// Clears the accumulator, keeping the key.
    #[inline]
    pub fn reset(&mut self) {
        self.acc = 0;
    }

    /// Sets the accumulator to `block` (as `finalize` would return it).
    #[inline]
    pub fn set_state(&mut self, block: &[u8; 16]) {
        self.acc = if GHASH {
            u128::from_be_bytes(*block)
        } else {
            u128::from_le_bytes(*block)
        };
    }
}

#[cfg(feature = "zeroize")]
impl<const GHASH: bool> Drop for Hasher<GHASH> {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        // Only H^1..H^npow were ever written; the rest of the table still holds the zeros it
        // was built with (a short-lived state, say AES-GCM-SIV's per-nonce key, wipes a few
        // entries instead of the whole 1 KiB).
        let n = self.npow.min(POWERS);
        self.key.pow[POWERS - n..].zeroize();
        self.key.powx[POWERS - n..].zeroize();
        self.acc.zeroize();
    }
}

impl<const GHASH: bool> core::fmt::Debug for Hasher<GHASH> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(if GHASH { "Ghash" } else { "Polyval" })
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}
