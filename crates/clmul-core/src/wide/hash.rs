//! The width-generic GHASH/POLYVAL: the hash domains ([`Domain`]), the products of a
//! register of data and a register of powers of H ([`Table`], `products`; the middles of data
//! from memory by loads: `folded_pair`, `folded_one`, `products_folded`), their unreduced sums
//! and the reduction (`Acc`), the end of a message with one reduction (`Tail`), a run aligned
//! to the end of its powers (`hash_head`) and whole inputs in strides (`hash_bytes`).
#![allow(unsafe_code)]

use super::*;

/// A hash domain: how a block of data becomes a field element.
pub trait Domain {
    /// GHASH's blocks are byte-reflected POLYVAL elements (RFC 8452, Appendix A).
    const REFLECT: bool;
}

/// GHASH (AES-GCM): each block byte-reversed.
pub struct GhashDomain;

impl Domain for GhashDomain {
    const REFLECT: bool = true;
}

/// POLYVAL (AES-GCM-SIV): blocks as they are.
pub struct PolyvalDomain;

impl Domain for PolyvalDomain {
    const REFLECT: bool = false;
}

/// Whether this register type hashes the domain's data half-swapped ([`Lanes::SWAP_REFLECT`], and
/// GHASH's byte reflection to undo): each element `x` is then held as its halves swapped,
/// `[x.hi, x.lo]`, which is what reversing the bytes of each 64-bit half gives (one `REV64`
/// on ARMv8, where the whole reflection is `REV64` + `EXT`). The powers it multiplies by are
/// held swapped too ([`Powers::table`] swaps a table's, [`Table::power`] a kept one), so that
/// the products of two swapped operands are the same four with `lo` and `hi` exchanged
/// ([`products`]), and the Karatsuba middles (`lo ^ hi` of each) do not change.
#[inline(always)]
pub fn swapped<L: Lanes, D: Domain>() -> bool {
    L::SWAP_REFLECT && D::REFLECT
}

