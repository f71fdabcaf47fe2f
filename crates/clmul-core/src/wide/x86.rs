//! [`Lanes`] on x86's three register widths: `xmm` (PCLMULQDQ), `ymm` and `zmm` (VPCLMULQDQ).
//! Their instructions differ only in name, so one macro writes the three implementations from
//! a table of intrinsics; what a width changes beyond names is passed in as overriding
//! methods, visibly, below (`ymm`: loads into the top lane; `zmm`: masked partial loads and
//! stores, `vpternlogq`).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::Lanes;

/// Writes `impl Lanes for $ty` (plus the `overrides`, methods in place of the trait's
/// defaults). `$from128` puts a block in every lane, `$zext` in lane 0 only, `$to128` takes
/// lane 0, `$fold` XORs the lanes into one block.
macro_rules! x86_lanes {
    (
        lanes: $ty:ident, blocks: $blocks:expr,
        zero: $zero:ident, load: $load:ident, store: $store:ident,
        xor: $xor:ident, and: $and:ident,
        shuffle_bytes: $pshufb:ident, shuffle_words: $pshufd:ident,
        unpack: ($unpacklo:ident, $unpackhi:ident),
        clmul: $clmul:ident, blend_odd: $blend:ident,
        from128: $from128:ident, zext: $zext:ident, to128: $to128:ident, fold: $fold:ident,
        overrides: { $($item:item)* }
    ) => {
        impl Lanes for $ty {
            const BLOCKS: usize = $blocks;
            const PAIRED_MIDDLES: bool = false;
            const MIDDLES_BY_LOADS: bool = true;

            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: the caller runs with this type's features.
                unsafe { $zero() }
            }

            #[inline(always)]
            unsafe fn load(p: *const u8) -> Self {
                // SAFETY: the caller guarantees 16 * BLOCKS readable bytes; no alignment.
                unsafe { $load(p.cast()) }
            }

            #[inline(always)]
            unsafe fn store(p: *mut u8, v: Self) {
                // SAFETY: the caller guarantees 16 * BLOCKS writable bytes.
                unsafe { $store(p.cast(), v) }
            }

            #[inline(always)]
            unsafe fn prefetch(p: *const u8) {
                // SAFETY: SSE, which every x86 backend's and engine's features include;
                // `PREFETCHT0` accesses no memory and never faults, whatever the address.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) }
            }

            #[inline(always)]
            unsafe fn broadcast(b: &[u8; 16]) -> Self {
                // SAFETY: 16 readable bytes; the caller's features.
                unsafe { $from128(_mm_loadu_si128(b.as_ptr().cast())) }
            }

            #[inline(always)]
            unsafe fn from_lane0(b: &[u8; 16]) -> Self {
                // SAFETY: as above.
                unsafe { $zext(_mm_loadu_si128(b.as_ptr().cast())) }
            }

            #[inline(always)]
            unsafe fn lane0(v: Self) -> [u8; 16] {
                let mut b = [0u8; 16];
                // SAFETY: 16 writable bytes; the caller's features.
                unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), $to128(v)) };
                b
            }

            #[inline(always)]
            unsafe fn from_words(w: &[u32; 16]) -> Self {
                // SAFETY: 64 readable bytes, of which the register takes 16 * BLOCKS.
                unsafe { $load(w.as_ptr().cast()) }
            }

            #[inline(always)]
            unsafe fn xor(a: Self, b: Self) -> Self {
                // SAFETY: the caller's features (in every method below too).
                unsafe { $xor(a, b) }
            }

            #[inline(always)]
            unsafe fn and(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $and(a, b) }
            }

            #[inline(always)]
            unsafe fn reverse(v: Self) -> Self {
                // SAFETY: as above.
                unsafe {
                    let m = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                    $pshufb(v, $from128(m))
                }
            }

            #[inline(always)]
            unsafe fn swap_halves(v: Self) -> Self {
                // SAFETY: as above.
                unsafe { $pshufd::<0x4e>(v) }
            }

            #[inline(always)]
            unsafe fn blend_odd(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $blend(a, b) }
            }

            #[inline(always)]
            unsafe fn zip_lo(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $unpacklo(a, b) }
            }

            #[inline(always)]
            unsafe fn zip_hi(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $unpackhi(a, b) }
            }

            #[inline(always)]
            unsafe fn clmul_lo(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $clmul::<0x00>(a, b) }
            }

            #[inline(always)]
            unsafe fn clmul_hi(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $clmul::<0x11>(a, b) }
            }

            #[inline(always)]
            unsafe fn clmul_hi_lo(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $clmul::<0x01>(a, b) }
            }

            #[inline(always)]
            unsafe fn clmul_lo_hi(a: Self, b: Self) -> Self {
                // SAFETY: as above.
                unsafe { $clmul::<0x10>(a, b) }
            }

            #[inline(always)]
            unsafe fn fold_lanes(v: Self) -> Self {
                // SAFETY: as above.
                unsafe { $zext($fold(v)) }
            }

            $($item)*
        }
    };
}

