//! Our `polyval`/`ghash` against the published RustCrypto crates (`polyval` 0.7.3, `ghash`
//! 0.6.0), on random keys and inputs, through every public entry point, and on every backend
//! of this CPU.

use clmul_core::Backend;
use hex_literal::hex;
use rand::{Rng, RngCore, SeedableRng, rngs::SmallRng};

use polyval::universal_hash::{KeyInit, Reset, UhfBackend, UniversalHash};
use upstream_polyval::universal_hash::{KeyInit as UpKeyInit, UniversalHash as UpUniversalHash};

fn bytes(rng: &mut SmallRng, n: usize) -> Vec<u8> {
    let mut v = vec![0; n];
    rng.fill_bytes(&mut v);
    v
}

/// Random lengths and random split points, via `update_padded`: hunts any difference in
/// padding, chunking or state carried between calls.
#[test]
fn polyval_matches_upstream_random_splits() {
    let mut rng = SmallRng::seed_from_u64(100);
    for _ in 0..400 {
        let key: [u8; 16] = rng.random();
        let len = rng.random_range(0..3000);
        let data = bytes(&mut rng, len);
        let mut ours = polyval::Polyval::new(&key.into());
        let mut theirs = upstream_polyval::Polyval::new(&key.into());
        let mut rest = &data[..];
        while !rest.is_empty() {
            let n = rng.random_range(0..=rest.len());
            let (a, b) = rest.split_at(n);
            // update_padded pads each piece: both sides must pad identically.
            ours.update_padded(a);
            theirs.update_padded(a);
            rest = b;
        }
        assert_eq!(ours.finalize().0, theirs.finalize().0, "len {len}");
    }
}

/// Block-wise `update`, single `proc_block`/`proc_par_blocks` through `UhfBackend`, and
/// `finalize_reset`: every way to feed a `Polyval`.
#[test]
fn polyval_entry_points_match_upstream() {
    let mut rng = SmallRng::seed_from_u64(101);
    for nblocks in 0..70 {
        let key: [u8; 16] = rng.random();
        let data = bytes(&mut rng, nblocks * 16);
        let blocks: Vec<polyval::Block> = data
            .chunks(16)
            .map(|c| <[u8; 16]>::try_from(c).unwrap().into())
            .collect();
        let up_blocks: Vec<upstream_polyval::Block> = data
            .chunks(16)
            .map(|c| <[u8; 16]>::try_from(c).unwrap().into())
            .collect();

        let mut theirs = upstream_polyval::Polyval::new(&key.into());
        theirs.update(&up_blocks);
        let want = theirs.finalize_reset().0;

        let mut a = <polyval::Polyval as KeyInit>::new(&key.into());
        a.update(&blocks);
        assert_eq!(a.finalize_reset().0, want);
        // After finalize_reset the key is kept and the accumulator cleared.
        a.update(&blocks);
        assert_eq!(a.clone().finalize().0, want);

        let mut b = polyval::Polyval::new(&key.into());
        for chunk in blocks.chunks(4) {
            if chunk.len() == 4 {
                b.proc_par_blocks(&polyval::ParBlocks::try_from(chunk).unwrap());
            } else {
                for blk in chunk {
                    b.proc_block(blk);
                }
            }
        }
        assert_eq!(b.finalize().0, want);

        let mut c = polyval::Polyval::new(&key.into());
        c.update_padded(&data[..data.len() / 2]);
        c.reset();
        c.update_padded(&data);
        assert_eq!(c.finalize().0, want);
        theirs.reset();
    }
}

#[test]
fn ghash_matches_upstream_random() {
    let mut rng = SmallRng::seed_from_u64(102);
    for _ in 0..400 {
        let key: [u8; 16] = rng.random();
        let len = rng.random_range(0..3000);
        let data = bytes(&mut rng, len);
        let cut = rng.random_range(0..=len);
        let mut ours = ghash::GHash::new(&key.into());
        ours.update_padded(&data[..cut]);
        ours.update_padded(&data[cut..]);
        let mut theirs = upstream_ghash::GHash::new(&key.into());
        theirs.update_padded(&data[..cut]);
        theirs.update_padded(&data[cut..]);
        assert_eq!(
            ours.finalize().0,
            theirs.finalize().0,
            "len {len} cut {cut}"
        );
    }
}

