//! POLYVAL and GHASH throughput: each of our backends this CPU can run, our `polyval`/`ghash`
//! crates on their detected path, and RustCrypto's published `polyval` 0.7.3 / `ghash` 0.6.0.
//!
//! Groups (`<hash>` is `polyval` or `ghash`; ids are `<impl>/<bytes>`):
//!
//! - `<hash>/update`: the key is set up once, outside the timing; each iteration hashes one
//!   message, independent of the previous one: `update_padded` + `finalize`, and the state back
//!   to "keyed, empty" by the cheapest means the API offers. `clmul_core` states finalize by
//!   reference and `reset`; the `polyval` crates have `Reset`, so `finalize_reset` (whose
//!   default body clones the state); the `ghash` crates have no `Reset` (upstream's API), so
//!   each message starts from a clone of the keyed state, as RustCrypto's `aes-gcm` does. The
//!   crate rows therefore include what the crate API costs per message beyond `clmul_core`.
//! - `<hash>/new+64B`: `new` + one 64-byte `update_padded` + `finalize`: key setup included.
//! - `gen010-<hash>/update`, `gen010-<hash>/new+64B`: the same for the universal-hash 0.5
//!   generation, our `polyval` 0.6 / `ghash` 0.5 (`aead-0.5/`) against RustCrypto's 0.6.2 /
//!   0.5.1 (`ghash` 0.5 has no `Reset` either: clones).
//!
//! Impls: `ours-portable`, `ours-pclmul`, `ours-avx2`, `ours-avx512` (`clmul_core` with that
//! backend; a backend this CPU lacks is skipped, with a message), `ours` (our `polyval`/`ghash`
//! crate: the detected backend), `rustcrypto` (the published crates).
//!
//! Built with `RUSTFLAGS='--cfg polyval_backend="soft"'`, RustCrypto and our crates run their
//! portable code, and only `ours-portable` of the explicit backends is measured: that run is the
//! portable-vs-soft comparison.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

use clmul_core::Backend;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group};
use polyval::universal_hash::consts::U16;
use polyval::universal_hash::{KeyInit, Reset, UniversalHash};

/// Message lengths, in bytes.
const SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];
/// The message length of the key-setup group.
const NEW_LEN: usize = 64;
/// An arbitrary key (POLYVAL's key, or GHASH's H).
const KEY: [u8; 16] = *b"\x25\x62\x93\x47\x58\x92\x42\x76\x1d\x31\xf8\x26\xba\x4b\x75\x7b";

/// Whether this build forces the portable backend (`--cfg polyval_backend="soft"`).
const FORCED_SOFT: bool = cfg!(polyval_backend = "soft");

/// The explicit `clmul_core` backends to measure: every one this CPU has (only the portable one
/// in a forced-soft build). Prints the ones skipped and why, once.
fn backends() -> &'static [Backend] {
    static RUN: OnceLock<Vec<Backend>> = OnceLock::new();
    RUN.get_or_init(choose_backends)
}

fn choose_backends() -> Vec<Backend> {
    let mut run = Vec::new();
    for &b in Backend::ALL {
        if FORCED_SOFT && b != Backend::Portable {
            eprintln!("uhf: ours-{b}: skipped (forced-soft build measures the portable backend)");
        } else if !b.is_available() {
            eprintln!("uhf: ours-{b}: skipped (this CPU lacks {:?})", b.features());
        } else {
            run.push(b);
        }
    }
    run
}

/// Times one message per iteration: `message` hashes it with (or from) `state` and leaves
/// `state` ready for the next.
fn update_case<S>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    data: &[u8],
    mut state: S,
    mut message: impl FnMut(&mut S, &[u8]),
) {
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_with_input(BenchmarkId::new(name, data.len()), data, |b, data| {
        b.iter(|| message(&mut state, black_box(data)));
    });
}

