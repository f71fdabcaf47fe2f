//! The stitched AES-CTR + GHASH/POLYVAL kernel, written once over [`Lanes`] and instantiated
//! by each engine for its register type.
//!
//! # The loop
//!
//! A message is cut into iterations of `N` registers (`N * BLOCKS` blocks: 32 on 512-bit
//! registers, 16 on 256-bit, 8 on 128-bit), then a tail of whole and partial registers:
//!
//! - **Stitched iterations** run the AES rounds of `N` registers of counter blocks and, between
//!   the rounds, the GHASH (or POLYVAL) multiplies of `N` registers of data read from memory,
//!   against H^(N*BLOCKS)..H^1, with one reduction per iteration. The two instruction streams
//!   are independent within an iteration, so the out-of-order core runs them side by side;
//!   an empty `asm!` ([`fence`]) after each round keeps LLVM from separating them again.
//!   What is hashed is set per call ([`Hashing`]): the input of the same iteration (GCM
//!   decryption), or the output written [`LAG`] iterations earlier (GCM encryption,
//!   AES-GCM-SIV decryption), whose loads then never wait for this iteration's AES or its
//!   stores. The first `LAG` iterations of the latter run the CTR-only iteration and their
//!   output is hashed after the loop, so the steady-state loop is one body for both.
//! - **The round count is data**, not a type: AES-128, -192 and -256 share every loop. The
//!   2 or 4 extra rounds of the longer keys run first, behind two predictable branches; the
//!   last nine middle rounds and the final round are common, and carry the GHASH steps
//!   ([`AesKeys`]; the layout of Linux's VAES AES-GCM, whose extra rounds also come first).
//! - **The tail** (less than one iteration) goes a register at a time (the out-of-order core
//!   overlaps consecutive registers, which do not depend on each other), a partial register
//!   through [`Lanes::load_partial`] and [`Lanes::store_partial`], and is hashed unreduced
//!   with the length block (and a short AAD, when the message has no whole iteration) into one
//!   reduction.
//!
//! # GHASH steps
//!
//! A register `x` of blocks times a register of powers `h` is either Karatsuba's three
//! carry-less products (`lo*lo`, `hi*hi` and `(lo^hi)*(lo^hi)` with the powers' middles
//! precomputed in the table) or the schoolbook's four (`lo*lo`, `hi*hi`, `lo*hi`, `hi*lo`):
//! Karatsuba saves a multiply per register for a shuffle and an XOR, which wins where the
//! multiplier is the bottleneck (AMD Zen 4 issues a 512-bit `vpclmulqdq` every other cycle)
//! and loses where the shuffle port is (Intel's port 5 runs 512-bit `vpclmulqdq`, `vpshufd`
//! and `vpshufb`); the engine chooses (`const KARATSUBA`). Products are summed unreduced, lane
//! by lane. The reduction folds the low product into the middle and the middle into the high
//! one (two multiplies by `x^63 + x^62 + x^57`, Montgomery's reduction in POLYVAL's bit order,
//! as in `clmul_core::soft`), which needs no separate shifts of the middle product (the order
//! of Linux's `_ghash_reduce`), then the lanes are XORed together: reduction is linear, so
//! reducing lanes and then summing equals summing and then reducing.
//!
//! The structure follows the stitched-GCM design of Gueron and Krasnov (OpenSSL/BoringSSL
//! `aesni-gcm-x86_64`) and the single-source VAES AES-GCM of Linux
//! (`arch/x86/crypto/aes-gcm-vaes-avx512.S`, Eric Biggers), written here from their
//! descriptions.
//!
//! # Flavours
//!
//! The kernel is generic over the counter ([`Counter`]: GCM's 32-bit big-endian counter in
//! the last word, [`Inc32`], or AES-GCM-SIV's 32-bit little-endian counter in the first word,
//! [`Le32`], RFC 8452 section 4) and the hash domain ([`Domain`]: [`Ghash`] byte-reverses each
//! block, [`Polyval`] takes it as it is); AES-GCM instantiates `Inc32` and `Ghash` only. The
//! operations are CTR only, hash only ([`hash_message`]), CTR and hash of the input (GCM
//! open) and CTR and hash of the output (GCM seal, AES-GCM-SIV open), all through
//! [`crypt`]. [`encrypt_blocks`] is AES-ECB of a few blocks (AES-GCM-SIV's key derivation).
//!
//! Counters and lengths are public: they decide branches and addresses. Keys and data never
//! do.
#![allow(unsafe_code)]

#[cfg(all(
    test,
    any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )
))]
mod tests;

use core::mem::MaybeUninit;

use crate::lanes::{Lanes, fence, xor3};
use crate::tables::{EMPTY, KEPT, KeptPowers, PowerTable, RoundKeys, TOP};

/// How many iterations behind its CTR a stitched loop hashes its own output.
pub(crate) const LAG: usize = 2;

/// AES round keys in registers, laid out for the round count as data: the whitening key, up
/// to four extra rounds (the last `rounds - 10` slots of `extra`), nine middle rounds and the
/// last key, so that the middle and last rounds read the same registers for every key size.
///
/// With x86's `AESENC` (key added after the round) the slots hold `k_0`; `k_1..k_4` (AES-256)
/// or `k_1, k_2` (AES-192); `k_(R-9)..k_(R-1)`; `k_R`. With ARMv8's `AESE` (key added before
/// the round, [`Lanes::KEY_FIRST`]) every round's key is the one before: no whitening,
/// `k_0..k_3` or `k_0, k_1`; `k_(R-10)..k_(R-2)`; and the last round needs two, `k_(R-1)`
/// (in `first`) and `k_R`.
#[derive(Clone, Copy)]
pub(crate) struct AesKeys<L> {
    first: L,
    extra: [L; 4],
    mid: [L; 9],
    last: L,
    rounds: usize,
}

