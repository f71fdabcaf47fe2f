//! Every backend against the portable reference on every input shape, and the portable
//! reference against the bit-at-a-time oracle.

use clmul_core::{Backend, Ghash, Hasher, Polyval, soft::oracle};
use rand::{Rng, RngCore, SeedableRng, rngs::SmallRng};

/// Under Miri everything is ~1000x slower: shrink the sweeps, keep every shape.
const MAX_LEN: usize = if cfg!(miri) { 140 } else { 4096 };

fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

fn random_bytes(rng: &mut SmallRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// The backends to compare, printing which ones this CPU lacks (they are skipped, loudly).
fn backends() -> Vec<Backend> {
    for b in Backend::ALL {
        if !b.is_available() {
            eprintln!(
                "note: this CPU lacks the {b} backend ({:?}); skipping it",
                b.features()
            );
        }
    }
    Backend::available().collect()
}

fn hash<const G: bool>(b: Backend, key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut h = Hasher::<G>::with_backend(key, b).expect("available");
    h.update_padded(data);
    h.finalize()
}

/// POLYVAL by Horner's rule on the oracle's field product.
fn oracle_polyval(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let h = u128::from_le_bytes(*key);
    let mut y = 0u128;
    for chunk in data.chunks(16) {
        let mut block = [0u8; 16];
        block[..chunk.len()].copy_from_slice(chunk);
        y = oracle::dot(y ^ u128::from_le_bytes(block), h);
    }
    y.to_le_bytes()
}

/// GHASH from its definition in GCM's reflected bit order (SP 800-38D, Algorithm 1):
/// independent of the POLYVAL reformulation the library uses.
fn oracle_ghash(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    fn gmul(x: u128, y: u128) -> u128 {
        // Bit 0 of the block is the MSB of the big-endian integer.
        const R: u128 = 0xe1 << 120;
        let (mut z, mut v) = (0u128, y);
        for i in 0..128 {
            if (x >> (127 - i)) & 1 == 1 {
                z ^= v;
            }
            v = if v & 1 == 1 { (v >> 1) ^ R } else { v >> 1 };
        }
        z
    }
    let h = u128::from_be_bytes(*key);
    let mut y = 0u128;
    for chunk in data.chunks(16) {
        let mut block = [0u8; 16];
        block[..chunk.len()].copy_from_slice(chunk);
        y = gmul(y ^ u128::from_be_bytes(block), h);
    }
    y.to_be_bytes()
}

#[test]
fn portable_matches_oracle() {
    let mut r = rng(10);
    let n = if cfg!(miri) { 70 } else { 600 };
    for len in 0..n {
        let key: [u8; 16] = r.random();
        let data = random_bytes(&mut r, len);
        assert_eq!(
            hash::<false>(Backend::Portable, &key, &data),
            oracle_polyval(&key, &data),
            "polyval len {len}"
        );
        assert_eq!(
            hash::<true>(Backend::Portable, &key, &data),
            oracle_ghash(&key, &data),
            "ghash len {len}"
        );
    }
}

/// All-ones keys and data: every lane of the masked multiply full (carry collisions), and the
/// top bit of every word set (shift and fold edge cases), through every backend.
#[test]
fn all_ones_every_backend() {
    let data = vec![0xffu8; 600];
    let key = [0xffu8; 16];
    for len in [0, 1, 15, 16, 17, 64, 127, 128, 129, 256, 511, 512, 513, 600] {
        let want_p = oracle_polyval(&key, &data[..len]);
        let want_g = oracle_ghash(&key, &data[..len]);
        for b in backends() {
            assert_eq!(
                hash::<false>(b, &key, &data[..len]),
                want_p,
                "{b} polyval len {len}"
            );
            assert_eq!(
                hash::<true>(b, &key, &data[..len]),
                want_g,
                "{b} ghash len {len}"
            );
        }
    }
}

/// Every length 0..=MAX_LEN through every backend, POLYVAL and GHASH, against the portable
/// backend. Hunts stride/tail boundary bugs (wrong power for a remainder block, a lost block).
#[test]
fn every_length_every_backend() {
    let mut r = rng(11);
    let key: [u8; 16] = r.random();
    let data = random_bytes(&mut r, MAX_LEN);
    for b in backends() {
        for len in 0..=MAX_LEN {
            let d = &data[..len];
            assert_eq!(
                hash::<false>(b, &key, d),
                hash::<false>(Backend::Portable, &key, d),
                "{b} polyval len {len}"
            );
            assert_eq!(
                hash::<true>(b, &key, d),
                hash::<true>(Backend::Portable, &key, d),
                "{b} ghash len {len}"
            );
        }
    }
}

/// Random split updates equal one-shot hashing, on every backend: hunts state carried wrongly
/// between calls (accumulator, lazily computed powers of H).
#[test]
fn split_updates_every_backend() {
    let mut r = rng(12);
    let rounds = if cfg!(miri) { 4 } else { 300 };
    for _ in 0..rounds {
        let key: [u8; 16] = r.random();
        let nblocks = r.random_range(0..=if cfg!(miri) { 40 } else { 200 });
        let data = random_bytes(&mut r, nblocks * 16);
        let (blocks, _) = data.as_chunks::<16>();
        let want = hash::<false>(Backend::Portable, &key, &data);
        let want_g = hash::<true>(Backend::Portable, &key, &data);
        for b in backends() {
            let mut p = Polyval::with_backend(&key, b).unwrap();
            let mut g = Ghash::with_backend(&key, b).unwrap();
            let mut rest = blocks;
            while !rest.is_empty() {
                let n = r.random_range(0..=rest.len());
                let (head, tail) = rest.split_at(n);
                p.update(head);
                g.update(head);
                rest = tail;
            }
            assert_eq!(p.finalize(), want, "{b} polyval split");
            assert_eq!(g.finalize(), want_g, "{b} ghash split");
        }
    }
}

/// A fresh state's first update of 1 to 17 blocks (one block uses H alone, as key setup keeps
/// it; two or more compute and keep H^2..H^4 first; on x86, five to seven run as four and the
/// rest, then strides of four against the kept powers (the PCLMULQDQ backend below 32 blocks,
/// the AVX-512 one below 16) or wider strides with H^5 and up computed for the call: both
/// sides of the AVX-512 backend's switch at 16), then updates that use the kept powers and
/// compute more of them.
#[test]
fn short_first_updates_every_backend() {
    let mut r = rng(21);
    let keys = if cfg!(miri) { 2 } else { 40 };
    for _ in 0..keys {
        let key: [u8; 16] = r.random();
        for first in 1..=17 {
            for second in [0, 1, 2, 3, 4, 5, 6, 7, 8, 33] {
                let data = random_bytes(&mut r, (first + second + 3) * 16);
                let (blocks, _) = data.as_chunks::<16>();
                let want = hash::<false>(Backend::Portable, &key, &data);
                let want_g = hash::<true>(Backend::Portable, &key, &data);
                for b in backends() {
                    let mut p = Polyval::with_backend(&key, b).unwrap();
                    let mut g = Ghash::with_backend(&key, b).unwrap();
                    for part in [
                        &blocks[..first],
                        &blocks[first..first + second],
                        &blocks[first + second..],
                    ] {
                        p.update(part);
                        g.update(part);
                    }
                    let ctx = format!("{b}: first {first} blocks, then {second}, then 3");
                    assert_eq!(p.finalize(), want, "polyval {ctx}");
                    assert_eq!(g.finalize(), want_g, "ghash {ctx}");
                }
            }
        }
    }
}

/// Long inputs around the 512-bit backend's switch to 32-block strides (from 256 blocks, with
/// H^17..H^32 computed for the call) and past it, with partial tails: hunts a wrong power in
/// the per-call table or a stride boundary off by one.
#[test]
fn long_inputs_every_backend() {
    let mut r = rng(22);
    let key: [u8; 16] = r.random();
    let blocks: &[usize] = if cfg!(miri) {
        &[256, 257]
    } else {
        &[255, 256, 257, 288, 300, 511, 512, 513, 1031]
    };
    let data = random_bytes(&mut r, 1031 * 16 + 15);
    for b in backends() {
        for &n in blocks {
            for tail in [0, 1, 15] {
                let d = &data[..16 * n + tail];
                assert_eq!(
                    hash::<false>(b, &key, d),
                    hash::<false>(Backend::Portable, &key, d),
                    "{b} polyval {n} blocks + {tail}"
                );
                assert_eq!(
                    hash::<true>(b, &key, d),
                    hash::<true>(Backend::Portable, &key, d),
                    "{b} ghash {n} blocks + {tail}"
                );
            }
        }
    }
}

/// Clones and forks (`fork`: a copy that computes no powers) taken at every stage of a
/// state's powers (key setup only, H; after a one-block update, still H alone; after the first
/// update of two blocks or more, which keeps H^2..H^4; after updates of more than four blocks,
/// of 32 or more and of 256 or more, which compute H^5..H^8, H^9..H^16 and H^17..H^32 for the
/// call only) each finish the same message as the original: hunts a copy that takes a partly
/// built table, or a state that counts powers it does not hold.
#[test]
fn clones_at_every_stage_every_backend() {
    let mut r = rng(23);
    let key: [u8; 16] = r.random();
    let stages = [1, 3, 6, 40, if cfg!(miri) { 10 } else { 300 }, 2];
    let total: usize = stages.iter().sum();
    let data = random_bytes(&mut r, total * 16);
    let (blocks, _) = data.as_chunks::<16>();
    let want = hash::<false>(Backend::Portable, &key, &data);
    let want_g = hash::<true>(Backend::Portable, &key, &data);
    for b in backends() {
        let mut p = Polyval::with_backend(&key, b).unwrap();
        let mut g = Ghash::with_backend(&key, b).unwrap();
        // A fork first, while the state holds H alone (a clone would keep H^2..H^4 in it).
        let mut clones = vec![(0, p.fork(), g.fork()), (0, p.clone(), g.clone())];
        let mut at = 0;
        for n in stages {
            p.update(&blocks[at..at + n]);
            g.update(&blocks[at..at + n]);
            at += n;
            clones.push((at, p.fork(), g.fork()));
            clones.push((at, p.clone(), g.clone()));
        }
        assert_eq!(p.finalize(), want, "{b} polyval original");
        assert_eq!(g.finalize(), want_g, "{b} ghash original");
        for (from, mut cp, mut cg) in clones {
            cp.update(&blocks[from..]);
            cg.update(&blocks[from..]);
            assert_eq!(cp.finalize(), want, "{b} polyval clone after {from} blocks");
            assert_eq!(cg.finalize(), want_g, "{b} ghash clone after {from} blocks");
        }
    }
}

/// States are `Send + Sync`: keyed on one thread and moved (or cloned) to others, or shared by
/// reference through `update_detached`, they hash as on the thread that made them.
#[test]
fn states_move_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Polyval>();
    assert_send_sync::<Ghash>();
    let mut r = rng(24);
    let key: [u8; 16] = r.random();
    let data = random_bytes(&mut r, if cfg!(miri) { 200 } else { 5000 });
    let want = hash::<false>(Backend::Portable, &key, &data);
    let want_g = hash::<true>(Backend::Portable, &key, &data);
    for b in backends() {
        let mut warm = Polyval::with_backend(&key, b).unwrap();
        warm.update_padded(&data);
        warm.reset();
        let fresh = Ghash::with_backend(&key, b).unwrap();
        let (p, g) = std::thread::scope(|s| {
            let moved = s.spawn({
                let mut warm = warm.clone();
                let data = &data;
                move || {
                    warm.update_padded(data);
                    warm.finalize()
                }
            });
            let shared = s.spawn(|| {
                let mut acc = [0u8; 16];
                fresh.update_detached_padded(&mut acc, &data);
                acc
            });
            (moved.join().unwrap(), shared.join().unwrap())
        });
        assert_eq!(p, want, "{b} polyval moved to another thread");
        assert_eq!(g, want_g, "{b} ghash shared with another thread");
    }
}

