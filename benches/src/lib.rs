//! Helpers shared by the criterion benches in `benches/` and the `report` tool.
//!
//! Criterion reports time, and time is what the machine's TSC counts, but the TSC ticks at a
//! fixed rate that is not the core clock. To turn nanoseconds into cycles per byte the benches
//! measure the core clock themselves ([`estimate_core_ghz`]) and leave it beside criterion's
//! results ([`write_core_ghz`]), where `report` finds it.
#![deny(unsafe_code)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// The file, inside criterion's output directory, that holds the measured core clock in GHz.
pub const CORE_GHZ_FILE: &str = "core-ghz.txt";

/// Where criterion writes its results, found the way criterion finds it: `$CRITERION_HOME`,
/// else `$CARGO_TARGET_DIR/criterion`, else `<target>/criterion` from the running bench's own
/// path (`<target>/<profile>/deps/<bench>-<hash>`).
pub fn criterion_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    let exe = std::env::current_exe().ok()?;
    Some(exe.ancestors().nth(3)?.join("criterion"))
}

/// Steps of the dependent chain per timed trial (each step is 8 links: 16 cycles), so a trial
/// lasts about a quarter of a millisecond: short enough that most trials run without being
/// preempted on a machine shared with other work.
const STEPS: u64 = 1 << 16;
/// Timed trials; the fastest one counts.
const TRIALS: usize = 100;

/// Estimates the core clock in GHz from a chain of dependent one-cycle integer operations.
///
/// Each link of the chain is `x = x.rotate_left(1) ^ k`: a rotate by an immediate and an xor,
/// each one cycle of latency on current x86-64 and aarch64 cores, and each needing the previous
/// result, so `n` links take `2n` core cycles however wide the machine is. (`k` comes through
/// `black_box`, so the compiler cannot fold the chain into a closed form; the loop is unrolled
/// eight links deep so that loop control hides in spare issue slots.) The estimate is the
/// fastest of many short trials: preemption, a clock still ramping up, or a time slice shared
/// with another process can only make a trial look slower, never faster.
pub fn estimate_core_ghz() -> f64 {
    let k = black_box(0x9e37_79b9_7f4a_7c15_u64);
    let mut best = 0.0_f64;
    for _ in 0..TRIALS {
        let mut x = black_box(1_u64);
        let start = Instant::now();
        for _ in 0..STEPS {
            x = x.rotate_left(1) ^ k;
            x = x.rotate_left(1) ^ k;
            x = x.rotate_left(1) ^ k;
            x = x.rotate_left(1) ^ k;
            x = x.rotate_left(1) ^ k;
            x = x.rotate_left(1) ^ k;
            x = x.rotate_left(1) ^ k;
            x = x.rotate_left(1) ^ k;
        }
        let elapsed = start.elapsed();
        black_box(x);
        let cycles = (16 * STEPS) as f64;
        best = best.max(cycles / elapsed.as_nanos().max(1) as f64);
    }
    best
}

/// [`estimate_core_ghz`], printed to stderr with `when` ("before", "after").
pub fn measure_core_ghz(when: &str) -> f64 {
    let ghz = estimate_core_ghz();
    eprintln!("core clock {when}: {ghz:.3} GHz (dependent rotate/xor chain, fastest of {TRIALS})");
    ghz
}

/// Writes the core clock to `<criterion dir>/core-ghz.txt`, where the `report` tool reads it.
///
/// A failure to write is reported on stderr and otherwise ignored: the timings themselves do
/// not depend on it.
pub fn write_core_ghz(ghz: f64) {
    let Some(dir) = criterion_dir() else {
        eprintln!("no criterion directory found; core clock not written");
        return;
    };
    let path = dir.join(CORE_GHZ_FILE);
    let written =
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, format!("{ghz:.4}\n")));
    match written {
        Ok(()) => eprintln!("core clock {ghz:.3} GHz written to {}", path.display()),
        Err(e) => eprintln!("could not write {}: {e}", path.display()),
    }
}

/// Runs `benches` between two core clock estimates, and records the higher one (see
/// [`write_core_ghz`]): a bench binary's `main`.
pub fn run_with_core_clock(benches: impl FnOnce()) {
    let before = measure_core_ghz("before");
    benches();
    let after = measure_core_ghz("after");
    write_core_ghz(before.max(after));
}

