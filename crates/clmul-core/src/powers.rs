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
//! [`Small`] stores H^k at word `WORDS * (SMALL - k)` (highest power first), so the `n`
//! powers a run of `n <= SMALL` blocks needs, H^n (first block) down to H^1 (last block), are
//! contiguous.

use core::sync::atomic::Ordering::Relaxed;

/// The most powers a keyed state keeps: H^1..H^SMALL.
pub const SMALL: usize = 4;

/// The words the kept powers are stored in: relaxed atomics, 64 bits wide where the target
/// has them and 32 bits wide elsewhere (32-bit PowerPC, microcontrollers).
#[cfg(target_has_atomic = "64")]
type Word = core::sync::atomic::AtomicU64;
#[cfg(target_has_atomic = "64")]
type Plain = u64;
#[cfg(not(target_has_atomic = "64"))]
type Word = core::sync::atomic::AtomicU32;
#[cfg(not(target_has_atomic = "64"))]
type Plain = u32;

/// Words per power.
const WORDS: usize = 128 / Plain::BITS as usize;

/// H^1..H^len (`len` of 1 or [`SMALL`]), as a keyed state keeps them.
///
/// Each power is stored as words in relaxed atomics (compiled to plain loads and stores), so
/// that a state shared by reference can still keep the powers it computes: `clone` and
/// `update_detached` take `&self`, and the first of them on a state that holds H alone
/// computes H^2..H^4 once, for every later clone or call (see the `state` module). The
/// count that says which powers are valid is published with release/acquire ordering
/// after them, and concurrent writers write the same values.
#[repr(C)]
pub struct Small {
    /// Words `WORDS * (SMALL - k)..` hold H^k for `k <= len`, its bytes in native `u128`
    /// order (see `words`); zero above.
    w: [Word; WORDS * SMALL],
}

impl Small {
    /// The table of `powers` = [H^1, H^2, ..., H^n], `1 <= n <= SMALL`.
    #[inline]
    pub fn new(powers: &[u128]) -> Self {
        assert!((1..=SMALL).contains(&powers.len()));
        let s = Self {
            w: core::array::from_fn(|_| Word::new(0)),
        };
        for (k, &v) in powers.iter().enumerate() {
            s.set(k + 1, v);
        }
        s
    }

    /// The words of H^k, `1 <= k <= SMALL`, each with its shift in the power, in memory
    /// order: the order of a native-endian `u128`'s bytes (least significant word first on a
    /// little-endian target, most significant first on a big-endian one).
    #[inline]
    fn words(&self, k: usize) -> impl Iterator<Item = (&Word, u32)> {
        let at = WORDS * (SMALL - k);
        self.w[at..at + WORDS].iter().enumerate().map(|(i, w)| {
            let word = if cfg!(target_endian = "little") {
                i
            } else {
                WORDS - 1 - i
            };
            (w, word as u32 * Plain::BITS)
        })
    }

    /// H^k, `1 <= k <= SMALL` (zero if not computed).
    #[inline]
    pub fn get(&self, k: usize) -> u128 {
        self.words(k).fold(0, |v, (w, shift)| {
            v | (u128::from(w.load(Relaxed)) << shift)
        })
    }

    /// Stores H^k, `1 <= k <= SMALL`.
    #[inline]
    pub fn set(&self, k: usize, v: u128) {
        for (w, shift) in self.words(k) {
            w.store((v >> shift) as Plain, Relaxed);
        }
    }

    /// The 16 bytes of H^k (`1 <= k <= SMALL`), a native-endian `u128`, for a SIMD kernel's
    /// vector stores on a table it holds exclusively (its reads are [`Small::get`]'s 8-byte
    /// words: `clone` writes the words one by one, and a 16-byte load of two 8-byte stores in
    /// flight waits for them). The pointer comes from the whole array, and is valid as long
    /// as that borrow.
    #[inline]
    #[cfg(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    ))]
    pub fn power_mut_ptr(&mut self, k: usize) -> *mut u8 {
        assert!((1..=SMALL).contains(&k));
        self.w.as_mut_ptr().wrapping_add(WORDS * (SMALL - k)).cast()
    }

    /// Stores H^2..H^SMALL from `powers` = [H, H^2, ..., H^SMALL] (H is kept as it is).
    #[inline]
    pub fn set_powers(&self, powers: &[u128; SMALL]) {
        for (k, &v) in powers.iter().enumerate().skip(1) {
            self.set(k + 1, v);
        }
    }

    /// A copy (relaxed loads of every word).
    #[inline]
    pub fn copy(&self) -> Self {
        Self {
            w: core::array::from_fn(|i| Word::new(self.w[i].load(Relaxed))),
        }
    }

    /// Wipes the table (for `Drop` with the `zeroize` feature).
    #[cfg(feature = "zeroize")]
    pub(crate) fn wipe(&mut self) {
        for w in &mut self.w {
            zeroize::Zeroize::zeroize(w.get_mut());
        }
    }
}
