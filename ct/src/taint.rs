//! The taint checker this build runs under, behind one interface: Valgrind memcheck (the
//! default build, run under `valgrind`) or MemorySanitizer (`--cfg ct_taint` with
//! `-Zsanitizer=memory`, see [`crate::msan`]).

use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(ct_taint)]
use crate::msan as imp;
#[cfg(not(ct_taint))]
use crate::vg as imp;

/// The checker's name, as `cargo xtask ct` prints it.
pub const CHECKER: &str = if cfg!(ct_taint) { "msan" } else { "valgrind" };

/// Marks the bytes of `value` secret. (`&mut`: through a shared reference the compiler may
/// assume the bytes unchanged and keep using a copy it holds in a register, with the old
/// marking; the same for [`public`].)
pub fn secret<T: ?Sized>(value: &mut T) {
    imp::secret(value);
}

/// Marks the bytes of `value` public.
pub fn public<T: ?Sized>(value: &mut T) {
    imp::public(value);
}

/// Output bytes that depend on a secret but were found without its marking, since the last
/// [`take_lost`].
static LOST: AtomicUsize = AtomicUsize::new(0);

/// Checks that every byte of `out`, which depends on a secret, still carries the marking: a
/// byte without it means the checker lost track of the secret somewhere (an instruction it
/// models strictly, an `asm!` block), and would not see what is computed from it later.
/// MemorySanitizer can be asked; Valgrind cannot without reporting, so there it is not checked.
pub fn expect_secret(out: &[u8]) {
    #[cfg(ct_taint)]
    LOST.fetch_add(crate::msan::public_bytes(out), Ordering::Relaxed);
    #[cfg(not(ct_taint))]
    let _ = out;
}

/// The bytes [`expect_secret`] found unmarked since the last call; `None` under Valgrind.
pub fn take_lost() -> Option<usize> {
    let n = LOST.swap(0, Ordering::Relaxed);
    cfg!(ct_taint).then_some(n)
}

/// Reports so far, if the checker can count them from inside (Valgrind's
/// `VG_USERREQ__COUNT_ERRORS`); MSan's are counted from its report stream by `cargo xtask ct`.
pub fn errors() -> Option<usize> {
    #[cfg(ct_taint)]
    return None;
    #[cfg(not(ct_taint))]
    Some(crate::vg::error_count())
}
