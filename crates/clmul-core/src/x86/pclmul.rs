//! 128-bit PCLMULQDQ backend (x86 and x86_64).
//!
//! Per block: three carry-less multiplies (Karatsuba: `lo*lo`, `hi*hi`, `(lo^hi)*(lo^hi)` with
//! the key's middle operand precomputed), summed unreduced over a stride of `STRIDE` blocks
//! against H^STRIDE..H^1, then one Montgomery reduction by two multiplies with
//! `0xc200000000000000` (the fold `x^63 + x^62 + x^57`, see [`crate::soft`]). This is the
//! aggregated-reduction technique of Gueron and Kounavis ("Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode", 2010) in POLYVAL's bit order, where
//! no bit reflection is needed (RFC 8452 Appendix A; Gueron, Langley, Lindell, AES-GCM-SIV).
//!
//! Up to seven blocks run here, against the state's kept powers (straight-line code per
//! length, [`update_short`]; five to seven as four and the rest, [`update_mid`]); more go to
//! the wide hash on `xmm` registers
//! ([`crate::wide::hash_kept`]), as the wider backends run it on theirs. The whole backend is
//! compiled a second time with AVX ([`vex`]): the short path, the kept powers and the state
//! loads of the AVX2 and AVX-512 backends.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::powers::{Kept, SMALL};

/// Blocks per stride.
pub(crate) const STRIDE: usize = 8;

/// Below this many blocks, the keyed state's update hashes in strides of four blocks against
/// the kept H^4..H^1 (one reduction per four blocks) instead of eight, and computes no
/// powers for the call (H^5..H^8: four multiplies and a table's stores each update).
/// Measured on AMD Zen 1 (`polyval` 0.7, a kept key cloned per message, fastest of 31
/// rounds, two runs each, eight-block stride against four): 8 blocks 56.1 -> 34.6 ns, 9
/// blocks 60.9 -> 39.3, 16 blocks 78.4 -> 56.6, 24 blocks 99.8 -> 78.6; the four-block
/// stride stays ahead there up to 2048 blocks (5677 -> 5476 ns), the AMD core's two-cycle
/// PCLMULQDQ bounding both loops. Not so on Intel's cores (one PCLMULQDQ a cycle, seven
/// cycles of latency): llvm-mca 19 on `skylake` puts the four-block loop at 28.6 cycles an
/// iteration (7.1 a block, the reduction's latency chain) and the eight-block one at 34.5
/// (4.3 a block), so that the eight-block stride's extra powers pay for themselves from
/// about 25 blocks; the bound is that.
pub(crate) const SHORT_STRIDES_BELOW: usize = 32;

/// Unreduced Karatsuba accumulators: `lo`, `mid` (before the `lo ^ hi` fix-up), `hi`.
#[derive(Clone, Copy)]
pub struct Acc {
    /// Sum of `lo * lo` products.
    pub lo: __m128i,
    /// Sum of middle products.
    pub mid: __m128i,
    /// Sum of `hi * hi` products.
    pub hi: __m128i,
}

