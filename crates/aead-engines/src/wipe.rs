//! Clearing secret temporaries (AES-GCM-SIV's derivation blocks, derived keys and scratch
//! plaintext) with stores the compiler may not drop: volatile writes, sixteen bytes at a time,
//! then a compiler fence. Active with the feature `siv-wipe` (which `zeroize` implies); a
//! no-op otherwise.
//!
//! (`zeroize` on a byte slice writes byte by byte: 176 bytes of per-message keys cost about a
//! store a byte, a fifth of a 16-byte message's encryption.)
#![allow(unsafe_code)]

/// Clears `bytes`.
#[inline]
pub(crate) fn wipe(bytes: &mut [u8]) {
    #[cfg(feature = "siv-wipe")]
    {
        let (chunks, rest) = bytes.as_chunks_mut::<16>();
        for c in chunks {
            // SAFETY: `c` is a valid `&mut [u8; 16]`, so the pointer is non-null, aligned
            // (arrays of bytes need no alignment) and writable for 16 bytes.
            unsafe { core::ptr::write_volatile(c, [0; 16]) };
        }
        for b in rest {
            // SAFETY: as above, for one byte.
            unsafe { core::ptr::write_volatile(b, 0) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
    #[cfg(not(feature = "siv-wipe"))]
    let _ = bytes;
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
