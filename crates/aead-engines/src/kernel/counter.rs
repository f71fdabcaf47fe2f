//! The counters of the kernel's CTR: where a message's counter starts ([`Counter0`]) and how
//! it steps ([`Counter`]: GCM's [`Inc32`], AES-GCM-SIV's [`Le32`]).
#![allow(unsafe_code)]

use super::*;

/// Where a message's counter starts: `skip` steps after `block`. `public`: whether the counter
/// may decide a branch (GCM's from a 96-bit nonce; not GCM's J0 from GHASH, a value of the
/// hash key).
#[derive(Clone, Copy)]
pub(crate) struct Counter0<'a> {
    pub(crate) block: &'a [u8; 16],
    pub(crate) skip: u32,
    pub(crate) public: bool,
}

/// A counter flavour: how consecutive counter blocks are made.
pub(crate) trait Counter {
    /// The counter as the kernel carries it.
    type State<L: AesLanes>: Copy;

    /// The state of counter `c` (GCM starts at `inc32(J0)`, and passing `J0` itself keeps the
    /// counter's value a load of the caller's block, which the disassembly check of
    /// `cargo xtask ct` tells from data by its width).
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    unsafe fn start<L: AesLanes>(c: Counter0<'_>) -> Self::State<L>;

    /// The next `N` registers of counter blocks (lane order), advancing the state.
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    unsafe fn take<L: AesLanes, const N: usize>(s: &mut Self::State<L>) -> [L; N];

    /// The last byte of the next register's first counter block if the counter may decide a
    /// branch and an address (public), and the blocks of the next `N` registers and of the
    /// register after them differ from that block in their last byte only (no carry out of
    /// it): the stitched loop then takes their first AES round from a table
    /// ([`crate::kernel::Round1`]) and steps the counter with [`Counter::skip`]. `None`
    /// otherwise, and for counters whose low byte is not the block's last.
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    unsafe fn cached_run<L: AesLanes, const N: usize>(_s: &Self::State<L>) -> Option<usize> {
        None
    }

    /// The last byte of the next register's first counter block if the counter may decide a
    /// branch and an address (public) and has [`Counter::cached_run`]s at all: where a
    /// [`crate::kernel::Round1`] table starts. `None` otherwise.
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    unsafe fn cached_low_byte<L: AesLanes>(_s: &Self::State<L>) -> Option<usize> {
        None
    }

    /// Steps the counter past `N` registers as [`Counter::take`] does, making no blocks; only
    /// after [`Counter::cached_run`] said `Some`.
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    unsafe fn skip<L: AesLanes, const N: usize>(s: &mut Self::State<L>) {
        // SAFETY: forwarded from the caller.
        let _ = unsafe { Self::take::<L, N>(s) };
    }

    /// The next register of counter blocks, the state unchanged.
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    unsafe fn peek<L: AesLanes>(s: &Self::State<L>) -> L {
        let mut t = *s;
        // SAFETY: forwarded from the caller.
        let [v] = unsafe { Self::take_any::<L, 1>(&mut t) };
        v
    }

    /// [`Counter::take`] with no branch on the counter's value: for the few registers of a
    /// message's tail, where the shortcut saves little and the value may reach the branch
    /// through a stack slot shared with data (which the disassembly check of `cargo xtask ct`
    /// rightly refuses to tell apart).
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    unsafe fn take_any<L: AesLanes, const N: usize>(s: &mut Self::State<L>) -> [L; N] {
        // SAFETY: forwarded from the caller.
        unsafe { Self::take::<L, N>(s) }
    }
}

/// Every lane holding `k` in word `j`, the other words zero.
#[inline(always)]
pub(super) unsafe fn word<L: AesLanes>(j: usize, k: u32) -> L {
    let mut w = [0u32; 16];
    for l in 0..4 {
        w[4 * l + j] = k;
    }
    // SAFETY: forwarded from the caller.
    unsafe { L::from_words(&w) }
}

/// Lane `l` holding `l` in word 0: the lanes' offsets from lane 0's counter.
#[inline(always)]
pub(super) unsafe fn lane_offsets<L: AesLanes>() -> L {
    // SAFETY: forwarded from the caller.
    unsafe { L::from_words(&[0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]) }
}

/// GCM's counter (NIST SP 800-38D `inc32`): the last four bytes of the block are a
/// big-endian 32-bit counter, incremented modulo 2^32; the first twelve stay.
pub(crate) struct Inc32;

/// [`Inc32`]'s state: the counter blocks of the next register as they are (big-endian) but
/// for `pending` blocks skipped since ([`Counter::skip`]: added to their last byte when next
/// needed, one addition for a run of skipped iterations), the counter of its lane 0, and
/// whether that may decide a branch.
#[derive(Clone, Copy)]
pub(crate) struct Inc32State<L> {
    pub(super) be: L,
    pub(super) pending: u32,
    pub(super) ctr: u32,
    pub(super) public: bool,
}

impl<L: AesLanes> Inc32State<L> {
    /// `be` with the skipped blocks added (no carry out of the last byte: `skip` ran only
    /// where `cached_run` said so, and they add up to the run's blocks).
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    unsafe fn settle(&mut self) {
        // Only the engines that skip (`AesLanes::CACHED_ROUND1`) test it: the others' code
        // stays as it was, with no branch on a counter's field.
        if L::CACHED_ROUND1 && self.pending != 0 {
            // SAFETY: forwarded from the caller.
            self.be = unsafe { L::add32(self.be, word(3, self.pending << 24)) };
            self.pending = 0;
        }
    }
}

impl Counter for Inc32 {
    type State<L: AesLanes> = Inc32State<L>;

