//! With the `zeroize` features (enabled for this crate's dev-dependencies), dropping a keyed
//! state wipes its key material: the key table (powers of H and their Karatsuba halves) and
//! the accumulator of `clmul-core`'s `Hasher` (and so `polyval::Polyval`, `ghash::GHash`),
//! the fused engines' AES round keys, and the `aes` crate's round keys inside `AesGcm` and
//! `AesGcmSiv`.
//!
//! Method: the state is built in a zero-filled `MaybeUninit` slot, its bytes are read (by
//! `asm!` loads, [`raw_byte`]: some fields stay uninitialised until used), it is
//! dropped in place with `ptr::drop_in_place`, and the slot is read again. The slot is still
//! ours after the drop (the value's storage outlives its destructor), so the bytes left are
//! exactly what the destructor left behind. A key on the generic path may keep its cipher on
//! the heap (the `alloc` feature, on x86 and little-endian aarch64 outside the forced-portable
//! build; inline elsewhere): the allocation the state makes, if any, is watched by this binary's
//! global allocator, read while live, and copied as the destructor left it when it is freed;
//! its bytes are checked with the slot's (the pointer to it zeroed in the slot's). Before the drop the state must be mostly non-zero
//! (a check that cannot fail is a defect); after it, only bookkeeping may remain (backend
//! tags, the count of computed powers, round counts), and neither the raw key nor any 16-byte
//! block of the live state may be found.

use aes_gcm::{__Engine as Engine, AesGcm, aead::KeyInit, aead::array::typenum::U12};
use clmul_core::Backend;
use core::cell::{Cell, RefCell};
use core::mem::{MaybeUninit, size_of};
use core::ptr;
use polyval::universal_hash::UniversalHash;
use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, watching the first allocation a thread makes while `WATCH` is set
/// (`heap_residue`): its address and size while it lives, its bytes when it is freed.
struct Watch;

/// The largest allocation watched (the `aes` crate's `Aes256` with its portable backend, and
/// what AES-GCM keeps beside it, fit).
const WATCHED: usize = 2048;

thread_local! {
    static WATCH: Cell<bool> = const { Cell::new(false) };
    /// Address and size of the watched allocation (0, 0 if none).
    static BLOCK: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// The watched allocation's bytes when it was freed, and their count.
    static FREED: RefCell<([u8; WATCHED], usize)> = const { RefCell::new(([0; WATCHED], 0)) };
}

// SAFETY: every call is forwarded to `System` with its arguments unchanged; the bookkeeping
// allocates nothing and reads only the block being freed, before it is freed.
unsafe impl GlobalAlloc for Watch {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc(layout) };
        let watching = WATCH.try_with(Cell::get).unwrap_or(false);
        if watching && BLOCK.try_with(Cell::get) == Ok((0, 0)) && layout.size() <= WATCHED {
            let _ = BLOCK.try_with(|b| b.set((p as usize, layout.size())));
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if BLOCK
            .try_with(Cell::get)
            .is_ok_and(|(at, _)| at != 0 && at == p as usize)
        {
            let _ = FREED.try_with(|f| {
                let mut f = f.borrow_mut();
                for i in 0..layout.size() {
                    // SAFETY: `p` is a live block of `layout.size()` bytes until freed below.
                    f.0[i] = unsafe { raw_byte(p.add(i)) };
                }
                f.1 = layout.size();
            });
            let _ = BLOCK.try_with(|b| b.set((0, 0)));
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(p, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Watch = Watch;

/// The byte at `p` as the machine holds it, loaded by `asm!`: the load's result is an
/// initialised `u8` whatever the abstract machine holds there (a field a state leaves
/// uninitialised until it needs it, such as `clmul_core`'s kept powers above H and its
/// explicit padding, or padding that a typed copy into the slot did not copy), where a Rust
/// read of such a byte would be undefined behaviour; and an `asm!` block is never removed, so
/// the reads after the drop are not optimised away as reads of dead memory. On the
/// architectures without a load written here, a volatile read.
///
/// # Safety
///
/// `p` must be readable.
unsafe fn raw_byte(p: *const u8) -> u8 {
    /// One `asm!` load of the byte at `$p` by `$load` into a `$t` register of class `$class`.
    #[allow(unused_macros)]
    macro_rules! load {
        ($load:literal, $p:expr, $t:ty, $class:ident) => {{
            let v: $t;
            // SAFETY: `$p` is readable (the caller's contract); the load writes only `v`.
            unsafe {
                core::arch::asm!(
                    $load,
                    p = in(reg) $p,
                    v = out($class) v,
                    options(nostack, preserves_flags, readonly)
                )
            };
            v as u8
        }};
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    return load!("mov {v}, byte ptr [{p}]", p, u8, reg_byte);
    #[cfg(target_arch = "aarch64")]
    return load!("ldrb {v:w}, [{p}]", p, u32, reg);
    #[cfg(target_arch = "arm")]
    return load!("ldrb {v}, [{p}]", p, u32, reg);
    #[cfg(target_arch = "riscv64")]
    return load!("lbu {v}, 0({p})", p, u64, reg);
    #[cfg(not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64"
    )))]
    {
        // SAFETY: `p` is readable; the byte may be uninitialised (see above), which this
        // fallback reads as the machine holds it in practice.
        unsafe { ptr::read_volatile(p) }
    }
}

