//! Valgrind client requests, issued with inline assembly (no C toolchain, no `valgrind.h`).
//!
//! A client request is a sequence of instructions that does nothing on a real CPU but that
//! Valgrind's JIT recognises. On x86_64 (`valgrind.h`, `VALGRIND_DO_CLIENT_REQUEST_EXPR` for
//! `PLAT_amd64_linux`) it is the "special instruction preamble"
//! `rol rdi,3; rol rdi,13; rol rdi,61; rol rdi,51` (128 bits of rotation in total, so `rdi`
//! comes back unchanged) followed by `xchg rbx,rbx`, with `rax` pointing at six machine words
//! (the request code and five arguments) and the result returned in `rdx`, which holds the
//! default value when not running under Valgrind.
//!
//! Request codes (valgrind 3.19 `valgrind.h` and `memcheck.h`): `VG_USERREQ__COUNT_ERRORS =
//! 0x1201`, and memcheck's tool requests starting at
//! `VG_USERREQ_TOOL_BASE('M','C') = 0x4d43_0000`: `MAKE_MEM_NOACCESS` (+0),
//! `MAKE_MEM_UNDEFINED` (+1), `MAKE_MEM_DEFINED` (+2).

const COUNT_ERRORS: usize = 0x1201;
const MC_BASE: usize = 0x4d43_0000;
const MAKE_MEM_UNDEFINED: usize = MC_BASE + 1;
const MAKE_MEM_DEFINED: usize = MC_BASE + 2;

#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn request(default: usize, code: usize, a1: usize, a2: usize) -> usize {
    let args: [usize; 6] = [code, a1, a2, 0, 0, 0];
    let mut result = default;
    // SAFETY: natively the four rotations of `rdi` add up to 128 bits (a multiple of 64, so
    // `rdi` is unchanged) and `xchg rbx, rbx` is a no-op; only the flags change, which `asm!`
    // assumes by default. Under Valgrind the sequence is a client request that reads the six
    // words at `rax` (`args`, alive and initialised for the whole block) and writes `rdx`.
    // No stack is used; memory is not declared untouched, so `args` is in memory before it.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: usize, _code: usize, _a1: usize, _a2: usize) -> usize {
    default
}

/// Errors Valgrind has reported so far (0 natively).
pub fn error_count() -> usize {
    request(0, COUNT_ERRORS, 0, 0)
}

/// Marks the bytes of `value` secret: memcheck reports any branch, memory address or system
/// call argument computed from them.
pub fn secret<T: ?Sized>(value: &mut T) {
    let len = core::mem::size_of_val(value);
    request(
        0,
        MAKE_MEM_UNDEFINED,
        core::ptr::from_mut(value).cast::<u8>() as usize,
        len,
    );
}

/// Marks the bytes of `value` public (the output of an operation whose result is public).
pub fn public<T: ?Sized>(value: &mut T) {
    let len = core::mem::size_of_val(value);
    request(
        0,
        MAKE_MEM_DEFINED,
        core::ptr::from_mut(value).cast::<u8>() as usize,
        len,
    );
}