    #[inline(always)]
    unsafe fn start<L: AesLanes>(c: Counter0<'_>) -> Inc32State<L> {
        let Counter0 {
            block,
            skip,
            public,
        } = c;
        // The last eight bytes as one big-endian word: the counter is its low half.
        let mut tail = [0u8; 8];
        tail.copy_from_slice(&block[8..]);
        let ctr = (u64::from_be_bytes(tail) as u32).wrapping_add(skip);
        // Byte-reversed, the counter is the lane's low word, where a 32-bit add does `inc32`
        // (wrapping) for each lane's offset.
        // SAFETY: forwarded from the caller.
        let be = unsafe {
            let offsets = L::add32(lane_offsets(), word(0, skip));
            L::reverse(L::add32(L::reverse(L::broadcast(block)), offsets))
        };
        Inc32State {
            be,
            pending: 0,
            ctr,
            public,
        }
    }

    /// While the counter's low byte does not wrap within the `N` registers and the step after
    /// them (seven iterations in eight of 32 blocks), the blocks are the big-endian ones plus
    /// a constant in that byte (the top byte of the lane's last word): an add each, no
    /// shuffle. Otherwise, and always when the counter is not public, they are made
    /// byte-reversed, where a 32-bit add carries.
    #[inline(always)]
    unsafe fn take<L: AesLanes, const N: usize>(s: &mut Inc32State<L>) -> [L; N] {
        let n = (L::BLOCKS * N) as u32;
        let b = L::BLOCKS as u32;
        // SAFETY: forwarded from the caller.
        unsafe { s.settle() };
        let mut out = [s.be; N];
        // SAFETY: forwarded from the caller.
        unsafe {
            if s.public && (s.ctr & 0xff) + n + b <= 256 {
                for (i, v) in out.iter_mut().enumerate().skip(1) {
                    *v = L::add32(s.be, word(3, (b * i as u32) << 24));
                }
                s.be = L::add32(s.be, word(3, n << 24));
            } else {
                return Self::take_any::<L, N>(s);
            }
        }
        s.ctr = s.ctr.wrapping_add(n);
        out
    }

    #[inline(always)]
    unsafe fn cached_run<L: AesLanes, const N: usize>(s: &Inc32State<L>) -> Option<usize> {
        let n = (L::BLOCKS * N) as u32;
        let b = L::BLOCKS as u32;
        // The condition of `take`'s byte additions.
        (s.public && (s.ctr & 0xff) + n + b <= 256).then_some((s.ctr & 0xff) as usize)
    }

    #[inline(always)]
    unsafe fn cached_low_byte<L: AesLanes>(s: &Inc32State<L>) -> Option<usize> {
        s.public.then_some((s.ctr & 0xff) as usize)
    }

    #[inline(always)]
    unsafe fn skip<L: AesLanes, const N: usize>(s: &mut Inc32State<L>) {
        // Added to `be` when it is next needed (`settle`): no carry out of the last byte
        // within a run (`cached_run`).
        let n = (L::BLOCKS * N) as u32;
        s.pending += n;
        s.ctr = s.ctr.wrapping_add(n);
    }

    #[inline(always)]
    unsafe fn peek<L: AesLanes>(s: &Inc32State<L>) -> L {
        let mut t = *s;
        // SAFETY: forwarded from the caller.
        unsafe { t.settle() };
        t.be
    }

    /// The blocks made byte-reversed, where a 32-bit add carries.
    #[inline(always)]
    unsafe fn take_any<L: AesLanes, const N: usize>(s: &mut Inc32State<L>) -> [L; N] {
        let n = (L::BLOCKS * N) as u32;
        let b = L::BLOCKS as u32;
        // SAFETY: forwarded from the caller.
        unsafe { s.settle() };
        let mut out = [s.be; N];
        // SAFETY: forwarded from the caller.
        unsafe {
            let rev = L::reverse(s.be);
            for (i, v) in out.iter_mut().enumerate().skip(1) {
                *v = L::reverse(L::add32(rev, word(0, b * i as u32)));
            }
            s.be = L::reverse(L::add32(rev, word(0, n)));
        }
        s.ctr = s.ctr.wrapping_add(n);
        out
    }
}

/// AES-GCM-SIV's counter (RFC 8452, section 4): the first four bytes of the block are a
/// little-endian 32-bit counter, incremented modulo 2^32; the other twelve stay.
pub(crate) struct Le32;

impl Counter for Le32 {
    type State<L: AesLanes> = L;

    #[inline(always)]
    unsafe fn start<L: AesLanes>(c: Counter0<'_>) -> L {
        // SAFETY: forwarded from the caller.
        unsafe {
            L::add32(
                L::broadcast(c.block),
                L::add32(lane_offsets(), word(0, c.skip)),
            )
        }
    }

    #[inline(always)]
    unsafe fn take<L: AesLanes, const N: usize>(s: &mut L) -> [L; N] {
        let b = L::BLOCKS as u32;
        let mut out = [*s; N];
        // SAFETY: forwarded from the caller.
        unsafe {
            for (i, v) in out.iter_mut().enumerate().skip(1) {
                *v = L::add32(*s, word(0, b * i as u32));
            }
            *s = L::add32(*s, word(0, b * N as u32));
        }
        out
    }
}