/// A fresh keyed state (H alone) shared by reference between threads, each cloning it and
/// hashing its own message or hashing through `update_detached` at the same time: the first
/// `clone`/`update_detached` stores H^2..H^4 into the shared state while others may read it.
/// Every result equals the portable backend's, the clones are equal to clones taken after the
/// powers settled, and the shared state itself still hashes as a fresh one.
#[test]
fn shared_state_clones_and_detached_updates_race() {
    let mut r = rng(25);
    let (rounds, lens): (usize, &[usize]) = if cfg!(miri) {
        (1, &[16, 48, 65])
    } else {
        (20, &[16, 17, 48, 64, 65, 130, 512, 4100])
    };
    for round in 0..rounds {
        let key: [u8; 16] = r.random();
        let data = random_bytes(&mut r, lens[lens.len() - 1]);
        let want: Vec<_> = lens
            .iter()
            .map(|&n| {
                (
                    hash::<false>(Backend::Portable, &key, &data[..n]),
                    hash::<true>(Backend::Portable, &key, &data[..n]),
                )
            })
            .collect();
        for b in backends() {
            let p = Polyval::with_backend(&key, b).unwrap();
            let g = Ghash::with_backend(&key, b).unwrap();
            std::thread::scope(|s| {
                for (i, &n) in lens.iter().enumerate() {
                    let (p, g, data, want) = (&p, &g, &data, &want);
                    s.spawn(move || {
                        let mut cp = p.clone();
                        cp.update_padded(&data[..n]);
                        let mut acc = [0u8; 16];
                        g.update_detached_padded(&mut acc, &data[..n]);
                        let mut cg = g.clone();
                        cg.update_padded(&data[..n]);
                        let ctx = format!("{b} round {round}: {n} bytes");
                        assert_eq!(cp.finalize(), want[i].0, "polyval clone, {ctx}");
                        assert_eq!(acc, want[i].1, "ghash detached, {ctx}");
                        assert_eq!(cg.finalize(), want[i].1, "ghash clone, {ctx}");
                    });
                }
            });
            let (mut p, mut g) = (p, g);
            p.update_padded(&data);
            g.update_padded(&data);
            assert_eq!(
                p.finalize(),
                hash::<false>(Backend::Portable, &key, &data),
                "{b}"
            );
            assert_eq!(
                g.finalize(),
                hash::<true>(Backend::Portable, &key, &data),
                "{b}"
            );
        }
    }
}

