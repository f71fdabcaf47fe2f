//! Our `polyval` 0.6 / `ghash` 0.5 against the published `polyval` 0.6.2 / `ghash` 0.5.1, on
//! random keys and inputs, through every public entry point (`update`, `update_padded` in
//! random pieces, `update_with_backend` with a caller's closure, `finalize_reset`, `verify`,
//! `new_with_init_block`, `mulx`, `Debug`, key lengths), on every backend of this CPU.

use clmul_core::Backend;
use rand::{Rng, RngCore, SeedableRng, rngs::SmallRng};

use polyval::universal_hash::{
    KeyInit, Reset, UhfBackend, UhfClosure, UniversalHash, consts::U16,
    crypto_common::BlockSizeUser,
};

fn bytes(rng: &mut SmallRng, n: usize) -> Vec<u8> {
    let mut v = vec![0; n];
    rng.fill_bytes(&mut v);
    v
}

/// Feeds `data` to any universal-hash 0.5 state in `update_padded` pieces at `splits`.
fn pieces<U: UniversalHash>(mut u: U, data: &[u8], splits: &[usize]) -> Vec<u8> {
    let mut rest = data;
    for &s in splits {
        let (a, b) = rest.split_at(s.min(rest.len()));
        u.update_padded(a);
        rest = b;
    }
    u.update_padded(rest);
    u.finalize().to_vec()
}

/// Random lengths and random split points through `update_padded` (each piece padded: both
/// sides must pad identically), every backend: hunts padding, chunking or state carried
/// between calls.
#[test]
fn random_pieces_every_backend() {
    let mut rng = SmallRng::seed_from_u64(200);
    for _ in 0..300 {
        let key: [u8; 16] = rng.random();
        let len = rng.random_range(0..3000);
        let data = bytes(&mut rng, len);
        let splits: Vec<usize> = (0..rng.random_range(0..5))
            .map(|_| rng.random_range(0..=len))
            .collect();
        let want_p = pieces(upstream_polyval::Polyval::new(&key.into()), &data, &splits);
        let want_g = pieces(upstream_ghash::GHash::new(&key.into()), &data, &splits);
        for b in Backend::available() {
            let p = polyval::Polyval::__with_backend(&key.into(), b).expect("available");
            assert_eq!(pieces(p, &data, &splits), want_p, "polyval {b} len {len}");
            let g = ghash::GHash::__with_backend(&key.into(), b).expect("available");
            assert_eq!(pieces(g, &data, &splits), want_g, "ghash {b} len {len}");
        }
        let p = polyval::Polyval::new(&key.into());
        assert_eq!(
            pieces(p, &data, &splits),
            want_p,
            "polyval (KeyInit) len {len}"
        );
        let g = ghash::GHash::new(&key.into());
        assert_eq!(
            pieces(g, &data, &splits),
            want_g,
            "ghash (KeyInit) len {len}"
        );
    }
}

/// A caller's closure that sees only `UhfBackend::proc_block` / `proc_par_blocks`.
struct OneByOne<'a>(&'a [[u8; 16]]);

impl BlockSizeUser for OneByOne<'_> {
    type BlockSize = U16;
}

impl UhfClosure for OneByOne<'_> {
    fn call<B: UhfBackend<BlockSize = U16>>(self, backend: &mut B) {
        for b in self.0 {
            backend.proc_block(&(*b).into());
        }
    }
}

/// Whole blocks through `update`, through `update_with_backend`, and `finalize_reset` (state
/// back to empty, key kept) then `verify`: every way to feed the state, every block count
/// around the 32-block copy buffer and the wide kernels' strides.
#[test]
fn entry_points_every_backend() {
    let mut rng = SmallRng::seed_from_u64(201);
    for nblocks in (0..70).chain([127, 128, 129]) {
        let key: [u8; 16] = rng.random();
        let data = bytes(&mut rng, nblocks * 16);
        let (blocks, _) = data.as_chunks::<16>();
        let gblocks: Vec<polyval::Block> = blocks.iter().map(|b| (*b).into()).collect();

        let mut up = upstream_polyval::Polyval::new(&key.into());
        up.update(&gblocks);
        let want_p = up.finalize_reset();
        let mut up = upstream_ghash::GHash::new(&key.into());
        up.update(&gblocks);
        let want_g = up.finalize();

        for b in Backend::available() {
            let mut p = polyval::Polyval::__with_backend(&key.into(), b).expect("available");
            p.update(&gblocks);
            assert_eq!(p.finalize_reset(), want_p, "polyval update {b} {nblocks}");
            p.update_with_backend(OneByOne(blocks));
            assert_eq!(
                p.clone().finalize(),
                want_p,
                "polyval closure {b} {nblocks}"
            );
            p.reset();
            p.update(&gblocks);
            assert!(p.verify(&want_p).is_ok(), "polyval verify {b}");

            let mut g = ghash::GHash::__with_backend(&key.into(), b).expect("available");
            g.update(&gblocks);
            assert_eq!(g.finalize(), want_g, "ghash update {b} {nblocks}");
            let mut g = ghash::GHash::__with_backend(&key.into(), b).expect("available");
            g.update_with_backend(OneByOne(blocks));
            let mut wrong = want_g;
            wrong[0] ^= 1;
            assert!(g.clone().verify(&wrong).is_err(), "ghash verify {b}");
            assert_eq!(g.finalize(), want_g, "ghash closure {b} {nblocks}");
        }
    }
}