/// The `n` bytes at `p`, read one at a time by [`raw_byte`].
///
/// # Safety
///
/// `p` must point to `n` readable bytes.
unsafe fn bytes(p: *const u8, n: usize) -> Vec<u8> {
    (0..n)
        // SAFETY: in bounds, per the caller's contract.
        .map(|i| unsafe { raw_byte(p.add(i)) })
        .collect()
}

/// (bytes before the drop, bytes after) for the value `make` builds (after `prepare` ran on
/// it in place): the slot's bytes, then those of the first allocation `make` made, if any
/// (its address in the slot zeroed: it is not key material).
fn residue<T>(make: impl FnOnce() -> T, prepare: impl FnOnce(&mut T)) -> (Vec<u8>, Vec<u8>) {
    let mut slot = MaybeUninit::<T>::zeroed();
    BLOCK.set((0, 0));
    WATCH.set(true);
    let made = make();
    WATCH.set(false);
    let value = slot.write(made);
    prepare(value);
    let p = slot.as_mut_ptr();
    // SAFETY: the slot is `size_of::<T>()` readable bytes (it holds a `T`).
    let mut before = unsafe { bytes(p.cast(), size_of::<T>()) };
    let (at, len) = BLOCK.get();
    // SAFETY: the watched block is live (owned by the value in the slot, not yet dropped),
    // `len` bytes long and written by the value; it is only read.
    let heap_before = unsafe { bytes(at as *const u8, len) };
    FREED.with(|f| f.borrow_mut().1 = 0);
    // SAFETY: `p` holds an initialised `T` that is dropped exactly once here and never used
    // as a `T` again (the slot is a `MaybeUninit`, which does not drop its contents).
    unsafe { ptr::drop_in_place(p) };
    // SAFETY: the slot's storage is still live (it is a local); only its bytes are read.
    let mut after = unsafe { bytes(p.cast(), size_of::<T>()) };
    if len != 0 {
        let heap_after = FREED.with(|f| {
            let f = f.borrow();
            f.0[..f.1].to_vec()
        });
        assert_eq!(
            heap_after.len(),
            len,
            "the watched allocation was not freed by the drop"
        );
        let address = at.to_ne_bytes();
        for i in 0..before.len().saturating_sub(address.len() - 1) {
            if before[i..].starts_with(&address) {
                before[i..i + address.len()].fill(0);
                after[i..i + address.len()].fill(0);
            }
        }
        before.extend(heap_before);
        after.extend(heap_after);
    }
    (before, after)
}