/// GHASH on every backend (byte reflection folded into each one's loads): every length, split
/// updates, clones at each stage of the kept powers, `set_state`/`finalize` round trips and
/// `update_detached`, against the portable backend. Hunts a reflection missed where the
/// accumulator meets the outside.
#[test]
fn ghash_every_shape_every_backend() {
    let mut r = rng(25);
    let key: [u8; 16] = r.random();
    let data = random_bytes(&mut r, MAX_LEN + 16 * 300);
    let (blocks, _) = data.as_chunks::<16>();
    for b in backends() {
        let make = || Ghash::with_backend(&key, b).expect("available");
        for len in (0..=MAX_LEN).chain([16 * 300, 16 * 300 + 5]) {
            let d = &data[..len];
            let mut g = make();
            g.update_padded(d);
            assert_eq!(
                g.finalize(),
                hash::<true>(Backend::Portable, &key, d),
                "{b} len {len}"
            );
        }
        for _ in 0..if cfg!(miri) { 2 } else { 50 } {
            let n = r.random_range(0..=blocks.len());
            let want = hash::<true>(Backend::Portable, &key, &data[..16 * n]);
            let mut g = make();
            let mut clones = Vec::new();
            let mut rest = &blocks[..n];
            let mut at = 0;
            while !rest.is_empty() {
                let k = r.random_range(1..=rest.len());
                g.update(&rest[..k]);
                at += k;
                rest = &rest[k..];
                clones.push((at, g.clone()));
                // A round trip through the accumulator's outside form changes nothing.
                let mid = g.finalize();
                let mut resumed = make();
                resumed.set_state(&mid);
                assert_eq!(resumed.finalize(), mid, "{b} set_state round trip");
            }
            assert_eq!(g.finalize(), want, "{b} split, {n} blocks");
            for (from, mut c) in clones {
                c.update(&blocks[from..n]);
                assert_eq!(c.finalize(), want, "{b} clone after {from} of {n} blocks");
            }
            let mut acc = [0u8; 16];
            let fresh = make();
            fresh.update_detached(&mut acc, &blocks[..n / 3]);
            fresh.update_detached(&mut acc, &blocks[n / 3..n]);
            assert_eq!(acc, want, "{b} detached, {n} blocks");
        }
    }
}

