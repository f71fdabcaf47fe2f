//! Keyed POLYVAL/GHASH state: the accumulator, the powers of H it keeps, and dispatch to the
//! backend.
//!
//! # What a state computes, and when
//!
//! - **Key setup** stores H and nothing else: a message of one block needs no other power,
//!   and a state created per message (AES-GCM-SIV keys POLYVAL per nonce) pays for no
//!   multiply it does not use.
//! - **The first update of two blocks or more** computes H^2..H^4 in registers (H^2 and
//!   H^4 by carry-less squaring, H^3 beside H^4) and keeps them: a state reused for more
//!   messages never computes them again. The portable backend waits for an update of
//!   [`POWERS_FROM`](crate::portable::POWERS_FROM) blocks: below it, Horner's rule with H alone costs less than
//!   three software multiplies.
//! - **`clone` and `update_detached`** (which take `&self`) compute and keep H^2..H^4 in the
//!   state they read, once, if it holds H alone (`update_detached` only for an input long
//!   enough to use them): a keyed state cloned per message (as RustCrypto's `aes-gcm` uses
//!   GHASH) or shared between threads computes them for its first message only. One thread
//!   stores them: it claims the store by raising the count from 1 to [`CLAIMED`]
//!   (compare-and-swap), stores, and publishes the count of 4 after them (release); a reader
//!   that acquires 4 copies the table as plain bytes, and one that finds the store claimed
//!   by another thread goes on with H alone (its copy computes its own powers if it needs
//!   them). Targets without compare-and-swap do not share: there `clone` copies what the
//!   state holds, as [`Hasher::fork`] does.
//! - **An update of more than four blocks** (on x86, more than seven: five to seven run as
//!   four and the rest against the kept powers) computes the powers its strides need above H^4
//!   from the kept H^1..H^4, into a table on the stack, and uses them for that call only
//!   (`wide::hash_kept`): H^5..H^8 (the 8-block
//!   strides; one 512-bit multiply, two 256-bit or four 128-bit ones), H^9..H^16 for 32 blocks
//!   or more on the 256- and 512-bit backends, H^17..H^32 from 256 blocks on the 512-bit one.
//!   That costs tens of cycles per call and keeps the state at 96 bytes (RustCrypto's
//!   `polyval` 0.7 keeps 160), so that creating, cloning and moving one is a few register
//!   copies.

use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::backend::Available;
use crate::powers::{Kept, SMALL, Small};
use crate::soft::pad_block;
use crate::{Backend, soft};

/// Hands `data` to `f` as its whole blocks, then, if there is one, its final partial block
/// zero-padded (GHASH's and POLYVAL's padding of a byte string). Always inlined: a caller's
/// short message would otherwise pay a call for it (under `lto = "fat"` LLVM kept it apart).
#[inline(always)]
pub fn for_padded_blocks(data: &[u8], mut f: impl FnMut(&[[u8; 16]])) {
    let (blocks, rest) = data.as_chunks::<16>();
    if !blocks.is_empty() {
        f(blocks);
    }
    if !rest.is_empty() {
        f(&[pad_block(rest)]);
    }
}

/// A keyed POLYVAL (`GHASH = false`) or GHASH (`GHASH = true`) state.
///
/// GHASH runs as byte-reflected POLYVAL (RFC 8452, Appendix A): the key is
/// `mulX_POLYVAL(ByteReverse(H))`, each block is read big-endian instead of little-endian (a free
/// reinterpretation on the portable path, one byte shuffle in registers on the SIMD paths), and
/// the result is written big-endian.
///
/// The state has no implicit padding (checked below): every byte belongs to a field, and the
/// destructor (with the `zeroize` feature) wipes every field. Key setup writes H, the
/// accumulator and the two one-byte fields only: H^2..H^4 and the explicit padding stay
/// uninitialized until needed, so a move may carry whatever the stack held in those bytes,
/// which the state's destructor then wipes with the rest.
#[repr(C)]
pub struct Hasher<const GHASH: bool> {
    small: Small,
    acc: u128,
    /// H^1..H^SMALL are in `small` if this is [`SMALL`] (4); H alone if it is 1, or
    /// [`CLAIMED`] while one thread stores the others in a shared state. Raised to 4 after
    /// the powers are stored (release), read before they are (acquire) where the state is
    /// shared.
    len: AtomicU8,
    /// A backend this CPU runs (the type's proof).
    backend: Available,
    /// Explicit padding to the 16-byte alignment, written only by the destructor's wipe: a
    /// state made per message stores no more than its key, accumulator and two bytes of count
    /// and backend.
    _pad: MaybeUninit<[u8; PAD]>,
}

