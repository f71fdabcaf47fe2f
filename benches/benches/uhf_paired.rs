//! POLYVAL and GHASH against RustCrypto, every pattern and size of `uhf.rs` (criterion), measured
//! *interleaved*: the short messages' rows (10-40 ns a call) move by 20% between criterion runs
//! on a shared machine, because each implementation is timed seconds apart under a different
//! load. Here each round times a short batch of ours and of RustCrypto's on the same case, in
//! alternating order, and a row's ratio is the median of the per-round ratios (both sides of a
//! ratio see the same load), as `headline.rs` does for AES-GCM.
//!
//! Cases: for both generations (`polyval` 0.7 / `ghash` 0.6 against RustCrypto's 0.7.3 /
//! 0.6.0; `gen010-`: `polyval` 0.6 / `ghash` 0.5 against 0.6.2 / 0.5.1), the patterns `new`,
//! `clone`, `kept` (POLYVAL) and `pieces`; and our GHASH against our POLYVAL (`new`, `clone`,
//! `kept` on `clmul_core`), the same message both ways. Built with
//! `--cfg polyval_backend="soft" --cfg polyval_force_soft` (as `cargo xtask bench` does for its
//! soft step) both sides run their portable code.
//!
//! ```text
//! cargo bench -p benches --bench uhf_paired -- [--rounds N] [--batch-us U] [--markdown FILE]
//!                                              [--note TEXT] [FILTER]
//! ```
//!
//! `FILTER` keeps the rows whose label contains it.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use benches::Runner;
use polyval_06::universal_hash::KeyInit as _;

mod uhf_patterns;
use uhf_patterns::{uh05, uh06};

/// Message lengths, in bytes: those of `uhf.rs`, and 80 and 144 (five and nine blocks: past
/// RustCrypto's four-block batches, and past our short path's four blocks and first stride).
const SIZES: [usize; 8] = [16, 64, 80, 144, 256, 1024, 4096, 16384];
/// An arbitrary key (POLYVAL's key, or GHASH's H), that of `uhf.rs`.
const KEY: [u8; 16] = *b"\x25\x62\x93\x47\x58\x92\x42\x76\x1d\x31\xf8\x26\xba\x4b\x75\x7b";

/// A runner for `message` on `len` bytes with `state` kept across calls, the bytes at the
/// same place for every implementation (`benches::place`).
fn runner<S: 'static>(len: usize, mut state: S, message: fn(&mut S, &[u8]) -> [u8; 16]) -> Runner {
    let data: &[u8] = benches::placed_data(len, benches::place());
    Box::new(move |n| {
        let start = Instant::now();
        for _ in 0..n {
            black_box(message(&mut state, black_box(data)));
        }
        start.elapsed().as_nanos() as f64
    })
}

/// One row of the table: a pattern at every size, ours against `peer`.
struct Case {
    label: String,
    peer: &'static str,
    /// Per size: (ours, the peer).
    make: Box<dyn Fn(usize) -> (Runner, Runner)>,
}

fn case(
    label: &str,
    peer: &'static str,
    make: impl Fn(usize) -> (Runner, Runner) + 'static,
) -> Case {
    Case {
        label: label.to_owned(),
        peer,
        make: Box::new(make),
    }
}

/// The pattern rows of one generation: `$prefix` names them, `$m` is its pattern module, then
/// our and RustCrypto's POLYVAL and GHASH types.
macro_rules! generation {
    ($prefix:literal, $m:ident, $p:ty, $rp:ty, $g:ty, $rg:ty) => {{
        let key = KEY.into();
        vec![
            case(concat!($prefix, "polyval/new"), "rustcrypto", |len| {
                (
                    runner(len, KEY, $m::new_message::<$p>),
                    runner(len, KEY, $m::new_message::<$rp>),
                )
            }),
            case(
                concat!($prefix, "polyval/clone"),
                "rustcrypto",
                move |len| {
                    (
                        runner(len, <$p>::new(&key), $m::clone_message),
                        runner(len, <$rp>::new(&key), $m::clone_message),
                    )
                },
            ),
            case(concat!($prefix, "polyval/kept"), "rustcrypto", move |len| {
                (
                    runner(len, <$p>::new(&key), $m::kept_message),
                    runner(len, <$rp>::new(&key), $m::kept_message),
                )
            }),
            case(
                concat!($prefix, "polyval/pieces"),
                "rustcrypto",
                move |len| {
                    (
                        runner(len, <$p>::new(&key), $m::kept_pieces),
                        runner(len, <$rp>::new(&key), $m::kept_pieces),
                    )
                },
            ),
            case(concat!($prefix, "ghash/new"), "rustcrypto", |len| {
                (
                    runner(len, KEY, $m::new_message::<$g>),
                    runner(len, KEY, $m::new_message::<$rg>),
                )
            }),
            case(concat!($prefix, "ghash/clone"), "rustcrypto", move |len| {
                (
                    runner(len, <$g>::new(&key), $m::clone_message),
                    runner(len, <$rg>::new(&key), $m::clone_message),
                )
            }),
            case(concat!($prefix, "ghash/pieces"), "rustcrypto", move |len| {
                (
                    runner(len, <$g>::new(&key), $m::clone_pieces),
                    runner(len, <$rg>::new(&key), $m::clone_pieces),
                )
            }),
        ]
    }};
}

/// A fresh `clmul_core` state per message (the `new` pattern on the keyed-state type).
fn core_new<const GHASH: bool>(key: &mut [u8; 16], data: &[u8]) -> [u8; 16] {
    let mut s = clmul_core::Hasher::<GHASH>::new(black_box(key));
    s.update_padded(data);
    s.finalize()
}