x86_lanes! {
    lanes: __m128i, blocks: 1,
    zero: _mm_setzero_si128, load: _mm_loadu_si128, store: _mm_storeu_si128,
    xor: _mm_xor_si128, and: _mm_and_si128,
    shuffle_bytes: _mm_shuffle_epi8, shuffle_words: _mm_shuffle_epi32,
    unpack: (_mm_unpacklo_epi64, _mm_unpackhi_epi64),
    clmul: _mm_clmulepi64_si128, blend_odd: blend_odd128,
    from128: same, zext: same, to128: same, fold: same,
    overrides: {}
}

/// The low word of `a` and the high word of `b`: `movsd` (SSE2; on Intel's cores since Ice
/// Lake off port 5, where `pblendw` would need SSE4.1, which the AES-NI engine does not
/// check).
///
/// # Safety
/// The CPU has SSE2.
#[inline(always)]
unsafe fn blend_odd128(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: forwarded from the caller.
    unsafe { _mm_castpd_si128(_mm_move_sd(_mm_castsi128_pd(b), _mm_castsi128_pd(a))) }
}

/// The register as it is (one lane: broadcasting, widening and folding are nothing).
///
/// # Safety
/// None (`unsafe` for the table's sake: its other entries are intrinsics).
#[inline(always)]
unsafe fn same(v: __m128i) -> __m128i {
    v
}

#[cfg(target_arch = "x86_64")]
x86_lanes! {
    lanes: __m256i, blocks: 2,
    zero: _mm256_setzero_si256, load: _mm256_loadu_si256, store: _mm256_storeu_si256,
    xor: _mm256_xor_si256, and: _mm256_and_si256,
    shuffle_bytes: _mm256_shuffle_epi8, shuffle_words: _mm256_shuffle_epi32,
    unpack: (_mm256_unpacklo_epi64, _mm256_unpackhi_epi64),
    clmul: _mm256_clmulepi64_epi128, blend_odd: blend_odd256,
    from128: _mm256_broadcastsi128_si256, zext: _mm256_zextsi128_si256,
    to128: _mm256_castsi256_si128, fold: fold256,
    overrides: {
        #[inline(always)]
        unsafe fn load_partial(p: *const u8, n: usize) -> Self {
            // SAFETY: the caller guarantees `n` readable bytes at `p` (all 32 read when `n`
            // is 32 or more, the first 16 and `n - 16` after them when it is 16 or more); the
            // caller's features.
            unsafe {
                if n >= 32 {
                    _mm256_loadu_si256(p.cast())
                } else if n >= 16 {
                    let hi = load_short(p.add(16), n - 16);
                    _mm256_inserti128_si256::<1>(
                        _mm256_castsi128_si256(_mm_loadu_si128(p.cast())),
                        hi,
                    )
                } else {
                    _mm256_zextsi128_si256(load_short(p, n))
                }
            }
        }

        #[inline(always)]
        unsafe fn store_partial(p: *mut u8, n: usize, v: Self) {
            // SAFETY: as above, for writes.
            unsafe {
                if n >= 32 {
                    _mm256_storeu_si256(p.cast(), v)
                } else if n >= 16 {
                    _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(v));
                    store_short(p.add(16), n - 16, _mm256_extracti128_si256::<1>(v));
                } else {
                    store_short(p, n, _mm256_castsi256_si128(v));
                }
            }
        }

        #[inline(always)]
        unsafe fn load_top(p: *const u8, _: usize) -> Self {
            // SAFETY: the caller guarantees 16 readable bytes (`n` is 1, the only value
            // below two lanes); the caller's features.
            unsafe { _mm256_inserti128_si256::<1>(_mm256_setzero_si256(), _mm_loadu_si128(p.cast())) }
        }

        #[inline(always)]
        unsafe fn lane0_to_top(v: Self, n: usize) -> Self {
            // SAFETY: the caller's features.
            unsafe {
                if n == 1 {
                    // Lane 0 of `v` to lane 1, lane 0 zeroed.
                    _mm256_permute2x128_si256::<0x08>(v, v)
                } else {
                    _mm256_zextsi128_si256(_mm256_castsi256_si128(v))
                }
            }
        }
    }
}