/// The count of a shared state whose H^2..H^4 one thread is storing (see the module docs;
/// never stored on targets without compare-and-swap).
#[cfg_attr(not(target_has_atomic = "8"), allow(dead_code))]
const CLAIMED: u8 = 2;

// The only writes through a shared reference are a claimed store of H^2..H^4
// (`Hasher::share_powers`): one thread at a time (the compare-and-swap of the count from 1 to
// `CLAIMED`; targets without compare-and-swap never store through `&self`), and no thread reads
// those powers before it acquires the count of 4 that the storing thread releases after them
// (`Hasher::fork`; the kernels get an exclusive copy). H is written at key setup only.
// SAFETY: shared access races with no write, by the claim protocol above.
unsafe impl<const GHASH: bool> Sync for Hasher<GHASH> {}

/// A panic cannot leave a shared state observably broken: the one write through `&self` is the
/// claimed store of H^2..H^4, whose count is published after it, and a count left at
/// `CLAIMED` by a panic between the claim and the store reads as H alone everywhere (the
/// kernels would compute the powers again). (The table's `UnsafeCell` would otherwise take
/// `RefUnwindSafe` away, which RustCrypto's states have.)
impl<const GHASH: bool> core::panic::RefUnwindSafe for Hasher<GHASH> {}

/// The explicit padding after the one-byte fields (`Backend` is one byte, or none on targets
/// where the portable backend is its only variant).
const PAD: usize = 15 - core::mem::size_of::<Backend>();

const _: () = assert!(
    core::mem::size_of::<Hasher<false>>()
        == core::mem::size_of::<Small>() + 16 + 1 + core::mem::size_of::<Backend>() + PAD
);

/// A keyed POLYVAL state.
pub type Polyval = Hasher<false>;
/// A keyed GHASH state.
pub type Ghash = Hasher<true>;

impl<const GHASH: bool> Hasher<GHASH> {
    /// A state for key `h` (the POLYVAL key, or GHASH's H) on the detected backend.
    #[inline]
    pub fn new(h: &[u8; 16]) -> Self {
        Self::build(h, Available::detected())
    }

    /// A state on `backend`, or `None` if this CPU cannot run it.
    #[inline]
    pub fn with_backend(h: &[u8; 16], backend: Backend) -> Option<Self> {
        Available::new(backend).map(|b| Self::build(h, b))
    }

    /// A state on the detected backend, or on the portable one if `portable` (a build that
    /// forces it); the initial accumulator (as [`Hasher::set_state`] reads it) is `state`.
    #[inline]
    pub fn with_state(h: &[u8; 16], portable: bool, state: &[u8; 16]) -> Self {
        let backend = if portable {
            Available::portable()
        } else {
            Available::detected()
        };
        let mut s = Self::build(h, backend);
        s.set_state(state);
        s
    }

    /// H in POLYVAL's domain (for GHASH, `mulX_POLYVAL(ByteReverse(H))`).
    #[inline]
    fn domain_h(h: &[u8; 16]) -> u128 {
        if GHASH {
            soft::mulx(u128::from_be_bytes(*h))
        } else {
            u128::from_le_bytes(*h)
        }
    }

    /// A state for `h` on `backend`, holding H alone.
    #[inline(always)]
    fn build(h: &[u8; 16], backend: Available) -> Self {
        Self {
            small: Small::new(Self::domain_h(h)),
            acc: 0,
            len: AtomicU8::new(1),
            backend,
            _pad: MaybeUninit::uninit(),
        }
    }

    /// The backend this state runs on.
    #[inline]
    pub fn backend(&self) -> Backend {
        self.backend.get()
    }

    /// Absorbs whole blocks.
    #[inline]
    pub fn update(&mut self, blocks: &[[u8; 16]]) {
        if blocks.is_empty() {
            return;
        }
        let backend = self.backend;
        let (kept, acc) = self.parts();
        kernel::<GHASH>(backend, kept, acc, blocks);
    }

