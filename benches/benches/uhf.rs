//! POLYVAL and GHASH throughput in every way a caller uses a keyed state, ours against
//! RustCrypto's published `polyval` 0.7.3 / `ghash` 0.6.0, plus each `clmul_core` backend this
//! CPU can run.
//!
//! Groups (`<hash>` is `polyval` or `ghash`; ids are `<impl>/<bytes>`; every iteration hashes
//! one whole message and produces its tag):
//!
//! - `<hash>/new`: a fresh key per message: `new` + `update_padded` + `finalize` (AES-GCM-SIV
//!   keys POLYVAL per nonce).
//! - `<hash>/clone`: a keyed state set up once, cloned per message: `clone` + `update_padded` +
//!   `finalize` (RustCrypto's `aes-gcm` hashes each message this way).
//! - `polyval/kept`: one state kept across messages: `update_padded` + `finalize_reset`
//!   (`ghash::GHash` has no `Reset`, as upstream).
//! - `<hash>/pieces`: the message in uneven pieces of whole blocks (1, 2, 3, 5, 7, 11, 13
//!   blocks, repeating) through `update`, from a kept state (`polyval`) or a clone (`ghash`):
//!   streaming callers.
//! - `<hash>/backend`: the kept pattern on `clmul_core` directly, per backend (`ours-<backend>`):
//!   what each kernel does without the crate API around it.
//! - `gen010-<hash>/<pattern>`: the same patterns for the universal-hash 0.5 generation, our
//!   `polyval` 0.6 / `ghash` 0.5 (`aead-0.5/`) against RustCrypto's 0.6.2 / 0.5.1.
//!
//! Impls: `ours` (our crate, detected backend), `rustcrypto` (the published crate), and in the
//! backend groups `ours-portable`, `ours-pclmul`, `ours-avx2`, `ours-avx512`, `ours-pmull` (a
//! backend this CPU lacks is skipped, with a message).
//!
//! Built with `RUSTFLAGS='--cfg polyval_backend="soft"'`, RustCrypto and our crates run their
//! portable code, and only `ours-portable` of the explicit backends is measured: that run is the
//! portable-vs-soft comparison.
//!
//! Every message is read from one buffer at `benches::place()` (16 bytes past a page unless
//! `BENCH_OFFSET` says otherwise), as in the other benches.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

use clmul_core::Backend;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group};
use polyval_06::universal_hash::KeyInit as _;

/// Message lengths, in bytes.
const SIZES: [usize; 6] = [16, 64, 256, 1024, 4096, 16384];
/// An arbitrary key (POLYVAL's key, or GHASH's H).
const KEY: [u8; 16] = *b"\x25\x62\x93\x47\x58\x92\x42\x76\x1d\x31\xf8\x26\xba\x4b\x75\x7b";

/// Whether this build forces the portable backend (`--cfg polyval_backend="soft"`).
const FORCED_SOFT: bool = cfg!(polyval_backend = "soft");

/// The explicit `clmul_core` backends to measure: every one this CPU has (only the portable one
/// in a forced-soft build). Prints the ones skipped and why, once.
fn backends() -> &'static [Backend] {
    static RUN: OnceLock<Vec<Backend>> = OnceLock::new();
    RUN.get_or_init(|| {
        let mut run = Vec::new();
        for &b in Backend::ALL {
            if FORCED_SOFT && b != Backend::Portable {
                eprintln!(
                    "uhf: ours-{b}: skipped (forced-soft build measures the portable backend)"
                );
            } else if !b.is_available() {
                eprintln!("uhf: ours-{b}: skipped (this CPU lacks {:?})", b.features());
            } else {
                run.push(b);
            }
        }
        run
    })
}

/// Times `message` on `data` (one whole message per iteration) with `state` kept across
/// iterations.
fn case<S>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    data: &[u8],
    mut state: S,
    mut message: impl FnMut(&mut S, &[u8]) -> [u8; 16],
) {
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_with_input(BenchmarkId::new(name, data.len()), data, |b, data| {
        b.iter(|| black_box(message(&mut state, black_box(data))));
    });
}

mod uhf_patterns;
use uhf_patterns::{uh05, uh06};

/// The kept pattern on `clmul_core` directly.
fn core_message<const GHASH: bool>(s: &mut clmul_core::Hasher<GHASH>, data: &[u8]) -> [u8; 16] {
    s.update_padded(data);
    let tag = s.finalize();
    s.reset();
    tag
}

