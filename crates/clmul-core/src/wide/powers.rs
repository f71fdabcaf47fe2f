//! The powers of H a call multiplies by: where they come from ([`Powers`]: a given table, an
//! AES-GCM key's kept H^1..H^KEPT, or the key alone), how a call's table is filled from them in registers
//! (`grow`, [`expand_kept`], [`fill_upto`]) and a key's kept powers ([`kept_powers`]); and
//! POLYVAL by Horner's rule for AES-GCM-SIV's short messages ([`polyval_horner`]).
#![allow(unsafe_code)]

use super::*;
use core::mem::{ManuallyDrop, MaybeUninit};

/// `a * b` in POLYVAL's field (Montgomery: `a * b * x^-128`), lane by lane, reduced in each
/// lane (schoolbook's four products, the reduction's two folds).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn mul_lanes<L: Lanes>(a: L, b: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe { reduced(schoolbook(a, b)) }
}

/// `a * b` lane by lane, unreduced: schoolbook's four products, the middle two summed.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn schoolbook<L: Lanes>(a: L, b: L) -> Acc<L> {
    // SAFETY: forwarded from the caller.
    unsafe {
        Acc {
            lo: L::clmul_lo(a, b),
            mi: L::xor(L::clmul_hi_lo(a, b), L::clmul_lo_hi(a, b)),
            hi: L::clmul_hi(a, b),
        }
    }
}

/// The reduced value of each lane of `acc` (the reduction's two folds).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn reduced<L: Lanes>(mut acc: Acc<L>) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        acc.fold_lo::<false>();
        acc.fold_mi();
        acc.hi
    }
}

/// `a * h2 + b * h` in POLYVAL's field, lane by lane, with one reduction: two blocks of
/// Horner's rule at once (`h2 = h * h`), half the chain of two single steps. Used by the x86
/// short AES-GCM-SIV path (`x86::siv_short`) only.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub unsafe fn mul2_lanes<L: Lanes>(a: L, h2: L, b: L, h: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        let (p, q) = (schoolbook(a, h2), schoolbook(b, h));
        reduced(Acc {
            lo: L::xor(p.lo, q.lo),
            mi: L::xor(p.mi, q.mi),
            hi: L::xor(p.hi, q.hi),
        })
    }
}

/// Lane 0 of `v` in every lane.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn spread<L: Lanes>(v: L) -> L {
    // SAFETY: forwarded from the caller.
    unsafe { L::broadcast(&L::lane0(v)) }
}

/// Where a call's powers of H come from: a whole table (H^1..H^TOP, or a table of nothing for
/// a call that hashes nothing), an AES-GCM key's H^1..H^KEPT, from which the call builds its
/// own table of the powers it needs ([`expand_kept`]), or the key H alone (an AES-GCM-SIV
/// message's authentication key), from which the call computes the powers it needs
/// ([`fill_upto`]). Optional references rather than an enum: the disassembly check of
/// `cargo xtask ct` tells public values from data by their load width, and LLVM narrows an
/// enum's discriminant load to four bytes; a reference is tested as a whole word.
#[derive(Clone, Copy)]
pub struct Powers<'a> {
    pub table: Option<&'a PowerTable>,
    pub kept: Option<&'a KeptPowers>,
    pub key: Option<&'a [u8; 16]>,
}

impl<'a> Powers<'a> {
    /// A whole table.
    #[inline(always)]
    pub fn of_table(t: &'a PowerTable) -> Self {
        Powers {
            table: Some(t),
            kept: None,
            key: None,
        }
    }

    /// An AES-GCM key's kept powers.
    #[inline(always)]
    pub fn of_kept(k: &'a KeptPowers) -> Self {
        Powers {
            table: None,
            kept: Some(k),
            key: None,
        }
    }

    /// The POLYVAL key H (POLYVAL's domain, as [`fill_upto`] takes it) alone: each call
    /// computes the powers it multiplies by, and no more.
    #[inline(always)]
    pub fn of_key(h: &'a [u8; 16]) -> Self {
        Powers {
            table: None,
            kept: None,
            key: Some(h),
        }
    }

