//! The headline comparison: our AES-GCM against the best of ring and aws-lc-rs on the cases of
//! the README's short table, our 256-bit VAES engine forced against ring (whose VAES+AVX2
//! code is what CPUs without AVX-512 run), and our AES-GCM-SIV against aws-lc-rs (ring has
//! none) and RustCrypto's `aes-gcm-siv` 0.12.1, in a minute or two.
//!
//! The machines this runs on are shared, and their load changes while a run goes on, so the
//! implementations of a case are measured *interleaved*: each round times a short batch of
//! every implementation, in a rotating order, and the result is the median over the rounds,
//! both of each implementation's time and of the per-round ratios (a ratio taken within one
//! round sees the same load on both sides). The full matrix stays in `aead.rs` (criterion).
//!
//! ```text
//! cargo bench -p benches --bench headline -- [--rounds N] [--batch-ms M] [--markdown FILE]
//!                                            [--note TEXT] [FILTER]
//! ```
//!
//! `FILTER` keeps the cases whose label contains it. `HEADLINE_ENGINES=aesni,vaes256,...` adds
//! rows for those engines of ours, forced (for experiments).
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use benches::Runner;

mod impls;
use impls::{Gcm, KEY};

/// One case of the table.
struct Case {
    label: &'static str,
    key: &'static [u8],
    len: usize,
    roundtrip: bool,
    /// The engine-versus-ring cases: ours is the forced 256-bit VAES engine, the peer ring.
    vaes256: bool,
    /// AES-GCM-SIV: ours against aws-lc-rs (ring has none) and RustCrypto's 0.12.1.
    siv: bool,
}

const fn case(label: &'static str, bits: usize, len: usize) -> Case {
    let key: &'static [u8] = if bits == 128 {
        KEY.split_at(16).0
    } else {
        &KEY
    };
    Case {
        label,
        key,
        len,
        roundtrip: false,
        vaes256: false,
        siv: false,
    }
}

const fn siv(label: &'static str, bits: usize, len: usize) -> Case {
    Case {
        siv: true,
        ..case(label, bits, len)
    }
}

const CASES: [Case; 15] = [
    case("AES-128-GCM encrypt 16 KiB", 128, 16384),
    case("AES-256-GCM encrypt 16 KiB", 256, 16384),
    Case {
        roundtrip: true,
        ..case("AES-128-GCM encrypt+decrypt 16 KiB", 128, 16384)
    },
    case("AES-128-GCM encrypt 1420 B", 128, 1420),
    case("AES-128-GCM encrypt 64 B", 128, 64),
    case("AES-128-GCM encrypt 16 B", 128, 16),
    Case {
        vaes256: true,
        ..case("VAES-256 engine: AES-128-GCM encrypt 16 KiB", 128, 16384)
    },
    Case {
        vaes256: true,
        ..case("VAES-256 engine: AES-128-GCM encrypt 1420 B", 128, 1420)
    },
    Case {
        vaes256: true,
        ..case("VAES-256 engine: AES-128-GCM encrypt 64 B", 128, 64)
    },
    siv("AES-128-GCM-SIV encrypt 16 KiB", 128, 16384),
    siv("AES-256-GCM-SIV encrypt 16 KiB", 256, 16384),
    Case {
        roundtrip: true,
        ..siv("AES-256-GCM-SIV encrypt+decrypt 16 KiB", 256, 16384)
    },
    siv("AES-256-GCM-SIV encrypt 1420 B", 256, 1420),
    siv("AES-256-GCM-SIV encrypt 64 B", 256, 64),
    siv("AES-128-GCM-SIV encrypt 16 B", 128, 16),
];

/// A runner for `gcm` on case `c`: in-place encryption, or encryption then decryption.
fn runner<G: Gcm + 'static>(gcm: G, c: &Case) -> Runner {
    let mut buf = benches::test_data(c.len);
    let roundtrip = c.roundtrip;
    Box::new(move |n| {
        let start = Instant::now();
        for _ in 0..n {
            let tag = gcm.seal(black_box(&[]), black_box(&mut buf));
            if roundtrip {
                assert!(
                    gcm.open(&[], black_box(&mut buf), &tag),
                    "tag did not verify"
                );
            }
        }
        start.elapsed().as_nanos() as f64
    })
}

/// The implementations of case `c`, ours first; those this CPU lacks are left out.
fn runners(c: &Case) -> Vec<(String, Runner)> {
    let names: &[&str] = if c.vaes256 {
        &["ours-vaes256", "ring"]
    } else if c.siv {
        &["ours-siv", "aws-lc-rs-siv", "rustcrypto-siv"]
    } else {
        &["ours", "ring", "aws-lc-rs"]
    };
    let mut out: Vec<(String, Runner)> = names
        .iter()
        .filter_map(|n| Some((n.to_string(), take(c, n)?)))
        .collect();
    if !c.vaes256 && !c.siv {
        for e in std::env::var("HEADLINE_ENGINES")
            .unwrap_or_default()
            .split(',')
        {
            if let Some(r) = forced(c, e.trim()) {
                out.push((format!("ours-{}", e.trim()), r));
            }
        }
    }
    out
}