impl<L: Lanes> AesKeys<L> {
    /// The registers for `rk` (loops, not closures: a closure in this generic code would be
    /// compiled without the engine's features).
    ///
    /// # Safety
    /// As the [`Lanes`] methods.
    #[inline(always)]
    pub(crate) unsafe fn new(rk: &RoundKeys) -> Self {
        let r = rk.rounds();
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
    unsafe fn begin(&self, x: L) -> L {
        if L::KEY_FIRST {
            x
        } else {
            // SAFETY: forwarded from the caller.
            unsafe { L::xor(x, self.first) }
        }
    }

    /// The extra rounds of AES-192 (two) and AES-256 (four), on every register of `x`.
    #[inline(always)]
    unsafe fn extra<const N: usize>(&self, x: &mut [L; N]) {
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

    /// Middle round `i` (0..9).
    #[inline(always)]
    unsafe fn mid(&self, i: usize, x: L) -> L {
        // SAFETY: forwarded from the caller.
        unsafe { L::aes_round(x, self.mid[i]) }
    }

    /// The last round, XORed with `data`: the CTR output.
    #[inline(always)]
    unsafe fn end(&self, x: L, data: L) -> L {
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
    unsafe fn encrypt<const N: usize>(&self, mut x: [L; N], data: &[L; N]) -> [L; N] {
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
    /// As the [`Lanes`] methods.
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
unsafe fn round_all<L: Lanes, const N: usize>(x: &mut [L; N], k: L) {
    for v in x.iter_mut() {
        // SAFETY: forwarded from the caller.
        *v = unsafe { L::aes_round(*v, k) };
    }
}

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
    type State<L: Lanes>: Copy;

    /// The state of counter `c` (GCM starts at `inc32(J0)`, and passing `J0` itself keeps the
    /// counter's value a load of the caller's block, which the disassembly check of
    /// `cargo xtask ct` tells from data by its width).
    ///
    /// # Safety
    /// As the [`Lanes`] methods.
    unsafe fn start<L: Lanes>(c: Counter0<'_>) -> Self::State<L>;

    /// The next `N` registers of counter blocks (lane order), advancing the state.
    ///
    /// # Safety
    /// As the [`Lanes`] methods.
    unsafe fn take<L: Lanes, const N: usize>(s: &mut Self::State<L>) -> [L; N];
}

/// Every lane holding `k` in word `j`, the other words zero.
#[inline(always)]
unsafe fn word<L: Lanes>(j: usize, k: u32) -> L {
    let mut w = [0u32; 16];
    for l in 0..4 {
        w[4 * l + j] = k;
    }
    // SAFETY: forwarded from the caller.
    unsafe { L::from_words(&w) }
}

/// Lane `l` holding `l` in word 0: the lanes' offsets from lane 0's counter.
#[inline(always)]
unsafe fn lane_offsets<L: Lanes>() -> L {
    // SAFETY: forwarded from the caller.
    unsafe { L::from_words(&[0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]) }
}

/// GCM's counter (NIST SP 800-38D `inc32`): the last four bytes of the block are a
/// big-endian 32-bit counter, incremented modulo 2^32; the first twelve stay.
pub(crate) struct Inc32;

/// [`Inc32`]'s state: the counter blocks of the next register as they are (big-endian), the
/// counter of its lane 0, and whether that may decide a branch.
#[derive(Clone, Copy)]
pub(crate) struct Inc32State<L> {
    be: L,
    ctr: u32,
    public: bool,
}

impl Counter for Inc32 {
    type State<L: Lanes> = Inc32State<L>;

    #[inline(always)]
    unsafe fn start<L: Lanes>(c: Counter0<'_>) -> Inc32State<L> {
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
        Inc32State { be, ctr, public }
    }

    /// While the counter's low byte does not wrap within the `N` registers and the step after
    /// them (seven iterations in eight of 32 blocks), the blocks are the big-endian ones plus
    /// a constant in that byte (the top byte of the lane's last word): an add each, no
    /// shuffle. Otherwise, and always when the counter is not public, they are made
    /// byte-reversed, where a 32-bit add carries.
    #[inline(always)]
    unsafe fn take<L: Lanes, const N: usize>(s: &mut Inc32State<L>) -> [L; N] {
        let n = (L::BLOCKS * N) as u32;
        let b = L::BLOCKS as u32;
        let mut out = [s.be; N];
        // SAFETY: forwarded from the caller.
        unsafe {
            if s.public && (s.ctr & 0xff) + n + b <= 256 {
                for (i, v) in out.iter_mut().enumerate().skip(1) {
                    *v = L::add32(s.be, word(3, (b * i as u32) << 24));
                }
                s.be = L::add32(s.be, word(3, n << 24));
            } else {
                let rev = L::reverse(s.be);
                for (i, v) in out.iter_mut().enumerate().skip(1) {
                    *v = L::reverse(L::add32(rev, word(0, b * i as u32)));
                }
                s.be = L::reverse(L::add32(rev, word(0, n)));
            }
        }
        s.ctr = s.ctr.wrapping_add(n);
        out
    }
}

/// AES-GCM-SIV's counter (RFC 8452, section 4): the first four bytes of the block are a
/// little-endian 32-bit counter, incremented modulo 2^32; the other twelve stay.
pub(crate) struct Le32;

impl Counter for Le32 {
    type State<L: Lanes> = L;

    #[inline(always)]
    unsafe fn start<L: Lanes>(c: Counter0<'_>) -> L {
        // SAFETY: forwarded from the caller.
        unsafe {
            L::add32(
                L::broadcast(c.block),
                L::add32(lane_offsets(), word(0, c.skip)),
            )
        }
    }

    #[inline(always)]
    unsafe fn take<L: Lanes, const N: usize>(s: &mut L) -> [L; N] {
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

/// A hash domain: how a block of data becomes a field element.
pub(crate) trait Domain {
    /// GHASH's blocks are byte-reflected POLYVAL elements (RFC 8452, Appendix A).
    const REFLECT: bool;
}

/// GHASH (AES-GCM): each block byte-reversed.
pub(crate) struct Ghash;

impl Domain for Ghash {
    const REFLECT: bool = true;
}

/// POLYVAL (AES-GCM-SIV): blocks as they are.
pub(crate) struct Polyval;

impl Domain for Polyval {
    const REFLECT: bool = false;
}

/// Whether this engine hashes the domain's data half-swapped ([`Lanes::SWAP_REFLECT`], and
/// GHASH's byte reflection to undo): each element `x` is then held as its halves swapped,
/// `[x.hi, x.lo]`, which is what reversing the bytes of each 64-bit half gives (one `REV64`
/// on ARMv8, where the whole reflection is `REV64` + `EXT`). The powers it multiplies by are
/// held swapped too ([`Powers::table`] swaps a table's, [`Table::power`] a kept one), so that
/// the products of two swapped operands are the same four with `lo` and `hi` exchanged
/// ([`products`]), and the Karatsuba middles (`lo ^ hi` of each) do not change.
#[inline(always)]
fn swapped<L: Lanes, D: Domain>() -> bool {
    L::SWAP_REFLECT && D::REFLECT
}

/// A register of data as the field elements the products take: [`field`], or half-swapped
/// ([`swapped`]).
#[inline(always)]
unsafe fn field_data<L: Lanes, D: Domain>(v: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        if swapped::<L, D>() {
            L::reverse_in_halves(v)
        } else {
            field::<L, D>(v)
        }
    }
}

/// The running hash (a reduced element, never swapped) as data to add to a register of
/// [`field_data`].
#[inline(always)]
unsafe fn data_y<L: Lanes, D: Domain>(y: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        if swapped::<L, D>() {
            L::swap_halves(y)
        } else {
            y
        }
    }
}

/// A register of data as field elements (GHASH: byte-reflected), or a reduced element back
/// to bytes.
#[inline(always)]
unsafe fn field<L: Lanes, D: Domain>(v: L) -> L {
    if D::REFLECT {
        // SAFETY: forwarded from the caller.
        unsafe { L::reverse(v) }
    } else {
        v
    }
}

/// Unreduced sums of products, lane by lane: `lo` (coefficients 0..127), `mi` (64..191;
/// with Karatsuba, before adding `lo` and `hi`), `hi` (128..255).
#[derive(Clone, Copy)]
struct Acc<L> {
    lo: L,
    mi: L,
    hi: L,
}

/// The products of one register: schoolbook's middle is `mi ^ mi2`; Karatsuba leaves `mi2`
/// zero (and unused), or, where [`Lanes::PAIRED_MIDDLES`] holds, has not multiplied the
/// middle yet: `mi` is the data and `mi2` the power's middle operand, and the accumulator
/// multiplies two registers' middles together ([`Prod::middles`]) or one alone
/// ([`Prod::middle`]).
#[derive(Clone, Copy)]
struct Prod<L> {
    lo: L,
    mi: L,
    mi2: L,
    hi: L,
}

/// Powers of H as the kernel reads them: H^n at index `top() - n`, highest first, with zeros
/// after H^1: a call's [`PowerTable`] (the wide loops and the tail of a longer message) or an
/// AES-GCM key's [`KeptPowers`] (a short message), each with its layout at compile time.
pub(crate) trait Table: Copy {
    /// The highest power the layout has room for.
    fn top(self) -> usize;

    /// The Karatsuba middles of the powers `h` loaded from index `i`: loaded where the table
    /// has them, computed otherwise.
    ///
    /// # Safety
    /// As the [`Lanes`] methods.
    unsafe fn middles<L: Lanes>(self, i: usize, h: L) -> L;

    /// The register of powers from index `i` (checked: four initialized entries from there,
    /// or a panic), half-swapped if `swapped` ([`swapped`]): a
    /// table made for such a call holds them so ([`Powers::table`]); the kept powers are
    /// swapped as they are loaded (a short message's few registers).
    ///
    /// # Safety
    /// As the [`Lanes`] methods.
    unsafe fn power<L: Lanes>(self, i: usize, swapped: bool) -> L;
}

impl Table for &PowerTable {
    #[inline(always)]
    fn top(self) -> usize {
        TOP
    }

    #[inline(always)]
    unsafe fn middles<L: Lanes>(self, i: usize, _: L) -> L {
        // SAFETY: the caller's features; `middles` points at four initialized entries
        // (checked), of which a register loads `BLOCKS`.
        unsafe { L::load_power(PowerTable::middles(self, i)) }
    }

    #[inline(always)]
    unsafe fn power<L: Lanes>(self, i: usize, _: bool) -> L {
        // SAFETY: the caller's features; `powers` points at four initialized entries
        // (checked), of which a register loads `BLOCKS`. Whether they are swapped was checked
        // where the call's table was made ([`Powers::table`]).
        unsafe { L::load_power(PowerTable::powers(self, i)) }
    }
}

impl Table for &KeptPowers {
    #[inline(always)]
    fn top(self) -> usize {
        KEPT
    }

    /// Computed: `lo ^ hi` in both halves (a shuffle and an XOR a register, for the few
    /// registers of a short message).
    #[inline(always)]
    unsafe fn middles<L: Lanes>(self, _: usize, h: L) -> L {
        // SAFETY: the caller's features.
        unsafe { L::xor(h, L::swap_halves(h)) }
    }

    #[inline(always)]
    unsafe fn power<L: Lanes>(self, i: usize, swapped: bool) -> L {
        // SAFETY: the caller's features; `powers` points at four initialized entries
        // (checked), of which a register loads `BLOCKS`.
        unsafe {
            let h = L::load_power(KeptPowers::powers(self, i));
            if swapped { L::swap_halves(h) } else { h }
        }
    }
}

/// `x * powers(i)` of `tbl`, lane by lane, unreduced.
#[inline(always)]
unsafe fn products<L: Lanes, T: Table, const KARATSUBA: bool>(
    x: L,
    tbl: T,
    i: usize,
    swapped: bool,
) -> Prod<L> {
    // SAFETY: forwarded from the caller.
    unsafe {
        let h = tbl.power::<L>(i, swapped);
        if KARATSUBA && L::PAIRED_MIDDLES {
            let hx = tbl.middles(i, h);
            Prod {
                lo: low(x, h, swapped),
                mi: x,
                mi2: hx,
                hi: high(x, h, swapped),
            }
        } else if KARATSUBA {
            let hx = tbl.middles(i, h);
            let xx = L::xor(x, L::swap_halves(x));
            let (lo, mi, hi) = (low(x, h, swapped), L::clmul_lo(xx, hx), high(x, h, swapped));
            Prod {
                lo,
                mi,
                mi2: L::zero(),
                hi,
            }
        } else {
            let (lo, hi) = (low(x, h, swapped), high(x, h, swapped));
            Prod {
                lo,
                mi: L::clmul_hi_lo(x, h),
                mi2: L::clmul_lo_hi(x, h),
                hi,
            }
        }
    }
}

/// The product of `x`'s and `h`'s low halves; of half-swapped operands ([`swapped`]), that of
/// the high halves (the middle terms of the two do not change).
#[inline(always)]
unsafe fn low<L: Lanes>(x: L, h: L, swapped: bool) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        if swapped {
            L::clmul_hi(x, h)
        } else {
            L::clmul_lo(x, h)
        }
    }
}

/// The product of the high halves ([`low`]'s counterpart).
#[inline(always)]
unsafe fn high<L: Lanes>(x: L, h: L, swapped: bool) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        if swapped {
            L::clmul_lo(x, h)
        } else {
            L::clmul_hi(x, h)
        }
    }
}

impl<L: Lanes> Prod<L> {
    /// Karatsuba's middle product of one register whose multiply [`products`] left for later
    /// ([`Lanes::PAIRED_MIDDLES`]): `(x.lo ^ x.hi) * (h.lo ^ h.hi)`.
    #[inline(always)]
    unsafe fn middle(&self) -> L {
        // SAFETY: forwarded from the caller.
        unsafe { L::clmul_lo(L::xor(self.mi, L::swap_halves(self.mi)), self.mi2) }
    }