/// Inputs at every alignment: the kernels use unaligned loads and must not assume more.
#[test]
fn unaligned_inputs_every_backend() {
    let mut r = rng(13);
    let key: [u8; 16] = r.random();
    let buf = random_bytes(&mut r, 1100);
    let (offsets, lens): (usize, &[usize]) = if cfg!(miri) {
        (17, &[0, 16, 48, 100, 513])
    } else {
        (64, &[0, 16, 48, 100, 256, 512, 1000])
    };
    for b in backends() {
        for off in 0..offsets {
            for &len in lens {
                let d = &buf[off..off + len];
                let copy = d.to_vec();
                assert_eq!(
                    hash::<false>(b, &key, d),
                    hash::<false>(Backend::Portable, &key, &copy),
                    "{b} off {off} len {len}"
                );
                assert_eq!(
                    hash::<true>(b, &key, d),
                    hash::<true>(Backend::Portable, &key, &copy),
                    "{b} off {off} len {len}"
                );
            }
        }
    }
}

/// Inputs that start or end on a 4 KiB boundary: the 512-bit backend reads the first, partial
/// register of a long input with a masked load that reaches back before the input; where that
/// would cross into the previous page (no fault, but a microcode assist if that page is
/// inaccessible) it loads a window on the input's page and moves the bytes into place through
/// the stack; the result must not change.
#[test]
fn page_boundary_inputs_every_backend() {
    const PAGE: usize = 4096;
    let mut r = rng(15);
    let key: [u8; 16] = r.random();
    let arena = random_bytes(&mut r, 4 * PAGE);
    let first = (arena.as_ptr() as usize + PAGE).next_multiple_of(PAGE) - arena.as_ptr() as usize;
    let lens: Vec<usize> = if cfg!(miri) {
        vec![80, 112, 500]
    } else {
        (0..=40)
            .map(|b| 16 * b)
            .chain([16 * 255, 16 * 257])
            .collect()
    };
    for b in backends() {
        for &len in &lens {
            for d in [&arena[first..first + len], &arena[first - len..first]] {
                let copy = d.to_vec();
                assert_eq!(
                    hash::<false>(b, &key, d),
                    hash::<false>(Backend::Portable, &key, &copy),
                    "{b} len {len}"
                );
                assert_eq!(
                    hash::<true>(b, &key, d),
                    hash::<true>(Backend::Portable, &key, &copy),
                    "{b} len {len}"
                );
            }
        }
    }
}