/// [`test_data`] in a buffer that ends where an inaccessible page begins (`mmap` of two
/// pages, the second `PROT_NONE`; leaked, it lives as long as the bench): a buffer at the end
/// of a mapping or before an allocator's guard page, where any access past its end, even one
/// whose fault a masked instruction suppresses, is out of bounds. `len <= 4096`. Elsewhere
/// than on Linux, a leaked `Vec`.
#[allow(unsafe_code)]
pub fn guarded_data(len: usize) -> &'static mut [u8] {
    assert!(len <= 4096);
    #[cfg(target_os = "linux")]
    {
        unsafe extern "C" {
            fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64)
            -> *mut u8;
            fn mprotect(addr: *mut u8, len: usize, prot: i32) -> i32;
        }
        // PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS; PROT_NONE.
        const RW: i32 = 3;
        const PRIVATE_ANON: i32 = 0x22;
        const NONE: i32 = 0;
        // SAFETY: an anonymous private mapping of two fresh pages (checked below), the second
        // made inaccessible; the slice is the last `len` bytes of the first, which nothing else
        // refers to, and the mapping is never unmapped.
        unsafe {
            let p = mmap(core::ptr::null_mut(), 8192, RW, PRIVATE_ANON, -1, 0);
            assert!(!p.is_null() && p as isize != -1, "mmap failed");
            assert_eq!(mprotect(p.add(4096), 4096, NONE), 0, "mprotect failed");
            let s = core::slice::from_raw_parts_mut(p.add(4096 - len), len);
            s.copy_from_slice(&test_data(len));
            s
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        test_data(len).leak()
    }
}

/// Where the benches put a message buffer: this many bytes past a 4096-byte boundary
/// ([`placed_data`]). 16 is where glibc's `malloc` puts a large allocation (a page and its
/// 16-byte header), and one of the four places it puts a small one; each 64-byte access of
/// the buffer then crosses a cache line.
pub const PLACE: usize = 16;

/// Where a bench puts its buffers: [`PLACE`], unless the environment's `BENCH_OFFSET` gives
/// another number of bytes past a 4096-byte boundary (the same for every implementation).
pub fn place() -> usize {
    std::env::var("BENCH_OFFSET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(PLACE)
}

/// [`test_data`] starting `off` bytes past a 4096-byte boundary (leaked: it lives as long as
/// the bench), so that every implementation a bench compares gets its buffer at the same
/// place relative to cache lines and pages. Where an allocator put each one, a 64-byte access
/// crossed a cache line in one implementation's buffer and not in another's, and the 16 KiB
/// rows moved by about 5% with it (Intel Xeon, 512-bit engine, default profile, `aes-gcm`
/// alone encrypting in place: AES-128 16 KiB 835 ns with the buffer on a 64-byte boundary,
/// 877-903 ns 16, 32 or 48 bytes past one).
pub fn placed_data(len: usize, off: usize) -> &'static mut [u8] {
    let v = vec![0u8; len + off + 4096].leak();
    let at = (4096 - v.as_ptr() as usize % 4096) % 4096 + off;
    let s = &mut v[at..at + len];
    s.copy_from_slice(&test_data(len));
    s
}

/// `len` bytes of fixed pseudo-random data (xorshift64*), the same on every run.
pub fn test_data(len: usize) -> Vec<u8> {
    let mut s = 0x2545_f491_4f6c_dd1d_u64;
    (0..len)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// About `us` microseconds of scalar work (a multiply-add chain, no memory, no vector
/// instructions): what a program does between two messages of sporadic traffic.
pub fn other_work(us: u64) {
    let start = Instant::now();
    let mut x = 1u64;
    while start.elapsed().as_nanos() < u128::from(us) * 1000 {
        for _ in 0..64 {
            x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
        }
    }
    black_box(x);
}

/// Flushes the cache lines of `buf` from every level of the cache (`CLFLUSH`), so that the
/// next access to them reads memory: a buffer a device has just written, or one nothing has
/// touched for a while. Elsewhere than on x86_64, nothing.
#[allow(unsafe_code)]
pub fn evict(buf: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_clflush, _mm_mfence};
        let end = buf.as_ptr() as usize + buf.len();
        let mut line = buf.as_ptr() as usize & !63;
        while line < end {
            // SAFETY: SSE2 (the x86_64 baseline); the line holds bytes of `buf`, so it is
            // mapped, and a flush changes no data.
            unsafe { _mm_clflush(line as *const u8) };
            line += 64;
        }
        // SAFETY: SSE2; orders the flushes before what follows.
        unsafe { _mm_mfence() };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = buf;
}

