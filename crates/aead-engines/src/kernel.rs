//! The stitched AES-CTR + GHASH/POLYVAL kernel, written once over [`AesLanes`] and instantiated
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
//!   decryption), or the output written [`lag`] iterations earlier (GCM encryption,
//!   AES-GCM-SIV decryption), whose loads then never wait for this iteration's AES or its
//!   stores. The first `lag` iterations of the latter run the CTR-only iteration and their
//!   output is hashed after the loop, so the steady-state loop is one body for both.
//! - **Memory ahead of the loop**: the input's cache lines are hinted at (`PREFETCHT0` on
//!   x86) eight iterations before an iteration reads them, the first eight at once
//!   ([`prefetch_first`], [`prefetch_ahead`]): an iteration loads its input after its AES
//!   rounds, too late for the core to reach the next iteration's loads, so a message not in
//!   the cache would otherwise wait for memory an iteration at a time.
//! - **The round count is data**, not a type: AES-128, -192 and -256 share every loop. The
//!   2 or 4 extra rounds of the longer keys run first, behind two predictable branches; the
//!   last nine middle rounds and the final round are common, and carry the GHASH steps
//!   ([`AesKeys`]; the layout of Linux's VAES AES-GCM, whose extra rounds also come first).
//! - **The tail** (less than one iteration) goes a register at a time (the out-of-order core
//!   overlaps consecutive registers, which do not depend on each other), a partial register through
//!   [`Lanes::load_partial`](clmul_core::wide::Lanes::load_partial) and
//!   [`Lanes::store_partial`](clmul_core::wide::Lanes::store_partial), and is hashed unreduced with
//!   the length block (and a short AAD, when the message has no whole iteration) into one
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
//! The kernel is generic over the counter ([`Counter`]: GCM's 32-bit big-endian counter in the last
//! word, [`Inc32`], or AES-GCM-SIV's 32-bit little-endian counter in the first word, [`Le32`], RFC
//! 8452 section 4) and the hash domain ([`Domain`]: [`GhashDomain`] byte-reverses each block,
//! [`PolyvalDomain`] takes it as it is); AES-GCM instantiates `Inc32` and `GhashDomain` only. The
//! operations are CTR only, hash only ([`hash_message`]), CTR and hash of the input (GCM open) and
//! CTR and hash of the output (GCM seal, AES-GCM-SIV open), all through [`crypt`].
//! [`encrypt_blocks`] is AES-ECB of a few blocks (AES-GCM-SIV's key derivation).
//!
//! Counters and lengths are public: they decide branches and addresses. Keys and data never
//! do.
//!
//! # Layout
//!
//! This file holds the stitched loop and the operations built on it ([`crypt`],
//! [`crypt_short`], [`hash_message`]); its parts are submodules: `aes` (the round keys in
//! registers and AES-ECB) and `counter` (GCM's and AES-GCM-SIV's counters). The hash half
//! (the domains, the products and their reduction, the tail of a message, where a call's
//! powers of H come from and how its table is filled) is `clmul_core::wide`, the same code the
//! standalone POLYVAL/GHASH backends run.
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

use crate::lanes::{AesLanes, fence, xor3};
use crate::tables::RoundKeys;
pub(crate) use clmul_core::wide::{
    Acc, Domain, GhashDomain, Held, KEPT, KeptPowers, PolyvalDomain, PowerTable, Powers, Prod, TOP,
    Table, Tail, data_y, field_data, hash_bytes, kept_powers, prefetch_ahead, prefetch_first,
    products, swapped,
};

mod aes;
mod counter;

pub(crate) use aes::*;
pub(crate) use counter::*;

/// How many iterations behind its CTR a stitched loop hashes its own output: two on the wide
/// engines and ARMv8 ([`lag`] gives an engine's own).
pub(crate) const LAG: usize = 2;