/// A cloned state continues independently; `reset` keeps the key; `set_state` resumes.
#[test]
fn clone_reset_set_state_every_backend() {
    let mut r = rng(14);
    let key: [u8; 16] = r.random();
    let data = random_bytes(&mut r, 777);
    for b in backends() {
        let mut h = Polyval::with_backend(&key, b).unwrap();
        h.update_padded(&data[..300]);
        let mid = h.finalize();
        let mut c = h.clone();
        c.update_padded(&data[300..]);
        let mut resumed = Polyval::with_backend(&key, b).unwrap();
        resumed.set_state(&mid);
        resumed.update_padded(&data[300..]);
        assert_eq!(c.finalize(), resumed.finalize());
        assert_eq!(h.finalize(), mid);
        h.reset();
        h.update_padded(&data);
        assert_eq!(h.finalize(), hash::<false>(Backend::Portable, &key, &data));
    }
}

#[test]
fn detection_is_consistent() {
    let d = Backend::detect();
    assert!(d.is_available());
    assert!(Backend::Portable.is_available());
    if cfg!(polyval_backend = "soft") {
        // The forced-portable build detects the portable backend whatever the CPU has.
        assert_eq!(d, Backend::Portable);
    } else {
        assert_eq!(Backend::available().last(), Some(d));
    }
    // The default constructor runs on the detected backend.
    assert_eq!(Polyval::new(&[1; 16]).backend(), d);
    for b in Backend::ALL {
        if !b.is_available() {
            assert!(Polyval::with_backend(&[0; 16], *b).is_none());
        }
    }
    eprintln!(
        "detected backend: {d}; available: {:?}",
        Backend::available().collect::<Vec<_>>()
    );
}