/// Runs `n` operations of one implementation; returns the nanoseconds they took.
pub type Runner = Box<dyn FnMut(u64) -> f64>;

/// Times `runners` interleaved: after a warm-up, each gets a batch size of about `batch_ns`,
/// then every round times one batch of each, in an order rotating by one per round (so a
/// load that comes and goes falls on all of them alike). Returns, per runner, the time of one
/// operation in each round.
pub fn interleave(runners: &mut [Runner], rounds: usize, batch_ns: f64) -> Vec<Vec<f64>> {
    let sizes: Vec<u64> = runners
        .iter_mut()
        .map(|r| {
            r(16);
            let mut n = 1u64;
            while r(n) < batch_ns / 4.0 && n < 1 << 30 {
                n *= 2;
            }
            let t = r(n) / n as f64;
            ((batch_ns / t).ceil() as u64).max(1)
        })
        .collect();
    let k = runners.len();
    let mut times = vec![Vec::with_capacity(rounds); k];
    for round in 0..rounds {
        for j in 0..k {
            let i = (round + j) % k;
            times[i].push(runners[i](sizes[i]) / sizes[i] as f64);
        }
    }
    times
}

/// The value below which a fraction `q` of `v` lies (nearest rank).
pub fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// The fraction of rounds below which the interleaved benches (`headline.rs`,
/// `uhf_paired.rs`) take an implementation's time: on a shared machine the load of others only
/// ever adds time, so a low quantile is the estimate least disturbed by it (and, unlike the
/// minimum, not one lucky batch).
pub const Q: f64 = 0.2;

/// The command line of the interleaved benches: `--rounds N`, `--batch-ms M` or
/// `--batch-us U`, `--markdown FILE`, `--note TEXT`, `--cookie OURS PUBLISHED` (the headline's
/// two builds of the cookie bench), and a filter (the first argument not starting with `-`).
pub struct InterleavedArgs {
    pub rounds: usize,
    /// Nanoseconds per batch of one implementation.
    pub batch_ns: f64,
    pub markdown: Option<String>,
    pub note: String,
    /// The paths of the cookie bench built with our `aes-gcm` 0.10 and with the published one.
    pub cookie: Option<(String, String)>,
    pub filter: String,
}

impl InterleavedArgs {
    /// Parses the process's arguments; `tool` names the bench in messages.
    pub fn parse(tool: &str, rounds: usize, batch_ns: f64) -> Self {
        let mut a = Self {
            rounds,
            batch_ns,
            markdown: None,
            note: String::new(),
            cookie: None,
            filter: String::new(),
        };
        let mut args = std::env::args().skip(1);
        let number = |args: &mut std::iter::Skip<std::env::Args>, flag: &str| -> f64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{tool}: {flag} takes a number"))
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--rounds" => a.rounds = number(&mut args, "--rounds") as usize,
                "--batch-ms" => a.batch_ns = number(&mut args, "--batch-ms") * 1e6,
                "--batch-us" => a.batch_ns = number(&mut args, "--batch-us") * 1e3,
                "--markdown" => a.markdown = args.next(),
                "--note" => a.note = args.next().unwrap_or_default(),
                "--cookie" => {
                    let mut path = || {
                        args.next().unwrap_or_else(|| {
                            panic!("{tool}: --cookie takes two paths, OURS PUBLISHED")
                        })
                    };
                    a.cookie = Some((path(), path()));
                }
                // What cargo bench passes.
                "--bench" => {}
                f if !f.starts_with('-') => a.filter = f.to_owned(),
                other => eprintln!("{tool}: ignoring {other}"),
            }
        }
        a
    }
}