/// The `n < 16` bytes at `p`, zero-padded to a block: built in general registers from a few
/// word loads inside the `n` bytes ([`pad_block`](crate::soft::pad_block)) and moved over
/// whole, instead of being copied into a stack buffer, which costs a `memcpy` call for a
/// length known only at run time and then a vector load that no store forwards to (together
/// about 25 ns of a 400-byte AES-GCM message with 16 bytes of AAD on AMD Zen 3). The branches
/// are on `n`, a public length.
///
/// The 256-bit registers' partial loads use it on their partial lane; the 128-bit registers
/// keep the trait's stack copy: in the AES-NI engine, the constant-time check's disassembly
/// analysis could not tell the branches on lengths that follow these pieces from branches on
/// data (its registers and stack slots are "may hold data" across the tail loop).
///
/// # Safety
/// `n` bytes at `p` are readable; the CPU has SSE2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn load_short(p: *const u8, n: usize) -> __m128i {
    if n == 0 {
        // SAFETY: the caller's features.
        return unsafe { _mm_setzero_si128() };
    }
    // SAFETY: the caller guarantees `n` readable bytes at `p` (`pad_block` reads at most
    // 15 of them, all inside the slice).
    let b = crate::soft::pad_block(unsafe { core::slice::from_raw_parts(p, n.min(15)) });
    // SAFETY: 16 readable bytes; the caller's features.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// Stores the first `n < 16` bytes of `v` to `p`: `v` is stored whole to the stack, and eight,
/// four, two and one bytes of it, as the bits of `n` say, are read back and stored to `p` (no
/// `memcpy` call; see [`load_short`]). The reads back are volatile: the compiler would
/// otherwise take the pieces from the vector register itself (`vmovq`, `vpextrq`), moving
/// data into general-purpose registers as values, which the constant-time check's disassembly
/// rules refuse in a SIMD kernel; read from memory, they are loads of the stack slot the
/// register was stored to, which it tracks as data.
///
/// # Safety
/// `n` bytes at `p` are writable; the CPU has SSE2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store_short(p: *mut u8, n: usize, v: __m128i) {
    // 16-byte aligned, so that each piece below is read at its own alignment.
    let mut b = [0u128; 1];
    let src = b.as_mut_ptr().cast::<u8>();
    // SAFETY: 16 writable bytes; the caller's features.
    unsafe { _mm_storeu_si128(src.cast(), v) };
    let mut at = 0;
    // SAFETY: each write lies inside the caller's `n` writable bytes: the pieces' sizes are
    // the bits of `n < 16`, taken from the largest, so they end at `n`. Each read lies inside
    // `b` at a multiple of its size (`at` is a sum of larger powers of two).
    unsafe {
        if n & 8 != 0 {
            let w = src.add(at).cast::<u64>().read_volatile();
            p.add(at).cast::<u64>().write_unaligned(w);
            at += 8;
        }
        if n & 4 != 0 {
            let w = src.add(at).cast::<u32>().read_volatile();
            p.add(at).cast::<u32>().write_unaligned(w);
            at += 4;
        }
        if n & 2 != 0 {
            let w = src.add(at).cast::<u16>().read_volatile();
            p.add(at).cast::<u16>().write_unaligned(w);
            at += 2;
        }
        if n & 1 != 0 {
            p.add(at).write(src.add(at).read_volatile());
        }
    }
}