    /// The middle products of two such registers, as two values to add: both data registers'
    /// folded halves in one register (`[a.lo ^ a.hi, b.lo ^ b.hi]` per lane, two unpacks and
    /// one XOR where one register alone takes a shuffle and an XOR), multiplied by the low
    /// half of `a`'s middle operand and the high half of `b`'s (each holds it in both halves).
    #[inline(always)]
    unsafe fn middles(a: &Self, b: &Self) -> (L, L) {
        // SAFETY: forwarded from the caller.
        unsafe {
            let f = L::xor(L::zip_lo(a.mi, b.mi), L::zip_hi(a.mi, b.mi));
            (L::clmul_lo(f, a.mi2), L::clmul_hi(f, b.mi2))
        }
    }
}

impl<L: Lanes> Acc<L> {
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: forwarded from the caller.
        let z = unsafe { L::zero() };
        Acc {
            lo: z,
            mi: z,
            hi: z,
        }
    }

    /// The sum of two registers' products (the first pair of a stride).
    #[inline(always)]
    unsafe fn pair<const KARATSUBA: bool>(a: &Prod<L>, b: &Prod<L>) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe {
            let mi = if KARATSUBA && L::PAIRED_MIDDLES {
                let (ma, mb) = Prod::middles(a, b);
                L::xor(ma, mb)
            } else if KARATSUBA {
                L::xor(a.mi, b.mi)
            } else {
                L::xor(xor3(a.mi, a.mi2, b.mi), b.mi2)
            };
            Acc {
                lo: L::xor(a.lo, b.lo),
                mi,
                hi: L::xor(a.hi, b.hi),
            }
        }
    }

    /// Adds two registers' products.
    #[inline(always)]
    unsafe fn add_pair<const KARATSUBA: bool>(&mut self, a: &Prod<L>, b: &Prod<L>) {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.lo = xor3(self.lo, a.lo, b.lo);
            self.hi = xor3(self.hi, a.hi, b.hi);
            self.mi = if KARATSUBA && L::PAIRED_MIDDLES {
                let (ma, mb) = Prod::middles(a, b);
                xor3(self.mi, ma, mb)
            } else if KARATSUBA {
                xor3(self.mi, a.mi, b.mi)
            } else {
                xor3(xor3(self.mi, a.mi, a.mi2), b.mi, b.mi2)
            };
        }
    }

    /// Adds one register's products.
    #[inline(always)]
    unsafe fn add<const KARATSUBA: bool>(&mut self, a: &Prod<L>) {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.lo = L::xor(self.lo, a.lo);
            self.hi = L::xor(self.hi, a.hi);
            self.mi = if KARATSUBA && L::PAIRED_MIDDLES {
                L::xor(self.mi, a.middle())
            } else if KARATSUBA {
                L::xor(self.mi, a.mi)
            } else {
                xor3(self.mi, a.mi, a.mi2)
            };
        }
    }

    /// Reduction step 1: Karatsuba's middle made whole, and the low product folded into it.
    #[inline(always)]
    unsafe fn fold_lo<const KARATSUBA: bool>(&mut self) {
        // SAFETY: forwarded from the caller.
        unsafe {
            let mi = if KARATSUBA {
                xor3(self.mi, self.lo, self.hi)
            } else {
                self.mi
            };
            let t = L::clmul_lo(self.lo, poly());
            self.mi = xor3(mi, L::swap_halves(self.lo), t);
        }
    }

    /// Reduction step 2: the middle folded into the high product, which is then the reduced
    /// value of each lane.
    #[inline(always)]
    unsafe fn fold_mi(&mut self) {
        // SAFETY: forwarded from the caller.
        unsafe {
            let t = L::clmul_lo(self.mi, poly());
            self.hi = xor3(self.hi, L::swap_halves(self.mi), t);
        }
    }

    /// The reduced sum, in lane 0.
    #[inline(always)]
    unsafe fn reduce<const KARATSUBA: bool>(mut self) -> L {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.fold_lo::<KARATSUBA>();
            self.fold_mi();
            L::fold_lanes(self.hi)
        }
    }
}