/// The assertions, with a one-line report (`cargo test -- --nocapture` shows them).
///
/// `needles` are byte strings the live state must hold (the raw key or AES round key 0, and
/// H^1 as the key table stores it): each must be found before the drop (else the test proves
/// nothing) and nowhere after it.
///
/// `a` and `b` are the same state built with two different keys: the bytes where the two
/// live states differ are key-dependent. Key-dependent bytes may survive only in padding and
/// in the inactive variant of the `aes` crate's backend union, which no destructor owns: a
/// move into the slot copies whatever the stack held there, and that can be key-derived
/// (spills from key expansion). At most `slack` such bytes are tolerated, and listed.
fn check(name: &str, needles: &[&[u8]], a: (Vec<u8>, Vec<u8>), b: (Vec<u8>, Vec<u8>)) {
    check_with_slack(name, needles, a, b, 64);
}

/// Whether the `aes` crate runs on AES hardware here (it then stores the raw round keys, round
/// key 0 being the key itself). Its portable backend keeps bitsliced keys instead, and its
/// backend union is larger, so more of it is padding that no destructor owns.
fn hardware_aes() -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        std::is_x86_feature_detected!("aes")
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("aes")
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

fn check_with_slack(
    name: &str,
    needles: &[&[u8]],
    a: (Vec<u8>, Vec<u8>),
    b: (Vec<u8>, Vec<u8>),
    slack: usize,
) {
    let (before, after) = a;
    let found = |hay: &[u8], n: &[u8]| hay.windows(n.len()).any(|w| w == n);
    let secret: Vec<usize> = (0..before.len()).filter(|&i| before[i] != b.0[i]).collect();
    let left: Vec<usize> = secret.iter().copied().filter(|&i| after[i] != 0).collect();
    eprintln!(
        "{name}: {} bytes, {} key-dependent while live, {} of them non-zero after drop{}",
        before.len(),
        secret.len(),
        left.len(),
        if left.is_empty() {
            String::new()
        } else {
            format!(" (padding residue at {left:?})")
        }
    );
    for n in needles {
        assert!(
            found(&before, n),
            "{name}: the live state does not hold {n:02x?}"
        );
        // An occurrence after the drop fails the test if any of its bytes was key-dependent
        // in the live state (a field that held the key and was not wiped). Bytes that are the
        // same in both live states cannot be a field holding this key: they are stale stack
        // residue that a move copied into padding (both runs see the first run's key there),
        // which no destructor owns; such occurrences are reported, not failed.
        for i in (0..after.len().saturating_sub(n.len() - 1)).filter(|&i| after[i..].starts_with(n))
        {
            let owned = (i..i + n.len()).any(|j| before[j] != b.0[j]);
            assert!(!owned, "{name}: {n:02x?} survives the drop at offset {i}");
            eprintln!("{name}: stale copy of {n:02x?} in unowned padding at offset {i}");
        }
    }
    assert!(secret.len() >= 16, "{name}: hardly any key-dependent bytes");
    assert!(
        left.len() <= slack,
        "{name}: key material survives the drop at {left:?}"
    );
}

/// H^1 as a GHASH key table stores it: `mulX_POLYVAL(ByteReverse(H))`, little-endian.
fn ghash_h1(h: &[u8; 16]) -> [u8; 16] {
    // The table holds native-endian `u128`s (big-endian targets store them reversed).
    clmul_core::soft::mulx(u128::from_be_bytes(*h)).to_ne_bytes()
}

/// H^1 as a POLYVAL key table stores it: the key as a little-endian `u128`, in native order.
fn polyval_h1(k: &[u8]) -> [u8; 16] {
    u128::from_le_bytes(k[..16].try_into().unwrap()).to_ne_bytes()
}

/// `H = E_K(0^128)`, as AES-GCM derives it.
fn aes_h<A: cipher::BlockCipherEncrypt + KeyInit>(key: &[u8]) -> [u8; 16] {
    let c = A::new_from_slice(key).unwrap();
    let mut b = cipher::Block::<A>::default();
    c.encrypt_block(&mut b);
    b.as_slice().try_into().unwrap()
}