/// The even words of `a`, the odd ones of `b`: `vpblendd`.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn blend_odd256(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: forwarded from the caller.
    unsafe { _mm256_blend_epi32::<0xcc>(a, b) }
}

/// The XOR of the two 128-bit lanes.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fold256(v: __m256i) -> __m128i {
    // SAFETY: forwarded from the caller.
    unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)) }
}

#[cfg(target_arch = "x86_64")]
x86_lanes! {
    lanes: __m512i, blocks: 4,
    zero: _mm512_setzero_si512, load: _mm512_loadu_si512, store: _mm512_storeu_si512,
    xor: _mm512_xor_si512, and: _mm512_and_si512,
    shuffle_bytes: _mm512_shuffle_epi8, shuffle_words: _mm512_shuffle_epi32,
    unpack: (_mm512_unpacklo_epi64, _mm512_unpackhi_epi64),
    clmul: _mm512_clmulepi64_epi128, blend_odd: blend_odd512,
    from128: _mm512_broadcast_i32x4, zext: _mm512_zextsi128_si512,
    to128: _mm512_castsi512_si128, fold: fold512,
    overrides: {
        #[inline(always)]
        unsafe fn load_partial(p: *const u8, n: usize) -> Self {
            // SAFETY: the caller guarantees `n` readable bytes at `p` and this type's
            // features; `load_window` reads at most 64 of them.
            unsafe { load_window(p, n.min(64), 0) }
        }

        #[inline(always)]
        unsafe fn load_top(p: *const u8, n: usize) -> Self {
            let len = 16 * n.clamp(1, 3);
            // SAFETY: the caller guarantees `16 n` readable bytes at `p` and this type's
            // features; they go to bytes `64 - len..64`.
            unsafe { load_window(p, len, 64 - len) }
        }

        #[inline(always)]
        unsafe fn lane0_to_top(v: Self, n: usize) -> Self {
            let lane = 4 - n.clamp(1, 4);
            // SAFETY: the caller's features.
            unsafe { _mm512_maskz_broadcast_i32x4(0xf << (4 * lane), _mm512_castsi512_si128(v)) }
        }

        #[inline(always)]
        unsafe fn store_partial(p: *mut u8, n: usize, v: Self) {
            // SAFETY: the caller guarantees `n` (at most 64) writable bytes at `p` and this
            // type's features.
            unsafe { store_window(p, n.min(64), v) }
        }

        #[inline(always)]
        unsafe fn truncate(v: Self, n: usize) -> Self {
            // SAFETY: the caller runs with this type's features.
            unsafe { _mm512_maskz_mov_epi8(byte_mask(n), v) }
        }

        #[inline(always)]
        unsafe fn xor3_native(a: Self, b: Self, c: Self) -> Self {
            // SAFETY: as above.
            unsafe { _mm512_ternarylogic_epi64::<0x96>(a, b, c) }
        }
    }
}

/// The even words of `a`, the odd ones of `b`: a masked blend.
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn blend_odd512(a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: forwarded from the caller.
    unsafe { _mm512_mask_blend_epi64(0xaa, a, b) }
}

/// The start of a 64-byte window that holds the `len` bytes at `p` (`len <= 64`) and touches
/// no page they do not: `want` (a window that holds them) if it does, else the nearest one
/// that does. Masked
/// loads and stores run on such windows only. One whose masked-off bytes lie on an
/// inaccessible page does not fault, but the CPU suppresses the fault with a microcode assist,
/// hundreds of cycles each (measured on Intel, an AES-GCM message of 400 bytes ending at a page
/// followed by an inaccessible one: 490 ns, against 95 ns elsewhere). The bytes' pages are
/// accessible; a window between the first one's start and the last one's end (4 KiB, the
/// smallest page) touches nothing else. Addresses are public (no secret decides them).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn window_in_pages(p: usize, len: usize, want: usize) -> usize {
    const PAGE: usize = 4096;
    // The common case first, in one compare: `want` lies on one page, which then is the
    // bytes' (it holds at least one of them).
    if len > 0 && want & (PAGE - 1) <= PAGE - 64 {
        return want;
    }
    let first = p & !(PAGE - 1);
    let last_end = (p.wrapping_add(len.max(1) - 1) & !(PAGE - 1)).wrapping_add(PAGE);
    want.clamp(first, last_end.wrapping_sub(64).max(first))
}

