//! Turns criterion's results into markdown tables: one per benchmark group, one row per
//! implementation, one column per message size.
//!
//! ```text
//! cargo run -p benches --bin report -- [OPTIONS] <criterion dir>
//!
//!   <criterion dir>     e.g. $CARGO_TARGET_DIR/criterion (holds <group>/<impl>/<size>/new/)
//!   --metric M          what each cell shows: all (default), gbps, cpb, ratio
//!   --baseline IMPL     the impl ratios are taken against (default: rustcrypto)
//!   --group TEXT        only groups whose name contains TEXT (repeatable)
//!   --exclude TEXT      no group whose name contains TEXT (repeatable)
//!   --ghz X             the core clock for cycles/byte (default: <criterion dir>/core-ghz.txt,
//!                       written by the benches)
//! ```
//!
//! Each cell is computed from criterion's median point estimate (`new/estimates.json`) and the
//! benchmark's declared throughput (`new/benchmark.json`): GB/s = bytes / ns, cycles/byte =
//! ns x GHz / bytes, and ratio = baseline time / impl time at the same size (above 1 is faster
//! than the baseline). Markdown goes to stdout, diagnostics to stderr.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

/// The implementations in the order rows are printed; others follow, alphabetically.
const IMPL_ORDER: &[&str] = &[
    "ours-portable",
    "ours-pclmul",
    "ours-avx2",
    "ours-avx512",
    "ours-pmull",
    "ours",
    "rustcrypto",
    "ring",
    "aws-lc-rs",
];

/// What each table cell shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Metric {
    All,
    Gbps,
    Cpb,
    Ratio,
}

struct Options {
    dir: PathBuf,
    metric: Metric,
    baseline: String,
    groups: Vec<String>,
    exclude: Vec<String>,
    ghz: Option<f64>,
    /// Print an SVG chart of throughput against size for this group instead of tables.
    svg: Option<String>,
}

/// One measured benchmark: `group` / `imp` / `size`.
struct Measurement {
    group: String,
    imp: String,
    /// The parameter criterion recorded (a byte count in our benches, but kept as text).
    size: String,
    /// Bytes per iteration, from the declared throughput.
    bytes: Option<u64>,
    /// Median time per iteration, in nanoseconds.
    median_ns: f64,
}

fn usage() -> &'static str {
    "usage: report [--metric all|gbps|cpb|ratio] [--baseline IMPL] [--group TEXT]... \
     [--exclude TEXT]... [--ghz X] [--svg GROUP] <criterion dir>"
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut opts = Options {
        svg: None,
        dir: PathBuf::new(),
        metric: Metric::All,
        baseline: "rustcrypto".to_owned(),
        groups: Vec::new(),
        exclude: Vec::new(),
        ghz: None,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--metric" => {
                opts.metric = match value("--metric")?.as_str() {
                    "all" => Metric::All,
                    "gbps" => Metric::Gbps,
                    "cpb" => Metric::Cpb,
                    "ratio" => Metric::Ratio,
                    m => return Err(format!("unknown metric {m:?}")),
                }
            }
            "--baseline" => opts.baseline = value("--baseline")?,
            "--svg" => opts.svg = Some(value("--svg")?),
            "--group" => opts.groups.push(value("--group")?),
            "--exclude" => opts.exclude.push(value("--exclude")?),
            "--ghz" => {
                let v = value("--ghz")?;
                opts.ghz = Some(v.parse().map_err(|e| format!("--ghz {v:?}: {e}"))?);
            }
            "-h" | "--help" => return Err(String::new()),
            a if a.starts_with('-') => return Err(format!("unknown option {a:?}")),
            a if dir.is_none() => dir = Some(PathBuf::from(a)),
            a => return Err(format!("unexpected argument {a:?}")),
        }
    }
    opts.dir = dir.ok_or("missing <criterion dir>")?;
    Ok(opts)
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads one result directory (the parent of `new/`).
fn read_measurement(dir: &Path) -> Result<Measurement, String> {
    let bench = read_json(&dir.join("new/benchmark.json"))?;
    let est = read_json(&dir.join("new/estimates.json"))?;
    let text = |v: &Value, key: &str| v[key].as_str().map(str::to_owned);
    let median_ns = est["median"]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("{}: no median.point_estimate", dir.display()))?;
    let group =
        text(&bench, "group_id").ok_or_else(|| format!("{}: no group_id", dir.display()))?;
    let (imp, size) = match (text(&bench, "function_id"), text(&bench, "value_str")) {
        (Some(f), Some(v)) => (f, v),
        (Some(f), None) => (f, String::new()),
        (None, Some(v)) => (String::new(), v),
        (None, None) => (String::new(), String::new()),
    };
    let throughput = &bench["throughput"];
    let bytes = throughput["Bytes"]
        .as_u64()
        .or_else(|| throughput["BytesDecimal"].as_u64());
    Ok(Measurement {
        group,
        imp,
        size,
        bytes,
        median_ns,
    })
}