/// Our GHASH on every backend this CPU has, against upstream: the reflected kernels.
#[test]
fn ghash_every_backend_matches_upstream() {
    let mut rng = SmallRng::seed_from_u64(103);
    let data = bytes(&mut rng, 1200);
    for b in Backend::available() {
        for len in (0..=1200).step_by(7) {
            let key: [u8; 16] = rng.random();
            let mut ours = ghash::GHash::__with_backend(&key.into(), b).unwrap();
            assert_eq!(ours.__backend(), b);
            ours.update_padded(&data[..len]);
            let mut theirs = upstream_ghash::GHash::new(&key.into());
            theirs.update_padded(&data[..len]);
            assert_eq!(ours.finalize().0, theirs.finalize().0, "{b} len {len}");
        }
    }
}

/// The `hazmat` field arithmetic, operation by operation.
#[test]
fn field_element_matches_upstream() {
    use polyval::hazmat::FieldElement as Ours;
    use upstream_polyval::hazmat::FieldElement as Theirs;
    let mut rng = SmallRng::seed_from_u64(104);
    let to = |x: Ours| <[u8; 16]>::from(x);
    let tt = |x: Theirs| <[u8; 16]>::from(x);
    for _ in 0..2000 {
        let (a, b): ([u8; 16], [u8; 16]) = (rng.random(), rng.random());
        assert_eq!(
            to(Ours::from(a) * Ours::from(b)),
            tt(Theirs::from(a) * Theirs::from(b))
        );
        assert_eq!(
            to(Ours::from(a) + Ours::from(b)),
            tt(Theirs::from(a) + Theirs::from(b))
        );
        assert_eq!(to(Ours::from(a).mulx()), tt(Theirs::from(a).mulx()));
        assert_eq!(to(Ours::from(a).reverse()), tt(Theirs::from(a).reverse()));
        let mut x = Ours::from(a);
        x *= Ours::from(b);
        assert_eq!(to(x), tt(Theirs::from(a) * Theirs::from(b)));
        let u: u128 = rng.random();
        assert_eq!(to(Ours::from(u)), tt(Theirs::from(u)));
        assert_eq!(u128::from(Ours::from(a)), u128::from(Theirs::from(a)));
        assert_eq!(
            format!("{:?}", Ours::from(a)),
            format!("{:?}", Theirs::from(a))
        );
    }
    // All-ones operands: every lane of the masked multiply full.
    let ones = [0xffu8; 16];
    assert_eq!(
        to(Ours::from(ones) * Ours::from(ones)),
        tt(Theirs::from(ones) * Theirs::from(ones))
    );
}

#[test]
fn debug_strings_match_upstream() {
    let key = [9u8; 16];
    assert_eq!(
        format!("{:?}", polyval::Polyval::new(&key.into())),
        format!("{:?}", upstream_polyval::Polyval::new(&key.into()))
    );
    assert_eq!(
        format!("{:?}", ghash::GHash::new(&key.into())),
        format!("{:?}", upstream_ghash::GHash::new(&key.into()))
    );
}

#[test]
fn new_from_slice_lengths() {
    for n in 0..40 {
        let k = vec![1u8; n];
        assert_eq!(
            <polyval::Polyval as KeyInit>::new_from_slice(&k).is_ok(),
            n == 16
        );
        assert_eq!(
            <ghash::GHash as KeyInit>::new_from_slice(&k).is_ok(),
            n == 16
        );
        assert_eq!(
            <upstream_polyval::Polyval as UpKeyInit>::new_from_slice(&k).is_ok(),
            n == 16
        );
    }
}

/// `verify` compares in constant time and agrees with `finalize`.
#[test]
fn verify_agrees() {
    let key = hex!("25629347589242761d31f826ba4b757b");
    let mut p = polyval::Polyval::new(&key.into());
    p.update_padded(b"some data");
    let tag = p.clone().finalize();
    assert!(p.clone().verify(&tag).is_ok());
    let mut bad = tag;
    bad[15] ^= 1;
    assert!(p.verify(&bad).is_err());
}

/// Compile-time API shape: the traits upstream implements, and the ones it does not.
#[test]
fn api_shape() {
    fn is_uhf<T: UniversalHash + KeyInit + Clone + Send + Sync + core::fmt::Debug>() {}
    fn is_reset<T: Reset>() {}
    fn is_backend<T: UhfBackend>() {}
    is_uhf::<polyval::Polyval>();
    is_uhf::<ghash::GHash>();
    is_reset::<polyval::Polyval>();
    is_backend::<polyval::Polyval>();
    assert_eq!(polyval::BLOCK_SIZE, 16);
    assert_eq!(polyval::KEY_SIZE, 16);
    let _ = <upstream_polyval::Polyval as UpUniversalHash>::finalize;
}