    /// A copy of the state as it is, for one more message: unlike `clone`, which first
    /// computes and keeps H^2..H^4 in `self` (so that a keyed state cloned per message
    /// computes them once), it computes nothing, and the copy computes the powers its own
    /// first long input needs. For a state made per message (AES-GCM-SIV's POLYVAL key is
    /// derived per nonce), where `clone`'s powers went unused by short messages and cost three
    /// software multiplies on the portable backend.
    ///
    /// The copy holds the accumulator and the powers `self` holds: all four if the count,
    /// read first with acquire ordering, says they are stored, else H alone.
    #[inline]
    pub fn fork(&self) -> Self {
        let all = usize::from(self.len.load(Ordering::Acquire)) >= SMALL;
        Self {
            // SAFETY: if `all`, the count of 4 was stored (release) after H^2..H^4 (by a kernel
            // through `&mut`, or by the thread that claimed the store); the load above acquired
            // it, and the powers are never stored again while the state is shared.
            small: unsafe { self.small.copy(all) },
            acc: self.acc,
            len: AtomicU8::new(if all { SMALL as u8 } else { 1 }),
            backend: self.backend,
            _pad: MaybeUninit::uninit(),
        }
    }

    /// Computes the powers of H the state keeps (H^2..H^4) now, instead of on the first
    /// update of two blocks or more: for a key that hashes many messages through clones or
    /// [`Self::update_detached`].
    pub fn precompute(&mut self) {
        let backend = self.backend;
        let (mut kept, _) = self.parts();
        if !kept.all() {
            kept.set_powers(&powers4(backend, kept.h()));
        }
    }

    /// The table with its count, and the accumulator, held exclusively.
    #[inline]
    fn parts(&mut self) -> (Kept<'_>, &mut u128) {
        // The state's count is 4 only once H^2..H^4 are stored: by a kernel or `precompute`
        // through `Kept`, which raise it after the stores, by the thread that claimed the
        // store, which releases it after them, or by `fork`, which copies them with it.
        // SAFETY: by that invariant, a count of 4 means H^2..H^4 are stored (`Kept::new`).
        let kept = unsafe { Kept::new(&mut self.small, self.len.get_mut()) };
        (kept, &mut self.acc)
    }

    /// Computes and keeps H^2..H^4 unless the state has them, through `&self`: what `clone`
    /// and `update_detached` do first, so that a keyed state cloned (or shared) per message
    /// computes them once, not once per message. The calling thread stores them if it claims
    /// the store (the count from 1 to [`CLAIMED`]); if another thread holds the claim, or the
    /// target has no compare-and-swap, it leaves the state as it is.
    #[inline]
    fn share_powers(&self) {
        #[cfg(target_has_atomic = "8")]
        if usize::from(self.len.load(Ordering::Acquire)) < SMALL
            && self
                .len
                .compare_exchange(1, CLAIMED, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            let powers = powers4(self.backend, self.small.h());
            // SAFETY: this thread claimed the store: no other thread stores H^2..H^4 (they
            // need the count at 1 to claim it), and none reads them before it acquires the
            // count of 4 stored below, after them.
            unsafe { self.small.set_powers(&powers) };
            self.len.store(SMALL as u8, Ordering::Release);
        }
    }

    /// Absorbs `blocks` into an accumulator kept outside the state (`acc` as
    /// [`Self::set_state`]/[`Self::finalize`] would take and give it), so one keyed state can
    /// serve many messages through `&self`. An input long enough to use H^2..H^4 (two blocks,
    /// or 32 on the portable backend) first keeps them in the state if it holds H alone (as
    /// `clone` does); the wider strides' powers are computed for the call.
    pub fn update_detached(&self, acc: &mut [u8; 16], blocks: &[[u8; 16]]) {
        let mut a = self.acc_of_bytes(acc);
        if !blocks.is_empty() {
            if blocks.len() >= self.powers_from() {
                self.share_powers();
            }
            // The kernel gets a copy of the powers, which it holds exclusively.
            let mut c = self.fork();
            kernel::<GHASH>(self.backend, c.parts().0, &mut a, blocks);
        }
        *acc = self.bytes_of_acc(a);
    }

    /// The fewest blocks an update multiplies by H^2..H^4: two on the SIMD backends,
    /// [`POWERS_FROM`](crate::portable::POWERS_FROM) on the portable one (a shorter input runs
    /// Horner's rule with H alone there, and three software multiplies for powers it does not
    /// use took 8% of a fresh key's AES-GCM message on the portable path).
    #[inline]
    fn powers_from(&self) -> usize {
        if self.backend.get() == Backend::Portable {
            crate::portable::POWERS_FROM
        } else {
            2
        }
    }

