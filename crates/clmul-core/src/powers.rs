//! Powers of the hash key H that a keyed state keeps.
//!
//! The wide loops hash a stride of `n` blocks against `H^n..H^1` with one reduction
//! (aggregated reduction). A keyed POLYVAL/GHASH state keeps [`Small`], at most H^1..H^4 (64
//! bytes): H from key setup, H^2..H^4 once a message of two blocks or more came (on the
//! portable backend, one of `portable::POWERS_FROM` blocks). What a wider stride needs,
//! H^5..H^8 (the 8-block strides), H^9..H^16 and on the 512-bit backend H^17..H^32, is
//! computed at the start of each update that uses it, in doubling rounds of whole registers
//! (one multiply per four new powers on the 512-bit backend), into a table on the stack for
//! that call (`wide::hash_kept`): tens of cycles against the hundreds or more that input
//! takes. The state stays at 96 bytes, so creating,
//! cloning and moving it per message is a few register copies, not a `memcpy` whose stores a
//! later wide load has to wait for.
//!
//! [`Small`] stores H^k at byte `16 * (SMALL - k)` (highest power first), so the `n` powers a
//! run of `n <= SMALL` blocks needs, H^n (first block) down to H^1 (last block), are
//! contiguous.
//!
//! Key setup writes H alone: H^2..H^4 stay uninitialized until computed, so that a state made
//! per message stores 16 bytes of key, not 64. Each store counts in a one-block message: on
//! Zen 3, a fresh `clmul_core::Polyval` hashing 16 bytes under `lto = "fat"` took 9.6 ns with
//! the three stores that zeroed H^2..H^4 and 8.0 ns without.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

/// The most powers a keyed state keeps: H^1..H^SMALL.
pub const SMALL: usize = 4;

/// H^1..H^SMALL as a keyed state keeps them: H from key setup, H^2..H^SMALL once computed.
///
/// The higher powers are written once, through `&mut` (a kernel's stores) or by the one
/// thread that claimed the store of a state shared by reference ([`Small::set_powers`]), and
/// read only by whoever knows them written: the state's count (`Hasher`'s `len`) says so, and
/// is published with release/acquire ordering after them. H is never written after key
/// setup. So plain loads and stores suffice, and a copy of the table is a plain copy of its
/// bytes (vector moves), see [`Small::copy`].
#[repr(C)]
pub struct Small {
    /// H^SMALL..H^2 (H^k at `[SMALL - k]`): uninitialized until stored.
    up: UnsafeCell<MaybeUninit<[u128; SMALL - 1]>>,
    /// H, in the byte order of a native-endian `u128`.
    h: u128,
}

impl Small {
    /// The table holding H alone.
    #[inline]
    pub fn new(h: u128) -> Self {
        Self {
            up: UnsafeCell::new(MaybeUninit::uninit()),
            h,
        }
    }

    /// H.
    #[inline]
    #[cfg(target_has_atomic = "8")]
    pub fn h(&self) -> u128 {
        self.h
    }

    /// The 16 bytes of H^k (`1 <= k <= SMALL`): a native-endian `u128`, H itself or a slot
    /// of `up` (possibly uninitialized). The pointer comes from the whole table, and is valid
    /// as long as that borrow.
    #[inline]
    #[cfg(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    ))]
    fn power_mut_ptr(&mut self, k: usize) -> *mut u8 {
        assert!((1..=SMALL).contains(&k));
        (self as *mut Self)
            .cast::<u8>()
            .wrapping_add(16 * (SMALL - k))
    }

    /// Stores H^2..H^SMALL from `powers` = [H, H^2, ..., H^SMALL] (H is kept as it is),
    /// through a shared reference.
    ///
    /// # Safety
    ///
    /// No other access to H^2..H^SMALL can happen during the call: the caller claimed the
    /// store (no other thread stores them, and none reads them before the count published
    /// after it says they are stored).
    #[inline]
    #[cfg(target_has_atomic = "8")]
    pub unsafe fn set_powers(&self, powers: &[u128; SMALL]) {
        // SAFETY: the caller rules out any other access to `up` during the write.
        unsafe { (*self.up.get()).write(up_of(powers)) };
    }