/// A clone of a keyed `clmul_core` state per message.
fn core_clone<const GHASH: bool>(keyed: &mut clmul_core::Hasher<GHASH>, data: &[u8]) -> [u8; 16] {
    let mut s = black_box(&*keyed).clone();
    s.update_padded(data);
    s.finalize()
}

/// One `clmul_core` state kept across messages.
fn core_kept<const GHASH: bool>(s: &mut clmul_core::Hasher<GHASH>, data: &[u8]) -> [u8; 16] {
    s.update_padded(data);
    let tag = s.finalize();
    s.reset();
    tag
}

/// Our GHASH against our POLYVAL (the "peer"), on the keyed-state type both crates wrap.
fn ghash_vs_polyval() -> Vec<Case> {
    vec![
        case("ghash-vs-polyval/new", "our polyval", |len| {
            (
                runner(len, KEY, core_new::<true>),
                runner(len, KEY, core_new::<false>),
            )
        }),
        case("ghash-vs-polyval/clone", "our polyval", |len| {
            (
                runner(len, clmul_core::Ghash::new(&KEY), core_clone::<true>),
                runner(len, clmul_core::Polyval::new(&KEY), core_clone::<false>),
            )
        }),
        case("ghash-vs-polyval/kept", "our polyval", |len| {
            (
                runner(len, clmul_core::Ghash::new(&KEY), core_kept::<true>),
                runner(len, clmul_core::Polyval::new(&KEY), core_kept::<false>),
            )
        }),
    ]
}

/// One size of a row: ours and the peer's time (the [`benches::Q`] quantile), the median of the
/// per-round ratios peer / ours, and the lowest tenth of those ratios.
struct Cell {
    ours: f64,
    peer: f64,
    ratio: f64,
    ratio_p10: f64,
}

fn measure(ours: Runner, peer: Runner, rounds: usize, batch_ns: f64) -> Cell {
    let [mut to, mut tp]: [Vec<f64>; 2] = benches::interleave(&mut [ours, peer], rounds, batch_ns)
        .try_into()
        .expect("one time series per runner");
    let mut ratios: Vec<f64> = tp.iter().zip(&to).map(|(p, o)| p / o).collect();
    Cell {
        ours: benches::quantile(&mut to, benches::Q),
        peer: benches::quantile(&mut tp, benches::Q),
        ratio: benches::quantile(&mut ratios, 0.5),
        ratio_p10: benches::quantile(&mut ratios, 0.1),
    }
}

fn main() {
    let args = benches::InterleavedArgs::parse("uhf_paired", 31, 3e5);
    let (rounds, batch_ns, filter) = (args.rounds, args.batch_ns, &args.filter);
    let soft = cfg!(polyval_backend = "soft");
    let mut cases = generation!(
        "",
        uh06,
        polyval::Polyval,
        upstream_polyval::Polyval,
        ghash::GHash,
        upstream_ghash::GHash
    );
    cases.extend(generation!(
        "gen010-",
        uh05,
        polyval_06::Polyval,
        upstream_polyval_06::Polyval,
        ghash_05::GHash,
        upstream_ghash_05::GHash
    ));
    cases.extend(ghash_vs_polyval());
    let backend = if soft {
        clmul_core::Backend::Portable
    } else {
        clmul_core::Backend::detect()
    };
    eprintln!("uhf_paired: ours runs {backend}");
    let mut rows = Vec::new();
    for c in cases.iter().filter(|c| c.label.contains(filter.as_str())) {
        let mut cells = Vec::new();
        for len in SIZES {
            let (o, p) = (c.make)(len);
            let cell = measure(o, p, rounds, batch_ns);
            println!(
                "{:<24} {:>6} B  ours {:>9.1} ns  {} {:>9.1} ns  paired median {:.3}x (p10 {:.3}x)",
                c.label, len, cell.ours, c.peer, cell.peer, cell.ratio, cell.ratio_p10
            );
            cells.push(cell);
        }
        rows.push((c, cells));
    }
    let md = render(&rows, rounds, backend, &args.note);
    println!("\n{md}");
    if let Some(path) = &args.markdown {
        std::fs::write(path, &md).unwrap_or_else(|e| panic!("{path}: {e}"));
        eprintln!("uhf_paired: table written to {path}");
    }
}

/// The README table: per row and size, the paired median ratio (above 1x: ours is faster; for
/// `ghash-vs-polyval`, our GHASH's speed relative to our POLYVAL's) and our time.
fn render(
    rows: &[(&Case, Vec<Cell>)],
    rounds: usize,
    backend: clmul_core::Backend,
    note: &str,
) -> String {
    let mut s = format!(
        "{}; ours on the `{backend}` backend. {rounds} rounds of interleaved batches per cell; \
         a cell is the median of the per-round ratios (the peer's time / ours: above 1x ours \
         is faster), then our time (its {}th percentile over the rounds).\n\n",
        if note.is_empty() {
            "Measured on this machine"
        } else {
            note
        },
        (benches::Q * 100.0).round(),
    );
    s.push_str("| pattern | peer |");
    for len in SIZES {
        s.push_str(&if len >= 1024 {
            format!(" {} KiB |", len / 1024)
        } else {
            format!(" {len} B |")
        });
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---:|".repeat(SIZES.len()));
    s.push('\n');
    for (c, cells) in rows {
        s.push_str(&format!("| {} | {} |", c.label, c.peer));
        for cell in cells {
            s.push_str(&format!(" {:.2}x, {:.1} ns |", cell.ratio, cell.ours));
        }
        s.push('\n');
    }
    s
}