/// A runner for implementation `name` on case `c`, if this CPU has it.
fn take(c: &Case, name: &str) -> Option<Runner> {
    macro_rules! boxed {
        ($make:expr) => {
            match $make(c.key)? {
                impls::OursOrTheirs::A128(g) => runner(g, c),
                impls::OursOrTheirs::A256(g) => runner(g, c),
                impls::OursOrTheirs::Other(g) => runner(g, c),
            }
        };
    }
    Some(match name {
        "ours" => boxed!(impls::ours_detected),
        "ours-vaes256" => boxed!(impls::ours_vaes256),
        "ring" => boxed!(impls::ring),
        "aws-lc-rs" => boxed!(impls::aws_lc),
        "ours-siv" => boxed!(impls::ours_siv),
        "aws-lc-rs-siv" => boxed!(impls::aws_lc_siv),
        "rustcrypto-siv" => boxed!(impls::rustcrypto_siv),
        other => panic!("unknown implementation {other}"),
    })
}

/// Our engine `name` (as `Engine`'s `Debug`, lower case), forced, if this CPU has it.
fn forced(c: &Case, name: &str) -> Option<Runner> {
    let engine =
        aes_gcm::__Engine::available().find(|e| format!("{e:?}").eq_ignore_ascii_case(name))?;
    Some(match impls::ours(c.key, engine)? {
        impls::OursOrTheirs::A128(g) => runner(g, c),
        impls::OursOrTheirs::A256(g) => runner(g, c),
        impls::OursOrTheirs::Other(g) => runner(g, c),
    })
}

/// One case's result: per implementation, its time (the [`benches::Q`] quantile over the rounds) and
/// the median of the per-round ratios of its time to ours (above 1: ours is faster).
struct Row {
    label: &'static str,
    len: usize,
    roundtrip: bool,
    impls: Vec<(String, f64, f64)>,
}

fn measure(c: &Case, rounds: usize, batch_ns: f64) -> Row {
    let (names, mut rs): (Vec<String>, Vec<Runner>) = runners(c).into_iter().unzip();
    let mut times = benches::interleave(&mut rs, rounds, batch_ns);
    let ours = times[0].clone();
    let impls = names
        .iter()
        .zip(&mut times)
        .map(|(name, t)| {
            let mut ratios: Vec<f64> = t.iter().zip(&ours).map(|(a, o)| a / o).collect();
            (
                name.clone(),
                benches::quantile(t, benches::Q),
                benches::quantile(&mut ratios, 0.5),
            )
        })
        .collect();
    Row {
        label: c.label,
        len: c.len,
        roundtrip: c.roundtrip,
        impls,
    }
}

fn gbps(row: &Row, ns: f64) -> f64 {
    let bytes = row.len as f64 * if row.roundtrip { 2.0 } else { 1.0 };
    bytes / ns
}

fn main() {
    let args = benches::InterleavedArgs::parse("headline", 41, 2e6);
    let (rounds, batch_ns, filter) = (args.rounds, args.batch_ns, &args.filter);
    let ghz = benches::measure_core_ghz("before");
    let mut rows = Vec::new();
    for c in CASES.iter().filter(|c| c.label.contains(filter.as_str())) {
        let row = measure(c, rounds, batch_ns);
        let ours_ns = row.impls[0].1;
        for (name, ns, ratio) in &row.impls {
            let cpb = ns * ghz / (row.len as f64 * if row.roundtrip { 2.0 } else { 1.0 });
            println!(
                "{:<46} {:<14} {:>9.1} ns {:>6.2} GB/s {:>6.3} c/B  ours {:.2}x (paired median {:.2}x)",
                row.label,
                name,
                ns,
                gbps(&row, *ns),
                cpb,
                ns / ours_ns,
                ratio
            );
        }
        rows.push(row);
    }
    let md = render(&rows, ghz, rounds, &args.note);
    println!("\n{md}");
    if let Some(path) = &args.markdown {
        std::fs::write(path, &md).unwrap_or_else(|e| panic!("{path}: {e}"));
        eprintln!("headline: table written to {path}");
    }
}

/// The README's headline table: ours, the best peer and the ratio, per case.
fn render(rows: &[Row], ghz: f64, rounds: usize, note: &str) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{}; core clock {ghz:.2} GHz. {rounds} rounds of interleaved batches per case; each \
         implementation's time is its {}th percentile over the rounds (above 1x: ours is \
         faster).\n\n",
        if note.is_empty() {
            "Measured on this machine"
        } else {
            note
        },
        (benches::Q * 100.0).round(),
    ));
    s.push_str(
        "| case | ours | best peer | ours vs best peer | ours vs RustCrypto |\n\
         |---|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let (ours, peers) = row.impls.split_first().expect("ours is measured");
        let Some(best) = peers
            .iter()
            .filter(|(n, _, _)| ["ring", "aws-lc-rs", "aws-lc-rs-siv"].contains(&n.as_str()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
        else {
            continue;
        };
        let rustcrypto = peers
            .iter()
            .find(|(n, _, _)| n.starts_with("rustcrypto"))
            .map_or(String::new(), |r| format!("{:.2}x", r.1 / ours.1));
        s.push_str(&format!(
            "| {} | {:.2} GB/s | {:.2} GB/s ({}) | {:.2}x | {rustcrypto} |\n",
            row.label,
            gbps(row, ours.1),
            gbps(row, best.1),
            best.0.trim_end_matches("-siv"),
            best.1 / ours.1
        ));
    }
    s
}