    /// An accumulator as [`Self::finalize`] gives it (GHASH's byte-reversed in a vector
    /// register on x86_64: [`crate::x86::be_bytes`]).
    #[inline]
    fn bytes_of_acc(&self, a: u128) -> [u8; 16] {
        if !GHASH {
            a.to_le_bytes()
        } else {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(miri)))]
            return crate::x86::be_bytes(a);
            #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(miri))))]
            a.to_be_bytes()
        }
    }

    /// An accumulator from [`Self::set_state`]'s form.
    #[inline]
    fn acc_of_bytes(&self, b: &[u8; 16]) -> u128 {
        if !GHASH {
            u128::from_le_bytes(*b)
        } else {
            u128::from_be_bytes(*b)
        }
    }

    /// Absorbs `data`, zero-padding a final partial block. Always inlined, with the choice of
    /// the backend's kernel, so that the caller calls the kernel itself: under `lto = "fat"`
    /// LLVM had kept this and a closure of it as two calls before the kernel's (Intel Xeon,
    /// AVX-512 backend, `uhf_paired`: `polyval/kept` 64 B 6.8 -> 5.9 ns, `clone` 8.1 -> 7.1 ns,
    /// the 0.10 generation's `polyval/clone` 16 B 5.7 -> 4.9 ns). The partial block goes
    /// through a function of its own (`update_last`).
    #[inline(always)]
    pub fn update_padded(&mut self, data: &[u8]) {
        let (blocks, rest) = data.as_chunks::<16>();
        if !blocks.is_empty() {
            self.update(blocks);
        }
        if !rest.is_empty() {
            self.update_last(rest);
        }
    }

    /// Absorbs `rest` (1 to 15 bytes) zero-padded to a block: [`Self::update_padded`]'s last
    /// block, out of line, so that the padding's code is not inlined into every caller.
    #[inline(never)]
    fn update_last(&mut self, rest: &[u8]) {
        self.update(&[pad_block(rest)]);
    }

    /// [`Self::update_detached`] of `data`, zero-padding a final partial block.
    #[inline]
    pub fn update_detached_padded(&self, acc: &mut [u8; 16], data: &[u8]) {
        for_padded_blocks(data, |b| self.update_detached(acc, b));
    }

    /// The hash of everything absorbed so far.
    #[inline]
    pub fn finalize(&self) -> [u8; 16] {
        self.bytes_of_acc(self.acc)
    }

    /// Clears the accumulator, keeping the key.
    #[inline]
    pub fn reset(&mut self) {
        self.acc = 0;
    }

    /// Sets the accumulator to `block` (as `finalize` would return it).
    #[inline]
    pub fn set_state(&mut self, block: &[u8; 16]) {
        self.acc = self.acc_of_bytes(block);
    }
}

/// [H, H^2, H^3, H^4] from `h` with `backend`'s multiplies.
fn powers4(backend: Available, h: u128) -> [u128; 4] {
    match backend.get() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `backend` is an `Available`: the CPU has every feature of this backend's
        // kernels.
        Backend::Pclmul => unsafe { crate::x86::pclmul::powers4(h) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above; the AVX2 and AVX-512 tiers' feature lists include the PCLMULQDQ
        // tier's (`pclmulqdq`, `sse2`, `ssse3`).
        Backend::Avx2 | Backend::Avx512 => unsafe { crate::x86::pclmul::powers4(h) },
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        // SAFETY: as above, detection of the PMULL tier's features succeeded.
        Backend::Pmull => unsafe { crate::aarch64::pmull::powers4(h) },
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        // SAFETY: as above, detection of the PMULL + SHA3 tier's features succeeded.
        Backend::PmullEor3 => unsafe { crate::aarch64::pmull::eor3::powers4(h) },
        _ => crate::portable::powers4(h),
    }
}