/// The `len` bytes at `p` (`len <= 64`) at bytes `at..at + len` of a register (`at + len <=
/// 64`), zero elsewhere: one masked load of a window on their pages ([`window_in_pages`]);
/// where that window is not the one the register is (a buffer ending or starting within 64
/// bytes of an inaccessible page), the bytes are moved into place through the stack.
///
/// # Safety
/// `len` bytes are readable at `p`; the CPU has AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn load_window(p: *const u8, len: usize, at: usize) -> __m512i {
    let want = (p as usize).wrapping_sub(at);
    let d = (p as usize).wrapping_sub(window_in_pages(p as usize, len, want));
    // SAFETY: the mask selects the caller's `len` bytes (window bytes `d..d + len`), the only
    // ones accessed; the masked-off bytes lie on their pages (no assist). `d + len <= 64`
    // (the window holds the bytes), so the shifted mask keeps them all.
    let v = unsafe { _mm512_maskz_loadu_epi8(mask_at(len, d), p.wrapping_sub(d).cast()) };
    if d == at {
        return v;
    }
    // Down by `d - at` (which may be negative): `64 + d - at` lies in `len..=128 - len`, as
    // both `d` and `at` are at most `64 - len`.
    // SAFETY: the caller's features.
    unsafe { through_stack(v, 64 + d - at) }
}

/// Bytes `0..len` of `v` to `p` (`len <= 64`): one masked store on a window on their pages
/// ([`window_in_pages`]), the bytes moved into its place through the stack where that window
/// does not start at `p`.
///
/// # Safety
/// `len` bytes are writable at `p`; the CPU has AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store_window(p: *mut u8, len: usize, v: __m512i) {
    let d = (p as usize).wrapping_sub(window_in_pages(p as usize, len, p as usize));
    let v = if d == 0 {
        v
    } else {
        // Up by `d` (`d < 64`): byte `d + i` of the result is byte `i` of `v`.
        // SAFETY: `64 - d <= 128`; the caller's features.
        unsafe { through_stack(v, 64 - d) }
    };
    // SAFETY: the mask selects window bytes `d..d + len`, the caller's `len` writable bytes,
    // the only ones written; the masked-off bytes lie on their pages (no assist).
    unsafe { _mm512_mask_storeu_epi8(p.wrapping_sub(d).cast(), mask_at(len, d), v) }
}

/// `v` moved by whole bytes through the stack: `v` at bytes `64..128` of a zeroed 192-byte
/// buffer, the result read from `from` (at most 128), so byte `i` of the result is byte
/// `i + from - 64` of `v`, or zero outside it. The store's offset is fixed: the disassembly
/// check of `cargo xtask ct` takes a vector store at a variable stack offset to put data
/// anywhere in the frame.
///
/// # Safety
/// `from <= 128`; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn through_stack(v: __m512i, from: usize) -> __m512i {
    let mut buf = [0u8; 192];
    // SAFETY: both accesses are 64 bytes inside `buf` (`from + 64 <= 192`, the caller's
    // bound); the caller's features.
    unsafe {
        _mm512_storeu_si512(buf.as_mut_ptr().add(64).cast(), v);
        _mm512_loadu_si512(buf.as_ptr().add(from).cast())
    }
}

/// The byte mask of the first `n` bytes of a register (all of them from 64 on).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn byte_mask(n: usize) -> __mmask64 {
    if n >= 64 { !0 } else { (1u64 << n) - 1 }
}

/// The byte mask of bytes `at..at + len` of a register (`at + len <= 64`). `at` is 64 only
/// with `len` 0, whose mask is empty: the shift wraps to 0 instead of overflowing.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mask_at(len: usize, at: usize) -> __mmask64 {
    byte_mask(len).wrapping_shl(at as u32)
}

/// The XOR of the four 128-bit lanes.
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fold512(v: __m512i) -> __m128i {
    // SAFETY: forwarded from the caller.
    unsafe {
        let a = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
        _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a))
    }
}

#[cfg(all(test, target_arch = "x86_64", target_os = "linux", not(miri)))]
mod tests {
    extern crate std;

    use super::*;
    use std::vec::Vec;

    const PAGE: usize = 4096;

