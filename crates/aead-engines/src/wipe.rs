//! Clearing secret temporaries (AES-GCM-SIV's derivation blocks, derived keys and scratch
//! plaintext) with stores the compiler may not drop: volatile writes, sixteen bytes at a time,
//! then a compiler fence. Active with the feature `siv-wipe` (which `zeroize` implies); a
//! no-op otherwise.
//!
//! (`zeroize` on a byte slice writes byte by byte: 176 bytes of per-message keys cost about a
//! store a byte, a fifth of a 16-byte message's encryption.)
//!
//! And [`Wiped`], the holder of the AEAD types' keys, which with the feature `zeroize` clears
//! every byte a key occupied once the key is dropped, the enum's padding included.
#![allow(unsafe_code)]

use core::mem::ManuallyDrop;

/// A key whose bytes, padding included, are cleared when it is dropped (with the feature
/// `zeroize`; without it, an ordinary holder).
///
/// The key enums' fields wipe themselves (the fused engines' round keys, the cipher's with its
/// own `zeroize`, the hash key), but an enum whose variants differ in size has bytes that
/// belong to no field of the smaller one, and a move copies them whole: a key built where the
/// stack held a copy of the raw key carried that copy into its padding, past the end of its
/// generic variant (found by the zeroize test on aarch64 in the forced-portable build, where
/// `KeyInit` makes generic AES-GCM keys). So the value is dropped first (its fields' own
/// wipes, then their heap blocks freed), then every byte of its place is cleared.
pub struct Wiped<T>(ManuallyDrop<T>);

impl<T> Wiped<T> {
    /// Holds `value`.
    #[inline]
    pub const fn new(value: T) -> Self {
        Self(ManuallyDrop::new(value))
    }
}

impl<T> core::ops::Deref for Wiped<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> Clone for Wiped<T> {
    #[inline]
    fn clone(&self) -> Self {
        Self::new(T::clone(&self.0))
    }
}

impl<T> Drop for Wiped<T> {
    fn drop(&mut self) {
        // SAFETY: the value is dropped here and nowhere else (the field is a `ManuallyDrop`,
        // which the drop glue leaves alone), and is not used as a `T` again: only its bytes are
        // written below.
        unsafe { ManuallyDrop::drop(&mut self.0) };
        // SAFETY: the place is this value's own `size_of::<T>()` bytes, writable through
        // `&mut self`; the dead value's bytes may hold anything, zeros included.
        #[cfg(feature = "zeroize")]
        unsafe {
            clear(
                core::ptr::from_mut(&mut self.0).cast::<u8>(),
                core::mem::size_of::<T>(),
            )
        };
    }
}

/// Writes zeros over the `len` bytes at `p` with volatile stores, sixteen bytes at a time, then
/// a compiler fence.
///
/// # Safety
///
/// `p` must be valid for writes of `len` bytes, and nothing may rely on their old values (any
/// bytes, padding and uninitialised ones too; no alignment is needed).
#[cfg(feature = "siv-wipe")]
#[inline]
pub(crate) unsafe fn clear(p: *mut u8, len: usize) {
    let mut at = 0;
    while at + 16 <= len {
        // SAFETY: `p + at .. p + at + 16` lies within the caller's `len` writable bytes
        // (`at + 16 <= len`); `[u8; 16]` needs no alignment.
        unsafe { p.add(at).cast::<[u8; 16]>().write_volatile([0; 16]) };
        at += 16;
    }
    while at < len {
        // SAFETY: as above, one byte within them (`at < len`).
        unsafe { p.add(at).write_volatile(0) };
        at += 1;
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// Clears `bytes`.
#[inline]
pub(crate) fn wipe(bytes: &mut [u8]) {
    // SAFETY: a `&mut [u8]` is valid for writes of its length.
    #[cfg(feature = "siv-wipe")]
    unsafe {
        clear(bytes.as_mut_ptr(), bytes.len())
    };
    #[cfg(not(feature = "siv-wipe"))]
    let _ = bytes;
}

#[cfg(test)]
mod wiped_tests {
    extern crate std;

    use super::Wiped;
    use core::cell::Cell;
    use core::mem::MaybeUninit;

    /// A value that counts its drops, with bytes to clear.
    struct Counted<'a>(&'a Cell<u32>, [u8; 37]);

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    /// The held value is dropped exactly once, and (with `zeroize`) every byte of the holder's
    /// place, padding included, is zero afterwards.
    #[test]
    fn drops_once_then_clears_its_place() {
        let drops = Cell::new(0);
        let mut slot = MaybeUninit::<Wiped<Counted<'_>>>::uninit();
        let held = slot.write(Wiped::new(Counted(&drops, [0xa5; 37])));
        assert_eq!(held.1, [0xa5; 37]);
        let p = slot.as_mut_ptr();
        // SAFETY: the slot holds an initialised value, dropped here once and never used as a
        // value again (the slot is a `MaybeUninit`, which does not drop its contents).
        unsafe { core::ptr::drop_in_place(p) };
        assert_eq!(drops.get(), 1);
        #[cfg(feature = "zeroize")]
        {
            let bytes: std::vec::Vec<u8> = (0..core::mem::size_of::<Wiped<Counted<'_>>>())
                // SAFETY: in bounds of the slot, whose storage is still live (a local); every
                // byte of it was written by the drop's clearing.
                .map(|i| unsafe { core::ptr::read_volatile(p.cast::<u8>().add(i)) })
                .collect();
            assert!(bytes.iter().all(|&b| b == 0), "{bytes:02x?}");
        }
    }

    /// A clone is a separate value: each is dropped once.
    #[test]
    fn clones_drop_apart() {
        #[derive(Clone)]
        struct C<'a>(&'a Cell<u32>);
        impl Drop for C<'_> {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let drops = Cell::new(0);
        let a = Wiped::new(C(&drops));
        let b = a.clone();
        drop(a);
        assert_eq!(drops.get(), 1);
        drop(b);
        assert_eq!(drops.get(), 2);
    }
}

#[cfg(all(test, feature = "siv-wipe"))]
mod tests {
    #[test]
    fn clears_every_length() {
        for len in 0..=40 {
            let mut v = [0xa5u8; 40];
            super::wipe(&mut v[..len]);
            assert!(v[..len].iter().all(|&b| b == 0));
            assert!(v[len..].iter().all(|&b| b == 0xa5));
        }
    }
}