/// Runs the backend's kernel over `blocks` with the kept powers H^1..H^len; the kernel computes
/// and keeps H^2..H^4 if the input is long enough to use them (two blocks, or
/// [`POWERS_FROM`](crate::portable::POWERS_FROM) on the portable backend).
#[inline(always)]
fn kernel<const GHASH: bool>(
    backend: Available,
    kept: Kept<'_>,
    acc: &mut u128,
    blocks: &[[u8; 16]],
) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if let [block] = blocks {
        // One block: against H, on every x86 backend but the portable one. A branch of its own,
        // first: folded into the short path's below (one match per backend), a fresh state's
        // one-block message took 8.0 ns instead of 7.6 (Zen 3, `lto = "fat"`).
        if backend.get() == Backend::Pclmul {
            // SAFETY: `backend` is an `Available` PCLMULQDQ backend: the CPU has the tier's
            // features (`pclmulqdq`, `sse2`, `ssse3`).
            return unsafe { crate::x86::pclmul::update_one::<GHASH>(kept, acc, block) };
        }
        if backend.get() != Backend::Portable {
            // SAFETY: `backend` is an `Available` AVX2 or AVX-512 backend, whose feature lists
            // include those of `pclmul::vex` (`pclmulqdq`, `sse2`, `ssse3`, `avx`).
            return unsafe { crate::x86::pclmul::vex::update_one::<GHASH>(kept, acc, block) };
        }
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if blocks.len() <= SMALL && backend.get() != Backend::Portable {
        // Up to four blocks run the 128-bit code on every x86 backend (shorter latency than
        // setting up wide registers), called from here without the wide kernel's entry:
        // VEX-encoded on the backends whose CPUs have AVX.
        if backend.get() == Backend::Pclmul {
            // SAFETY: `backend` is an `Available` PCLMULQDQ backend: the CPU has the tier's
            // features (`pclmulqdq`, `sse2`, `ssse3`).
            return unsafe { crate::x86::pclmul::update_short::<GHASH>(kept, acc, blocks) };
        }
        // SAFETY: `backend` is an `Available` AVX2 or AVX-512 backend (the only x86 backends
        // left): the CPU has its features, and each one's feature list includes `pclmulqdq`,
        // `sse2`, `ssse3` and `avx`, those of `pclmul::vex`.
        return unsafe { crate::x86::pclmul::vex::update_short::<GHASH>(kept, acc, blocks) };
    }
    match backend.get() {
        Backend::Portable => crate::portable::update::<GHASH>(kept, acc, blocks),
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `backend` is an `Available`: the CPU has every feature of this backend's
        // kernels.
        Backend::Pclmul => unsafe { crate::x86::pclmul::update_small::<GHASH>(kept, acc, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, detection of the AVX2 tier's features succeeded.
        Backend::Avx2 => unsafe { crate::x86::avx2::update_small::<GHASH>(kept, acc, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, detection of the AVX-512 tier's features succeeded.
        Backend::Avx512 => unsafe { crate::x86::avx512::update_small::<GHASH>(kept, acc, blocks) },
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        // SAFETY: as above, detection of the PMULL tier's features succeeded.
        Backend::Pmull => unsafe {
            use crate::aarch64::pmull;
            if pmull::is_mid(blocks.len()) {
                pmull::update_mid::<GHASH>(kept, acc, blocks)
            } else {
                pmull::update_small::<GHASH>(kept, acc, blocks)
            }
        },
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        // SAFETY: as above, detection of the PMULL + SHA3 tier's features succeeded.
        Backend::PmullEor3 => unsafe {
            use crate::aarch64::pmull;
            if pmull::is_mid(blocks.len()) {
                pmull::eor3::update_mid::<GHASH>(kept, acc, blocks)
            } else {
                pmull::eor3::update_small::<GHASH>(kept, acc, blocks)
            }
        },
    }
}

impl<const GHASH: bool> Clone for Hasher<GHASH> {
    /// A copy of the state; H^2..H^4 are computed and kept in `self` first if it holds H
    /// alone, so that a keyed state cloned per message computes them once.
    fn clone(&self) -> Self {
        // Afterwards `self` holds H^1..H^4, unless another thread is storing them (or the
        // target cannot share them): the copy then holds what `self` held, H alone.
        self.share_powers();
        self.fork()
    }
}

#[cfg(feature = "zeroize")]
impl<const GHASH: bool> Drop for Hasher<GHASH> {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.small.wipe();
        self.acc.zeroize();
        self._pad.zeroize();
    }
}

impl<const GHASH: bool> core::fmt::Debug for Hasher<GHASH> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(if GHASH { "Ghash" } else { "Polyval" })
            .field("backend", &self.backend.get())
            .finish_non_exhaustive()
    }
}