/// Whether the published polyval 0.6.2 runs its CLMUL backend here, the one whose reading of
/// `new_with_init_block` ours follows on every target (see our polyval's crate docs).
fn upstream_runs_clmul() -> bool {
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        not(polyval_force_soft)
    ))]
    {
        std::arch::is_x86_feature_detected!("pclmulqdq")
    }
    #[cfg(not(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        not(polyval_force_soft)
    )))]
    {
        false
    }
}

/// `new_with_init_block` with random initial blocks, then data: the same as upstream's CLMUL
/// backend, on every backend of ours. Where upstream runs software (other targets, or
/// `polyval_force_soft`) its results differ by design; then only `init_block = 0` is compared.
#[test]
fn init_block_as_upstream_clmul() {
    let clmul = upstream_runs_clmul();
    if !clmul {
        eprintln!("note: upstream does not run CLMUL here; only init_block = 0 is compared");
    }
    let mut rng = SmallRng::seed_from_u64(202);
    for i in 0..200 {
        let key: [u8; 16] = rng.random();
        let init: u128 = if clmul && i % 4 != 0 { rng.random() } else { 0 };
        let len = rng.random_range(0..200);
        let data = bytes(&mut rng, len);
        let mut up = upstream_polyval::Polyval::new_with_init_block(&key.into(), init);
        up.update_padded(&data);
        let want_p = up.finalize();
        let mut up = upstream_ghash::GHash::new_with_init_block(&key.into(), init);
        up.update_padded(&data);
        let want_g = up.finalize();

        let mut p = polyval::Polyval::new_with_init_block(&key.into(), init);
        p.update_padded(&data);
        assert_eq!(p.finalize(), want_p, "polyval init {init:#x}");
        let mut g = ghash::GHash::new_with_init_block(&key.into(), init);
        g.update_padded(&data);
        assert_eq!(g.finalize(), want_g, "ghash init {init:#x}");
    }
}

/// `mulx` on random elements, and the upstream Debug strings.
#[test]
fn mulx_and_debug_match_upstream() {
    let mut rng = SmallRng::seed_from_u64(203);
    for _ in 0..1000 {
        let x: [u8; 16] = rng.random();
        assert_eq!(polyval::mulx(&x.into()), upstream_polyval::mulx(&x.into()));
    }
    let key = [3u8; 16].into();
    assert_eq!(
        format!("{:?}", polyval::Polyval::new(&key)),
        format!("{:?}", upstream_polyval::Polyval::new(&key))
    );
    assert_eq!(
        format!("{:?}", ghash::GHash::new(&key)),
        format!("{:?}", upstream_ghash::GHash::new(&key))
    );
    assert_eq!(polyval::BLOCK_SIZE, upstream_polyval::BLOCK_SIZE);
    assert_eq!(polyval::KEY_SIZE, upstream_polyval::KEY_SIZE);
}

/// Hunts: a key-length check that panics instead of returning `InvalidLength`, or that
/// accepts a truncated key.
#[test]
fn new_from_slice_every_key_length() {
    for len in 0..=64 {
        let key = vec![0x5a; len];
        let ours = (
            polyval::Polyval::new_from_slice(&key).is_ok(),
            ghash::GHash::new_from_slice(&key).is_ok(),
        );
        let theirs = (
            upstream_polyval::Polyval::new_from_slice(&key).is_ok(),
            upstream_ghash::GHash::new_from_slice(&key).is_ok(),
        );
        assert_eq!(ours, theirs, "{len}-byte key");
        assert_eq!(ours, (len == 16, len == 16), "{len}-byte key");
    }
}

/// The backend our crates pick: the detected one, or the portable one when the build sets
/// `--cfg polyval_force_soft` (upstream's) or `--cfg polyval_backend="soft"` (ours). CI runs
/// this file in both builds.
#[test]
fn default_constructor_backend() {
    let p = polyval::Polyval::new(&[3u8; 16].into());
    let forced = cfg!(any(polyval_force_soft, polyval_backend = "soft"));
    let want = if forced {
        Backend::Portable
    } else {
        Backend::detect()
    };
    assert_eq!(p.__backend(), want);
    let g = ghash::GHash::new(&[3u8; 16].into());
    assert_eq!(g.__backend(), want);
    eprintln!("polyval 0.6 / ghash 0.5 backend in this build: {want}");
}
