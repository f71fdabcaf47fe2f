//! The MemorySanitizer check of `cargo xtask ct` builds with `--cfg ct_taint`, which swaps a
//! few instructions MSan handles strictly for code computing the same value. This test, in the
//! shipped build, checks that the swap is exact: the wide hash's `xor3` on `zmm` registers
//! (`vpternlogq`) against two XORs.
#![cfg(target_arch = "x86_64")]

use clmul_core::__private::avx512;
use clmul_core::wide::Lanes;
use core::arch::x86_64::*;

#[test]
#[cfg_attr(
    miri,
    ignore = "Miri does not implement vpternlogq (its AVX-512 row enables the features at compile time)"
)]
fn xor3_is_two_xors() {
    if !avx512::available() {
        eprintln!("note: this CPU lacks the AVX-512 tier; skipping");
        return;
    }
    let mut s = 0x243f_6a88_85a3_08d3_u64;
    let mut word = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s as i64
    };
    for _ in 0..10_000 {
        let [a, b, c]: [[i64; 8]; 3] = core::array::from_fn(|_| core::array::from_fn(|_| word()));
        let load = |v: &[i64; 8]| {
            // SAFETY: AVX-512F was detected above; `v` is 64 readable bytes.
            unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
        };
        let (a, b, c) = (load(&a), load(&b), load(&c));
        // SAFETY: the AVX-512 tier was detected above (AVX-512F, `__m512i`'s features).
        let (x, y) = unsafe {
            (
                __m512i::xor3_native(a, b, c),
                _mm512_xor_si512(a, _mm512_xor_si512(b, c)),
            )
        };
        let (mut xs, mut ys) = ([0i64; 8], [0i64; 8]);
        // SAFETY: as above; 64 writable bytes each.
        unsafe {
            _mm512_storeu_si512(xs.as_mut_ptr().cast(), x);
            _mm512_storeu_si512(ys.as_mut_ptr().cast(), y);
        }
        assert_eq!(xs, ys);
    }
}
