//! A buffer larger than any test machine's memory, for the over-limit tests of both suites
//! (AES-GCM's `hostile` module and AES-GCM-SIV's, `crates/gcm-siv/tests/suite/hostile.rs`).

/// Calls `f` with a `len`-byte buffer that is one `MAP_NORESERVE` anonymous mapping (address
/// space only, no memory until a page is touched), then checks that no page of it became
/// resident: `f` must have neither read nor written it. Skips (with a message) if the address
/// space cannot be reserved.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn untouched(len: usize, f: impl FnOnce(&mut [u8])) {
    // SAFETY: an anonymous private mapping with no address hint; the arguments are valid and
    // the result is checked for MAP_FAILED below.
    let ptr = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        eprintln!("skipped: cannot reserve {len} bytes of address space");
        return;
    }
    // SAFETY: `ptr` is a fresh, readable and writable, zero-filled mapping of `len` bytes
    // that nothing else refers to; it is unmapped only after `buf` is last used.
    let buf = unsafe { core::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) };
    f(buf);
    // No page of the mapping became resident: nothing was read or written.
    let pages = len.div_ceil(4096);
    let mut vec = vec![0u8; pages];
    // SAFETY: `ptr` is page-aligned and maps `len` bytes; `vec` has one byte per page.
    let rc = unsafe { libc::mincore(ptr, len, vec.as_mut_ptr()) };
    assert_eq!(rc, 0);
    assert!(
        vec.iter().all(|v| v & 1 == 0),
        "the refused buffer was touched"
    );
    // SAFETY: `ptr`/`len` is the mapping made above; `buf` is not used after this.
    unsafe { libc::munmap(ptr, len) };
}