/// Times key setup plus one `NEW_LEN`-byte message.
fn new_case(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    data: &[u8],
    oneshot: impl Fn(&[u8; 16], &[u8]) -> [u8; 16],
) {
    let data = &data[..NEW_LEN];
    g.throughput(Throughput::Bytes(NEW_LEN as u64));
    g.bench_with_input(BenchmarkId::new(name, NEW_LEN), data, |b, data| {
        b.iter(|| oneshot(black_box(&KEY), black_box(data)));
    });
}

/// Absorbs a message into a `clmul_core` state, finalizes it and resets it: all by reference.
fn core_message<const GHASH: bool>(s: &mut clmul_core::Hasher<GHASH>, data: &[u8]) {
    s.update_padded(data);
    black_box(s.finalize());
    s.reset();
}

/// Hashes a message with a `UniversalHash` that can be reset (POLYVAL): `finalize_reset`.
fn reset_message<U: UniversalHash + Reset + Clone>(s: &mut U, data: &[u8]) {
    s.update_padded(data);
    black_box(s.finalize_reset());
}

/// Hashes a message with a `UniversalHash` that cannot be reset (GHASH): a clone of the keyed
/// state `keyed` absorbs it and is finalized.
fn clone_message<U: UniversalHash + Clone>(keyed: &mut U, data: &[u8]) {
    let mut s = keyed.clone();
    s.update_padded(data);
    black_box(s.finalize());
}

/// Keys a `UniversalHash`, absorbs `data` and finalizes.
fn uhf_oneshot<U: UniversalHash<BlockSize = U16> + KeyInit<KeySize = U16>>(
    key: &[u8; 16],
    data: &[u8],
) -> [u8; 16] {
    let mut s = U::new(&(*key).into());
    s.update_padded(data);
    s.finalize().into()
}

fn polyval(c: &mut Criterion) {
    let data = benches::test_data(*SIZES.iter().max().unwrap_or(&0));
    let backends = backends();
    let key = KEY.into();

    // Sizes outermost, so the impls compared at one size are measured close together in time.
    let mut g = c.benchmark_group("polyval/update");
    for len in SIZES {
        let d = &data[..len];
        for &b in backends {
            let s = clmul_core::Polyval::with_backend(&KEY, b).expect("available");
            update_case(&mut g, &format!("ours-{b}"), d, s, core_message);
        }
        let ours = polyval::Polyval::new(&key);
        update_case(&mut g, "ours", d, ours, reset_message);
        let theirs = upstream_polyval::Polyval::new(&key);
        update_case(&mut g, "rustcrypto", d, theirs, reset_message);
    }
    g.finish();

    let mut g = c.benchmark_group("polyval/new+64B");
    for &b in backends {
        new_case(&mut g, &format!("ours-{b}"), &data, |k, d| {
            let mut s = clmul_core::Polyval::with_backend(k, b).expect("available");
            s.update_padded(d);
            s.finalize()
        });
    }
    new_case(&mut g, "ours", &data, uhf_oneshot::<polyval::Polyval>);
    new_case(
        &mut g,
        "rustcrypto",
        &data,
        uhf_oneshot::<upstream_polyval::Polyval>,
    );
    g.finish();
}

fn ghash(c: &mut Criterion) {
    let data = benches::test_data(*SIZES.iter().max().unwrap_or(&0));
    let backends = backends();
    let key = KEY.into();

    let mut g = c.benchmark_group("ghash/update");
    for len in SIZES {
        let d = &data[..len];
        for &b in backends {
            let s = clmul_core::Ghash::with_backend(&KEY, b).expect("available");
            update_case(&mut g, &format!("ours-{b}"), d, s, core_message);
        }
        let ours = ghash::GHash::new(&key);
        update_case(&mut g, "ours", d, ours, clone_message);
        let theirs = upstream_ghash::GHash::new(&key);
        update_case(&mut g, "rustcrypto", d, theirs, clone_message);
    }
    g.finish();

    let mut g = c.benchmark_group("ghash/new+64B");
    for &b in backends {
        new_case(&mut g, &format!("ours-{b}"), &data, |k, d| {
            let mut s = clmul_core::Ghash::with_backend(k, b).expect("available");
            s.update_padded(d);
            s.finalize()
        });
    }
    new_case(&mut g, "ours", &data, uhf_oneshot::<ghash::GHash>);
    new_case(
        &mut g,
        "rustcrypto",
        &data,
        uhf_oneshot::<upstream_ghash::GHash>,
    );
    g.finish();
}