/// [`LAG`] for the engine of `L`: one on x86's AES-NI engine, whose iteration is eight blocks,
/// so that a mid-sized message hashes eight blocks after its loop, not sixteen (AMD Zen 1,
/// headline rows, two runs: QUIC 1200 B with 20 B of AAD 574 -> 560 ns, 0.97x -> 1.00x
/// ring; ESP 1420 B 1.06x -> 1.08x; 16 KiB alike).
#[inline(always)]
pub(crate) const fn lag<L: AesLanes>() -> usize {
    if L::BLOCKS == 1 && !L::KEY_FIRST {
        1
    } else {
        LAG
    }
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

/// Counter-mode caching (D. J. Bernstein and P. Schwabe, "New AES software speed records",
/// 2008; R. Lamberger et al.'s FACE, TCHES 2018): GCM's counter blocks of a run of 256 differ
/// in their last byte only, and an AES round is bytewise (SubBytes) then linear (ShiftRows,
/// MixColumns), so the first round's output is that of the run's first block with one column
/// changed by a value of the last byte alone. `e[c]` is that column for last byte `c`, for
/// the key whose first round key's last byte was given (plus a constant, the same for every
/// `c`): with [`AesLanes::KEY_FIRST`]'s round `aesmc(aese(x, k))`, the block of last byte `c`
/// after its first round is `e[c] ^ d`, `d` the run's constant, and its second round is
/// `aesmc(aese(e[c], d ^ k_1))`. A register then takes a four-byte load in place of its
/// counter addition and first round. The index is the counter's last byte, used only when the
/// counter is public ([`Counter::cached_run`]); the entries are secret, and wiped on drop with
/// the feature `siv-wipe` (which `zeroize` implies). Built per message (up to 64 rounds, the
/// entries the message uses), on the stack.
pub(crate) struct Round1 {
    e: [u32; 256],
}

#[cfg(feature = "siv-wipe")]
impl Drop for Round1 {
    fn drop(&mut self) {
        // SAFETY: the table's own bytes, writable through `&mut self`; nothing reads them
        // after the drop.
        unsafe { crate::wipe::clear(self.e.as_mut_ptr().cast(), size_of_val(&self.e)) };
    }
}

impl Round1 {
    /// Writes the entries of the key whose first round key is `k0` (a [`AesLanes::KEY_FIRST`]
    /// register of one block) for the `blocks` counter blocks from last byte `from` on (all
    /// 256 from 253 blocks; the others stay as they were and are not read): four entries a
    /// round. The four counter bytes `4i..4i + 4` sit in the last row of a zero block, in the
    /// columns that ShiftRows moves to columns 0..3, and the round key is `k0`'s last byte in
    /// that row: the round's column `j` is then MixColumns of `(S(0), S(0), S(0), S(c ^ k0[15]))`,
    /// `c = 4i + j`, which is what the counter block's last byte adds to its first round's
    /// column 0 (up to a constant: its other three rows come from the nonce there).
    ///
    /// # Safety
    /// As the [`AesLanes`] methods; `L::BLOCKS == 1` and `L::KEY_FIRST`.
    #[inline(always)]
    unsafe fn fill<L: AesLanes>(&mut self, k0: L, from: usize, blocks: usize) {
        const { assert!(!L::CACHED_ROUND1 || (L::BLOCKS == 1 && L::KEY_FIRST)) };
        let t = self;
        // The rounds from the one holding entry `from`, as many as cover the blocks.
        let first = (from & 0xff) / 4;
        let rounds = ((from % 4 + blocks).div_ceil(4)).min(64);
        // SAFETY: forwarded from the caller; every store is the 16 bytes of entries
        // `4i..4i + 4`, `i < 64`, inside `t.e`.
        unsafe {
            let mut key = L::lane0(k0);
            let k = u32::from(key[15]) << 24;
            crate::wipe::wipe(&mut key);
            let mut w = [0u32; 16];
            w[..4].copy_from_slice(&[k; 4]);
            let mask = L::from_words(&w);
            // Input column `j` feeds output column `j - 3 (mod 4)` through ShiftRows' last
            // row: counter byte `4i + (j + 1) % 4` in column `j`, from `i = first` on (the top
            // byte of each word: a 32-bit addition wraps it to zero after 255).
            let c = (4 * first) as u32;
            w[..4].copy_from_slice(&[(c + 1) << 24, (c + 2) << 24, (c + 3) << 24, c << 24]);
            let mut q = L::from_words(&w);
            w[..4].copy_from_slice(&[4 << 24; 4]);
            let step = L::from_words(&w);
            for r in 0..rounds {
                let i = (first + r) % 64;
                L::store(t.e.as_mut_ptr().add(4 * i).cast(), L::aes_round(q, mask));
                q = L::add32(q, step);
            }
        }
    }

    /// The entry of last byte `c` in a register's first word.
    ///
    /// # Safety
    /// As the [`AesLanes`] methods.
    #[inline(always)]
    unsafe fn entry<L: AesLanes>(&self, c: usize) -> L {
        // SAFETY: forwarded from the caller; `c & 0xff` indexes the table.
        unsafe { L::load_u32(&self.e[c & 0xff]) }
    }
}

/// A stitched iteration's cached first round: the table, the counter's last byte at the
/// iteration's first block, the second round's key `d ^ k_1` of the run, and middle round
/// 1's key ([`AesKeys::mid1_cached`]).
#[derive(Clone, Copy)]
struct Cached<'a, L> {
    table: &'a Round1,
    c: usize,
    k2: L,
    mid1: L,
}

