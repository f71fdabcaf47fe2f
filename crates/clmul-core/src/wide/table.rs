//! The powers of the hash key the wide hash reads: a call's or an AES-GCM-SIV message's
//! [`PowerTable`], and an AES-GCM key's [`KeptPowers`].

use core::mem::MaybeUninit;

/// The most powers of H a wide loop multiplies by: H^1..H^33. A stride of the widest loop is 32
/// blocks (H^32..H^1); the last register of data and the length block after a bulk of
/// iterations can be 32 + 1 blocks, hashed with one reduction.
pub const TOP: usize = 33;

/// How many powers of H an AES-GCM key keeps ([`KeptPowers`]): H^1..H^12, what a message of up
/// to twelve blocks with its AAD and length block multiplies by (the records of 96 to 176
/// bytes with a short AAD take the short path on them, with no table built), and the base of
/// every wider power a longer message computes for itself. Twelve is what fits: with them an
/// `Aes128Gcm` is as large as RustCrypto's (496 bytes on x86_64), no larger. Eight in a build
/// that forces the portable backend (`--cfg polyval_backend="soft"`), where RustCrypto's key
/// holds only its portable GHASH (384 bytes) and ours keeps the engines compiled (for the
/// suites' `with_engine`): there a key keeps H^1..H^8, 432 bytes. Four on 32-bit x86, where
/// RustCrypto's `aes-gcm` 0.10.3 `Aes128Gcm` is 384 bytes: ours 368 there (a message of four
/// blocks or more computes H^5.. for itself).
pub const KEPT: usize = if cfg!(polyval_backend = "soft") {
    8
} else if cfg!(target_arch = "x86") {
    4
} else {
    12
};

/// Zero entries after H^1, so that a register load of up to four powers starting at any
/// power stays inside the table (the lanes past the message meet zero data there).
const PAD: usize = 3;

/// Entries of each table.
const LEN: usize = TOP + PAD;

/// Powers of the hash key H in POLYVAL's field representation, highest first, with their
/// Karatsuba middles: `pow[TOP - k]` is H^k for `1 <= k <= TOP`, `powx[i]` is `lo64 ^ hi64` of
/// `pow[i]` in both halves, and the `PAD` entries after H^1 are zero. The `n` powers for a run
/// of `n` blocks, H^n (first block) down to H^1 (last), are then the contiguous run starting at
/// [`PowerTable::index`]`(n)`, and any register of consecutive powers is one load.
///
/// The same table serves GHASH (H in POLYVAL's domain, `mulX_POLYVAL(ByteReverse(H))`, the
/// data byte-reversed by the hash) and POLYVAL (H as it is).
///
/// Only what a call reads is written: entries `filled..LEN` of both arrays are initialized
/// (H^1..H^[`PowerTable::holds`] and the `PAD` zeros, once filled; nothing before), the rest
/// are not, and [`PowerTable::powers`] hands out only initialized entries. A call's own table
/// thus costs the stores of the powers it needs, not a kilobyte of zeros.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct PowerTable {
    /// Never written: puts H^(4k) (entry `TOP - 4k`, the start of a register of four powers
    /// on the 512-bit backends) of both arrays on a 64-byte boundary, so that a register's
    /// store and its loads do not cross a cache line (`TOP - 4k` is 1 modulo 4, the arrays
    /// are `LEN * 16` bytes, a multiple of 64, apart, and this and the three words below are
    /// 48 bytes).
    _align: [MaybeUninit<u8>; ALIGN_PAD],
    filled: usize,
    /// Whether `powx` holds the middles of the powers held (schoolbook multiplies need none),
    /// as a word (1 or 0): the disassembly check of `cargo xtask ct` tells public values from
    /// data by their load width, and a `bool` is a byte.
    middles: usize,
    /// Whether the powers held have their 64-bit halves swapped (the half-swapped GHASH,
    /// [`swapped`](super::swapped)), as a word (1 or 0), likewise.
    swapped: usize,
    pow: [MaybeUninit<u128>; LEN],
    powx: [MaybeUninit<u128>; LEN],
}

/// The bytes of [`PowerTable`]'s `_align`.
const ALIGN_PAD: usize = 48 - 3 * core::mem::size_of::<usize>();