    /// The kept powers, if that is the source.
    #[inline(always)]
    pub fn kept(self) -> Option<&'a KeptPowers> {
        self.kept
    }

    /// The table of a call that multiplies by H^1..H^need: the given one, or `local` (a new
    /// table, which costs nothing until written) filled from the kept powers or from the key,
    /// and wiped when it is dropped with the feature `table-wipe` (which `zeroize` and
    /// `aead-engines`' `siv-wipe` enable). Panics if a given table holds fewer powers
    /// (never: whole tables hold `TOP`, and only calls that hash nothing get [`EMPTY`]).
    ///
    /// # Safety
    /// As the [`Lanes`] methods.
    #[inline(always)]
    pub unsafe fn table<'b, L: Lanes, const KARATSUBA: bool>(
        self,
        need: usize,
        swapped: bool,
        local: &'b mut PowerTable,
    ) -> &'b PowerTable
    where
        'a: 'b,
    {
        let tbl = match (self.table, self.kept, self.key) {
            // A given table in the other form: a copy, swapped (no caller of the engines
            // gives an AES-GCM call a table; `aead-engines`' kernel tests do).
            (Some(t), _, _) if swapped && need > 0 && !t.is_swapped() => {
                local.clone_from(t);
                local.swap_powers();
                local
            }
            (Some(t), _, _) => t,
            (None, Some(k), _) if need > 0 => {
                // SAFETY: forwarded from the caller.
                unsafe { expand_kept::<L, KARATSUBA>(k, need, local) };
                if swapped {
                    local.swap_powers();
                }
                local
            }
            (None, None, Some(h)) if need > 0 => {
                // SAFETY: forwarded from the caller.
                unsafe { fill_upto::<L, KARATSUBA>(h, need, local) };
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
pub unsafe fn first_powers<L: Lanes>(h: &[u8; 16]) -> [L; 4] {
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
pub unsafe fn store_powers<L: Lanes, const MIDDLES: bool>(tbl: &mut PowerTable, g: usize, v: L) {
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
pub unsafe fn load_powers<L: Lanes>(tbl: &mut PowerTable, g: usize) -> L {
    let i = PowerTable::index(L::BLOCKS * (g + 1));
    let (pow, _) = tbl.entries_mut();
    // SAFETY: forwarded from the caller; `BLOCKS` entries from `i` are in the table (a
    // bounds-checked slice) and were written.
    unsafe { L::load(pow[i..i + L::BLOCKS].as_ptr().cast()) }
}

/// Extends a table that holds H^1..H^have (`have` 4 or `KEPT`: the first `have / b` registers of
/// powers, stored with [`store_powers`] and given in `regs`, and the pad zeroed) to
/// H^1..H^n for `n = min(need, 32)`, rounded up to a whole register, by doubling rounds whose
/// products are independent (H^(m+1)..H^2m = H^1..H^m times H^m), with H^33 = H^32 `h1` when
/// `need` is more than 32 (`need <= TOP`); then records what it holds. On registers of two or
/// four blocks every register stays in `regs` (sixteen at most); one block a register (32 of
/// them, more than a register file has) reloads each from its store.
///
/// # Safety
/// As the [`Lanes`] methods; the table's registers of H^1..H^have were stored, and its pad
/// zeroed.
#[inline(always)]
pub unsafe fn grow<L: Lanes, const MIDDLES: bool>(
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
                // The rounds from `have`: H^have, H^2have, ... (4, 8, 16 from a table of
                // H^1..H^4; 12, 24 from an AES-GCM key's H^1..H^12).
                if ($m == have || $m == 2 * have || $m == 4 * have) && $m < need {
                    // H^m is lane 0 of register m/b - 1.
                    let top = if in_regs {
                        regs[$m / b - 1]
                    } else {
                        load_powers::<L>(tbl, $m / b - 1)
                    };
                    let hm = spread(top);
                    for g in 0..$m / b {
                        // Register `g + m/b` starts at H^(b(g + m/b) + 1).
                        // Up to H^32 (H^33 is the one power after the doublings).
                        if b * g + $m < need.min(32) {
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
        double!(4 8 12 16 24);
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

/// Fills `tbl` (a new table) with the powers H^1..H^n of the POLYVAL key `h`, for `n` at
/// least `need` (`need <= TOP`; whole registers, and at least H^1..H^4), and with `MIDDLES`
/// their Karatsuba middles, with the register type's carry-less multiplies: an AES-GCM-SIV
/// message's table, as deep as its call multiplies (eight powers on one block a register,
/// sixteen on two, 32 or 33 on four). Depth six multiplies for the whole table (H^2; H^3,
/// H^4; then doubling by H^4, H^8, H^16; H^33 = H^32 H), 3 multiplies for four powers, 7 for
/// eight.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn fill_upto<L: Lanes, const MIDDLES: bool>(
    h: &[u8; 16],
    need: usize,
    tbl: &mut PowerTable,
) {
    tbl.zero_pad();
    // SAFETY: the caller's features; the registers of H^1..H^4 are stored (and passed on)
    // before `grow`, and the pad zeroed.
    unsafe {
        let first = first_powers::<L>(h);
        let mut regs = [L::zero(); 16];
        for g in 0..4 / L::BLOCKS {
            regs[g] = first[g];
            store_powers::<L, MIDDLES>(tbl, g, first[g]);
        }
        grow::<L, MIDDLES>(tbl, regs, 4, h, need);
    }
}

/// An AES-GCM key's powers H^1..H^KEPT of its POLYVAL-domain hash key `h` (key setup):
/// H^1..H^4, then each group of four times H^4 for the next (depth four multiplies for
/// twelve), one store per register.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn kept_powers<L: Lanes>(h: &[u8; 16], out: &mut KeptPowers) {
    let b = L::BLOCKS;
    // SAFETY: the caller's features; each store is `b` entries inside `out` (bounds-checked
    // slices, `b * (g + 1) <= KEPT`).
    unsafe {
        let first = first_powers::<L>(h);
        let h4 = spread(first[4 / b - 1]);
        let pow = out.entries_mut();
        for (g, r) in first.iter().enumerate().take(4 / b) {
            // Register `g` of each group of four powers (`KEPT / 4` groups, a constant).
            let mut v = *r;
            for j in 0..KEPT / 4 {
                if j > 0 {
                    v = mul_lanes(v, h4);
                }
                let i = KEPT - b * (g + j * (4 / b) + 1);
                L::store(pow[i..i + b].as_mut_ptr().cast(), v);
            }
        }
    }
}

/// Builds in `tbl` (a new table) a call's table of H^1..H^need (`1 <= need <= TOP`) from an
/// AES-GCM key's kept H^1..H^KEPT ([`expand_from`]).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn expand_kept<L: Lanes, const KARATSUBA: bool>(
    kept: &KeptPowers,
    need: usize,
    tbl: &mut PowerTable,
) {
    // SAFETY: forwarded from the caller.
    unsafe { expand_from::<L, KEPT, KARATSUBA>(kept.entries(), need, tbl) }
}

/// Builds in `tbl` (a new table) a call's table of H^1..H^need (`1 <= need <= TOP`) from kept
/// powers H^K..H^1 (`pow`, highest first; `K` is [`KEPT`]): the pad first, the registers of
/// the kept powers it needs (with their Karatsuba middles for `KARATSUBA`'s multiplies), then
/// the powers above H^K by [`grow`].
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn expand_from<L: Lanes, const K: usize, const KARATSUBA: bool>(
    pow: &[u128; K],
    need: usize,
    tbl: &mut PowerTable,
) {
    let b = L::BLOCKS;
    // The kept powers fill whole registers (`set_holds` below relies on it).
    const { assert!(K.is_multiple_of(L::BLOCKS)) };
    tbl.zero_pad();
    // SAFETY: the caller's features; each load is `b` entries inside `pow` (bounds-checked
    // slices, `b * (g + 1) <= K`); `grow` gets every register of H^1..H^K (stored, and in
    // `regs` up to sixteen) when the call needs more.
    unsafe {
        let load = |g: usize| L::load(pow[K - b * (g + 1)..K - b * g].as_ptr().cast());
        for g in 0..K / b {
            if b * g < need {
                store_powers::<L, KARATSUBA>(tbl, g, load(g));
            }
        }
        if need <= K {
            // Nothing to grow (the half-width stitched loop's H^1..H^8 from an AES-GCM key's
            // H^1..H^12), and no registers kept for it: the compiler stored all sixteen of
            // `grow`'s to the stack whether it doubled or not.
            // SAFETY: the pad was zeroed and the registers of H^1..H^n stored just above,
            // `n` the whole registers that cover `need` (`need <= K`, `K` a multiple of `b`),
            // with their middles for `KARATSUBA`.
            tbl.set_holds(need.next_multiple_of(b), KARATSUBA);
        } else {
            // The kept powers' registers again, for the doubling (loads from the key, which
            // the stores above do not wait for).
            let mut regs = [L::zero(); 16];
            for (g, r) in regs.iter_mut().enumerate().take(K / b) {
                *r = load(g);
            }
            let h1 = pow[K - 1].to_le_bytes();
            grow::<L, KARATSUBA>(tbl, regs, K, &h1, need);
        }
    }
}

/// Hashes `blocks` (whole blocks) into the running hash `y` (a reduced element in lane 0, the other
/// lanes zero; so is the result) with the kept powers H^4..H^1 of a keyed state, given as
/// [`first_powers`] lays them out (`first[g]` holds H^(b(g+1))..H^(bg+1), highest in lane 0, for `g
/// < 4 / b`): the standalone POLYVAL (`GHASH = false`, [`PolyvalDomain`]) or GHASH
/// ([`GhashDomain`]) of the `Pclmul`, `Avx2`, `Avx512` and `Pmull` backends, which build those
/// registers and `y` from their state in registers (their loads of it are the ones that suit how
/// the state's fields were written). The call builds its own table of the powers its strides of `N`
/// registers (at most 32 blocks) need (H^5..H^(N * BLOCKS) in doubling rounds from the four:
/// [`grow`]; fewer for an input shorter than a stride), then hashes the blocks short of a stride
/// with [`hash_head`] and the whole strides with [`hash_bytes`], the hash of `aead-engines`'
/// AES-GCM-SIV and GHASH-only calls.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn hash_kept<L: Lanes, const GHASH: bool, const N: usize, const KARATSUBA: bool>(
    first: &[L; 4],
    y: L,
    blocks: &[[u8; 16]],
) -> L {
    // SAFETY: forwarded from the caller.
    unsafe {
        if GHASH {
            kept_strides::<L, GhashDomain, N, KARATSUBA>(first, y, blocks)
        } else {
            kept_strides::<L, PolyvalDomain, N, KARATSUBA>(first, y, blocks)
        }
    }
}

/// [`hash_kept`] in the domain `D`.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn kept_strides<L: Lanes, D: Domain, const N: usize, const KARATSUBA: bool>(
    first: &[L; 4],
    y: L,
    blocks: &[[u8; 16]],
) -> L {
    const { assert!(N * L::BLOCKS <= 32) };
    let n = blocks.len();
    if n == 0 {
        return y;
    }
    // Not wiped on drop (as the powers a backend computes in registers are not) unless the
    // state wipes itself (`zeroize`): `table-wipe` is also on wherever `aead-engines`' `siv-wipe`
    // is, for every crate of the build.
    let mut tbl = ManuallyDrop::new(PowerTable::new());
    let need = n.min(N * L::BLOCKS);
    // SAFETY: the caller's features; the registers of H^1..H^4 are stored (and passed on)
    // before `grow`, and the pad zeroed; `blocks` is `16 n` readable bytes.
    let y = unsafe {
        tbl.zero_pad();
        let mut regs = [L::zero(); 16];
        for g in 0..4 / L::BLOCKS {
            if L::BLOCKS * g < need {
                regs[g] = first[g];
                store_powers::<L, KARATSUBA>(&mut tbl, g, first[g]);
            }
        }
        // `need <= 32`: `grow` reads no H^1 for an H^33.
        grow::<L, KARATSUBA>(&mut tbl, regs, 4, &[0; 16], need);
        if swapped::<L, D>() {
            tbl.swap_powers();
        }
        // The blocks short of a whole stride first, aligned to the end of their powers
        // (`hash_head`), then whole strides: no tail reads the table across two of its
        // stores.
        let p: *const u8 = blocks.as_ptr().cast();
        let r = n % (N * L::BLOCKS);
        let mut y = y;
        if r > 0 {
            y = hash_head::<L, D, KARATSUBA>(&tbl, y, p, r);
        }
        if n > r {
            y = hash_bytes::<L, D, N, KARATSUBA>(&tbl, y, p.add(16 * r), 16 * (n - r));
        }
        y
    };
    #[cfg(feature = "zeroize")]
    tbl.wipe_filled();
    y
}

/// POLYVAL under the key `h` of `aad`, `data` (each zero-padded to whole blocks) and the
/// block `lengths`, by Horner's rule in lane 0 (`y = (y + X) * H`, reduced each block): no
/// table of powers, for the few blocks of a short AES-GCM-SIV message, whose key is new
/// for every message.
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn polyval_horner<L: Lanes>(
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