/// A register of data as the field elements the products take: [`field`], or half-swapped
/// ([`swapped`]).
#[inline(always)]
pub unsafe fn field_data<L: Lanes, D: Domain>(v: L) -> L {
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
pub unsafe fn data_y<L: Lanes, D: Domain>(y: L) -> L {
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
pub unsafe fn field<L: Lanes, D: Domain>(v: L) -> L {
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
pub struct Acc<L> {
    pub lo: L,
    pub mi: L,
    pub hi: L,
}

/// The products of one register: schoolbook's middle is `mi ^ mi2`; Karatsuba leaves `mi2`
/// zero (and unused), or, where [`Lanes::PAIRED_MIDDLES`] holds, has not multiplied the
/// middle yet: `mi` is the data and `mi2` the power's middle operand, and the accumulator
/// multiplies two registers' middles together ([`Prod::middles`]) or one alone
/// ([`Prod::middle`]).
#[derive(Clone, Copy)]
pub struct Prod<L> {
    pub lo: L,
    pub mi: L,
    pub mi2: L,
    pub hi: L,
}

/// Powers of H as the hash reads them: H^n at index `top() - n`, highest first, with zeros
/// after H^1: a call's [`PowerTable`] (the tail of a longer message), the view of it the wide
/// loops read, checked once before the loop ([`Held`]), or an AES-GCM key's [`KeptPowers`] (a
/// short message), each with its layout at compile time.
pub trait Table: Copy {
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
        // (checked), of which a register loads `BLOCKS`. (Whether they are swapped is the
        // table maker's to match: `Powers::table` checks it, `hash_kept` swaps its own.)
        unsafe { L::load_power(PowerTable::powers(self, i)) }
    }
}

impl Table for Held<'_> {
    #[inline(always)]
    fn top(self) -> usize {
        TOP
    }

    #[inline(always)]
    unsafe fn middles<L: Lanes>(self, i: usize, _: L) -> L {
        // SAFETY: the caller's features; `middles` points at four initialized entries
        // (checked), of which a register loads `BLOCKS`.
        unsafe { L::load_power(Held::middles(&self, i)) }
    }

    #[inline(always)]
    unsafe fn power<L: Lanes>(self, i: usize, _: bool) -> L {
        // SAFETY: as `&PowerTable`'s.
        unsafe { L::load_power(Held::powers(&self, i)) }
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
pub unsafe fn products<L: Lanes, T: Table, const KARATSUBA: bool>(
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
pub unsafe fn low<L: Lanes>(x: L, h: L, swapped: bool) -> L {
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
pub unsafe fn high<L: Lanes>(x: L, h: L, swapped: bool) -> L {
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
    pub unsafe fn middle(&self) -> L {
        // SAFETY: forwarded from the caller.
        unsafe { L::clmul_lo(L::xor(self.mi, L::swap_halves(self.mi)), self.mi2) }
    }

    /// The middle products of two such registers, as two values to add: both data registers'
    /// folded halves in one register (`[a.lo ^ a.hi, b.lo ^ b.hi]` per lane, two unpacks and
    /// one XOR where one register alone takes a shuffle and an XOR), multiplied by the low
    /// half of `a`'s middle operand and the high half of `b`'s (each holds it in both halves).
    #[inline(always)]
    pub unsafe fn middles(a: &Self, b: &Self) -> (L, L) {
        // SAFETY: forwarded from the caller.
        unsafe {
            let f = L::whole(L::xor(L::zip_lo(a.mi, b.mi), L::zip_hi(a.mi, b.mi)));
            (L::clmul_lo(f, a.mi2), L::clmul_hi(f, b.mi2))
        }
    }
}

impl<L: Lanes> Acc<L> {
    #[inline(always)]
    pub unsafe fn zero() -> Self {
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
    pub unsafe fn pair<const KARATSUBA: bool>(a: &Prod<L>, b: &Prod<L>) -> Self {
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
    pub unsafe fn add_pair<const KARATSUBA: bool>(&mut self, a: &Prod<L>, b: &Prod<L>) {
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
    pub unsafe fn add<const KARATSUBA: bool>(&mut self, a: &Prod<L>) {
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
    pub unsafe fn fold_lo<const KARATSUBA: bool>(&mut self) {
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
    pub unsafe fn fold_mi(&mut self) {
        // SAFETY: forwarded from the caller.
        unsafe {
            let t = L::clmul_lo(self.mi, poly());
            self.hi = xor3(self.hi, L::swap_halves(self.mi), t);
        }
    }

    /// The reduced sum, in lane 0.
    #[inline(always)]
    pub unsafe fn reduce<const KARATSUBA: bool>(mut self) -> L {
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
pub unsafe fn poly<L: Lanes>() -> L {
    const P: u32 = 0xc200_0000;
    // SAFETY: forwarded from the caller.
    unsafe { L::from_words(&[0, P, 0, P, 0, P, 0, P, 0, P, 0, P, 0, P, 0, P]) }
}

/// Hashes the last blocks of a message from registers: every register's products against
/// its powers are added unreduced, and one reduction ends it.
pub struct Tail<L> {
    pub acc: Acc<L>,
    /// Blocks still to come, this one included: the next block's power of H.
    pub left: usize,
    /// The running hash, added to the next block (as data: [`data_y`]).
    pub y: L,
}

impl<L: Lanes> Tail<L> {
    /// A tail of `left` blocks from the running hash `y` (a reduced element), hashing `D`'s
    /// data.
    #[inline(always)]
    pub unsafe fn new<D: Domain>(left: usize, y: L) -> Self {
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
    pub unsafe fn add<D: Domain, T: Table, const KARATSUBA: bool>(
        &mut self,
        tbl: T,
        x: L,
        nb: usize,
    ) {
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
    pub unsafe fn add_bytes<D: Domain, T: Table, const KARATSUBA: bool>(
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
    pub unsafe fn finish<D: Domain, T: Table, const KARATSUBA: bool>(
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

/// Whether Karatsuba's middle operands of data read from memory are made by loads
/// ([`folded_pair`], [`folded_one`]): Karatsuba's multiplies, on a register type that asks
/// for it ([`Lanes::MIDDLES_BY_LOADS`]), whose middles are not paired by unpacks and whose
/// data is not half-swapped.
#[inline(always)]
pub const fn by_loads<L: Lanes, const KARATSUBA: bool>() -> bool {
    KARATSUBA && L::MIDDLES_BY_LOADS && !L::PAIRED_MIDDLES && !L::SWAP_REFLECT
}

/// The Karatsuba middle operands of registers `j - 1` and `j` of data at `q` (`j >= 1`), made
/// by loads instead of a shuffle per register ([`Lanes::MIDDLES_BY_LOADS`]), in the domain's
/// order: a load 8 bytes off a register puts each block's high word beside its low word, so
/// register `j - 1` XORed with the load 8 bytes after it has every block's `lo ^ hi` in its
/// even words, register `j` XORed with the load 8 bytes before it in its odd words, and one
/// blend ([`Lanes::blend_odd`]) holds both. GHASH's byte reflection of the result (one
/// shuffle a pair, where the data's own reflection takes one a register) swaps the words:
/// [`products_folded`] takes the word by the domain.
///
/// Per pair that leaves POLYVAL no shuffle (two with `x ^ swap_halves(x)`) and GHASH three
/// (four): on Intel's cores 512-bit shuffles and carry-less multiplies share port 5, on AMD's
/// they share the FP pipes (llvm-mca, `sapphirerapids`, POLYVAL in strides of 32 blocks: 43
/// -> 34 cycles).
///
/// # Safety
/// As the [`Lanes`] methods; registers `j - 1` and `j` at `q` are readable.
#[inline(always)]
pub unsafe fn folded_pair<L: Lanes, D: Domain>(q: *const u8, j: usize) -> L {
    let reg = 16 * L::BLOCKS;
    // SAFETY: the caller's features; the loads read bytes `reg * (j - 1)..reg * (j + 1)` at
    // `q`, the two registers.
    unsafe {
        let (a, b) = (q.add(reg * (j - 1)), q.add(reg * j));
        let fa = L::xor(L::load(a), L::load(a.add(8)));
        let fb = L::xor(L::load(b), L::load(b.sub(8)));
        field::<L, D>(L::blend_odd(fa, fb))
    }
}

/// The Karatsuba middle operands of register `j` of data at `q` alone (`j >= 1`), by the
/// load 8 bytes before it (inside register `j - 1`): every block's `lo ^ hi` in the odd
/// words, in the domain's order ([`folded_pair`]).
///
/// # Safety
/// As the [`Lanes`] methods; registers `j - 1` and `j` at `q` are readable.
#[inline(always)]
pub unsafe fn folded_one<L: Lanes, D: Domain>(q: *const u8, j: usize) -> L {
    let reg = 16 * L::BLOCKS;
    // SAFETY: the caller's features; the loads read bytes `reg * j - 8..reg * (j + 1)` at `q`.
    unsafe {
        let b = q.add(reg * j);
        field::<L, D>(L::xor(L::load(b), L::load(b.sub(8))))
    }
}

/// Karatsuba's products of `x` (data in the domain's order) and the powers from index `i` of
/// `tbl`, the middle operand of `x` taken from `f` ([`folded_pair`], [`folded_one`]): from its
/// odd words if `odd` (as laid out before the domain's reflection), else from its even ones.
///
/// # Safety
/// As the [`Lanes`] methods; [`by_loads`] holds for `L` (the products are Karatsuba's, not
/// paired, not half-swapped).
#[inline(always)]
pub unsafe fn products_folded<L: Lanes, D: Domain, T: Table>(
    x: L,
    f: L,
    odd: bool,
    tbl: T,
    i: usize,
) -> Prod<L> {
    // SAFETY: forwarded from the caller.
    unsafe {
        let h = tbl.power::<L>(i, false);
        let hx = tbl.middles(i, h);
        // GHASH's reflection swaps the words of `f`.
        let mi = if odd != D::REFLECT {
            L::clmul_hi_lo(f, hx)
        } else {
            L::clmul_lo(f, hx)
        };
        Prod {
            lo: L::clmul_lo(x, h),
            mi,
            mi2: L::zero(),
            hi: L::clmul_hi(x, h),
        }
    }
}

/// Hashes the `r` whole blocks at `p` (`1 <= r <= 32`), `y` (the running hash, a reduced
/// element) added to the first, against H^r..H^1 of `tbl`, with one reduction; the result is
/// reduced. The registers are aligned to the end of the powers: a partial first register
/// (`r % BLOCKS` blocks) holds its blocks in its top lanes ([`Lanes::load_top`]), so every
/// register of powers read is one that [`store_powers`](super::store_powers) wrote whole. A
/// table made for the call ([`hash_kept`](super::hash_kept)'s) was written just before, and a
/// load that forwards from one store is served at once, where [`Tail`]'s (data from lane 0,
/// powers from H^r on) would span two stores and wait for them to reach the cache (measured
/// on Intel, a state cloned per message with five blocks: about 26 ns through the tail, 16
/// here).
///
/// # Safety
/// As the [`Lanes`] methods; `16 r` bytes at `p` are readable.
#[inline(always)]
pub unsafe fn hash_head<L: Lanes, D: Domain, const KARATSUBA: bool>(
    tbl: &PowerTable,
    y: L,
    p: *const u8,
    r: usize,
) -> L {
    if r == 0 {
        return y;
    }
    let b = L::BLOCKS;
    let m = r % b;
    let regs = r.div_ceil(b);
    let held = tbl.held_from(PowerTable::index(b * regs), KARATSUBA);
    let mut off = 0;
    // SAFETY: the caller's features; every load reads inside the `16 r` bytes at `p` (a
    // partial first register `16 m` of them, the others `16 b` from `off`, which ends at
    // `16 r`).
    unsafe {
        let mut acc = Acc::<L>::zero();
        for j in 0..regs {
            let v = if j == 0 && m > 0 {
                let x = field_data::<L, D>(L::load_top(p, m));
                off = 16 * m;
                L::xor(x, data_y::<L, D>(L::lane0_to_top(y, m)))
            } else {
                let mut x = field_data::<L, D>(L::load(p.add(off)));
                if j == 0 {
                    x = L::xor(x, data_y::<L, D>(y));
                }
                off += 16 * b;
                x
            };
            let i = PowerTable::index(b * (regs - j));
            let p = products::<L, Held<'_>, KARATSUBA>(v, held, i, swapped::<L, D>());
            acc.add::<KARATSUBA>(&p);
        }
        acc.reduce::<KARATSUBA>()
    }
}

/// How many strides (or iterations) ahead the wide loops hint at their input
/// ([`prefetch_first`], [`prefetch_ahead`]).
pub const PREFETCH_STRIDES: usize = 8;

/// Hints at the cache lines of the `len` bytes at `p`: one hint every 64 bytes, the last of
/// which may reach past them (a hint has no effect a program can see and faults on nothing).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
unsafe fn prefetch_stride<L: Lanes>(p: *const u8, len: usize) {
    let mut at = 0;
    while at < len {
        // SAFETY: the caller's features; a hint at any address is sound (`wrapping_add`: no
        // claim that it is inside an allocation).
        unsafe { L::prefetch(p.wrapping_add(at)) };
        at += 64;
    }
}

/// Before a wide loop over the `n` bytes at `p` in strides (or iterations) of `stride` bytes:
/// hints at the lines of its first [`PREFETCH_STRIDES`] strides at once (those that start
/// inside the `n` bytes). With [`prefetch_ahead`] at every stride, an input not in the cache
/// has several strides' lines on their way at once. Without them the loops wait for memory a
/// stride at a time: on AMD Zen 3, 4 KiB of POLYVAL whose lines were flushed took 1.05 µs
/// more than warm (0.28 with the hints), AES-GCM's stitched loop on the AES-NI engine 3.96 µs
/// more (its loads of an iteration's input come after the AES rounds, too late for the core
/// to reach the next iteration's). Eight strides ahead ran faster than four or two there
/// (AES-GCM, 1420 B flushed). Without the first strides' hints, 4 KiB of POLYVAL not in the
/// cache took as long as with no hints; with them, warm inputs of 256 B to 1 KiB about 2%
/// longer. The addresses are public (the buffer's and the offsets).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn prefetch_first<L: Lanes>(p: *const u8, n: usize, stride: usize) {
    let mut at = 0;
    while at < n && at < PREFETCH_STRIDES * stride {
        // SAFETY: forwarded from the caller.
        unsafe { prefetch_stride::<L>(p.wrapping_add(at), stride) };
        at += stride;
    }
}

/// At the stride at offset `off` of a wide loop over the `n` bytes at `p`: hints at the lines
/// of the stride [`PREFETCH_STRIDES`] after it, if that one starts inside the `n` bytes (see
/// [`prefetch_first`]).
///
/// # Safety
/// As the [`Lanes`] methods.
#[inline(always)]
pub unsafe fn prefetch_ahead<L: Lanes>(p: *const u8, off: usize, n: usize, stride: usize) {
    let ahead = off + PREFETCH_STRIDES * stride;
    if ahead < n {
        // SAFETY: forwarded from the caller.
        unsafe { prefetch_stride::<L>(p.wrapping_add(ahead), stride) };
    }
}

/// Hashes `n` bytes at `p`, zero-padded to whole blocks, into `y`: strides of `N` registers
/// with one reduction each, then the rest with one more.
///
/// # Safety
/// As the [`Lanes`] methods; `n` bytes at `p` are readable.
#[inline(always)]
pub unsafe fn hash_bytes<L: Lanes, D: Domain, const N: usize, const KARATSUBA: bool>(
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
        // The strides' powers, checked once (only if a stride runs: a shorter input's table
        // need not hold them).
        if n >= stride {
            let held = tbl.held_from(base, KARATSUBA);
            prefetch_first::<L>(p, n, stride);
            while n - off >= stride {
                prefetch_ahead::<L>(p, off, n, stride);
                let q = p.add(off);
                let mut acc = Acc::<L>::zero();
                // The registers after the first, highest first; the first, which takes the
                // running hash, last, so that the others' products are summed while the last
                // stride's reduction completes.
                if by_loads::<L, KARATSUBA>() {
                    // Pairs from the top (registers N-2 and N-1 first), then register 1 alone
                    // if N is even ([`folded_pair`], [`folded_one`]).
                    for t in 0..(N - 1) / 2 {
                        let j = N - 1 - 2 * t;
                        let f = folded_pair::<L, D>(q, j);
                        for (k, odd) in [(j, true), (j - 1, false)] {
                            let x = field_data::<L, D>(L::load(q.add(reg * k)));
                            let i = base + L::BLOCKS * k;
                            let p = products_folded::<L, D, Held<'_>>(x, f, odd, held, i);
                            acc.add::<KARATSUBA>(&p);
                        }
                    }
                    if N.is_multiple_of(2) {
                        let f = folded_one::<L, D>(q, 1);
                        let x = field_data::<L, D>(L::load(q.add(reg)));
                        let i = base + L::BLOCKS;
                        let p = products_folded::<L, D, Held<'_>>(x, f, true, held, i);
                        acc.add::<KARATSUBA>(&p);
                    }
                } else {
                    for j in (1..N).rev() {
                        let v = field_data::<L, D>(L::load(q.add(reg * j)));
                        let i = base + L::BLOCKS * j;
                        let p = products::<L, Held<'_>, KARATSUBA>(v, held, i, swapped::<L, D>());
                        acc.add::<KARATSUBA>(&p);
                    }
                }
                let v = L::xor(field_data::<L, D>(L::load(q)), data_y::<L, D>(y));
                let p = products::<L, Held<'_>, KARATSUBA>(v, held, base, swapped::<L, D>());
                acc.add::<KARATSUBA>(&p);
                y = acc.reduce::<KARATSUBA>();
                off += stride;
            }
        }
        if off < n {
            let mut t = Tail::new::<D>((n - off).div_ceil(16), y);
            t.add_bytes::<D, &PowerTable, KARATSUBA>(tbl, p.add(off), n - off);
            y = t.acc.reduce::<KARATSUBA>();
        }
    }
    y
}