/// `x^63 + x^62 + x^57` in both halves of every lane: the Montgomery fold (see
/// `clmul_core::soft`).
#[inline(always)]
unsafe fn poly<L: Lanes>() -> L {
    const P: u32 = 0xc200_0000;
    // SAFETY: forwarded from the caller.
    unsafe { L::from_words(&[0, P, 0, P, 0, P, 0, P, 0, P, 0, P, 0, P, 0, P]) }
}

/// What a call hashes besides the AAD. A word-sized discriminant: the disassembly check of
/// `cargo xtask ct` tells public values (lengths, modes) from data by their load width.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub(crate) enum Hashing {
    /// Nothing: CTR only (the result is meaningless).
    Off,
    /// The input (GCM decryption).
    Input,
    /// The output (GCM encryption, AES-GCM-SIV decryption).
    Output,
}

/// The data a stitched iteration hashes.
struct Ghashed<'a, L> {
    src: *const u8,
    tbl: &'a PowerTable,
    /// The table index of the iteration's highest power.
    base: usize,
    lanes: core::marker::PhantomData<L>,
}

impl<L: Lanes> Ghashed<'_, L> {
    /// GHASH step `s` of [`stitched`] (a function, not a closure: a closure in this generic
    /// code would be compiled without the engine's features).
    ///
    /// # Safety
    /// As [`stitched`].
    #[inline(always)]
    unsafe fn step<D: Domain, const N: usize, const KARATSUBA: bool>(
        &self,
        s: usize,
        acc: &mut Acc<L>,
        pend: &mut Option<Prod<L>>,
        y: &mut L,
    ) {
        let reg = 16 * L::BLOCKS;
        // SAFETY: the caller's pointers and features; register `j < N` of `src` is in its
        // `reg * N` bytes.
        unsafe {
            if s < N {
                let j = N - 1 - s;
                let mut v = field_data::<L, D>(L::load(self.src.add(reg * j)));
                if j == 0 {
                    v = L::xor(v, data_y::<L, D>(*y));
                }
                let i = self.base + L::BLOCKS * j;
                let p = products::<L, &PowerTable, KARATSUBA>(v, self.tbl, i, swapped::<L, D>());
                match pend.take() {
                    None if s + 1 < N => *pend = Some(p),
                    None => acc.add::<KARATSUBA>(&p),
                    Some(q) if s == 1 => *acc = Acc::pair::<KARATSUBA>(&q, &p),
                    Some(q) => acc.add_pair::<KARATSUBA>(&q, &p),
                }
            } else if s == N {
                acc.fold_lo::<KARATSUBA>();
            } else if s == N + 1 {
                acc.fold_mi();
            } else if s == N + 2 {
                *y = L::fold_lanes(acc.hi);
            }
        }
    }
}

/// One stitched iteration: `N` registers of CTR from `inp` to `out` while the `N` registers
/// of data at `src` are hashed into `y`. AES middle round `i` is followed by GHASH step `i`:
/// steps `0..N` multiply groups `N-1..0` (group 0, last, adds the running hash, needed as
/// late as possible), pairs of them summed with three-way XORs; steps `N`, `N+1` and `N+2`
/// reduce. Steps left when the middle rounds run out follow them; every load of `src` comes
/// before the stores to `out` (they may be the same memory).
///
/// # Safety
/// As the [`Lanes`] methods; `16 * BLOCKS * N` bytes are readable at `src` and `inp` and
/// writable at `out` (`inp` and `out` equal or disjoint).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn stitched<L: Lanes, C: Counter, D: Domain, const N: usize, const KARATSUBA: bool>(
    ks: &AesKeys<L>,
    tbl: &PowerTable,
    y: &mut L,
    ctr: &mut C::State<L>,
    src: *const u8,
    inp: *const u8,
    out: *mut u8,
) {
    // The steps must fit the unrolled rounds and the `after!` list below, and every load of
    // `src` (steps `0..N`) must come within the rounds, before the stores.
    const { assert!(N >= 1 && N <= 9) };
    let reg = 16 * L::BLOCKS;
    let g = Ghashed::<L> {
        src,
        tbl,
        base: PowerTable::index(N * L::BLOCKS),
        lanes: core::marker::PhantomData,
    };
    // SAFETY: the caller's pointers and features; register `j` of an iteration is bytes
    // `reg * j..reg * (j + 1)` of the caller's `reg * N`.
    unsafe {
        let mut x: [L; N] = C::take::<L, N>(ctr);
        for v in &mut x {
            *v = ks.begin(*v);
        }
        ks.extra(&mut x);
        let mut acc = Acc::<L>::zero();
        let mut pend: Option<Prod<L>> = None;
        // The nine middle rounds, unrolled in the source (a loop here stays a loop, with the
        // step chosen at run time), each followed by its GHASH step and a fence on the live
        // registers: the accumulator from the first pair on, until the reduction is done.
        macro_rules! rounds {
            ($($i:literal)*) => {$(
                for v in &mut x {
                    *v = ks.mid($i, *v);
                }
                g.step::<D, N, KARATSUBA>($i, &mut acc, &mut pend, y);
                if $i < N + 2 {
                    if $i >= 1 {
                        for v in [&mut acc.lo, &mut acc.mi, &mut acc.hi] {
                            fence(v);
                        }
                    }
                    if let Some(p) = &mut pend {
                        for v in [&mut p.lo, &mut p.mi, &mut p.hi] {
                            fence(v);
                        }
                        if !KARATSUBA {
                            fence(&mut p.mi2);
                        }
                    }
                }
                for v in &mut x {
                    fence(v);
                }
            )*};
        }
        rounds!(0 1 2 3 4 5 6 7 8);
        for (j, v) in x.iter_mut().enumerate() {
            *v = ks.end(*v, L::load(inp.add(reg * j)));
        }
        // The steps left (with eight registers: the second fold and the lane sum).
        macro_rules! after {
            ($($s:literal)*) => {$(
                if $s < N + 3 {
                    g.step::<D, N, KARATSUBA>($s, &mut acc, &mut pend, y);
                }
            )*};
        }
        after!(9 10 11);
        for (j, v) in x.iter().enumerate() {
            L::store(out.add(reg * j), *v);
        }
    }
}