    /// A copy holding H, and H^2..H^SMALL as well if `all` (zeros if not): one copy of the
    /// table's 64 bytes from `self` or from zeros, whichever `all` picks, so that the copy is
    /// written once, in place (a copy made in one branch or the other was written to a
    /// temporary first, then copied again).
    ///
    /// # Safety
    ///
    /// If `all`: H^2..H^SMALL were stored, and no store of them can happen during the call.
    #[inline]
    pub unsafe fn copy(&self, all: bool) -> Self {
        static NONE: [u128; SMALL - 1] = [0; SMALL - 1];
        let src = if all {
            self.up.get().cast::<[u128; SMALL - 1]>().cast_const()
        } else {
            &NONE
        };
        // SAFETY: `src` is `self.up`, which the caller says is initialized and not being
        // written, or the zeros.
        let up = unsafe { src.read() };
        Self {
            up: UnsafeCell::new(MaybeUninit::new(up)),
            h: self.h,
        }
    }

    /// Wipes the table (for `Drop` with the `zeroize` feature).
    #[cfg(feature = "zeroize")]
    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.up.get_mut().zeroize();
        self.h.zeroize();
    }
}

/// H^SMALL..H^2 as `Small::up` holds them, from `powers` = [H, H^2, ..., H^SMALL].
#[inline]
fn up_of(powers: &[u128; SMALL]) -> [u128; SMALL - 1] {
    core::array::from_fn(|i| powers[SMALL - 1 - i])
}

// H lies after H^SMALL..H^2, 16 bytes each, where `power_mut_ptr` finds it.
const _: () = assert!(core::mem::offset_of!(Small, h) == 16 * (SMALL - 1));

/// A state's kept table borrowed exclusively with its count (1: H alone, [`SMALL`]: H^1..H^4
/// stored): what every kernel gets. It reads a power above H only when the count says it is
/// stored (checked here, so a kernel's reads through the table's pointers need no more than
/// the count), and raises the count only after it stored them.
pub struct Kept<'a> {
    small: &'a mut Small,
    len: &'a mut u8,
}

impl<'a> Kept<'a> {
    /// A table and its count.
    ///
    /// # Safety
    ///
    /// If `*len >= SMALL`, H^2..H^SMALL are stored in `small`.
    #[inline]
    pub unsafe fn new(small: &'a mut Small, len: &'a mut u8) -> Self {
        Self { small, len }
    }

    /// Whether H^1..H^SMALL are all stored.
    #[inline]
    pub fn all(&self) -> bool {
        usize::from(*self.len) >= SMALL
    }

    /// H.
    #[inline]
    pub fn h(&self) -> u128 {
        self.small.h
    }

    /// H^k, `1 <= k <= SMALL`; above H, the powers must be stored (asserted).
    #[inline]
    pub fn get(&self, k: usize) -> u128 {
        assert!((1..=SMALL).contains(&k) && (k == 1 || self.all()));
        if k == 1 {
            return self.small.h;
        }
        // SAFETY: `SMALL - k` indexes `up` (`2 <= k <= SMALL`, asserted above); the count says
        // H^k is stored (asserted above; this type's invariant), and `&self` borrows the table
        // exclusively held.
        unsafe { self.small.up.get().cast::<u128>().add(SMALL - k).read() }
    }

    /// The 16 bytes of H^k (`1 <= k <= SMALL`), for a SIMD kernel's loads: initialized
    /// (asserted: `k == 1`, or the count says the powers are stored) and not written while
    /// the table is borrowed.
    #[inline]
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    pub fn power_ptr(&mut self, k: usize) -> *const u8 {
        assert!(k == 1 || self.all());
        self.small.power_mut_ptr(k).cast_const()
    }

    /// The 16 bytes of H^k's slot (`2 <= k <= SMALL`), for a SIMD kernel's stores of the
    /// powers it computed, before [`Self::set_all`].
    #[inline]
    #[cfg(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    ))]
    pub fn slot_ptr(&mut self, k: usize) -> *mut u8 {
        assert!((2..=SMALL).contains(&k));
        self.small.power_mut_ptr(k)
    }

    /// Raises the count to [`SMALL`].
    ///
    /// # Safety
    ///
    /// H^2..H^SMALL were all stored through [`Self::slot_ptr`].
    #[inline]
    #[cfg(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    ))]
    pub unsafe fn set_all(&mut self) {
        *self.len = SMALL as u8;
    }

    /// Stores H^2..H^SMALL from `powers` = [H, H^2, ..., H^SMALL] and raises the count.
    #[inline]
    pub fn set_powers(&mut self, powers: &[u128; SMALL]) {
        self.small.up.get_mut().write(up_of(powers));
        *self.len = SMALL as u8;
    }
}