/// The backend's items, compiled with the target features given: invoked below with
/// the PCLMULQDQ tier's, and again in [`vex`] with AVX as well.
macro_rules! pclmul_items {
    ($($feature:tt),+) => {
        crate::target_tier! {
            detect cpuid = [$($feature),+];

            /// The byte-reversal shuffle for GHASH's reflected blocks.
            #[inline]
            pub fn bswap_mask() -> __m128i {
                _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
            }

            /// Loads one block as a POLYVAL field element.
            #[inline]
            pub fn load<const GHASH: bool>(block: &[u8; 16]) -> __m128i {
                // SAFETY: `block` is 16 readable bytes and `loadu` has no alignment requirement.
                let v = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
                if GHASH { _mm_shuffle_epi8(v, bswap_mask()) } else { v }
            }

            /// Loads a `u128` of a keyed state (its accumulator or a kept power) as two 8-byte
            /// halves. The state's generic code writes such fields from general registers, as two
            /// 8-byte stores, and a 16-byte load that spans two stores still in flight cannot take
            /// its bytes from them: it waits until they reach the cache (measured on Zen 4: a fresh
            /// key's one-block message, 22 ns with one 16-byte load, see the `polyval` benches). An
            /// 8-byte load lies within either kind of store. The loads are volatile so that the
            /// compiler does not merge them back into one.
            #[inline]
            pub fn load_state(v: &u128) -> __m128i {
                let p = (v as *const u128).cast::<i64>();
                // SAFETY: a `u128` is two readable, aligned `i64`s (little-endian halves on x86).
                let (lo, hi) = unsafe { (core::ptr::read_volatile(p), core::ptr::read_volatile(p.add(1))) };
                _mm_set_epi64x(hi, lo)
            }

            /// A `u128` held in general registers (a power of H passed by value), moved to a vector
            /// register without a round trip through memory.
            #[inline]
            pub fn from_u128(v: u128) -> __m128i {
                _mm_set_epi64x((v >> 64) as i64, v as i64)
            }

            /// Stores a register to a `u128`.
            #[inline]
            pub fn store_u128(out: &mut u128, v: __m128i) {
                // SAFETY: a `u128` is 16 writable bytes, little-endian on x86.
                unsafe { _mm_storeu_si128((out as *mut u128).cast(), v) }
            }

            /// An empty accumulator.
            #[inline]
            pub fn acc_zero() -> Acc {
                let z = _mm_setzero_si128();
                Acc { lo: z, mid: z, hi: z }
            }

            /// `acc += x * h` (unreduced), `hx` holding `lo64(h) ^ hi64(h)` in its low half.
            #[inline]
            pub fn mul_acc(acc: &mut Acc, x: __m128i, h: __m128i, hx: __m128i) {
                let xx = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
                acc.lo = _mm_xor_si128(acc.lo, _mm_clmulepi64_si128::<0x00>(x, h));
                acc.hi = _mm_xor_si128(acc.hi, _mm_clmulepi64_si128::<0x11>(x, h));
                acc.mid = _mm_xor_si128(acc.mid, _mm_clmulepi64_si128::<0x00>(xx, hx));
            }

            /// `acc += x1 * h1 + x2 * h2` for the two POLYVAL blocks at `p`, with their Karatsuba
            /// middles made by a load 8 bytes on instead of a `pshufd` each: that load holds the first
            /// block's high word and the second's low word, so XORed with the first block its low word
            /// is the first block's `lo ^ hi`, and XORed with the second its high word the second's.
            /// On Intel's cores `pshufd` runs on port 5 with `pclmulqdq`. It serves the two- to
            /// four-block path here; the wide strides make their middles the same way, in pairs of
            /// registers ([`crate::wide::folded_pair`]). (This path's GHASH keeps [`mul_acc`]: its
            /// byte reversal of the middles costs the shuffle back.)
            #[inline]
            pub fn mul_acc_pair(acc: &mut Acc, p: &[[u8; 16]; 2], h: [__m128i; 2], hx: [__m128i; 2]) {
                let b = p.as_ptr().cast::<u8>();
                // SAFETY: `p` is 32 readable bytes; the loads read b[0..16], b[16..32] and b[8..24], all
                // inside it (`loadu` needs no alignment).
                let (x1, x2, at8) = unsafe {
                    (
                        _mm_loadu_si128(b.cast()),
                        _mm_loadu_si128(b.add(16).cast()),
                        _mm_loadu_si128(b.add(8).cast()),
                    )
                };
                let m1 = _mm_clmulepi64_si128::<0x00>(_mm_xor_si128(x1, at8), hx[0]);
                let m2 = _mm_clmulepi64_si128::<0x01>(_mm_xor_si128(x2, at8), hx[1]);
                let lo = _mm_xor_si128(_mm_clmulepi64_si128::<0x00>(x1, h[0]), _mm_clmulepi64_si128::<0x00>(x2, h[1]));
                let hi = _mm_xor_si128(_mm_clmulepi64_si128::<0x11>(x1, h[0]), _mm_clmulepi64_si128::<0x11>(x2, h[1]));
                acc.lo = _mm_xor_si128(acc.lo, lo);
                acc.hi = _mm_xor_si128(acc.hi, hi);
                acc.mid = _mm_xor_si128(acc.mid, _mm_xor_si128(m1, m2));
            }

            /// Karatsuba fix-up and Montgomery reduction of an accumulator: `sum * x^-128 mod P`.
            ///
            /// The product `hi * x^128 + mid * x^64 + lo` (`mid` once fixed up) times `x^-128` is
            /// `hi + fold(mid + fold(lo))` ([`fold`]: times `x^-64`): two folds, the first on the low
            /// product alone, beside the middle's fix-up, and no byte shifts to split the middle
            /// across the other two (two shuffles fewer on the port of `pclmulqdq` on Intel's cores).
            #[inline]
            pub fn reduce(acc: Acc) -> __m128i {
                let mid = _mm_xor_si128(acc.mid, _mm_xor_si128(acc.lo, acc.hi));
                _mm_xor_si128(acc.hi, fold(_mm_xor_si128(mid, fold(acc.lo))))
            }

            /// The product `a * a` before reduction: carry-less squaring has no cross terms, so its
            /// Karatsuba middle (before the fix-up) is `lo ^ hi`, and two multiplies suffice.
            #[inline]
            pub fn square_acc(a: __m128i) -> Acc {
                let lo = _mm_clmulepi64_si128::<0x00>(a, a);
                let hi = _mm_clmulepi64_si128::<0x11>(a, a);
                Acc { lo, mid: _mm_xor_si128(lo, hi), hi }
            }

            /// `a * a * x^-128 mod P`.
            #[inline]
            pub fn square(a: __m128i) -> __m128i {
                reduce(square_acc(a))
            }

            /// `a * b * x^-128 mod P` for one pair.
            #[inline]
            pub fn dot(a: __m128i, b: __m128i) -> __m128i {
                let mut acc = acc_zero();
                let bx = _mm_xor_si128(b, _mm_shuffle_epi32::<0x4e>(b));
                mul_acc(&mut acc, a, b, bx);
                reduce(acc)
            }

            /// Hashes `blocks` against the powers in registers (`pw.len() == blocks.len()`, `px` their
            /// middles), the first block plus `y`; returns the reduced result.
            #[inline]
            fn run_regs<const GHASH: bool>(y: __m128i, blocks: &[[u8; 16]], pw: &[__m128i], px: &[__m128i]) -> __m128i {
                let mut acc = acc_zero();
                let Some((b0, rest)) = blocks.split_first() else {
                    return y;
                };
                mul_acc(&mut acc, _mm_xor_si128(load::<GHASH>(b0), y), pw[0], px[0]);
                if GHASH {
                    for ((b, &h), &hx) in rest.iter().zip(&pw[1..]).zip(&px[1..]) {
                        mul_acc(&mut acc, load::<true>(b), h, hx);
                    }
                    return reduce(acc);
                }
                // POLYVAL's other blocks two at a time (`mul_acc_pair`), an odd last one alone.
                let (pairs, last) = rest.as_chunks::<2>();
                for (i, pr) in pairs.iter().enumerate() {
                    let k = 1 + 2 * i;
                    mul_acc_pair(&mut acc, pr, [pw[k], pw[k + 1]], [px[k], px[k + 1]]);
                }
                if let [b] = last {
                    let k = blocks.len() - 1;
                    mul_acc(&mut acc, load::<false>(b), pw[k], px[k]);
                }
                reduce(acc)
            }

            /// The Karatsuba middle of a power (`lo ^ hi` in both halves).
            #[inline]
            pub fn middle(h: __m128i) -> __m128i {
                _mm_xor_si128(h, _mm_shuffle_epi32::<0x4e>(h))
            }

            /// H^k from a state's kept powers, in two 8-byte loads. The powers may have just been
            /// written, as 8-byte words or as 16-byte ones: H by key setup, from general registers
            /// or a vector one as the compiler chose, in a state made per message; all four by
            /// `clone` in a state cloned per message (H from general registers, H^2..H^4 by vector
            /// moves). A 16-byte load across two
            /// 8-byte stores still in flight waits for them to reach the cache (measured on Zen 4: a
            /// fresh key's one-block message, 15 ns with the 16-byte load, 8.4 ns without; a clone's
            /// 256-byte message, 45 ns with it, see `uhf_paired`). An 8-byte load lies within either
            /// kind of store, the kernels' own 16-byte stores too.
            ///
            /// The words are read straight into vector registers (`movq xmm, m64`), not through
            /// general registers: a move from a general register to a vector one runs on port 5 on
            /// Intel's cores, beside every `pclmulqdq`, and four powers' eight such moves cost a
            /// 4-block message about a third of its time there (`uhf_paired`, `lto`, Emerald Rapids).
            /// The table is held exclusively (`&mut`), so the reads race with nothing. H^k must be
            /// stored: `k == 1`, or the count is `SMALL` (asserted by [`Kept::power_ptr`]).
            #[inline]
            pub fn load_kept(kept: &mut Kept<'_>, k: usize) -> __m128i {
                let p = kept.power_ptr(k).cast::<i64>();
                // SAFETY: `power_ptr` points to the 16 bytes of H^k (two aligned 8-byte words,
                // the low one first on x86), initialized (it checked the count), in a table this
                // function holds exclusively: no other access to them can happen during the reads.
                let (lo, hi) = unsafe { (core::ptr::read_volatile(p), core::ptr::read_volatile(p.add(1))) };
                _mm_set_epi64x(hi, lo)
            }

            /// H^4..H^1 (highest first) from H, with `mul` and `sq` (the domain's product and square):
            /// H^2, then H^4 and H^3 side by side. The one ladder of every x86 backend's key setup and
            /// kept powers.
            #[inline]
            pub fn ladder4(
                h: __m128i,
                mul: impl Fn(__m128i, __m128i) -> __m128i,
                sq: impl Fn(__m128i) -> __m128i,
            ) -> [__m128i; SMALL] {
                let h2 = sq(h);
                [sq(h2), mul(h2, h), h2, h]
            }

            /// A state's H^4..H^1 (highest first) in registers: loaded if kept, else computed from H
            /// ([`ladder4`] with `mul` and `sq`) and kept, `len` raised to 4. The stores are off the
            /// caller's critical path, which goes on with the registers.
            #[inline]
            pub fn kept4(
                kept: &mut Kept<'_>,
                mul: impl Fn(__m128i, __m128i) -> __m128i,
                sq: impl Fn(__m128i) -> __m128i,
            ) -> [__m128i; SMALL] {
                if kept.all() {
                    // H^1..H^4, stored (the count is `SMALL`).
                    return core::array::from_fn(|i| load_kept(kept, SMALL - i));
                }
                let pw = ladder4(load_kept(kept, 1), mul, sq);
                for (i, &v) in pw.iter().enumerate().take(SMALL - 1) {
                    // SAFETY: `slot_ptr` points to the 16 bytes of H^(4 - i)'s slot in a table
                    // this function holds exclusively (`&mut`); `storeu` needs no alignment. The
                    // power stays in a vector register up to the store.
                    unsafe { _mm_storeu_si128(kept.slot_ptr(SMALL - i).cast(), v) };
                }
                // SAFETY: the loop above stored H^4, H^3 and H^2.
                unsafe { kept.set_all() };
                pw
            }

            /// [H, H^2, H^3, H^4] as `u128`s from the H^4..H^1 registers of [`ladder4`].
            #[inline]
            pub fn powers_u128(pw: [__m128i; SMALL]) -> [u128; SMALL] {
                let mut out = [0; SMALL];
                for (o, v) in out.iter_mut().zip(pw.iter().rev()) {
                    store_u128(o, *v);
                }
                out
            }

            /// `v * x^-64 mod P`: the fold of one Montgomery reduction step (the low word times the
            /// fold constant, added to the value with its words swapped), linear in `v`.
            #[inline]
            fn fold(v: __m128i) -> __m128i {
                let k = _mm_set_epi64x(0, 0xc200_0000_0000_0000_u64 as i64);
                _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(v), _mm_clmulepi64_si128::<0x00>(v, k))
            }

            /// Hashes `N` blocks (1 to 4) against the kept H^N..H^1, `y` added to the first; reduced.
            /// POLYVAL's blocks after the first make their Karatsuba middles by a load 8 bytes before
            /// each (its high word is the block's `lo ^ hi`, see [`mul_acc_pair`]) instead of a
            /// `pshufd` each.
            #[inline]
            fn run_kept<const GHASH: bool, const N: usize>(y: __m128i, blocks: &[[u8; 16]; N], kept: &mut Kept<'_>) -> __m128i {
                let mut sum = acc_zero();
                for i in 0..N {
                    let x = load::<GHASH>(&blocks[i]);
                    let x = if i == 0 { _mm_xor_si128(x, y) } else { x };
                    let (lo, hi) = load_kept_halves(kept, N - i);
                    // `lo * lo`, `hi * hi` and the middle with each half of the power in the low
                    // word of a register of its own: no shuffle to pack the power or make its middle.
                    let mid = if GHASH || i == 0 {
                        let xx = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
                        _mm_clmulepi64_si128::<0x00>(xx, _mm_xor_si128(lo, hi))
                    } else {
                        // SAFETY: bytes `16 i - 8 .. 16 i + 8` of `blocks` (`1 <= i < N`), inside its
                        // `16 N` bytes; `loadu` needs no alignment.
                        let at = unsafe { _mm_loadu_si128(blocks.as_ptr().cast::<u8>().add(16 * i - 8).cast()) };
                        _mm_clmulepi64_si128::<0x01>(_mm_xor_si128(x, at), _mm_xor_si128(lo, hi))
                    };
                    sum.lo = _mm_xor_si128(sum.lo, _mm_clmulepi64_si128::<0x00>(x, lo));
                    sum.hi = _mm_xor_si128(sum.hi, _mm_clmulepi64_si128::<0x01>(x, hi));
                    sum.mid = _mm_xor_si128(sum.mid, mid);
                }
                reduce(sum)
            }

            /// Hashes up to four blocks against the kept powers they use, H^n..H^1 (which the state
            /// must hold: one block, or `len` of 4, as the caller checks), `y` added to the first;
            /// reduced. Straight-line code
            /// per length ([`run_kept`]): the powers are read as their halves, with no shuffle to pack
            /// a power or make its middle.
            #[inline]
            fn short_kept<const GHASH: bool>(y: __m128i, blocks: &[[u8; 16]], kept: &mut Kept<'_>) -> __m128i {
                if let Ok(b) = <&[[u8; 16]; 1]>::try_from(blocks) {
                    run_kept::<GHASH, 1>(y, b, kept)
                } else if let Ok(b) = <&[[u8; 16]; 2]>::try_from(blocks) {
                    run_kept::<GHASH, 2>(y, b, kept)
                } else if let Ok(b) = <&[[u8; 16]; 3]>::try_from(blocks) {
                    run_kept::<GHASH, 3>(y, b, kept)
                } else if let Ok(b) = <&[[u8; 16]; 4]>::try_from(blocks) {
                    run_kept::<GHASH, 4>(y, b, kept)
                } else {
                    y
                }
            }

            /// The low and high words of H^k from a state's kept powers, each in the low word of a
            /// register (8-byte loads, see [`load_kept`]). H^k must be stored, as for [`load_kept`].
            #[inline]
            fn load_kept_halves(kept: &mut Kept<'_>, k: usize) -> (__m128i, __m128i) {
                let p = kept.power_ptr(k).cast::<__m128i>();
                // `power_ptr` points to the 16 bytes of H^k (the low word first on x86),
                // initialized (it checked the count), in a table held exclusively.
                // SAFETY: both 8-byte reads lie in those 16 bytes, which nothing else accesses
                // meanwhile; `loadl` needs no alignment.
                unsafe { (_mm_loadl_epi64(p), _mm_loadl_epi64(p.cast::<u8>().add(8).cast())) }
            }

            /// Absorbs up to four blocks into `acc` with a keyed state's powers H^1..H^len (`len` 1
            /// or 4): what every x86 backend runs for a short input, called straight from the keyed
            /// state: a small function of its own, without the wide strides' stack frame and
            /// registers. Up to four blocks run against the kept powers they use, H^n..H^1 (computed
            /// and kept first, in registers, if the state holds H alone and the input has two blocks
            /// or more: [`kept4`]); a longer input goes to [`update_small`].
            pub fn update_short<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
                if blocks.len() > SMALL {
                    return update_small::<GHASH>(kept, acc, blocks);
                }
                let y = load_state(acc);
                let y = if blocks.len() <= 1 || kept.all() {
                    // The kept powers this input uses, H^n..H^1.
                    short_kept::<GHASH>(y, blocks, &mut kept)
                } else {
                    // Two to four blocks, H alone kept: H^2..H^4 computed and kept first.
                    let kept = kept4(&mut kept, |a, b| dot(a, b), |a| square(a));
                    let k = SMALL - blocks.len();
                    run_regs::<GHASH>(y, blocks, &kept[k..], &kept.map(|h| middle(h))[k..])
                };
                store_u128(acc, y);
            }

            /// Absorbs one block into `acc` with the state's H: the keyed state calls it straight,
            /// without [`update_short`]'s choice of lengths and its stack frame (a one-block update
            /// is a fresh or cloned state's whole message in `polyval`'s and `ghash`'s benches).
            pub fn update_one<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, block: &[u8; 16]) {
                let y = run_kept::<GHASH, 1>(load_state(acc), core::array::from_ref(block), &mut kept);
                store_u128(acc, y);
            }

            /// Absorbs five to seven blocks into `acc` with a keyed state's powers H^1..H^len (`len`
            /// 1 or 4): four against H^4..H^1 (computed and kept first if the state holds H alone:
            /// [`kept4`]), reduced, then the rest against the powers they use (Horner's rule over
            /// the two runs), on 128-bit registers: no table and no wide registers for a few blocks
            /// more than the kept powers cover.
            pub fn update_mid<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
                let n = blocks.len();
                if n <= SMALL {
                    return update_short::<GHASH>(kept, acc, blocks);
                }
                if n >= STRIDE {
                    return update_small::<GHASH>(kept, acc, blocks);
                }
                let (head, tail) = blocks.split_at(SMALL);
                // H^4..H^1 and their middles, in registers for both runs (the tail's are not read
                // back from the state, where `kept4` may just have stored them: the compiler
                // would take those loads' values from the stores' registers through general
                // ones).
                let kept = kept4(&mut kept, |a, b| dot(a, b), |a| square(a));
                let mids = kept.map(|h| middle(h));
                let y = run_regs::<GHASH>(load_state(acc), head, &kept, &mids);
                // One call per tail length, each with constant bounds: straight-line code.
                let y = match tail.len() {
                    1 => run_regs::<GHASH>(y, tail, &kept[3..], &mids[3..]),
                    2 => run_regs::<GHASH>(y, tail, &kept[2..], &mids[2..]),
                    _ => run_regs::<GHASH>(y, tail, &kept[1..], &mids[1..]),
                };
                store_u128(acc, y);
            }

            /// Absorbs `blocks` into `acc` with a keyed state's powers H^1..H^len (`len` 1 or 4): up to
            /// seven blocks as [`update_short`] and [`update_mid`] do; more by
            /// [`crate::wide::hash_kept`], below [`SHORT_STRIDES_BELOW`] blocks in strides of 4
            /// against the kept H^4..H^1, from there in strides of 8 against H^8..H^1, H^8..H^5
            /// computed for the call from the kept ones (computed and kept first if the state
            /// holds H alone: [`kept4`]).
            pub fn update_small<const GHASH: bool>(mut kept: Kept<'_>, acc: &mut u128, blocks: &[[u8; 16]]) {
                if blocks.len() < STRIDE {
                    return update_mid::<GHASH>(kept, acc, blocks);
                }
                let [h4, h3, h2, h1] = kept4(&mut kept, |a, b| dot(a, b), |a| square(a));
                // SAFETY: this function has the tier's features, those of `__m128i`'s
                // `wide::Lanes` (PCLMULQDQ, SSE2, SSSE3).
                let y = unsafe {
                    if blocks.len() < SHORT_STRIDES_BELOW {
                        crate::wide::hash_kept::<__m128i, GHASH, SMALL, true>(&[h1, h2, h3, h4], load_state(acc), blocks)
                    } else {
                        crate::wide::hash_kept::<__m128i, GHASH, STRIDE, true>(&[h1, h2, h3, h4], load_state(acc), blocks)
                    }
                };
                store_u128(acc, y);
            }

            /// [H, H^2, H^3, H^4] in POLYVAL's domain ([`ladder4`]).
            #[inline]
            pub fn powers4(h: u128) -> [u128; 4] {
                powers_u128(ladder4(from_u128(h), |a, b| dot(a, b), |a| square(a)))
            }

        }
    };
}

pclmul_items!("pclmulqdq", "sse2", "ssse3");

/// The same items compiled with AVX as well, so VEX-encoded: the short path of the AVX2 and
/// AVX-512 backends (whose detection includes `avx`) runs from here. VEX code does not pay
/// the SSE/AVX transition that legacy-SSE code pays on Intel's cores after a caller left the
/// upper halves of the vector registers dirty (RustCrypto's `polyval` 0.7 is VEX-encoded
/// too), and its three-operand forms need no register copies.
#[allow(dead_code)]
pub mod vex {
    #[cfg(target_arch = "x86")]
    use core::arch::x86::*;
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::*;

    use super::{Acc, SHORT_STRIDES_BELOW, STRIDE};
    use crate::powers::{Kept, SMALL};

    pclmul_items!("pclmulqdq", "sse2", "ssse3", "avx");
}