/// One CTR-only iteration: `N` registers from `inp` to `out`.
///
/// # Safety
/// As [`stitched`] (without `src`).
#[inline(always)]
unsafe fn ctr_only<L: Lanes, C: Counter, const N: usize>(
    ks: &AesKeys<L>,
    ctr: &mut C::State<L>,
    inp: *const u8,
    out: *mut u8,
) {
    let reg = 16 * L::BLOCKS;
    // SAFETY: the caller's pointers and features, as in `stitched`.
    unsafe {
        let x = C::take::<L, N>(ctr);
        let mut data = [L::zero(); N];
        for (j, d) in data.iter_mut().enumerate() {
            *d = L::load(inp.add(reg * j));
        }
        let x = ks.encrypt(x, &data);
        for (j, v) in x.iter().enumerate() {
            L::store(out.add(reg * j), *v);
        }
    }
}

/// Hashes the last blocks of a message from registers: every register's products against
/// its powers are added unreduced, and one reduction ends it.
struct Tail<L> {
    acc: Acc<L>,
    /// Blocks still to come, this one included: the next block's power of H.
    left: usize,
    /// The running hash, added to the next block (as data: [`data_y`]).
    y: L,
}

impl<L: Lanes> Tail<L> {
    /// A tail of `left` blocks from the running hash `y` (a reduced element), hashing `D`'s
    /// data.
    #[inline(always)]
    unsafe fn new<D: Domain>(left: usize, y: L) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe {
            Tail {
                acc: Acc::zero(),
                left,
                y: data_y::<L, D>(y),
            }
        }
    }

    /// Adds the `nb <= BLOCKS` field elements in the low lanes of `x` (the others zero).
    #[inline(always)]
    unsafe fn add<D: Domain, T: Table, const KARATSUBA: bool>(&mut self, tbl: T, x: L, nb: usize) {
        // `powers` checks the index; `left >= nb` holds by the callers' count (a miscount
        // panics there instead of reading outside the table).
        let i = tbl.top() - self.left;
        // SAFETY: forwarded from the caller.
        unsafe {
            let x = L::xor(x, self.y);
            self.y = L::zero();
            let p = products::<L, T, KARATSUBA>(x, tbl, i, swapped::<L, D>());
            self.acc.add::<KARATSUBA>(&p);
        }
        self.left -= nb;
    }

    /// Adds `n` bytes at `p`, zero-padded to whole blocks, a register at a time.
    #[inline(always)]
    unsafe fn add_bytes<D: Domain, T: Table, const KARATSUBA: bool>(
        &mut self,
        tbl: T,
        p: *const u8,
        n: usize,
    ) {
        let reg = 16 * L::BLOCKS;
        let mut off = 0;
        while off < n {
            let m = (n - off).min(reg);
            // SAFETY: `off + m <= n` readable bytes at `p`; the caller's features.
            unsafe {
                let v = if m == reg {
                    L::load(p.add(off))
                } else {
                    L::load_partial(p.add(off), m)
                };
                self.add::<D, T, KARATSUBA>(tbl, field_data::<L, D>(v), m.div_ceil(16));
            }
            off += reg;
        }
    }

    /// Adds the block `b` and reduces: the hash, as bytes (GHASH: un-reflected).
    #[inline(always)]
    unsafe fn finish<D: Domain, T: Table, const KARATSUBA: bool>(
        mut self,
        tbl: T,
        b: &[u8; 16],
    ) -> [u8; 16] {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.add::<D, T, KARATSUBA>(tbl, field_data::<L, D>(L::from_lane0(b)), 1);
            L::lane0(field::<L, D>(self.acc.reduce::<KARATSUBA>()))
        }
    }
}

/// Hashes `n` bytes at `p`, zero-padded to whole blocks, into `y`: strides of `N` registers
/// with one reduction each, then the rest with one more.
///
/// # Safety
/// As the [`Lanes`] methods; `n` bytes at `p` are readable.
#[inline(always)]
unsafe fn hash_bytes<L: Lanes, D: Domain, const N: usize, const KARATSUBA: bool>(
    tbl: &PowerTable,
    mut y: L,
    p: *const u8,
    n: usize,
) -> L {
    let reg = 16 * L::BLOCKS;
    let stride = reg * N;
    let base = PowerTable::index(N * L::BLOCKS);
    let mut off = 0;
    // SAFETY: the caller's features; `off + stride <= n` readable bytes in the loop, `n - off`
    // from `p + off` after it.
    unsafe {
        while n - off >= stride {
            let mut acc = Acc::<L>::zero();
            for j in (0..N).rev() {
                let mut v = field_data::<L, D>(L::load(p.add(off + reg * j)));
                if j == 0 {
                    v = L::xor(v, data_y::<L, D>(y));
                }
                let i = base + L::BLOCKS * j;
                let p = products::<L, &PowerTable, KARATSUBA>(v, tbl, i, swapped::<L, D>());
                acc.add::<KARATSUBA>(&p);
            }
            y = acc.reduce::<KARATSUBA>();
            off += stride;
        }
        if off < n {
            let mut t = Tail::new::<D>((n - off).div_ceil(16), y);
            t.add_bytes::<D, &PowerTable, KARATSUBA>(tbl, p.add(off), n - off);
            y = t.acc.reduce::<KARATSUBA>();
        }
    }
    y
}

/// Whether a message of `aad_len` bytes of AAD and `len` bytes of text is short: fewer than
/// `KEPT` blocks of both, so no whole iteration of any engine (eight blocks or more) and every
/// power it multiplies by, the length block's included, kept by an AES-GCM key
/// ([`crypt_short`]).
#[inline]
pub(crate) fn is_short(aad_len: usize, len: usize) -> bool {
    aad_len.div_ceil(16) + len.div_ceil(16) < KEPT
}

/// A short message ([`is_short`]) on an AES-GCM key's kept powers: all of it the tail of
/// [`crypt`] (CTR a register at a time, the AAD, the text and the length block hashed with
/// one reduction), with no table built. Its own job, so that its few registers are allocated
/// apart from the wide loops'.
///
/// # Safety
/// As [`crypt`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn crypt_short<L: Lanes, C: Counter, D: Domain, const KARATSUBA: bool>(
    ks: &AesKeys<L>,
    kept: &KeptPowers,
    ctr0: Counter0<'_>,
    aad: &[u8],
    inp: *const u8,
    out: *mut u8,
    len: usize,
    hashing: Hashing,
    lengths: &[u8; 16],
) -> [u8; 16] {
    assert!(is_short(aad.len(), len), "a long message on the short path");
    let m = Tailed {
        aad,
        inp,
        out,
        off: 0,
        len,
        hashing,
    };
    // SAFETY: the caller's features and buffers.
    unsafe {
        let mut ctr = C::start::<L>(ctr0);
        tail::<L, C, D, &KeptPowers, KARATSUBA>(ks, kept, &mut ctr, L::zero(), m, lengths)
    }
}

/// A message: `aad` hashed, then `len` bytes of CTR (from counter `ctr0`) from `inp` to
/// `out`, with [`Hashing`] choosing what else is hashed, then the block `lengths`. Returns the
/// hash as bytes (GHASH: un-reflected), or zeros with [`Hashing::Off`] (which ignores `aad`
/// and `lengths`). With an AES-GCM key's kept powers, the call first builds the table of the
/// powers it needs ([`Powers::table`]); a short message takes [`crypt_short`] instead.
///
/// # Safety
/// As the [`Lanes`] methods; `len` bytes are readable at `inp` and writable at `out`, which
/// are equal or disjoint.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn crypt<
    L: Lanes,
    C: Counter,
    D: Domain,
    const N: usize,
    const KARATSUBA: bool,