const KEY: [u8; 32] = *b"zeroize me: 32 bytes of key!!!!!";
const KEY2: [u8; 32] = *b"and me, a second key of 32 bytes";

#[test]
fn hash_states_are_wiped_on_drop() {
    let data = [[0x5au8; 16]; 40];
    for b in Backend::available() {
        // 40 blocks: the widest stride's powers are computed and the accumulator is non-zero.
        let polyval = |k: &[u8; 32]| {
            let h: [u8; 16] = k[..16].try_into().unwrap();
            residue(
                || clmul_core::Polyval::with_backend(&h, b).unwrap(),
                |s| s.update(&data),
            )
        };
        check(
            &format!("clmul_core::Polyval/{b:?}"),
            &[&polyval_h1(&KEY)],
            polyval(&KEY),
            polyval(&KEY2),
        );
        // 4 blocks: at most H^1..H^4 computed; the rest of the table was never written, but
        // holds whatever the stack held when the state was moved into place, and is wiped too.
        let short = |k: &[u8; 32]| {
            let h: [u8; 16] = k[..16].try_into().unwrap();
            residue(
                || clmul_core::Polyval::with_backend(&h, b).unwrap(),
                |s| s.update(&data[..4]),
            )
        };
        check(
            &format!("clmul_core::Polyval/{b:?}, 4 blocks"),
            &[&polyval_h1(&KEY)],
            short(&KEY),
            short(&KEY2),
        );
        let ghash = |k: &[u8; 32]| {
            let h: [u8; 16] = k[..16].try_into().unwrap();
            residue(
                || ghash::GHash::__with_backend(&h.into(), b).unwrap(),
                |s| {
                    s.__precompute();
                    s.update_padded(data.as_flattened());
                },
            )
        };
        let h1 = ghash_h1(KEY[..16].try_into().unwrap());
        check(
            &format!("ghash::GHash/{b:?}"),
            &[&h1],
            ghash(&KEY),
            ghash(&KEY2),
        );
    }
    let polyval = |k: &[u8; 32]| {
        let h: [u8; 16] = k[..16].try_into().unwrap();
        residue(
            || polyval::Polyval::new(&h.into()),
            |s| s.update_padded(data.as_flattened()),
        )
    };
    check(
        "polyval::Polyval",
        &[&polyval_h1(&KEY)],
        polyval(&KEY),
        polyval(&KEY2),
    );
}