/// Whether a stitched iteration sums its products in pairs (held one step, then added with
/// three-way XORs): where the pair's middles are multiplied together
/// ([`Lanes::PAIRED_MIDDLES`](clmul_core::wide::Lanes::PAIRED_MIDDLES): ARMv8) or a register
/// holds several blocks. Not on the AES-NI engine, whose XORs are two-way (a pair saves none)
/// and whose sixteen registers a held product would overflow.
#[inline(always)]
const fn pairs<L: AesLanes>() -> bool {
    L::PAIRED_MIDDLES || L::BLOCKS > 1
}

/// The data a stitched iteration hashes.
struct Ghashed<'a, L> {
    src: *const u8,
    tbl: Held<'a>,
    /// The table index of the iteration's highest power.
    base: usize,
    lanes: core::marker::PhantomData<L>,
}

impl<L: AesLanes> Ghashed<'_, L> {
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
                let p = products::<L, Held<'_>, KARATSUBA>(v, self.tbl, i, swapped::<L, D>());
                match pend.take() {
                    None if s + 1 < N && pairs::<L>() => *pend = Some(p),
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
/// As the [`AesLanes`] methods; `16 * BLOCKS * N` bytes are readable at `src` and `inp` and
/// writable at `out` (`inp` and `out` equal or disjoint).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn stitched<
    L: AesLanes,
    C: Counter,
    D: Domain,
    const N: usize,
    const KARATSUBA: bool,
    const CACHED: bool,
>(
    ks: &AesKeys<L>,
    tbl: Held<'_>,
    y: &mut L,
    ctr: &mut C::State<L>,
    cached: Option<Cached<'_, L>>,
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
        base: stitched_base::<L, N>(),
        lanes: core::marker::PhantomData,
    };
    // SAFETY: the caller's pointers and features; register `j` of an iteration is bytes
    // `reg * j..reg * (j + 1)` of the caller's `reg * N`.
    unsafe {
        let mut x: [L; N];
        let mut mid1 = L::zero();
        match cached {
            Some(Cached {
                table,
                c,
                k2,
                mid1: m,
            }) if CACHED => {
                // The first round from the table (`Round1`): no wrap of the last byte in
                // these registers (`cached_run`).
                x = [L::zero(); N];
                for (j, v) in x.iter_mut().enumerate() {
                    *v = table.entry::<L>(c + j);
                }
                C::skip::<L, N>(ctr);
                mid1 = m;
                ks.extra_cached(&mut x, k2);
            }
            _ => {
                x = C::take::<L, N>(ctr);
                for v in &mut x {
                    *v = ks.begin(*v);
                }
                ks.extra(&mut x);
            }
        }
        let mut acc = Acc::<L>::zero();
        let mut pend: Option<Prod<L>> = None;
        // The nine middle rounds, unrolled in the source (a loop here stays a loop, with the
        // step chosen at run time), each followed by its GHASH step and a fence on the live
        // registers: the accumulator from the first pair on, until the reduction is done.
        macro_rules! rounds {
            ($($i:literal)*) => {$(
                for v in &mut x {
                    *v = if CACHED {
                        ks.mid_cached($i, *v, mid1)
                    } else {
                        ks.mid($i, *v)
                    };
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

/// The fewest stitched iterations left for which [`crypt`] builds a [`Round1`] table (8: one
/// KiB of text on ARMv8, 64 blocks: the table's 16 rounds and its kilobyte of zeros and wipe
/// against the 23 vector operations an iteration saves).
const CACHE_FROM: usize = 8;

/// The fewest bytes of text for which [`crypt`] aligns the output to the engine's register
/// with a head of one to three blocks: 8 KiB on the 512-bit engine, none on the others. The
/// head costs an AES register and a reduction of its own; then no 64-byte store of the output,
/// nor the load that hashes it (GCM encryption), crosses a cache line. Measured on an Intel
/// Xeon (KVM model 0xa7; `aes-gcm` encrypting in place, output 16 or 48 bytes past a cache
/// line, medians of four runs against the same code without the head): 16 KiB AES-128 +2% /
/// +4%, AES-256 +4% / +8%; 4 KiB AES-128 -4% / -3% (so not there), AES-256 +2% / +3%. On a
/// cache line, and 5 bytes past one, unchanged (within 2%). The 256-bit engine is not
/// measured with it (its 32-byte accesses cross a line half as often).
#[inline(always)]
const fn align_from<L: AesLanes>() -> usize {
    if L::BLOCKS == 4 { 8192 } else { usize::MAX }
}

/// The table index of a stitched iteration's highest power, H^(N * BLOCKS).
#[inline(always)]
const fn stitched_base<L: AesLanes, const N: usize>() -> usize {
    PowerTable::index(N * L::BLOCKS)
}

/// One CTR-only iteration: `N` registers from `inp` to `out`.
///
/// # Safety
/// As [`stitched`] (without `src`).
#[inline(always)]
unsafe fn ctr_only<L: AesLanes, C: Counter, const N: usize>(
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

/// Whether a message of `aad_len` bytes of AAD and `len` bytes of text is short: fewer than
/// `KEPT` blocks of both, so that every power it multiplies by, the length block's included, is
/// kept by an AES-GCM key ([`crypt_short`]).
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
pub(crate) unsafe fn crypt_short<L: AesLanes, C: Counter, D: Domain, const KARATSUBA: bool>(
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

/// The most AAD blocks [`crypt_grouped`] takes: folded into the first group's reduction (or the
/// tail's), with the group's eight blocks and the length block, within the key's kept powers
/// (three with twelve kept powers).
pub(crate) const GROUPED_AAD: usize = KEPT.saturating_sub(9);

/// Whether a key keeps the powers [`crypt_grouped`] multiplies by: a group's eight blocks and
/// the length block (not in a build that forces the portable backend, whose keys keep eight,
/// nor on 32-bit x86, four).
pub(crate) const GROUPED: bool = KEPT >= 9;

/// Whether [`crypt_grouped`] takes a message with `aad_len` bytes of AAD (at most
/// [`GROUPED_AAD`] blocks, on keys that keep the powers groups need, [`GROUPED`]); the text's
/// bound is the engine's ([`crate::engine::Isa::GCM_GROUPED_BELOW`]).
#[inline]
pub(crate) fn groups_aad(aad_len: usize) -> bool {
    GROUPED && aad_len.div_ceil(16) < GROUPED_AAD + 1
}

/// The text length from which a message on registers of `blocks` blocks (1: the AES-NI
/// engine, 2: the 256-bit one, 4: the 512-bit one) takes the stitched loop instead of
/// [`crypt_grouped`]: 640 bytes on the AES-NI engine, 512 on the 256-bit one, 672 on the
/// 512-bit one. On AMD Zen 1 (AES-NI; AES-128-GCM with 16 B of AAD, in-process against
/// ring, fastest of 41 interleaved rounds, two runs, A/B builds), groups against the
/// stitched loop: 176 B 142 ns against 161, 240 B 166 against 222, 320 B 173 against 199,
/// 400 B 208 against 225, 512 B 241 against 244, 640 B 284 against 277, 768 B 330 against
/// 311, 1 KiB 410 against 377. Measured (headline rows, AES-128-GCM
/// with 16 B of AAD): on AMD Zen 3 against ring, groups won at 176-400 bytes (1.28x against
/// 0.90-1.19x) and lost from 640 (1.06x against 1.13x, 1 KiB 0.97x against 1.12x), where
/// the stitched loop's throughput counts; on AMD Zen 4, our times, groups against the
/// half-width stitched loop (with the tag's mask computed first), two runs each: 512 B 98 ns
/// against 121-128, 640 B 111 against 119, 700 B 126 against 123-124, 800 B level, 900 B
/// 152-156 against 141-142, 1000 B 155-160 against 142-144. Interleaved A/B builds on Zen 4
/// (three alternations, 16 B of AAD) agree: groups 576 B 108-110 ns against 115-117, 640 B
/// 110-115 against 116-118, 671 B level; a bound of 832 gained nothing at 704-800 B.
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(
        dead_code,
        reason = "only the x86 engines take grouped jobs (`Isa::GCM_GROUPED_BELOW`)"
    )
)]
pub(crate) const fn grouped_below(blocks: usize) -> usize {
    match blocks {
        1 => 640,
        2 => 512,
        _ => 672,
    }
}

/// A message in groups of eight blocks (eight registers of one block, four of two, two of four)
/// on an AES-GCM key's kept powers, for the x86 engines' messages under [`grouped_below`]
/// bytes: each group's CTR (the registers' rounds interleaved) is followed by the hash of its
/// eight blocks from the registers, with one reduction, and the text left after the last whole
/// group goes through [`tail`] with the length block. No table is built and nothing written is
/// read back; the out-of-order core runs a group's hash beside the next group's rounds, which
/// do not depend on it. One body where [`crypt`] runs four (CTR-only iterations, stitched
/// ones, the hash of the last output and the tail): fewer cache lines of code a message, which
/// a message after a system call or other work fetches again.
///
/// Panics unless [`GROUPED`] holds and `aad` has at most [`GROUPED_AAD`] blocks (the caller
/// checks both).
///
/// # Safety
/// As [`crypt`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn crypt_grouped<L: AesLanes, C: Counter, D: Domain, const KARATSUBA: bool>(
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
    // Eight blocks a group: eight registers of one block, four of two, two of four (`k`,
    // dispatched to `Group::run`'s constant below).
    let k = 8 / L::BLOCKS;
    let reg = 16 * L::BLOCKS;
    let group = k * reg;
    let blocks = k * L::BLOCKS;
    assert!(
        groups_aad(aad.len()) && blocks + 1 + GROUPED_AAD <= KEPT,
        "a grouped message past the kept powers"
    );
    let hash = hashing != Hashing::Off;
    // SAFETY: the caller's features and buffers; each group covers `off..off + group`, inside
    // `len` by the loop condition, and the tail the bytes after it.
    unsafe {
        let mut ctr = C::start::<L>(ctr0);
        let mut y = L::zero();
        let mut aad = aad;
        let mut off = 0;
        // Every group but the last whole one (which the tail takes, with the length block).
        while len - off > group {
            let mut t = Tail::new::<D>(aad.len().div_ceil(16) + blocks, y);
            if hash && !aad.is_empty() {
                t.add_bytes::<D, &KeptPowers, KARATSUBA>(kept, aad.as_ptr(), aad.len());
            }
            aad = &[];
            let g = Group {
                inp,
                out,
                off,
                len,
                hashing,
            };
            off = match k {
                2 => g.run::<L, C, D, &KeptPowers, 2, KARATSUBA>(ks, kept, &mut ctr, &mut t),
                4 => g.run::<L, C, D, &KeptPowers, 4, KARATSUBA>(ks, kept, &mut ctr, &mut t),
                _ => g.run::<L, C, D, &KeptPowers, 8, KARATSUBA>(ks, kept, &mut ctr, &mut t),
            };
            if hash {
                y = t.acc.reduce::<KARATSUBA>();
            }
        }
        let m = Tailed {
            aad,
            inp,
            out,
            off,
            len,
            hashing,
        };
        tail::<L, C, D, &KeptPowers, KARATSUBA>(ks, kept, &mut ctr, y, m, lengths)
    }
}

/// A message: `aad` hashed, then `len` bytes of CTR (from counter `ctr0`) from `inp` to
/// `out`, with [`Hashing`] choosing what else is hashed, then the block `lengths`. Returns the
/// hash as bytes (GHASH: un-reflected), or zeros with [`Hashing::Off`] (which ignores `aad`
/// and `lengths`). With an AES-GCM key's kept powers, the call first builds the table of the
/// powers it needs ([`Powers::table`]); a short message takes [`crypt_short`] instead. A
/// message of [`align_from`] bytes or more whose output lies a whole number of blocks off the
/// register's alignment takes those blocks first, alone (the head).
///
/// # Safety
/// As the [`AesLanes`] methods; `len` bytes are readable at `inp` and writable at `out`, which
/// are equal or disjoint.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn crypt<
    L: AesLanes,
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
    // The head: the blocks before `out` reaches a register's alignment, if it is a whole
    // number of blocks away, in a message of `align_from` bytes or more (so that the stitched
    // loop runs). Every later register of the output is then stored, and hashed by GCM
    // encryption, without crossing a cache line. The address is public.
    let misalign = out as usize % reg;
    let head = if misalign.is_multiple_of(16) && len >= align_from::<L>() {
        (reg - misalign) % reg
    } else {
        0
    };
    // The text after the head.
    let (inp0, out0) = (inp, out);
    // SAFETY: `head < reg <= len` bytes into the caller's buffers (`align_from` is more than
    // a register).
    let (inp, out, len) = unsafe { (inp.add(head), out.add(head), len - head) };
    let iters = len / it;
    let rest = len - iters * it;
    let aad_blocks = aad.len().div_ceil(16);
    let rest_blocks = rest.div_ceil(16);
    // SAFETY: the caller's features and buffers; every offset below is at most `len` and
    // every access of `n` bytes at offset `off` has `off + n <= len`, by the loop conditions.
    unsafe {
        let mut ctr = C::start::<L>(Counter0 {
            skip: ctr0.skip.wrapping_add((head / 16) as u32),
            ..ctr0
        });
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
        // CTR-only iterations: all of them without hashing, the first `lag` when hashing the
        // output (which has nothing to hash yet), none when hashing the input.
        let ctr_iters = match hashing {
            Hashing::Off => iters,
            Hashing::Output => iters.min(lag::<L>()),
            Hashing::Input => 0,
        };
        let mut y = L::zero();
        if hash && !fold_aad {
            y = hash_bytes::<L, D, N, KARATSUBA>(tbl, y, aad.as_ptr(), aad.len());
        }
        if head > 0 {
            // A partial register from the message's first counter, hashed from registers: its
            // input as loaded, or its output (the lanes past the head zeroed) before it is
            // stored, one reduction.
            let d = L::load_partial(inp0, head);
            let [x] = C::take_any::<L, 1>(&mut C::start::<L>(ctr0));
            let [c] = ks.encrypt([x], &[d]);
            L::store_partial(out0, head, c);
            if hash {
                let v = if hashing == Hashing::Input {
                    d
                } else {
                    L::truncate(c, head)
                };
                let mut t = Tail::new::<D>(head / 16, y);
                t.add::<D, _, KARATSUBA>(tbl, field_data::<L, D>(v), head / 16);
                y = t.acc.reduce::<KARATSUBA>();
            }
        }
        // The input's lines ahead of the loops (the module docs, "Memory ahead of the loop":
        // Zen 3, 1420 B flushed, 1.28-1.36 µs without the hints, 0.42-0.48 with them, ring
        // 0.92-1.01).
        if iters > 0 {
            prefetch_first::<L>(inp, len, it);
        }
        let mut off = 0;
        while off < ctr_iters * it {
            prefetch_ahead::<L>(inp, off, len, it);
            ctr_only::<L, C, N>(ks, &mut ctr, inp.add(off), out.add(off));
            off += it;
        }
        if hash {
            // Stitched iterations, hashing the input at the same offset, or the output `lag`
            // iterations back (`off >= lag * it` there: it was written `lag` iterations ago).
            let (src, lag) = match hashing {
                Hashing::Output => (out.cast_const(), lag::<L>() * it),
                _ => (inp, 0),
            };
            // The iterations' powers, checked once (only if one runs: `need` covers a stride
            // only then).
            if len - off >= it {
                let held = tbl.held_from(stitched_base::<L, N>(), KARATSUBA);
                // The engines that cache the first round (`AesLanes::CACHED_ROUND1`): with
                // `CACHE_FROM` iterations or more left and a public counter, a `Round1` table
                // filled in place (the one copy, wiped on drop), each run of the counter's last
                // byte keyed once, and every iteration that stays in a run taking its first
                // round from the table. Every test of it starts with the constant, so the other
                // engines' loop is the plain one.
                let mut table: Option<Round1> = None;
                if L::CACHED_ROUND1
                    && let Some(from) = C::cached_low_byte::<L>(&ctr)
                    && (len - off) / it >= CACHE_FROM
                {
                    let t = table.insert(Round1 { e: [0; 256] });
                    t.fill::<L>(ks.first_two().0, from, (len - off) / 16);
                }
                // The run's second-round key and middle round 1's, while the counter stays in
                // one run of its last byte: set at a run's first cached iteration, dropped at
                // an uncached one.
                let mut run_key: Option<(L, L)> = None;
                while len - off >= it {
                    prefetch_ahead::<L>(inp, off, len, it);
                    let (s, i, o) = (src.add(off - lag), inp.add(off), out.add(off));
                    let run = match &table {
                        Some(t) if L::CACHED_ROUND1 => C::cached_run::<L, N>(&ctr).map(|c| (t, c)),
                        _ => None,
                    };
                    if let Some((t, c)) = run {
                        let (k2, mid1) = match run_key {
                            Some(k) => k,
                            None => {
                                // d = round one of the run's current block ^ its entry.
                                let (k0, k1) = ks.first_two();
                                let r1 = L::aes_round(C::peek::<L>(&ctr), k0);
                                let k2 = xor3(r1, t.entry::<L>(c), k1);
                                let k = (k2, ks.mid1_cached(k2));
                                run_key = Some(k);
                                k
                            }
                        };
                        let cached = Some(Cached {
                            table: t,
                            c,
                            k2,
                            mid1,
                        });
                        stitched::<L, C, D, N, KARATSUBA, true>(
                            ks, held, &mut y, &mut ctr, cached, s, i, o,
                        );
                    } else {
                        run_key = None;
                        stitched::<L, C, D, N, KARATSUBA, false>(
                            ks, held, &mut y, &mut ctr, None, s, i, o,
                        );
                    }
                    off += it;
                }
            }
            // The output of the first CTR-only iterations is still to be hashed: the last
            // `ctr_iters` iterations' worth, `lag` behind.
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
unsafe fn tail<L: AesLanes, C: Counter, D: Domain, T: Table, const KARATSUBA: bool>(
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
        // The text left, in groups of four, two and one registers (fewer than `N` in all
        // after the stitched loop, fewer than `KEPT` blocks on the short path): the rounds of
        // a group interleaved, as the loop's, rather than one register's rounds after the
        // other's, which leaves the out-of-order core a chain of dependent rounds to overlap.
        while off < len {
            let regs = (len - off).div_ceil(reg);
            let g = Group {
                inp,
                out,
                off,
                len,
                hashing,
            };
            off = if regs >= 4 {
                g.run::<L, C, D, T, 4, KARATSUBA>(ks, tbl, ctr, &mut t)
            } else if regs >= 2 {
                g.run::<L, C, D, T, 2, KARATSUBA>(ks, tbl, ctr, &mut t)
            } else {
                g.run::<L, C, D, T, 1, KARATSUBA>(ks, tbl, ctr, &mut t)
            };
        }
        if hash {
            t.finish::<D, T, KARATSUBA>(tbl, lengths)
        } else {
            [0; 16]
        }
    }
}

/// `K` registers of a message's tail ([`tail`]) from offset `off`, the last of them partial
/// when the text ends inside it.
struct Group {
    inp: *const u8,
    out: *mut u8,
    off: usize,
    len: usize,
    hashing: Hashing,
}

impl Group {
    /// CTR of the `K` registers, hashed into `t` as `hashing` says; returns the offset after
    /// them.
    ///
    /// # Safety
    /// As [`crypt`], for the bytes `off..len`; the text has more than `K - 1` registers left
    /// (`len - off > (K - 1) * 16 * BLOCKS`).
    #[inline(always)]
    unsafe fn run<
        L: AesLanes,
        C: Counter,
        D: Domain,
        T: Table,
        const K: usize,
        const KARATSUBA: bool,
    >(
        self,
        ks: &AesKeys<L>,
        tbl: T,
        ctr: &mut C::State<L>,
        t: &mut Tail<L>,
    ) -> usize {
        let reg = 16 * L::BLOCKS;
        let Group {
            inp,
            out,
            off,
            len,
            hashing,
        } = self;
        assert!(len - off > (K - 1) * reg, "a tail group past the text");
        // Bytes of register `j`: whole but possibly the last.
        let n = |j: usize| (len - off - j * reg).min(reg);
        // SAFETY: the caller's features and buffers; register `j` covers bytes
        // `off + j * reg..off + j * reg + n(j)`, inside `len` by the assertion above.
        unsafe {
            let c = C::take_any::<L, K>(ctr);
            let mut d = [L::zero(); K];
            for (j, v) in d.iter_mut().enumerate() {
                let i = inp.add(off + j * reg);
                *v = if n(j) == reg {
                    L::load(i)
                } else {
                    L::load_partial(i, n(j))
                };
            }
            let r = ks.encrypt(c, &d);
            for (j, v) in r.iter().enumerate() {
                let o = out.add(off + j * reg);
                if n(j) == reg {
                    L::store(o, *v);
                } else {
                    L::store_partial(o, n(j), *v);
                }
            }
            if hashing != Hashing::Off {
                for j in 0..K {
                    let h = if hashing == Hashing::Input {
                        d[j]
                    } else {
                        L::truncate(r[j], n(j))
                    };
                    t.add::<D, T, KARATSUBA>(tbl, field_data::<L, D>(h), n(j).div_ceil(16));
                }
            }
        }
        off + K * reg
    }
}

/// The hash of `aad`, `data` (each zero-padded) and the block `lengths`, as bytes (GHASH:
/// un-reflected): with an AES-GCM key's kept powers and fewer than `KEPT` blocks in all, one
/// run of them; otherwise each input in the wide loop with the table of the powers it needs.
///
/// # Safety
/// As the [`AesLanes`] methods.
#[inline(always)]
pub(crate) unsafe fn hash_message<L: AesLanes, D: Domain, const N: usize, const KARATSUBA: bool>(
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