>(
    ks: &AesKeys<L>,
    powers: Powers<'_>,
    ctr0: Counter0<'_>,
    aad: &[u8],
    inp: *const u8,
    out: *mut u8,
    len: usize,
    hashing: Hashing,
    lengths: &[u8; 16],
) -> [u8; 16] {
    let reg = 16 * L::BLOCKS;
    let it = reg * N;
    let hash = hashing != Hashing::Off;
    let iters = len / it;
    let rest = len - iters * it;
    let aad_blocks = aad.len().div_ceil(16);
    let rest_blocks = rest.div_ceil(16);
    // SAFETY: the caller's features and buffers; every offset below is at most `len` and
    // every access of `n` bytes at offset `off` has `off + n <= len`, by the loop conditions.
    unsafe {
        let mut ctr = C::start::<L>(ctr0);
        // A message without a whole iteration hashes a short AAD with its tail, one reduction.
        let fold_aad = iters == 0 && aad_blocks + rest_blocks < TOP;
        // The highest power of H the runs below multiply by: the folded tail's (AAD, text and
        // length block), or the widest of the AAD's runs (strides of `N * BLOCKS` blocks,
        // then fewer), the stitched iterations' and the tail's (the rest of the text and the
        // length block).
        let need = if !hash {
            0
        } else if fold_aad {
            aad_blocks + rest_blocks + 1
        } else {
            let stride = if iters > 0 { N * L::BLOCKS } else { 0 };
            aad_blocks
                .min(N * L::BLOCKS)
                .max(stride)
                .max(rest_blocks + 1)
        };
        let mut local = PowerTable::new();
        let tbl = powers.table::<L, KARATSUBA>(need, swapped::<L, D>(), &mut local);
        // CTR-only iterations: all of them without hashing, the first LAG when hashing the
        // output (which has nothing to hash yet), none when hashing the input.
        let ctr_iters = match hashing {
            Hashing::Off => iters,
            Hashing::Output => iters.min(LAG),
            Hashing::Input => 0,
        };
        let mut y = L::zero();
        if hash && !fold_aad {
            y = hash_bytes::<L, D, N, KARATSUBA>(tbl, y, aad.as_ptr(), aad.len());
        }
        let mut off = 0;
        while off < ctr_iters * it {
            ctr_only::<L, C, N>(ks, &mut ctr, inp.add(off), out.add(off));
            off += it;
        }
        if hash {
            // Stitched iterations, hashing the input at the same offset, or the output LAG
            // iterations back (`off >= LAG * it` there: it was written LAG iterations ago).
            let (src, lag) = match hashing {
                Hashing::Output => (out.cast_const(), LAG * it),
                _ => (inp, 0),
            };
            while len - off >= it {
                let (s, i, o) = (src.add(off - lag), inp.add(off), out.add(off));
                stitched::<L, C, D, N, KARATSUBA>(ks, tbl, &mut y, &mut ctr, s, i, o);
                off += it;
            }
            // The output of the first CTR-only iterations is still to be hashed: the last
            // `ctr_iters` iterations' worth, LAG behind.
            if hashing == Hashing::Output {
                let from = off - ctr_iters * it;
                y = hash_bytes::<L, D, N, KARATSUBA>(tbl, y, out.add(from), ctr_iters * it);
            }
        }
        let m = Tailed {
            aad: if fold_aad { aad } else { &[] },
            inp,
            out,
            off,
            len,
            hashing,
        };
        tail::<L, C, D, &PowerTable, KARATSUBA>(ks, tbl, &mut ctr, y, m, lengths)
    }
}

/// What [`tail`] runs: the AAD folded into the tail's reduction (or none), and the text from
/// offset `off` to `len` at `inp` and `out`, hashed as `hashing` says.
struct Tailed<'a> {
    aad: &'a [u8],
    inp: *const u8,
    out: *mut u8,
    off: usize,
    len: usize,
    hashing: Hashing,
}

/// The end of a message ([`crypt`]): the folded AAD, then the text left a register at a time
/// (the out-of-order core overlaps them), then the length block, hashed from the running
/// hash `y` with one reduction (`tbl` holds the powers: every block to come, the length
/// block included).
///
/// # Safety
/// As [`crypt`], for the bytes `m.off..m.len`.
#[inline(always)]
unsafe fn tail<L: Lanes, C: Counter, D: Domain, T: Table, const KARATSUBA: bool>(
    ks: &AesKeys<L>,
    tbl: T,
    ctr: &mut C::State<L>,
    y: L,
    m: Tailed<'_>,
    lengths: &[u8; 16],
) -> [u8; 16] {
    let reg = 16 * L::BLOCKS;
    let Tailed {
        aad,
        inp,
        out,
        mut off,
        len,
        hashing,
    } = m;
    let hash = hashing != Hashing::Off;
    // SAFETY: the caller's features and buffers, as in `crypt`.
    unsafe {
        let mut t = Tail::new::<D>(aad.len().div_ceil(16) + (len - off).div_ceil(16) + 1, y);
        if hash && !aad.is_empty() {
            t.add_bytes::<D, T, KARATSUBA>(tbl, aad.as_ptr(), aad.len());
        }
        while off < len {
            let n = (len - off).min(reg);
            let [c] = C::take::<L, 1>(ctr);
            let (i, o) = (inp.add(off), out.add(off));
            let d = if n == reg {
                L::load(i)
            } else {
                L::load_partial(i, n)
            };
            let [r] = ks.encrypt([c], &[d]);
            if n == reg {
                L::store(o, r);
            } else {
                L::store_partial(o, n, r);
            }
            if hash {
                let h = if hashing == Hashing::Input {
                    d
                } else {
                    L::truncate(r, n)
                };
                t.add::<D, T, KARATSUBA>(tbl, field_data::<L, D>(h), n.div_ceil(16));
            }
            off += reg;
        }
        if hash {
            t.finish::<D, T, KARATSUBA>(tbl, lengths)
        } else {
            [0; 16]
        }
    }
}

/// The hash of `aad`, `data` (each zero-padded) and the block `lengths`, as bytes (GHASH:
/// un-reflected): with an AES-GCM key's kept powers and fewer than `KEPT` blocks in all, one
/// run of them; otherwise each input in the wide loop with the table of the powers it needs.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub(crate) unsafe fn hash_message<L: Lanes, D: Domain, const N: usize, const KARATSUBA: bool>(
    powers: Powers<'_>,
    aad: &[u8],
    data: &[u8],
    lengths: &[u8; 16],
) -> [u8; 16] {
    let (aad_blocks, data_blocks) = (aad.len().div_ceil(16), data.len().div_ceil(16));
    // SAFETY: forwarded from the caller; the slices give the pointers and lengths.
    unsafe {
        if let Some(kept) = powers.kept()
            && aad_blocks + data_blocks < KEPT
        {
            let mut t = Tail::new::<D>(aad_blocks + data_blocks + 1, L::zero());
            for d in [aad, data] {
                t.add_bytes::<D, &KeptPowers, KARATSUBA>(kept, d.as_ptr(), d.len());
            }
            return t.finish::<D, &KeptPowers, KARATSUBA>(kept, lengths);
        }
        // Each input's runs: strides of `N * BLOCKS` blocks, then fewer; the length block.
        let stride = N * L::BLOCKS;
        let need = aad_blocks.min(stride).max(data_blocks.min(stride)).max(1);
        let mut local = PowerTable::new();
        let tbl = powers.table::<L, KARATSUBA>(need, swapped::<L, D>(), &mut local);
        // One call site for both inputs: the wide loop is the bulk of the code.
        let mut y = L::zero();
        for d in [aad, data] {
            y = hash_bytes::<L, D, N, KARATSUBA>(tbl, y, d.as_ptr(), d.len());
        }
        Tail::new::<D>(1, y).finish::<D, &PowerTable, KARATSUBA>(tbl, lengths)
    }
}

