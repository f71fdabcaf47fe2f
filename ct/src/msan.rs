//! MemorySanitizer's client interface (compiler-rt `sanitizer/msan_interface.h`), for the
//! `ct_taint` build: the harness is then compiled with `-Zsanitizer=memory`, which links the
//! runtime that defines these functions (clmul-core refuses `ct_taint` without it).
//!
//! MSan keeps one shadow bit per bit of memory and registers, set where the value is
//! *uninitialised*, and propagates it through every computation; it reports a conditional
//! branch, a memory address, or a system call argument whose shadow is set. Marking secrets
//! uninitialised turns it into a taint checker for exactly the two timing channels
//! (control flow and addresses), the use of MSan that "Constant-Time Verification with
//! MemorySanitizer"-style checkers and BoringSSL's `CONSTTIME_SECRET` build on.

use core::ffi::c_void;

unsafe extern "C" {
    /// Marks `size` bytes at `p` uninitialised (as a fresh allocation), i.e. secret.
    fn __msan_allocated_memory(p: *const c_void, size: usize);
    /// Marks `size` bytes at `p` initialised, i.e. public.
    fn __msan_unpoison(p: *const c_void, size: usize);
    /// The offset of the first uninitialised byte of the `size` bytes at `p`, or -1.
    fn __msan_test_shadow(p: *const c_void, size: usize) -> isize;
}

/// Marks the bytes of `value` secret.
pub fn secret<T: ?Sized>(value: &mut T) {
    let len = core::mem::size_of_val(value);
    // SAFETY: the runtime is linked (see the module docs); it only writes the shadow of the
    // `len` bytes of the live `value`.
    unsafe { __msan_allocated_memory(core::ptr::from_mut(value).cast(), len) }
}

/// Marks the bytes of `value` public.
pub fn public<T: ?Sized>(value: &mut T) {
    let len = core::mem::size_of_val(value);
    // SAFETY: as in `secret`.
    unsafe { __msan_unpoison(core::ptr::from_mut(value).cast(), len) }
}

/// How many bytes of `bytes` carry no secret marking.
pub fn public_bytes(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .filter(|b| {
            // SAFETY: as in `secret`; reads only the shadow of one byte of `bytes`.
            unsafe { __msan_test_shadow(core::ptr::from_ref(*b).cast(), 1) < 0 }
        })
        .count()
}
