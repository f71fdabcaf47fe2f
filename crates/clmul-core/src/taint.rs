//! Declassification for the MemorySanitizer constant-time check of `cargo xtask ct`.
//!
//! That check builds everything with `-Zsanitizer=memory --cfg ct_taint` and marks the
//! secrets (keys, data, tags) as uninitialised memory, so that MSan reports every branch and
//! every memory address computed from them: the technique of Adam Langley's ctgrind and of
//! BoringSSL's constant-time validation, with MSan's shadow propagation instead of Valgrind's.
//! A value that is public by design, such as an authentication verdict that the caller receives
//! as `Ok`/`Err`, must then be declassified where it becomes public (BoringSSL's
//! `CONSTTIME_DECLASSIFY`), or the branch on it would be reported too. In every other build,
//! [`declassify`] is the identity.

/// `v`, marked public for the MemorySanitizer check (`--cfg ct_taint`); the identity otherwise.
#[inline(always)]
pub fn declassify<T: Copy>(v: T) -> T {
    #[cfg(ct_taint)]
    {
        unsafe extern "C" {
            /// MSan's runtime: marks `n` bytes at `p` initialised.
            fn __msan_unpoison(p: *const core::ffi::c_void, n: usize);
        }
        let v = v;
        // SAFETY: `ct_taint` builds carry `-Zsanitizer=memory` (lib.rs refuses to compile
        // otherwise), which links the MSan runtime that defines `__msan_unpoison`; it only
        // clears the shadow of the `size_of::<T>()` bytes of the live local `v`.
        unsafe { __msan_unpoison(core::ptr::from_ref(&v).cast(), core::mem::size_of::<T>()) };
        v
    }
    #[cfg(not(ct_taint))]
    v
}