/// `a * b` in POLYVAL's field (Montgomery: `a * b * x^-128`), lane by lane, reduced in each
/// lane (schoolbook's four products, the reduction's two folds).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn mul_lanes<L: Lanes>(a: L, b: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        let mut acc = Acc {
            lo: L::clmul_lo(a, b),
            mi: L::xor(L::clmul_hi_lo(a, b), L::clmul_lo_hi(a, b)),
            hi: L::clmul_hi(a, b),
        };
        acc.fold_lo::<false>();
        acc.fold_mi();
        acc.hi
    }
}

/// Lane 0 of `v` in every lane.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn spread<L: Lanes>(v: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe { L::broadcast(&L::lane0(v)) }
}

/// Where a call's powers of H come from: a whole table (H^1..H^TOP, made for an AES-GCM-SIV
/// message, or a table of nothing for a call that hashes nothing), or an AES-GCM key's
/// H^1..H^KEPT, from which the call builds its own table of the powers it needs
/// ([`expand_kept`]). Two optional references rather than an enum: the disassembly check of
/// `cargo xtask ct` tells public values from data by their load width, and LLVM narrows an
/// enum's discriminant load to four bytes; a reference is tested as a whole word.
#[derive(Clone, Copy)]
pub(crate) struct Powers<'a> {
    table: Option<&'a PowerTable>,
    kept: Option<&'a KeptPowers>,
}

impl<'a> Powers<'a> {
    /// A whole table.
    #[inline(always)]
    pub(crate) fn of_table(t: &'a PowerTable) -> Self {
        Powers {
            table: Some(t),
            kept: None,
        }
    }

    /// An AES-GCM key's kept powers.
    #[inline(always)]
    pub(crate) fn of_kept(k: &'a KeptPowers) -> Self {
        Powers {
            table: None,
            kept: Some(k),
        }
    }

    /// The kept powers, if that is the source.
    #[inline(always)]
    pub(crate) fn kept(self) -> Option<&'a KeptPowers> {
        self.kept
    }

    /// The table of a call that multiplies by H^1..H^need: the given one, or `local` (a new
    /// table, which costs nothing until written) filled from the kept powers, and wiped when
    /// it is dropped with the feature `siv-wipe`. Panics if a given table holds fewer powers
    /// (never: whole tables hold `TOP`, and only calls that hash nothing get [`EMPTY`]).
    ///
    /// # Safety
    /// As the [`Lanes`] methods.
    #[inline(always)]
    unsafe fn table<'b, L: Lanes, const KARATSUBA: bool>(
        self,
        need: usize,
        swapped: bool,
        local: &'b mut PowerTable,
    ) -> &'b PowerTable
    where
        'a: 'b,
    {
        let tbl = match (self.table, self.kept) {
            // A given table in the other form: a copy, swapped (no caller of the engines
            // gives an AES-GCM call a table; the kernel tests do).
            (Some(t), _) if swapped && need > 0 && !t.is_swapped() => {
                local.clone_from(t);
                local.swap_powers();
                local
            }
            (Some(t), _) => t,
            (None, Some(k)) if need > 0 => {
                // SAFETY: forwarded from the caller.
                unsafe { expand_kept::<L, KARATSUBA>(k, need, local) };
                if swapped {
                    local.swap_powers();
                }
                local
            }
            _ => &EMPTY,
        };
        assert!(
            tbl.holds() >= need && (need == 0 || tbl.is_swapped() == swapped),
            "a call's powers of H were not computed"
        );
        tbl
    }
}

/// H^1..H^4 of the POLYVAL key `h` in registers of `BLOCKS` powers: `regs[g]` holds
/// H^(b(g+1))..H^(bg+1), highest in lane 0, for `g < 4 / b` (H^2..H^4 from lane-0
/// multiplies, spread into lanes with masks); the other registers are zero.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn first_powers<L: Lanes>(h: &[u8; 16]) -> [L; 4] {
    let b = L::BLOCKS;
    // SAFETY: the caller's features.
    unsafe {
        let h1 = L::from_lane0(h);
        let h2 = mul_lanes(h1, h1);
        let first = [h1, h2, mul_lanes(h2, h1), mul_lanes(h2, h2)];
        let mut regs = [L::zero(); 4];
        for (g, r) in regs.iter_mut().enumerate().take(4 / b) {
            for l in 0..b {
                // Lane `l` of register `g` is H^(b(g+1) - l).
                let mut w = [0u32; 16];
                w[4 * l..4 * l + 4].copy_from_slice(&[!0; 4]);
                let v = spread(first[b * (g + 1) - l - 1]);
                *r = L::xor(*r, L::and(v, L::from_words(&w)));
            }
        }
        regs
    }
}

/// Stores register `g` of powers, H^(b(g+1))..H^(bg+1) highest first, in `tbl`, and with
/// `MIDDLES` their Karatsuba middles (`b(g+1) <= 32`).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn store_powers<L: Lanes, const MIDDLES: bool>(tbl: &mut PowerTable, g: usize, v: L) {
    let i = PowerTable::index(L::BLOCKS * (g + 1));
    let (pow, powx) = tbl.entries_mut();
    let (p, x) = (&mut pow[i..i + L::BLOCKS], &mut powx[i..i + L::BLOCKS]);
    // SAFETY: the caller's features; `p` and `x` are `BLOCKS` entries (16 bytes each) long:
    // the stores stay in them.
    unsafe {
        L::store(p.as_mut_ptr().cast(), v);
        if MIDDLES {
            L::store(x.as_mut_ptr().cast(), L::xor(v, L::swap_halves(v)));
        }
    }
}

/// Register `g` of powers (as [`store_powers`] lays it out) loaded back from `tbl`, where it
/// was just stored whole (so the load forwards from that store).
///
/// # Safety
/// As the [`Lanes`] methods; register `g` of `tbl` was stored.
#[inline(always)]
unsafe fn load_powers<L: Lanes>(tbl: &mut PowerTable, g: usize) -> L {
    let i = PowerTable::index(L::BLOCKS * (g + 1));
    let (pow, _) = tbl.entries_mut();
    // SAFETY: forwarded from the caller; `BLOCKS` entries from `i` are in the table (a
    // bounds-checked slice) and were written.
    unsafe { L::load(pow[i..i + L::BLOCKS].as_ptr().cast()) }
}