const _: () = assert!(
    core::mem::offset_of!(PowerTable, pow) % 64 == 48
        && core::mem::offset_of!(PowerTable, powx) % 64 == 48
        && (TOP - 4) % 4 == 1
);

/// A table of no powers, for calls that hash nothing (CTR only), which never read it.
pub static EMPTY: PowerTable = PowerTable::new();

impl PowerTable {
    /// A table of no powers, to be filled: nothing in it is written (a call's own table costs
    /// nothing until it is filled; a value of undefined bytes is not copied either).
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        PowerTable {
            _align: [MaybeUninit::uninit(); ALIGN_PAD],
            pow: [MaybeUninit::uninit(); LEN],
            powx: [MaybeUninit::uninit(); LEN],
            filled: LEN,
            middles: 0,
            swapped: 0,
        }
    }

    /// Writes the `PAD` zeros after H^1 (first, before the powers: a load of the last powers
    /// reads them too, and waits for every store it overlaps).
    #[inline(always)]
    pub fn zero_pad(&mut self) {
        for part in [&mut self.pow, &mut self.powx] {
            for e in &mut part[TOP..] {
                *e = MaybeUninit::new(0);
            }
        }
    }

    /// Swaps the 64-bit halves of every power held (not of the middles, which are the same
    /// in both halves), and records it ([`PowerTable::is_swapped`]).
    #[allow(unsafe_code)]
    #[inline(always)]
    pub fn swap_powers(&mut self) {
        for e in &mut self.pow[self.filled.min(TOP)..TOP] {
            // SAFETY: entries `filled..LEN` are initialized (the type's invariant).
            let v = unsafe { e.assume_init() };
            *e = MaybeUninit::new(v.rotate_left(64));
        }
        self.swapped ^= 1;
    }

    /// Whether the powers held are half-swapped ([`PowerTable::swap_powers`]).
    #[inline(always)]
    pub fn is_swapped(&self) -> bool {
        self.swapped != 0
    }

    /// How many powers the table holds: H^1..H^n.
    #[inline(always)]
    pub fn holds(&self) -> usize {
        TOP.saturating_sub(self.filled)
    }

    /// Records that the table holds H^1..H^n (`n <= TOP`), with their middles if `middles`.
    ///
    /// # Safety
    /// [`PowerTable::zero_pad`] was called, and entries `index(n)..TOP` of the powers (and, if
    /// `middles`, of the middles) are written ([`PowerTable::entries_mut`]).
    #[allow(unsafe_code)]
    #[inline(always)]
    pub unsafe fn set_holds(&mut self, n: usize, middles: bool) {
        assert!(n <= TOP, "more powers than the table has");
        self.filled = TOP - n;
        self.middles = usize::from(middles);
    }

    /// Clears the written entries (the drop of a call's own table of key-derived powers, or of
    /// an AES-GCM-SIV message's): volatile 16-byte stores with the feature `table-wipe` (which
    /// `zeroize` implies, and `aead-engines`' `siv-wipe`), [`wipe_words`]; nothing otherwise.
    #[inline(always)]
    pub fn wipe_filled(&mut self) {
        let from = self.filled.min(TOP);
        wipe_words(&mut self.pow[from..TOP]);
        if self.middles != 0 {
            wipe_words(&mut self.powx[from..TOP]);
        }
    }

    /// The table for GHASH's key `h = E_K(0^128)` (in POLYVAL's domain,
    /// `mulX_POLYVAL(ByteReverse(h))`), every power by the portable multiply: the tests'
    /// reference for the wide fill.
    pub fn ghash(h: &[u8; 16]) -> Self {
        Self::from_h(crate::soft::mulx(u128::from_be_bytes(*h)))
    }

    /// The power and middle entries, for the wide fill of a table (then
    /// [`PowerTable::set_holds`]).
    #[inline(always)]
    pub fn entries_mut(
        &mut self,
    ) -> (&mut [MaybeUninit<u128>; LEN], &mut [MaybeUninit<u128>; LEN]) {
        (&mut self.pow, &mut self.powx)
    }

    /// The table for POLYVAL's key `h`, every power by the portable multiply (the tests'
    /// reference for the wide fill, [`fill_upto`](super::fill_upto)).
    pub fn polyval(h: &[u8; 16]) -> Self {
        Self::from_h(u128::from_le_bytes(*h))
    }

    /// H^1..H^TOP of the POLYVAL key `h`, each power the portable product of the one below
    /// and `h`.
    #[allow(unsafe_code)]
    fn from_h(h: u128) -> Self {
        let mut t = PowerTable::new();
        t.zero_pad();
        let mut p = h;
        for k in 1..=TOP {
            t.set(k, p);
            p = crate::soft::dot(p, h);
        }
        // SAFETY: the pad and every power H^1..H^TOP with its middle were written just above.
        unsafe { t.set_holds(TOP, true) };
        t
    }

    fn set(&mut self, k: usize, v: u128) {
        self.pow[TOP - k] = MaybeUninit::new(v);
        self.powx[TOP - k] = MaybeUninit::new(middle(v));
    }

    /// H^k, `1 <= k <= holds()` (panics otherwise).
    pub fn get(&self, k: usize) -> u128 {
        self.four(false, TOP - k)[0]
    }

    /// The middle of H^k, `1 <= k <= holds()` (panics otherwise).
    pub fn get_middle(&self, k: usize) -> u128 {
        self.four(true, TOP - k)[0]
    }

    /// The entries a register load of powers reads past H^1 (zeros).
    pub fn after_h1(&self) -> [u128; 3] {
        let p = self.four(false, TOP - 1);
        [p[1], p[2], p[3]]
    }

    /// The four entries from index `i` of the powers, or of the middles if `middles` (panics
    /// unless they are initialized).
    #[allow(unsafe_code)]
    fn four(&self, middles: bool, i: usize) -> [u128; 4] {
        let p = if middles {
            self.middles(i)
        } else {
            self.powers(i)
        };
        // SAFETY: `powers`/`middles` returned a pointer to four initialized entries.
        unsafe { p.cast::<[u128; 4]>().read() }
    }

    /// The index of H^n: a run of `n <= TOP` blocks starts there.
    #[inline(always)]
    pub const fn index(n: usize) -> usize {
        TOP - n
    }

    /// Four consecutive powers from index `i` (at least the index of the highest power held,
    /// at most `TOP - 1`, the index of H^1; past H^1 come zeros): a pointer to their 64
    /// initialized bytes, for a register load of up to four. Checked (panics otherwise), by a
    /// view from `i` ([`Self::held_from`]): `i` is a public block count in the tails.
    #[inline(always)]
    pub fn powers(&self, i: usize) -> *const u8 {
        self.held_from(i, false).powers(i)
    }

    /// The Karatsuba middles of [`Self::powers`]`(i)`, likewise (panics if the table has no
    /// middles).
    #[inline(always)]
    pub fn middles(&self, i: usize) -> *const u8 {
        self.held_from(i, true).middles(i)
    }

    /// The powers from index `base` on (and their middles if `middles`), checked here once to
    /// be initialized (panics otherwise): a loop that loads them at constant indices through
    /// the view ([`Held`]) carries no check per load. [`Self::powers`] (a view per load)
    /// checks `filled` on every load, a field LLVM reloads after each iteration's stores to the
    /// output (it cannot tell them apart from the table): through it the stitched 512-bit loop
    /// had a compare and branch per register, eight of them an iteration, branches that
    /// Intel's cores run on port 0 or 6, where VAESENC is issued only on port 0.
    #[inline(always)]
    pub fn held_from(&self, base: usize, middles: bool) -> Held<'_> {
        assert!(
            self.filled <= base,
            "a power of H read before it was computed"
        );
        assert!(
            !middles || self.middles != 0,
            "a table without middles read by Karatsuba's multiplies"
        );
        Held {
            pow: &self.pow[base..],
            powx: &self.powx[base..],
            base,
            middles,
        }
    }
}