#[test]
fn aes_gcm_is_wiped_on_drop() {
    // A fused key's table holds H^1 in POLYVAL's domain; the generic path's key holds
    // H = E_K(0) itself (AES round key 0 is the raw key itself, on every backend).
    let raw128 = aes_h::<aes::Aes128>(&KEY[..16]);
    let raw256 = aes_h::<aes::Aes256>(&KEY);
    let h128_fused = ghash_h1(&raw128);
    for e in Engine::available() {
        let (h128, h256) = if e == Engine::Generic {
            (raw128.to_vec(), raw256.to_vec())
        } else {
            (ghash_h1(&raw128).to_vec(), ghash_h1(&raw256).to_vec())
        };
        let g128 = |k: &[u8; 32]| {
            let k: &[u8; 16] = k[..16].try_into().unwrap();
            residue(
                || AesGcm::<aes::Aes128, U12>::with_engine(&(*k).into(), e).unwrap(),
                |_| {},
            )
        };
        // The generic engine keeps the `aes` crate's own round keys (see `hardware_aes`).
        let soft_aes = e == Engine::Generic && !hardware_aes();
        let slack = if soft_aes { 256 } else { 64 };
        let with_key = |h: &'static [u8]| -> Vec<&'static [u8]> {
            if soft_aes {
                vec![h]
            } else {
                vec![&KEY[..16], h]
            }
        };
        let h128: &'static [u8] = Box::leak(h128.into_boxed_slice());
        let h256: &'static [u8] = Box::leak(h256.into_boxed_slice());
        check_with_slack(
            &format!("Aes128Gcm/{e:?}"),
            &with_key(h128),
            g128(&KEY),
            g128(&KEY2),
            slack,
        );
        let g256 = |k: &[u8; 32]| {
            residue(
                || AesGcm::<aes::Aes256, U12>::with_engine(&(*k).into(), e).unwrap(),
                |_| {},
            )
        };
        check_with_slack(
            &format!("Aes256Gcm/{e:?}"),
            &with_key(h256),
            g256(&KEY),
            g256(&KEY2),
            slack,
        );
    }
    for b in Backend::available() {
        let g = |k: &[u8; 32]| {
            let k: &[u8; 16] = k[..16].try_into().unwrap();
            residue(
                || {
                    AesGcm::<aes::Aes128, U12>::__with_ghash_backend(
                        aes::Aes128::new(&(*k).into()),
                        b,
                    )
                    .unwrap()
                },
                |_| {},
            )
        };
        // With the `aes` crate's portable backend the raw key is not stored (bitsliced round
        // keys are), and its larger backend union leaves more unowned padding.
        let (needles, slack): (&[&[u8]], usize) = if hardware_aes() {
            (&[&KEY[..16], &raw128], 64)
        } else {
            (&[&raw128], 256)
        };
        check_with_slack(
            &format!("Aes128Gcm/Generic/{b:?}"),
            needles,
            g(&KEY),
            g(&KEY2),
            slack,
        );
    }
    // `KeyInit::new` itself (the path a program takes; `with_engine` above is our tests'):
    // the detected engine's key, or on a CPU without one the generic path's.
    let detected = Engine::detect();
    let (needles, slack): (Vec<&[u8]>, usize) = if detected != Engine::Generic {
        (vec![&KEY[..16], &h128_fused], 64)
    } else if hardware_aes() {
        (vec![&KEY[..16], &raw128], 64)
    } else {
        (vec![&raw128], 256)
    };
    let g = |k: &[u8; 32]| {
        let k: &[u8; 16] = k[..16].try_into().unwrap();
        residue(|| AesGcm::<aes::Aes128, U12>::new(&(*k).into()), |_| {})
    };
    check_with_slack(
        &format!("Aes128Gcm/KeyInit::new/{detected:?}"),
        &needles,
        g(&KEY),
        g(&KEY2),
        slack,
    );
}

#[test]
fn aes_gcm_siv_is_wiped_on_drop() {
    use aes_gcm_siv::AesGcmSiv;
    for e in aes_gcm_siv::__Engine::available() {
        // The generic path keeps only the `aes` crate's key schedule of the key-generating
        // key (see `hardware_aes`); a fused engine keeps our round keys as well.
        let soft_aes = e == aes_gcm_siv::__Engine::Generic && !hardware_aes();
        let (slack, needle): (usize, &[&[u8]]) = if soft_aes {
            (256, &[])
        } else {
            (64, &[&KEY[..16]])
        };
        let g128 = |k: &[u8; 32]| {
            let k: &[u8; 16] = k[..16].try_into().unwrap();
            residue(
                || AesGcmSiv::<aes::Aes128>::with_engine(&(*k).into(), e).unwrap(),
                |_| {},
            )
        };
        check_with_slack(
            &format!("Aes128GcmSiv/{e:?}"),
            needle,
            g128(&KEY),
            g128(&KEY2),
            slack,
        );
        let g256 = |k: &[u8; 32]| {
            residue(
                || AesGcmSiv::<aes::Aes256>::with_engine(&(*k).into(), e).unwrap(),
                |_| {},
            )
        };
        let needle256: &[&[u8]] = if soft_aes {
            &[]
        } else {
            &[&KEY[..16], &KEY[16..]]
        };
        check_with_slack(
            &format!("Aes256GcmSiv/{e:?}"),
            needle256,
            g256(&KEY),
            g256(&KEY2),
            slack,
        );
    }
}