/// Extends a table that holds H^1..H^have (`have` 4 or 8: the first `have / b` registers of
/// powers, stored with [`store_powers`] and given in `regs`, and the pad zeroed) to
/// H^1..H^n for `n = min(need, 32)`, rounded up to a whole register, by doubling rounds whose
/// products are independent (H^(m+1)..H^2m = H^1..H^m times H^m), with H^33 = H^32 `h1` when
/// `need` is more than 32 (`need <= TOP`); then records what it holds. On registers of two or
/// four blocks every register stays in `regs` (sixteen at most); one block a register (32 of
/// them, more than the engine has) reloads each from its store.
///
/// # Safety
/// As the [`Lanes`] methods; the table's registers of H^1..H^have were stored, and its pad
/// zeroed.
#[inline(always)]
unsafe fn grow<L: Lanes, const MIDDLES: bool>(
    tbl: &mut PowerTable,
    mut regs: [L; 16],
    have: usize,
    h1: &[u8; 16],
    need: usize,
) {
    let b = L::BLOCKS;
    let in_regs = b >= 2;
    let need = need.min(TOP);
    let mut holds = have.min(need.next_multiple_of(b));
    // SAFETY: the caller's features; every register read was written before (the first
    // `have / b` by the caller, the others in an earlier round), in `regs` (indices below
    // 32 / b <= 16) or in the table.
    unsafe {
        // One doubling round for each `m` (4, 8, 16), written out so that every register
        // index is a constant (a loop over the rounds would keep `regs` in memory).
        macro_rules! double {
            ($($m:literal)*) => {$(
                if $m >= have && $m < need {
                    // H^m is lane 0 of register m/b - 1.
                    let top = if in_regs {
                        regs[$m / b - 1]
                    } else {
                        load_powers::<L>(tbl, $m / b - 1)
                    };
                    let hm = spread(top);
                    for g in 0..$m / b {
                        // Register `g + m/b` starts at H^(b(g + m/b) + 1).
                        if b * g + $m < need {
                            let x = if in_regs {
                                regs[g]
                            } else {
                                load_powers::<L>(tbl, g)
                            };
                            let v = mul_lanes(x, hm);
                            if in_regs {
                                regs[g + $m / b] = v;
                            }
                            store_powers::<L, MIDDLES>(tbl, g + $m / b, v);
                            holds = b * g + $m + b;
                        }
                    }
                }
            )*};
        }
        double!(4 8 16);
        if need > 32 {
            // H^33's slot is the first: lane 0 alone (a whole register would overwrite
            // H^32..).
            let last = if in_regs {
                regs[32 / b - 1]
            } else {
                load_powers::<L>(tbl, 32 / b - 1)
            };
            let h33 = mul_lanes(L::from_lane0(&L::lane0(last)), L::from_lane0(h1));
            let mid = L::xor(h33, L::swap_halves(h33));
            let (pow, powx) = tbl.entries_mut();
            pow[PowerTable::index(TOP)] = MaybeUninit::new(u128::from_le_bytes(L::lane0(h33)));
            if MIDDLES {
                powx[PowerTable::index(TOP)] = MaybeUninit::new(u128::from_le_bytes(L::lane0(mid)));
            }
            holds = TOP;
        }
        // SAFETY: the pad was zeroed (the caller), the registers stored (the caller's and
        // this function's, with middles if `MIDDLES`) cover H^1..H^holds, and H^33 was stored
        // when `holds` is `TOP`.
        tbl.set_holds(holds, MIDDLES);
    }
}

/// Fills `tbl` (a new table) with the powers H^1..H^TOP of the POLYVAL key `h` and their
/// Karatsuba middles, with the engine's carry-less multiplies: an AES-GCM-SIV message's
/// table. Depth six multiplies (H^2; H^3, H^4; then doubling by H^4, H^8, H^16; H^33 = H^32
/// H).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub(crate) unsafe fn fill_table<L: Lanes>(h: &[u8; 16], tbl: &mut PowerTable) {
    tbl.zero_pad();
    // SAFETY: the caller's features; the registers of H^1..H^4 are stored (and passed on)
    // before `grow`, and the pad zeroed.
    unsafe {
        let first = first_powers::<L>(h);
        let mut regs = [L::zero(); 16];
        for g in 0..4 / L::BLOCKS {
            regs[g] = first[g];
            store_powers::<L, true>(tbl, g, first[g]);
        }
        grow::<L, true>(tbl, regs, 4, h, TOP);
    }
}

/// An AES-GCM key's powers H^1..H^KEPT of its POLYVAL-domain hash key `h` (key setup): depth
/// three multiplies, one store per register.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub(crate) unsafe fn kept_powers<L: Lanes>(h: &[u8; 16], out: &mut KeptPowers) {
    let b = L::BLOCKS;
    // SAFETY: the caller's features; each store is `b` entries inside `out` (bounds-checked
    // slices, `b * (g + 1) <= KEPT`).
    unsafe {
        let regs = first_powers::<L>(h);
        let h4 = spread(regs[4 / b - 1]);
        let pow = out.entries_mut();
        for (g, r) in regs.iter().enumerate().take(4 / b) {
            for (k, v) in [(g, *r), (g + 4 / b, mul_lanes(*r, h4))] {
                let i = KEPT - b * (k + 1);
                L::store(pow[i..i + b].as_mut_ptr().cast(), v);
            }
        }
    }
}

/// Builds in `tbl` (a new table) a call's table of H^1..H^need (`1 <= need <= TOP`) from an
/// AES-GCM key's kept H^1..H^KEPT: the pad first, the registers of the kept powers it needs
/// (with their Karatsuba middles for `KARATSUBA`'s multiplies), then the powers above H^KEPT
/// by [`grow`].
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn expand_kept<L: Lanes, const KARATSUBA: bool>(
    kept: &KeptPowers,
    need: usize,
    tbl: &mut PowerTable,
) {
    let b = L::BLOCKS;
    let pow = kept.entries();
    tbl.zero_pad();
    // SAFETY: the caller's features; each load is `b` entries inside `pow` (bounds-checked
    // slices, `b * (g + 1) <= KEPT`); `grow` gets every register of H^1..H^KEPT (stored, and
    // in `regs` up to sixteen) when the call needs more.
    unsafe {
        let mut regs = [L::zero(); 16];
        for (g, r) in regs.iter_mut().enumerate().take(KEPT / b) {
            if b * g < need {
                let i = KEPT - b * (g + 1);
                *r = L::load(pow[i..i + b].as_ptr().cast());
                store_powers::<L, KARATSUBA>(tbl, g, *r);
            }
        }
        let h1 = pow[KEPT - 1].to_le_bytes();
        grow::<L, KARATSUBA>(tbl, regs, KEPT, &h1, need);
    }
}

/// POLYVAL under the key `h` of `aad`, `data` (each zero-padded to whole blocks) and the
/// block `lengths`, by Horner's rule in lane 0 (`y = (y + X) * H`, reduced each block): no
/// table of powers, for the few blocks of a short AES-GCM-SIV message, whose key is new
/// for every message.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub(crate) unsafe fn polyval_horner<L: Lanes>(
    h: &[u8; 16],
    aad: &[u8],
    data: &[u8],
    lengths: &[u8; 16],
) -> [u8; 16] {
    // SAFETY: the caller's features; each load reads `m <= 16` bytes inside its slice.
    unsafe {
        let h = L::from_lane0(h);
        let mut y = L::zero();
        for part in [aad, data] {
            for block in part.chunks(16) {
                let x = if L::BLOCKS == 1 && block.len() == 16 {
                    L::load(block.as_ptr())
                } else {
                    L::load_partial(block.as_ptr(), block.len())
                };
                y = mul_lanes(L::xor(y, x), h);
            }
        }
        L::lane0(mul_lanes(L::xor(y, L::from_lane0(lengths)), h))
    }
}

/// AES-ECB: encrypts each block of `blocks` in place, a register at a time.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub(crate) unsafe fn encrypt_blocks<L: Lanes>(ks: &AesKeys<L>, blocks: &mut [[u8; 16]]) {
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