/// The entries of a [`PowerTable`] from index `base` on, every one initialized (checked when
/// the view was made, [`PowerTable::held_from`]), with the middles too if asked for there.
/// Indices are the table's own (`base` and above); with the constant indices of a loop and a
/// constant `base`, each load's bounds are known at compile time.
#[derive(Clone, Copy)]
pub struct Held<'a> {
    pow: &'a [MaybeUninit<u128>],
    powx: &'a [MaybeUninit<u128>],
    base: usize,
    /// Whether the middles were checked to be initialized (a constant where the loops make
    /// the view: their Karatsuba mode).
    middles: bool,
}

impl Held<'_> {
    /// Four consecutive powers from index `i` (`base <= i`, `i + 4 <= LEN`; panics otherwise):
    /// a pointer to their 64 initialized bytes.
    #[inline(always)]
    pub fn powers(&self, i: usize) -> *const u8 {
        Self::at(self.pow, i - self.base)
    }

    /// The Karatsuba middles of [`Self::powers`]`(i)` (panics if the view was made without
    /// them).
    #[inline(always)]
    pub fn middles(&self, i: usize) -> *const u8 {
        assert!(
            self.middles,
            "a view without middles read by Karatsuba's multiplies"
        );
        Self::at(self.powx, i - self.base)
    }

    /// A pointer to entries `k..k + 4` of `part` (panics past its end).
    #[inline(always)]
    fn at(part: &[MaybeUninit<u128>], k: usize) -> *const u8 {
        match part[k..].first_chunk::<4>() {
            Some(c) => c.as_ptr().cast(),
            None => panic!("power index past the table"),
        }
    }
}