/// RFC 8452 Appendix A POLYVAL vector through every backend, and GHASH's.
#[test]
fn published_vectors_every_backend() {
    let h = hex16("25629347589242761d31f826ba4b757b");
    let mut data = hex16("4f4f95668c83dfb6401762bb2d01a262").to_vec();
    data.extend(hex16("d1a24ddd2721d006bbe45f20d3c9f362"));
    for b in backends() {
        assert_eq!(
            hash::<false>(b, &h, &data),
            hex16("f7a3b47b846119fae5b7866cf5e5b77e"),
            "{b}"
        );
        assert_eq!(
            hash::<true>(b, &h, &data),
            hex16("bd9b3997046731fb96251b91f9c99d7a"),
            "{b}"
        );
    }
}

fn hex16(s: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

/// `update_detached` (the `&self` path the AEAD uses) equals `update`, with and without the
/// powers precomputed (strides shrink to the powers available).
#[test]
fn detached_updates_every_backend() {
    let mut r = rng(15);
    let key: [u8; 16] = r.random();
    let data = random_bytes(&mut r, 16 * 100);
    let (blocks, _) = data.as_chunks::<16>();
    for b in backends() {
        for n in [0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100] {
            let want = {
                let mut h = Ghash::with_backend(&key, b).unwrap();
                h.update(&blocks[..n]);
                h.finalize()
            };
            let fresh = Ghash::with_backend(&key, b).unwrap();
            let mut acc = [0u8; 16];
            fresh.update_detached(&mut acc, &blocks[..n]);
            assert_eq!(acc, want, "{b} n {n} lazy");
            let mut pre = Ghash::with_backend(&key, b).unwrap();
            pre.precompute();
            let mut acc = [0u8; 16];
            pre.update_detached(&mut acc, &blocks[..n / 2]);
            pre.update_detached(&mut acc, &blocks[n / 2..n]);
            assert_eq!(acc, want, "{b} n {n} precomputed");
        }
    }
}

/// Our ymm-state detection of VPCLMULQDQ/VAES agrees with the standard library's (which,
/// unlike cpufeatures 0.3, does not demand the AVX-512 state for them).
#[test]
#[cfg(target_arch = "x86_64")]
fn ymm_detection_matches_std() {
    use clmul_core::__private::ymm;
    let avx_ok = std::is_x86_feature_detected!("avx");
    assert_eq!(
        ymm::vpclmulqdq(),
        avx_ok && std::is_x86_feature_detected!("vpclmulqdq")
    );
    assert_eq!(ymm::vaes(), avx_ok && std::is_x86_feature_detected!("vaes"));
    assert_eq!(
        Backend::Avx2.is_available(),
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("pclmulqdq")
            && ymm::vpclmulqdq()
    );
}
