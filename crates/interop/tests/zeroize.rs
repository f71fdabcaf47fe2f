//! With the `zeroize` features (enabled for this crate's dev-dependencies), dropping a keyed
//! state wipes its key material: the key table (powers of H and their Karatsuba halves) and
//! the accumulator of `clmul-core`'s `Hasher` (and so `polyval::Polyval`, `ghash::GHash`),
//! the fused engines' AES round keys, and the `aes` crate's round keys inside `AesGcm`.
//!
//! Method: the state is built in a zero-filled `MaybeUninit` slot, its bytes are read, it is
//! dropped in place with `ptr::drop_in_place`, and the slot is read again. The slot is still
//! ours after the drop (the value's storage outlives its destructor), so the bytes left are
//! exactly what the destructor left behind. Before the drop the state must be mostly non-zero
//! (a check that cannot fail is a defect); after it, only bookkeeping may remain (backend
//! tags, the count of computed powers, round counts), and neither the raw key nor any 16-byte
//! block of the live state may be found.

use aes_gcm::{__Engine as Engine, AesGcm, aead::KeyInit, aead::array::typenum::U12};
use clmul_core::Backend;
use core::mem::{MaybeUninit, size_of};
use core::ptr;
use polyval::universal_hash::UniversalHash;

/// Bytes of `*p`, read one at a time with volatile reads (so the reads after the drop are
/// not optimised away as reads of dead memory).
///
/// # Safety
///
/// `p` must point to `size_of::<T>()` readable bytes that were zero-filled before the value
/// was written (so that padding bytes hold zeros rather than uninitialised memory).
unsafe fn bytes<T>(p: *const T) -> Vec<u8> {
    (0..size_of::<T>())
        // SAFETY: in bounds of the slot, per the caller's contract.
        .map(|i| unsafe { ptr::read_volatile(p.cast::<u8>().add(i)) })
        .collect()
}

/// (bytes before the drop, bytes after) for the value `make` builds (after `prepare` ran on
/// it in place).
fn residue<T>(make: impl FnOnce() -> T, prepare: impl FnOnce(&mut T)) -> (Vec<u8>, Vec<u8>) {
    let mut slot = MaybeUninit::<T>::zeroed();
    let value = slot.write(make());
    prepare(value);
    let p = slot.as_mut_ptr();
    // SAFETY: the slot was zero-filled and then holds an initialised `T`.
    let before = unsafe { bytes(p) };
    // SAFETY: `p` holds an initialised `T` that is dropped exactly once here and never used
    // as a `T` again (the slot is a `MaybeUninit`, which does not drop its contents).
    unsafe { ptr::drop_in_place(p) };
    // SAFETY: the slot's storage is still live (it is a local); only its bytes are read.
    let after = unsafe { bytes(p) };
    (before, after)
}

/// The assertions, with a one-line report (`cargo test -- --nocapture` shows them).
fn check(name: &str, key: &[u8], (before, after): (Vec<u8>, Vec<u8>)) {
    let nz = |v: &[u8]| v.iter().filter(|&&b| b != 0).count();
    eprintln!(
        "{name}: {} bytes, non-zero before drop {}, after drop {}",
        before.len(),
        nz(&before),
        nz(&after)
    );
    assert!(
        nz(&before) >= 48,
        "{name}: the live state is (almost) all zero, the test proves nothing"
    );
    assert!(
        nz(&after) <= 24,
        "{name}: {} non-zero bytes survive the drop",
        nz(&after)
    );
    assert!(
        !after.windows(key.len()).any(|w| w == key),
        "{name}: the raw key survives the drop"
    );
    for blk in before.chunks_exact(16).filter(|b| nz(b) > 4) {
        assert!(
            !after.windows(16).any(|w| w == blk),
            "{name}: a 16-byte block of the live state survives the drop"
        );
    }
}

const KEY: [u8; 32] = *b"zeroize me: 32 bytes of key!!!!!";

#[test]
fn hash_states_are_wiped_on_drop() {
    let h: [u8; 16] = KEY[..16].try_into().unwrap();
    let data = [[0x5au8; 16]; 40];
    for b in Backend::available() {
        // 40 blocks: the widest stride's powers are computed and the accumulator is non-zero.
        check(
            &format!("clmul_core::Polyval/{b:?}"),
            &h,
            residue(
                || clmul_core::Polyval::with_backend(&h, b).unwrap(),
                |s| s.update(&data),
            ),
        );
        check(
            &format!("ghash::GHash/{b:?}"),
            &h,
            residue(
                || ghash::GHash::__with_backend(&h.into(), b).unwrap(),
                |s| {
                    s.__precompute();
                    s.update_padded(data.as_flattened());
                },
            ),
        );
    }
    check(
        "polyval::Polyval",
        &h,
        residue(
            || polyval::Polyval::new(&h.into()),
            |s| s.update_padded(data.as_flattened()),
        ),
    );
}

#[test]
fn aes_gcm_is_wiped_on_drop() {
    for e in Engine::available() {
        check(
            &format!("Aes128Gcm/{e:?}"),
            &KEY[..16],
            residue(
                || AesGcm::<aes::Aes128, U12>::with_engine(&KEY[..16].try_into().unwrap(), e).unwrap(),
                |_| {},
            ),
        );
        check(
            &format!("Aes256Gcm/{e:?}"),
            &KEY,
            residue(
                || AesGcm::<aes::Aes256, U12>::with_engine(&KEY.into(), e).unwrap(),
                |_| {},
            ),
        );
    }
    for b in Backend::available() {
        check(
            &format!("Aes128Gcm/Generic/{b:?}"),
            &KEY[..16],
            residue(
                || {
                    AesGcm::<aes::Aes128, U12>::__with_ghash_backend(
                        aes::Aes128::new(&KEY[..16].try_into().unwrap()),
                        b,
                    )
                    .unwrap()
                },
                |_| {},
            ),
        );
    }
}