/// Every result directory under `root`: those with `new/benchmark.json`.
fn find_results(root: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root)? {
        let path = entry?.path();
        if !path.is_dir() {
            continue;
        }
        if path.join("new/benchmark.json").is_file() {
            out.push(path.clone());
        }
        // Criterion keeps `base/`, `new/` and `change/` beside the sub-benchmarks; skip them.
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !matches!(name, "new" | "base" | "change" | "report") {
            find_results(&path, out)?;
        }
    }
    Ok(())
}

/// Sort key of an implementation name: the known ones in `IMPL_ORDER`, then the rest.
fn impl_rank(name: &str) -> (usize, String) {
    let rank = IMPL_ORDER.iter().position(|&n| n == name);
    (rank.unwrap_or(IMPL_ORDER.len()), name.to_owned())
}

/// Sort key of a size column: numbers numerically, then any others as text.
fn size_rank(size: &str) -> (u64, String) {
    (size.parse().unwrap_or(u64::MAX), size.to_owned())
}

/// `16384` -> `16 KiB`, `1420` -> `1420 B`.
fn size_label(size: &str) -> String {
    match size.parse::<u64>() {
        Ok(n) if n >= 1024 && n % 1024 == 0 => format!("{} KiB", n / 1024),
        Ok(n) => format!("{n} B"),
        Err(_) if size.is_empty() => "-".to_owned(),
        Err(_) => size.to_owned(),
    }
}

fn cell(m: &Measurement, base: Option<&Measurement>, ghz: Option<f64>, metric: Metric) -> String {
    let gbps = m.bytes.map(|b| b as f64 / m.median_ns);
    let cpb = m.bytes.zip(ghz).map(|(b, g)| m.median_ns * g / b as f64);
    let ratio = base.map(|b| b.median_ns / m.median_ns);
    let gbps_s = gbps.map(|v| format!("{v:.2} GB/s"));
    let cpb_s = cpb.map(|v| format!("{v:.2} c/B"));
    let ratio_s = ratio.map(|v| format!("{v:.2}x"));
    let time_s = || format!("{:.1} ns", m.median_ns);
    match metric {
        Metric::Gbps => gbps_s.unwrap_or_else(time_s),
        Metric::Cpb => cpb_s.unwrap_or_else(|| "-".to_owned()),
        Metric::Ratio => ratio_s.unwrap_or_else(|| "-".to_owned()),
        Metric::All => {
            let mut parts: Vec<String> = Vec::new();
            parts.push(gbps_s.unwrap_or_else(time_s));
            parts.extend(cpb_s);
            parts.extend(ratio_s);
            parts.join(", ")
        }
    }
}

fn render(opts: &Options, results: &[Measurement], ghz: Option<f64>) -> String {
    // group -> (impl -> (size -> measurement))
    let mut groups: BTreeMap<&str, BTreeMap<&str, BTreeMap<&str, &Measurement>>> = BTreeMap::new();
    for m in results {
        if !opts.groups.is_empty() && !opts.groups.iter().any(|g| m.group.contains(g.as_str())) {
            continue;
        }
        if opts.exclude.iter().any(|g| m.group.contains(g.as_str())) {
            continue;
        }
        groups
            .entry(&m.group)
            .or_default()
            .entry(&m.imp)
            .or_default()
            .insert(&m.size, m);
    }

    let mut out = String::new();
    match ghz {
        Some(g) => {
            let _ = writeln!(out, "Core clock {g:.2} GHz (measured by the benches).");
        }
        None => {
            let _ = writeln!(out, "Core clock unknown: no cycles/byte.");
        }
    }
    let _ = writeln!(
        out,
        "Cells: median throughput, cycles/byte, and speed relative to `{}` at the same size \
         (above 1x is faster).",
        opts.baseline
    );
    for (group, impls) in &groups {
        let mut sizes: Vec<&str> = impls.values().flat_map(|s| s.keys().copied()).collect();
        sizes.sort_by_key(|s| size_rank(s));
        sizes.dedup();
        let mut names: Vec<&str> = impls.keys().copied().collect();
        names.sort_by_key(|n| impl_rank(n));
        let base = impls.get(opts.baseline.as_str());

        let _ = writeln!(out, "\n### {group}\n");
        let _ = write!(out, "| impl |");
        for s in &sizes {
            let _ = write!(out, " {} |", size_label(s));
        }
        let _ = write!(out, "\n|---|");
        for _ in &sizes {
            let _ = write!(out, "---:|");
        }
        out.push('\n');
        for name in names {
            let _ = write!(out, "| {name} |");
            for s in &sizes {
                let text = match impls[name].get(s) {
                    Some(m) => cell(m, base.and_then(|b| b.get(s)).copied(), ghz, opts.metric),
                    None => "-".to_owned(),
                };
                let _ = write!(out, " {text} |");
            }
            out.push('\n');
        }
    }
    out
}