/// [`reset_message`] for the universal-hash 0.5 generation.
fn reset_message_05<U>(s: &mut U, data: &[u8])
where
    U: polyval_06::universal_hash::UniversalHash + polyval_06::universal_hash::Reset + Clone,
{
    s.update_padded(data);
    black_box(s.finalize_reset());
}

/// [`clone_message`] for the universal-hash 0.5 generation.
fn clone_message_05<U: polyval_06::universal_hash::UniversalHash + Clone>(
    keyed: &mut U,
    data: &[u8],
) {
    let mut s = keyed.clone();
    s.update_padded(data);
    black_box(s.finalize());
}

/// [`uhf_oneshot`] for the universal-hash 0.5 generation.
fn uhf_oneshot_05<U>(key: &[u8; 16], data: &[u8]) -> [u8; 16]
where
    U: polyval_06::universal_hash::UniversalHash<BlockSize = U16>
        + polyval_06::universal_hash::KeyInit<KeySize = U16>,
{
    let mut s = U::new(&(*key).into());
    s.update_padded(data);
    s.finalize().into()
}

/// The universal-hash 0.5 generation: ours against RustCrypto's, on the detected backend.
fn gen010(c: &mut Criterion) {
    use polyval_06::universal_hash::KeyInit as _;
    let data = benches::test_data(*SIZES.iter().max().unwrap_or(&0));
    let key = KEY.into();

    let mut g = c.benchmark_group("gen010-polyval/update");
    for len in SIZES {
        let d = &data[..len];
        let ours = polyval_06::Polyval::new(&key);
        update_case(&mut g, "ours", d, ours, reset_message_05);
        let theirs = upstream_polyval_06::Polyval::new(&key);
        update_case(&mut g, "rustcrypto", d, theirs, reset_message_05);
    }
    g.finish();

    let mut g = c.benchmark_group("gen010-ghash/update");
    for len in SIZES {
        let d = &data[..len];
        let ours = ghash_05::GHash::new(&key);
        update_case(&mut g, "ours", d, ours, clone_message_05);
        let theirs = upstream_ghash_05::GHash::new(&key);
        update_case(&mut g, "rustcrypto", d, theirs, clone_message_05);
    }
    g.finish();

    let mut g = c.benchmark_group("gen010-polyval/new+64B");
    new_case(&mut g, "ours", &data, uhf_oneshot_05::<polyval_06::Polyval>);
    new_case(
        &mut g,
        "rustcrypto",
        &data,
        uhf_oneshot_05::<upstream_polyval_06::Polyval>,
    );
    g.finish();

    let mut g = c.benchmark_group("gen010-ghash/new+64B");
    new_case(&mut g, "ours", &data, uhf_oneshot_05::<ghash_05::GHash>);
    new_case(
        &mut g,
        "rustcrypto",
        &data,
        uhf_oneshot_05::<upstream_ghash_05::GHash>,
    );
    g.finish();
}

criterion_group! {
    name = uhf;
    // Modest defaults for a shared, noisy machine; the command line overrides them.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = polyval, ghash, gen010
}

fn main() {
    eprintln!(
        "uhf: `ours` runs {} (detected{})",
        if FORCED_SOFT {
            Backend::Portable
        } else {
            Backend::detect()
        },
        if FORCED_SOFT {
            ", overridden by --cfg polyval_backend=\"soft\""
        } else {
            ""
        },
    );
    benches::run_with_core_clock(|| {
        uhf();
        Criterion::default().configure_from_args().final_summary();
    });
}