    /// Two readable and writable pages between two inaccessible ones (never unmapped: a
    /// test's worth of memory); the first usable byte.
    fn guarded() -> *mut u8 {
        unsafe extern "C" {
            fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64)
            -> *mut u8;
            fn mprotect(addr: *mut u8, len: usize, prot: i32) -> i32;
        }
        // PROT_READ | PROT_WRITE; MAP_PRIVATE | MAP_ANONYMOUS; PROT_NONE.
        const RW: i32 = 3;
        const ANON: i32 = 0x02 | 0x20;
        const NONE: i32 = 0;
        // SAFETY: a fresh anonymous mapping of four pages (checked against MAP_FAILED), whose
        // first and last pages are then made inaccessible; nothing else is touched.
        unsafe {
            let base = mmap(core::ptr::null_mut(), 4 * PAGE, RW, ANON, -1, 0);
            assert!(base as isize != -1, "mmap");
            assert_eq!(mprotect(base, PAGE, NONE), 0);
            assert_eq!(mprotect(base.add(3 * PAGE), PAGE, NONE), 0);
            base.add(PAGE)
        }
    }

    /// `load_window` of `len` bytes at `p` into bytes `at..`, stored to an array.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn load(p: *const u8, len: usize, at: usize) -> [u8; 64] {
        let mut out = [0u8; 64];
        // SAFETY: forwarded from the caller; `out` is 64 writable bytes.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), load_window(p, len, at)) };
        out
    }

    /// `store_window` of the first `len` bytes of `v` to `p`.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn store(p: *mut u8, len: usize, v: &[u8; 64]) {
        // SAFETY: forwarded from the caller; `v` is 64 readable bytes.
        unsafe { store_window(p, len, _mm512_loadu_si512(v.as_ptr().cast())) }
    }

    /// The masked loads and stores of partial registers at every offset within 130 bytes of
    /// the usable pages' ends and of the boundary between them (so windows on one page, the
    /// shifted windows at an inaccessible page, and windows across the boundary), every
    /// length and register position: the caller's bytes and nothing else, read or written.
    #[test]
    fn windows_at_page_edges() {
        if !(std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw"))
        {
            std::eprintln!("note: no AVX-512BW on this CPU, masked windows not tested");
            return;
        }
        let base = guarded();
        let pattern = |i: usize| (i.wrapping_mul(151) >> 3) as u8 ^ 0xa5;
        // Every access to the pages goes through `base` (no reference to them is held).
        let peek = |i: usize| {
            assert!(i < 2 * PAGE);
            // SAFETY: `i` is within the usable bytes at `base` (checked above).
            unsafe { base.add(i).read() }
        };
        let poke = |i: usize, b: u8| {
            assert!(i < 2 * PAGE);
            // SAFETY: `i` is within the usable bytes at `base` (checked above).
            unsafe { base.add(i).write(b) }
        };
        for i in 0..2 * PAGE {
            poke(i, pattern(i));
        }
        let starts: Vec<usize> = (0..130)
            .chain(PAGE - 130..PAGE + 130)
            .chain(2 * PAGE - 130..2 * PAGE)
            .collect();
        let v: [u8; 64] = core::array::from_fn(|i| 0x80 | i as u8);
        for &start in &starts {
            for len in 0..=64.min(2 * PAGE - start) {
                for at in 0..=64 - len {
                    // SAFETY: `len` readable bytes at `start`; the CPU has the features.
                    let got = unsafe { load(base.add(start), len, at) };
                    for (i, &g) in got.iter().enumerate() {
                        let want = if (at..at + len).contains(&i) {
                            pattern(start + i - at)
                        } else {
                            0
                        };
                        assert_eq!(g, want, "load {start}+{len} at {at}, byte {i}");
                    }
                }
                // SAFETY: `len` writable bytes at `start`; the CPU has the features.
                unsafe { store(base.add(start), len, &v) };
                for i in start.saturating_sub(64)..(start + len + 64).min(2 * PAGE) {
                    let want = if (start..start + len).contains(&i) {
                        v[i - start]
                    } else {
                        pattern(i)
                    };
                    assert_eq!(peek(i), want, "store {start}+{len}, byte {i}");
                    poke(i, pattern(i));
                }
            }
        }
    }
}