fn run(opts: &Options) -> Result<String, String> {
    let mut dirs = Vec::new();
    find_results(&opts.dir, &mut dirs).map_err(|e| format!("{}: {e}", opts.dir.display()))?;
    if dirs.is_empty() {
        return Err(format!("no criterion results under {}", opts.dir.display()));
    }
    let mut results = Vec::new();
    for d in &dirs {
        match read_measurement(d) {
            Ok(m) => results.push(m),
            Err(e) => eprintln!("report: skipping {e}"),
        }
    }
    let ghz = match opts.ghz {
        Some(g) => Some(g),
        None => {
            let path = opts.dir.join(benches::CORE_GHZ_FILE);
            match std::fs::read_to_string(&path) {
                Ok(t) => Some(
                    t.trim()
                        .parse::<f64>()
                        .map_err(|e| format!("{}: {e}", path.display()))?,
                ),
                Err(e) => {
                    eprintln!("report: {}: {e}; cycles/byte left out", path.display());
                    None
                }
            }
        }
    };
    match &opts.svg {
        Some(group) => render_svg(group, &results),
        None => Ok(render(opts, &results, ghz)),
    }
}

/// A line chart of throughput (GB/s) against message size (log scale) for one group: one line
/// per implementation. Plain SVG, no dependencies.
fn render_svg(group: &str, results: &[Measurement]) -> Result<String, String> {
    let mut lines: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for m in results.iter().filter(|m| m.group == group) {
        if let Some(b) = m.bytes {
            lines
                .entry(&m.imp)
                .or_default()
                .push((b as f64, b as f64 / m.median_ns));
        }
    }
    if lines.is_empty() {
        return Err(format!("no results with a throughput in group {group:?}"));
    }
    for pts in lines.values_mut() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let (w, h, left, right, top, bottom) = (720.0, 420.0, 60.0, 150.0, 40.0, 50.0);
    let xs = lines.values().flatten().map(|p| p.0.log2());
    let (xmin, xmax) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let ymax = lines.values().flatten().map(|p| p.1).fold(0.0, f64::max) * 1.1;
    let px = |x: f64| left + (x.log2() - xmin) / (xmax - xmin).max(1e-9) * (w - left - right);
    let py = |y: f64| h - bottom - y / ymax * (h - top - bottom);
    let colors = [
        "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf",
    ];
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{left}" y="24" font-size="15">{group}: throughput (GB/s) by message size</text>"#
    );
    // Axes, y grid lines and labels.
    let step = if ymax > 20.0 {
        5.0
    } else if ymax > 8.0 {
        2.0
    } else {
        1.0
    };
    let mut y = 0.0;
    while y <= ymax {
        let (x2, yy, tx, ty) = (w - right, py(y), left - 6.0, py(y) + 4.0);
        let _ = writeln!(
            out,
            r##"<line x1="{left}" x2="{x2}" y1="{yy:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{tx}" y="{ty:.1}" text-anchor="end">{y}</text>"##
        );
        y += step;
    }
    let mut sizes: Vec<f64> = lines.values().flatten().map(|p| p.0).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    for s in &sizes {
        let label = size_label(&format!("{}", *s as u64));
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{label}</text>"#,
            px(*s),
            h - bottom + 18.0
        );
    }
    let mut names: Vec<&str> = lines.keys().copied().collect();
    names.sort_by_key(|n| impl_rank(n));
    for (i, name) in names.iter().enumerate() {
        let color = colors[i % colors.len()];
        let pts: Vec<String> = lines[name]
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            pts.join(" ")
        );
        let ly = top + 20.0 * i as f64;
        let _ = writeln!(
            out,
            r#"<line x1="{0}" x2="{1}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{2}" y="{3}">{name}</text>"#,
            w - right + 10.0,
            w - right + 30.0,
            w - right + 36.0,
            ly + 4.0
        );
    }
    let _ = writeln!(out, "</svg>");
    Ok(out)
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("report: {e}");
            }
            eprintln!("{}", usage());
            return ExitCode::from(2);
        }
    };
    match run(&opts) {
        Ok(md) => {
            print!("{md}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("report: {e}");
            ExitCode::FAILURE
        }
    }
}