/// The pattern groups of one generation: `$prefix` names the groups, `$m` is its pattern
/// module, then our and RustCrypto's POLYVAL and GHASH types.
macro_rules! generation {
    ($name:ident, $prefix:literal, $m:ident, $p:ty, $rp:ty, $g:ty, $rg:ty) => {
        fn $name(c: &mut Criterion) {
            let data = benches::placed_data(*SIZES.iter().max().unwrap_or(&0), benches::place());
            let key = KEY.into();
            // Sizes outermost, so the impls compared at one size are measured close together.
            let mut g = c.benchmark_group(concat!($prefix, "polyval/new"));
            for len in SIZES {
                let d = &data[..len];
                case(&mut g, "ours", d, KEY, $m::new_message::<$p>);
                case(&mut g, "rustcrypto", d, KEY, $m::new_message::<$rp>);
            }
            g.finish();
            let mut g = c.benchmark_group(concat!($prefix, "polyval/clone"));
            for len in SIZES {
                let d = &data[..len];
                case(&mut g, "ours", d, <$p>::new(&key), $m::clone_message);
                case(&mut g, "rustcrypto", d, <$rp>::new(&key), $m::clone_message);
            }
            g.finish();
            let mut g = c.benchmark_group(concat!($prefix, "polyval/kept"));
            for len in SIZES {
                let d = &data[..len];
                case(&mut g, "ours", d, <$p>::new(&key), $m::kept_message);
                case(&mut g, "rustcrypto", d, <$rp>::new(&key), $m::kept_message);
            }
            g.finish();
            let mut g = c.benchmark_group(concat!($prefix, "polyval/pieces"));
            for len in SIZES {
                let d = &data[..len];
                case(&mut g, "ours", d, <$p>::new(&key), $m::kept_pieces);
                case(&mut g, "rustcrypto", d, <$rp>::new(&key), $m::kept_pieces);
            }
            g.finish();
            let mut g = c.benchmark_group(concat!($prefix, "ghash/new"));
            for len in SIZES {
                let d = &data[..len];
                case(&mut g, "ours", d, KEY, $m::new_message::<$g>);
                case(&mut g, "rustcrypto", d, KEY, $m::new_message::<$rg>);
            }
            g.finish();
            let mut g = c.benchmark_group(concat!($prefix, "ghash/clone"));
            for len in SIZES {
                let d = &data[..len];
                case(&mut g, "ours", d, <$g>::new(&key), $m::clone_message);
                case(&mut g, "rustcrypto", d, <$rg>::new(&key), $m::clone_message);
            }
            g.finish();
            let mut g = c.benchmark_group(concat!($prefix, "ghash/pieces"));
            for len in SIZES {
                let d = &data[..len];
                case(&mut g, "ours", d, <$g>::new(&key), $m::clone_pieces);
                case(&mut g, "rustcrypto", d, <$rg>::new(&key), $m::clone_pieces);
            }
            g.finish();
        }
    };
}

generation!(
    current,
    "",
    uh06,
    polyval::Polyval,
    upstream_polyval::Polyval,
    ghash::GHash,
    upstream_ghash::GHash
);

generation!(
    gen010,
    "gen010-",
    uh05,
    polyval_06::Polyval,
    upstream_polyval_06::Polyval,
    ghash_05::GHash,
    upstream_ghash_05::GHash
);

/// The kept pattern per `clmul_core` backend, for both hashes.
fn backends_group(c: &mut Criterion) {
    let data = benches::placed_data(*SIZES.iter().max().unwrap_or(&0), benches::place());
    let mut g = c.benchmark_group("polyval/backend");
    for len in SIZES {
        let d = &data[..len];
        for &b in backends() {
            let s = clmul_core::Polyval::with_backend(&KEY, b).expect("available");
            case(&mut g, &format!("ours-{b}"), d, s, core_message);
        }
    }
    g.finish();
    let mut g = c.benchmark_group("ghash/backend");
    for len in SIZES {
        let d = &data[..len];
        for &b in backends() {
            let s = clmul_core::Ghash::with_backend(&KEY, b).expect("available");
            case(&mut g, &format!("ours-{b}"), d, s, core_message);
        }
    }
    g.finish();
}

criterion_group! {
    name = uhf;
    // Short defaults for a shared, noisy machine (the matrix is large); the command line
    // overrides them.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30);
    targets = current, backends_group, gen010
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