/// The Karatsuba middle operand of `v`: `lo64 ^ hi64`, in both halves.
fn middle(v: u128) -> u128 {
    let x = u128::from((v as u64) ^ ((v >> 64) as u64));
    x | (x << 64)
}

#[cfg(feature = "table-wipe")]
impl Drop for PowerTable {
    fn drop(&mut self) {
        self.wipe_filled();
    }
}

/// The powers H^1..H^[`KEPT`] of an AES-GCM key's hash key, in POLYVAL's domain, highest
/// first (`pow[KEPT - k]` is H^k), then `PAD` zeros: what the key keeps. A short message
/// multiplies by them as they are (their Karatsuba middles computed from the loaded powers);
/// a longer one builds its own [`PowerTable`] from them
/// ([`Powers::of_kept`](super::Powers::of_kept)), with the middles and the higher powers it
/// needs, in the engine's function.
#[derive(Clone)]
pub struct KeptPowers {
    pow: [u128; KEPT + PAD],
}

impl KeptPowers {
    /// All zero: [`kept_powers`](super::kept_powers) fills it in place.
    #[inline(always)]
    pub fn zero() -> Self {
        KeptPowers {
            pow: [0; KEPT + PAD],
        }
    }

    /// The powers, highest first.
    #[inline(always)]
    pub fn entries(&self) -> &[u128; KEPT] {
        match self.pow.first_chunk::<KEPT>() {
            Some(p) => p,
            None => unreachable!(),
        }
    }

    /// The powers, highest first, to be filled.
    #[inline(always)]
    pub fn entries_mut(&mut self) -> &mut [u128; KEPT] {
        match self.pow.first_chunk_mut::<KEPT>() {
            Some(p) => p,
            None => unreachable!(),
        }
    }

    /// Four consecutive entries from index `i` (at most `KEPT - 1`, the index of H^1; past
    /// H^1 come zeros): a pointer to their 64 bytes, for a register load of up to four.
    /// Checked (panics otherwise): `i` is a public block count.
    #[inline(always)]
    pub fn powers(&self, i: usize) -> *const u8 {
        match self.pow[i..].first_chunk::<4>() {
            Some(c) => c.as_ptr().cast(),
            None => panic!("power index past the kept powers"),
        }
    }

    /// H^k, `1 <= k <= KEPT`.
    pub fn get(&self, k: usize) -> u128 {
        self.pow[KEPT - k]
    }
}

#[cfg(feature = "zeroize")]
impl Drop for KeptPowers {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.pow);
    }
}

/// Clears `words` (a table of powers of a hash key) with volatile stores the compiler may not
/// drop, then a compiler fence: with the feature `table-wipe`; a no-op otherwise.
#[inline]
pub fn wipe_words(words: &mut [MaybeUninit<u128>]) {
    #[cfg(feature = "table-wipe")]
    {
        for w in words {
            // SAFETY: `w` is a valid `&mut MaybeUninit<u128>`: non-null, aligned and writable.
            unsafe { core::ptr::write_volatile(w, MaybeUninit::new(0)) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
    #[cfg(not(feature = "table-wipe"))]
    let _ = words;
}
