//! The headline comparison: our AES-GCM against ring, aws-lc-rs and RustCrypto's `aes-gcm`
//! on the cases of the README's short table (the shapes protocols send: TLS, QUIC and ESP
//! records with their AAD, short messages, a fresh key per message, forged records), our
//! 256-bit VAES engine forced against ring (whose VAES+AVX2 code is what CPUs without AVX-512
//! run), our AES-GCM-SIV against aws-lc-rs (ring has none) and RustCrypto's `aes-gcm-siv`,
//! and a real client, `cookie`'s private jar, with our `aes-gcm` 0.10 patched in against the
//! published crate; in a minute or two.
//!
//! The machines this runs on are shared, and their load changes while a run goes on, so the
//! implementations of a case are measured *interleaved*: each round times a short batch of
//! every implementation, in a rotating order, and the result is the median over the rounds,
//! both of each implementation's time and of the per-round ratios (a ratio taken within one
//! round sees the same load on both sides). The full matrix stays in `aead.rs` (criterion).
//!
//! Every output a caller would read (the tag, the verdict of `open`) goes through
//! [`black_box`]: the compiler could otherwise drop the unread part of our pure-Rust work
//! (the tag's GHASH), but never a peer's foreign call, which would flatter us.
//!
//! The cookie rows need two builds of `benches/cookie/main.rs` (one `cargo` graph holds one
//! `aes-gcm` 0.10), which `cargo xtask bench` makes and passes as `--cookie OURS PUBLISHED`;
//! each is a child process that times batches on request (see that file), interleaved with
//! the other as the implementations of any other case. Without `--cookie` those rows are
//! skipped.
//!
//! ```text
//! cargo bench -p benches --bench headline -- [--rounds N] [--batch-ms M] [--markdown FILE]
//!                                            [--note TEXT] [--cookie OURS PUBLISHED] [FILTER]
//! ```
//!
//! `FILTER` keeps the cases whose label contains it. `HEADLINE_ENGINES=aesni,vaes256,...` adds
//! rows for those engines of ours, forced (for experiments; the aead 0.6 generation's AES-GCM
//! cases, a fresh key's too).
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use benches::Runner;

mod impls;
use impls::{AAD13, Gcm, KEY};

/// A TLS 1.3 record's AAD: content type 23, legacy version 3.3, length 16385 + 16.
const AAD_TLS13: [u8; 5] = [0x17, 0x03, 0x03, 0x40, 0x11];
/// A QUIC short header's worth of AAD: flags, an 18-byte connection ID, a packet number byte.
const AAD_QUIC: [u8; 20] = *b"\x43\x8f\x21\x5a\x0c\xe7\x93\x14\x6b\xd0\x38\xa5\x71\x2e\xc9\x04\
                              \x5f\xb6\x80\x2d";
/// An ESP header: SPI and sequence number.
const AAD_ESP: [u8; 8] = [0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x00, 0x2a];
/// 16 bytes of AAD, as a short application message might carry.
const AAD16: [u8; 16] = *b"\x9a\x51\x07\xe3\x2c\x68\xbd\x44\x10\xf5\x86\x3b\xc1\x7e\x29\xd2";

/// What a case measures, and so which implementations it compares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// AES-GCM: ours (`aes-gcm` 0.11), ring, aws-lc-rs, RustCrypto's 0.11.1.
    Gcm,
    /// The aead 0.5 generation's AES-GCM: ours (`aes-gcm` 0.10), ring, aws-lc-rs,
    /// RustCrypto's 0.10.3.
    Gcm010,
    /// Our 256-bit VAES engine, forced, against ring.
    Vaes256,
    /// AES-GCM-SIV: ours (`aes-gcm-siv` 0.12), aws-lc-rs (ring has none), RustCrypto's 0.12.1.
    Siv,
    /// The aead 0.5 generation's AES-GCM-SIV: ours (0.11), aws-lc-rs, RustCrypto's 0.11.1.
    Siv011,
    /// `cookie` 0.18.1's private jar, `add` + `get` of a `len`-byte value: with our
    /// `aes-gcm` 0.10 patched in, against the published crate (on RustCrypto's 0.10.3).
    Cookie,
}

/// One case of the table.
struct Case {
    label: &'static str,
    kind: Kind,
    key: &'static [u8],
    len: usize,
    aad: &'static [u8],
    /// Encryption then decryption (and verification) of the same buffer.
    roundtrip: bool,
    /// Decryption in place of messages one in `forged` of which is forged (a tag that does not
    /// verify), as a server pays for what an attacker sends it; 0: no decryption. With 1
    /// every message is forged, each under its own nonce, the buffer left as each crate
    /// leaves it; otherwise every message is the same sealed one (its ciphertext copied into
    /// the buffer first, in every column), opened with its tag or, one in `forged`, another.
    /// The verdict is read.
    forged: u64,
    /// A fresh key per message: the key setup (`KeyInit::new`; ring's and aws-lc-rs's
    /// `UnboundKey::new` + `LessSafeKey::new`) is timed with each message, and the key bytes
    /// change from one message to the next.
    fresh_key: bool,
    /// The buffer ends where an inaccessible page begins (`benches::guarded_data`), as a
    /// buffer at the end of a mapping or before an allocator's guard page does.
    guard_page: bool,
    /// Microseconds of other (scalar) work before each message, as a server with sporadic
    /// traffic runs it; each message is then timed alone, not the work between them.
    gap_us: u64,
    /// A system call (`sched_yield`) before each message, as a server's `recv`/`send` between
    /// packets makes one; each message is then timed alone. The kernel's code runs between
    /// two messages and takes cache lines of theirs: what a message costs with its code and
    /// data fetched again, where a back-to-back loop keeps them all in the first-level caches.
    syscall: bool,
    /// The message's buffer flushed from the caches before each message
    /// (`benches::evict`), as one a network card or a disk has just written, or one nothing
    /// has touched for a while; each message is then timed alone.
    cold_buffer: bool,
}

const fn key(bits: usize) -> &'static [u8] {
    if bits == 128 {
        KEY.split_at(16).0
    } else {
        &KEY
    }
}

const fn case(label: &'static str, bits: usize, len: usize) -> Case {
    Case {
        label,
        kind: Kind::Gcm,
        key: key(bits),
        len,
        aad: &[],
        roundtrip: false,
        forged: 0,
        fresh_key: false,
        guard_page: false,
        gap_us: 0,
        syscall: false,
        cold_buffer: false,
    }
}

/// A case with `aad`.
const fn aad(label: &'static str, bits: usize, len: usize, aad: &'static [u8]) -> Case {
    Case {
        aad,
        ..case(label, bits, len)
    }
}

/// A fresh key per message of `len` bytes with 16 bytes of AAD, of `kind`.
const fn fresh(label: &'static str, kind: Kind, bits: usize, len: usize) -> Case {
    Case {
        kind,
        fresh_key: true,
        aad: &AAD16,
        ..case(label, bits, len)
    }
}

/// A message of `len` bytes with 16 bytes of AAD whose buffer ends before an inaccessible
/// page.
const fn guarded(label: &'static str, len: usize) -> Case {
    Case {
        guard_page: true,
        ..aad(label, 128, len, &AAD16)
    }
}

/// A message of `len` bytes with 16 bytes of AAD after each [`SPORADIC_US`] of other work.
const fn sporadic(label: &'static str, len: usize) -> Case {
    Case {
        gap_us: SPORADIC_US,
        ..aad(label, 128, len, &AAD16)
    }
}

/// A message of `len` bytes with 16 bytes of AAD after a system call.
const fn after_syscall(label: &'static str, len: usize) -> Case {
    Case {
        syscall: true,
        ..aad(label, 128, len, &AAD16)
    }
}

/// A message of `len` bytes with 16 bytes of AAD whose buffer is not in the cache.
const fn cold(label: &'static str, len: usize) -> Case {
    Case {
        cold_buffer: true,
        ..aad(label, 128, len, &AAD16)
    }
}

/// Decryptions of `len` bytes with `with_aad`, one in `one_in` of them forged.
const fn forged(label: &'static str, len: usize, with_aad: &'static [u8], one_in: u64) -> Case {
    Case {
        forged: one_in,
        ..aad(label, 128, len, with_aad)
    }
}

/// The other work between two messages of a sporadic case: long enough for a core to leave
/// the state a steady stream keeps it in (on Intel's AVX-512 cores, the first 512-bit
/// instructions after some 100 us without them run slowly for a while).
const SPORADIC_US: u64 = 200;

const fn vaes256(label: &'static str, len: usize) -> Case {
    Case {
        kind: Kind::Vaes256,
        ..case(label, 128, len)
    }
}

const fn siv(label: &'static str, bits: usize, len: usize) -> Case {
    Case {
        kind: Kind::Siv,
        ..case(label, bits, len)
    }
}

const fn cookie(label: &'static str, len: usize) -> Case {
    Case {
        kind: Kind::Cookie,
        ..case(label, 256, len)
    }
}

const CASES: [Case; 49] = [
    case("AES-128-GCM encrypt 16 KiB", 128, 16384),
    case("AES-256-GCM encrypt 16 KiB", 256, 16384),
    Case {
        roundtrip: true,
        ..case("AES-128-GCM encrypt+decrypt 16 KiB", 128, 16384)
    },
    case("AES-128-GCM encrypt 1420 B", 128, 1420),
    case("AES-128-GCM encrypt 64 B", 128, 64),
    case("AES-128-GCM encrypt 16 B", 128, 16),
    // Records as protocols send them: with their AAD.
    aad(
        "TLS 1.3 record: AES-128-GCM encrypt 16 KiB + 1 B, 5 B AAD",
        128,
        16385,
        &AAD_TLS13,
    ),
    aad(
        "TLS 1.3 record: AES-256-GCM encrypt 16 KiB + 1 B, 5 B AAD",
        256,
        16385,
        &AAD_TLS13,
    ),
    aad(
        "QUIC packet: AES-128-GCM encrypt 1200 B, 20 B AAD",
        128,
        1200,
        &AAD_QUIC,
    ),
    aad(
        "ESP packet: AES-128-GCM encrypt 1420 B, 8 B AAD",
        128,
        1420,
        &AAD_ESP,
    ),
    aad("AES-128-GCM encrypt 64 B, 16 B AAD", 128, 64, &AAD16),
    aad("AES-128-GCM encrypt 16 B, 13 B AAD", 128, 16, &AAD13),
    // The same message in an ordinary buffer, and in one at the end of its mapping (no read or
    // write may stray onto the next page).
    aad("AES-128-GCM encrypt 400 B, 16 B AAD", 128, 400, &AAD16),
    guarded(
        "AES-128-GCM encrypt 400 B, 16 B AAD, before a guard page",
        400,
    ),
    // Sporadic traffic: a message after each 200 µs of other work.
    sporadic("AES-128-GCM encrypt 400 B, 16 B AAD, one per 200 µs", 400),
    sporadic("AES-128-GCM encrypt 1420 B, 16 B AAD, one per 200 µs", 1420),
    // A system call between messages (a server's `recv` and `send`).
    after_syscall(
        "AES-128-GCM encrypt 64 B, 16 B AAD, one per system call",
        64,
    ),
    after_syscall(
        "AES-128-GCM encrypt 400 B, 16 B AAD, one per system call",
        400,
    ),
    after_syscall(
        "AES-128-GCM encrypt 1420 B, 16 B AAD, one per system call",
        1420,
    ),
    // The message's buffer in memory, not in any cache (written by a device, or not touched
    // for a while).
    cold(
        "AES-128-GCM encrypt 1420 B, 16 B AAD, buffer not in cache",
        1420,
    ),
    cold(
        "AES-128-GCM encrypt 16 KiB, 16 B AAD, buffer not in cache",
        16384,
    ),
    // Forged records: each one's decryption fails its tag check.
    forged(
        "ESP packet: AES-128-GCM decrypt 1420 B, 8 B AAD, every one forged",
        1420,
        &AAD_ESP,
        1,
    ),
    forged(
        "ESP packet: AES-128-GCM decrypt 1420 B, 8 B AAD, one in eight forged",
        1420,
        &AAD_ESP,
        8,
    ),
    forged(
        "AES-128-GCM decrypt 16 KiB + 1 B, 5 B AAD, every one forged",
        16385,
        &AAD_TLS13,
        1,
    ),
    forged(
        "AES-128-GCM decrypt 16 KiB + 1 B, 5 B AAD, one in eight forged",
        16385,
        &AAD_TLS13,
        8,
    ),
    // A fresh key per message.
    fresh(
        "fresh key: AES-128-GCM new + encrypt 64 B, 16 B AAD",
        Kind::Gcm,
        128,
        64,
    ),
    fresh(
        "fresh key: AES-128-GCM new + encrypt 1 KiB, 16 B AAD",
        Kind::Gcm,
        128,
        1024,
    ),
    fresh(
        "fresh key: AES-256-GCM new + encrypt 64 B, 16 B AAD",
        Kind::Gcm,
        256,
        64,
    ),
    fresh(
        "fresh key: AES-256-GCM new + encrypt 1 KiB, 16 B AAD",
        Kind::Gcm,
        256,
        1024,
    ),
    fresh(
        "fresh key, aes-gcm 0.10: AES-128-GCM new + encrypt 64 B, 16 B AAD",
        Kind::Gcm010,
        128,
        64,
    ),
    fresh(
        "fresh key, aes-gcm 0.10: AES-128-GCM new + encrypt 1 KiB, 16 B AAD",
        Kind::Gcm010,
        128,
        1024,
    ),
    fresh(
        "fresh key, aes-gcm 0.10: AES-256-GCM new + encrypt 64 B, 16 B AAD",
        Kind::Gcm010,
        256,
        64,
    ),
    fresh(
        "fresh key, aes-gcm 0.10: AES-256-GCM new + encrypt 1 KiB, 16 B AAD",
        Kind::Gcm010,
        256,
        1024,
    ),
    vaes256("VAES-256 engine: AES-128-GCM encrypt 16 KiB", 16384),
    vaes256("VAES-256 engine: AES-128-GCM encrypt 1420 B", 1420),
    vaes256("VAES-256 engine: AES-128-GCM encrypt 64 B", 64),
    siv("AES-128-GCM-SIV encrypt 16 KiB", 128, 16384),
    siv("AES-256-GCM-SIV encrypt 16 KiB", 256, 16384),
    Case {
        roundtrip: true,
        ..siv("AES-256-GCM-SIV encrypt+decrypt 16 KiB", 256, 16384)
    },
    siv("AES-256-GCM-SIV encrypt 1420 B", 256, 1420),
    siv("AES-256-GCM-SIV encrypt 64 B", 256, 64),
    siv("AES-128-GCM-SIV encrypt 16 B", 128, 16),
    Case {
        aad: &AAD16,
        ..siv("AES-256-GCM-SIV encrypt 64 B, 16 B AAD", 256, 64)
    },
    fresh(
        "fresh key: AES-128-GCM-SIV new + encrypt 64 B, 16 B AAD",
        Kind::Siv,
        128,
        64,
    ),
    fresh(
        "fresh key: AES-256-GCM-SIV new + encrypt 64 B, 16 B AAD",
        Kind::Siv,
        256,
        64,
    ),
    fresh(
        "fresh key, aes-gcm-siv 0.11: AES-256-GCM-SIV new + encrypt 64 B, 16 B AAD",
        Kind::Siv011,
        256,
        64,
    ),
    cookie("cookie 0.18.1 private add+get, 16 B value", 16),
    cookie("cookie 0.18.1 private add+get, 200 B value", 200),
    cookie("cookie 0.18.1 private add+get, 2000 B value", 2000),
];

/// A runner for `gcm` (keyed once) on case `c`: in-place encryption, encryption then
/// decryption, or the decryption of a forged message, each message under its own nonce
/// ([`impls::nonce`]). The tag and the verdict are read through `black_box`.
fn runner<G: Gcm + 'static>(gcm: G, c: &Case) -> Runner {
    let buf: &mut [u8] = if c.guard_page {
        benches::guarded_data(c.len)
    } else {
        benches::placed_data(c.len, benches::place())
    };
    let (aad, roundtrip, forged, gap_us, syscall, cold) = (
        c.aad,
        c.roundtrip,
        c.forged,
        c.gap_us,
        c.syscall,
        c.cold_buffer,
    );
    let mut seq = 0u64;
    // The mixed forged cases' one sealed message (nonce 0, which no other message uses).
    let sealed = (forged > 1).then(|| {
        let mut ct = buf.to_vec();
        let tag = gcm.seal_with(&impls::nonce(0), aad, &mut ct);
        (ct, tag)
    });
    Box::new(move |n| {
        let mut message = |buf: &mut [u8]| {
            // Each message its own nonce, as every protocol numbers them.
            seq += 1;
            let nonce = impls::nonce(seq);
            if forged > 0 {
                // A tag no message has (the chance that one does is 2^-128).
                const BAD: [u8; 16] = [0x5a; 16];
                let ok = match &sealed {
                    None => gcm.open_with(&nonce, black_box(aad), black_box(&mut *buf), &BAD),
                    Some((ct, tag)) => {
                        buf.copy_from_slice(ct);
                        let tag = if seq.is_multiple_of(forged) {
                            &BAD
                        } else {
                            tag
                        };
                        let nonce = impls::nonce(0);
                        gcm.open_with(&nonce, black_box(aad), black_box(&mut *buf), tag)
                    }
                };
                assert_eq!(
                    black_box(ok),
                    !seq.is_multiple_of(forged),
                    "verdict of message {seq}"
                );
                return;
            }
            let tag = black_box(gcm.seal_with(&nonce, black_box(aad), black_box(&mut *buf)));
            if roundtrip {
                let ok = gcm.open_with(&nonce, black_box(aad), black_box(&mut *buf), &tag);
                assert!(black_box(ok), "tag did not verify");
            }
        };
        if gap_us > 0 || syscall || cold {
            // Each message alone after its gap or flush: the sum of their times (the clock's
            // own cost, some 20 ns a reading, is in every implementation's).
            let mut total = 0.0;
            for _ in 0..n {
                if syscall {
                    std::thread::yield_now();
                } else if cold {
                    benches::evict(buf);
                } else {
                    benches::other_work(gap_us);
                }
                let start = Instant::now();
                message(buf);
                total += start.elapsed().as_nanos() as f64;
            }
            return total;
        }
        let start = Instant::now();
        for _ in 0..n {
            message(buf);
        }
        start.elapsed().as_nanos() as f64
    })
}

/// A runner for a fresh key per message on case `c`: `make` (the key setup) on key bytes that
/// change every message (a counter XORed into the first eight), then one encryption under the
/// message's nonce, whose tag is read through `black_box`. The key is dropped (and, where the crate does, wiped)
/// inside the timing, as a caller's would be.
fn fresh_runner<G: Gcm + 'static>(c: &Case, make: impl Fn(&[u8]) -> G + 'static) -> Option<Runner> {
    let buf = benches::placed_data(c.len, benches::place());
    let aad = c.aad;
    let base = u64::from_le_bytes(c.key[..8].try_into().expect("8 bytes"));
    let mut key = c.key.to_vec();
    let mut counter = 0u64;
    Some(Box::new(move |n| {
        let start = Instant::now();
        for _ in 0..n {
            counter = counter.wrapping_add(1);
            key[..8].copy_from_slice(&(base ^ counter).to_le_bytes());
            let gcm = make(black_box(&key));
            let nonce = impls::nonce(counter);
            black_box(gcm.seal_with(&nonce, black_box(aad), black_box(&mut *buf)));
        }
        start.elapsed().as_nanos() as f64
    }))
}

/// A runner on one key set up once, from a constructor of `impls`.
fn steady<A, B, C>(
    c: &Case,
    make: impl FnOnce(&[u8]) -> Option<impls::OursOrTheirs<A, B, C>>,
) -> Option<Runner>
where
    A: Gcm + 'static,
    B: Gcm + 'static,
    C: Gcm + 'static,
{
    Some(match make(c.key)? {
        impls::OursOrTheirs::A128(g) => runner(g, c),
        impls::OursOrTheirs::A256(g) => runner(g, c),
        impls::OursOrTheirs::Other(g) => runner(g, c),
    })
}

/// A fresh-key runner for the type of `c`'s key size: `$a128` or `$a256`, built by `$new`
/// (`impls::new_06` or `impls::new_05`).
macro_rules! fresh_rc {
    ($c:expr, $new:ident, $a128:ty, $a256:ty) => {
        if $c.key.len() == 16 {
            fresh_runner($c, impls::$new::<$a128>)
        } else {
            fresh_runner($c, impls::$new::<$a256>)
        }
    };
}

/// A fresh-key runner for ring (`$peer` = `ring_key`, `$alg` = `ring_gcm`) or aws-lc-rs
/// (`aws_lc_key`, `aws_lc_gcm` or `aws_lc_gcm_siv`), for the algorithm of `c`'s key size.
macro_rules! fresh_peer {
    ($c:expr, $peer:ident, $alg:ident) => {
        if $c.key.len() == 16 {
            fresh_runner($c, |k| impls::$peer(impls::$alg(16), k))
        } else {
            fresh_runner($c, |k| impls::$peer(impls::$alg(32), k))
        }
    };
}

/// The implementations of case `c`, ours first; those this CPU lacks are left out (`None`:
/// the case itself cannot run here).
fn runners(c: &Case, cookie: Option<&(String, String)>) -> Option<Vec<(String, Runner)>> {
    let list: Vec<(&str, Option<Runner>)> = match (c.kind, c.fresh_key) {
        (Kind::Gcm, false) => vec![
            ("ours", steady(c, impls::ours_detected)),
            ("ring", steady(c, impls::ring)),
            ("aws-lc-rs", steady(c, impls::aws_lc)),
            ("rustcrypto", steady(c, impls::rustcrypto)),
        ],
        (Kind::Gcm, true) => vec![
            (
                "ours",
                fresh_rc!(c, new_06, aes_gcm::Aes128Gcm, aes_gcm::Aes256Gcm),
            ),
            ("ring", fresh_peer!(c, ring_key, ring_gcm)),
            ("aws-lc-rs", fresh_peer!(c, aws_lc_key, aws_lc_gcm)),
            (
                "rustcrypto",
                fresh_rc!(
                    c,
                    new_06,
                    upstream_aes_gcm::Aes128Gcm,
                    upstream_aes_gcm::Aes256Gcm
                ),
            ),
        ],
        (Kind::Gcm010, true) => vec![
            (
                "ours",
                fresh_rc!(c, new_05, aes_gcm_010::Aes128Gcm, aes_gcm_010::Aes256Gcm),
            ),
            ("ring", fresh_peer!(c, ring_key, ring_gcm)),
            ("aws-lc-rs", fresh_peer!(c, aws_lc_key, aws_lc_gcm)),
            (
                "rustcrypto",
                fresh_rc!(
                    c,
                    new_05,
                    upstream_aes_gcm_010::Aes128Gcm,
                    upstream_aes_gcm_010::Aes256Gcm
                ),
            ),
        ],
        (Kind::Gcm010 | Kind::Siv011, false) | (Kind::Vaes256 | Kind::Cookie, true) => {
            unreachable!("{}: no such case", c.label)
        }
        (Kind::Vaes256, false) => vec![
            ("ours-vaes256", steady(c, impls::ours_vaes256)),
            ("ring", steady(c, impls::ring)),
        ],
        (Kind::Siv, false) => vec![
            ("ours", steady(c, impls::ours_siv)),
            ("aws-lc-rs", steady(c, impls::aws_lc_siv)),
            ("rustcrypto", steady(c, impls::rustcrypto_siv)),
        ],
        (Kind::Siv, true) => vec![
            (
                "ours",
                fresh_rc!(
                    c,
                    new_06,
                    aes_gcm_siv::Aes128GcmSiv,
                    aes_gcm_siv::Aes256GcmSiv
                ),
            ),
            ("aws-lc-rs", fresh_peer!(c, aws_lc_key, aws_lc_gcm_siv)),
            (
                "rustcrypto",
                fresh_rc!(
                    c,
                    new_06,
                    upstream_aes_gcm_siv::Aes128GcmSiv,
                    upstream_aes_gcm_siv::Aes256GcmSiv
                ),
            ),
        ],
        (Kind::Siv011, true) => vec![
            (
                "ours",
                fresh_rc!(
                    c,
                    new_05,
                    aes_gcm_siv_011::Aes128GcmSiv,
                    aes_gcm_siv_011::Aes256GcmSiv
                ),
            ),
            ("aws-lc-rs", fresh_peer!(c, aws_lc_key, aws_lc_gcm_siv)),
            (
                "rustcrypto",
                fresh_rc!(
                    c,
                    new_05,
                    upstream_aes_gcm_siv_011::Aes128GcmSiv,
                    upstream_aes_gcm_siv_011::Aes256GcmSiv
                ),
            ),
        ],
        (Kind::Cookie, false) => {
            let Some((ours, published)) = cookie else {
                eprintln!(
                    "headline: {}: skipped (needs --cookie OURS PUBLISHED, the two builds \
                     `cargo xtask bench` makes)",
                    c.label
                );
                return None;
            };
            vec![
                ("ours", Some(cookie_runner(ours, c.len))),
                ("rustcrypto", Some(cookie_runner(published, c.len))),
            ]
        }
    };
    if list[0].1.is_none() {
        eprintln!(
            "headline: {}: skipped ({} is not available here)",
            c.label, list[0].0
        );
        return None;
    }
    let mut out: Vec<(String, Runner)> = list
        .into_iter()
        .filter_map(|(n, r)| Some((n.to_string(), r?)))
        .collect();
    if c.kind == Kind::Gcm {
        for e in std::env::var("HEADLINE_ENGINES")
            .unwrap_or_default()
            .split(',')
        {
            if let Some(r) = forced(c, e.trim()) {
                out.push((format!("ours-{}", e.trim()), r));
            }
        }
    }
    Some(out)
}

/// Our engine `name` (as `Engine`'s `Debug`, lower case), forced, if this CPU has it: on a
/// fresh-key case, `KeyInit::new`'s code on that engine (`__keyed_on`), so that a CPU with a
/// wider engine measures a narrower one's first message too.
fn forced(c: &Case, name: &str) -> Option<Runner> {
    let engine =
        aes_gcm::__Engine::available().find(|e| format!("{e:?}").eq_ignore_ascii_case(name))?;
    if !c.fresh_key {
        return steady(c, |key| impls::ours(key, engine));
    }
    // `KeyInit::new`'s code on the forced engine (`__keyed_on`), wrapped as `impls::new_06`
    // wraps ours; `engine` is available (checked above), so no key falls back to the generic
    // path.
    if c.key.len() == 16 {
        fresh_runner(c, move |key| {
            impls::RustCryptoApi(aes_gcm::Aes128Gcm::__keyed_on(
                key.try_into().expect("key length"),
                engine,
            ))
        })
    } else {
        fresh_runner(c, move |key| {
            impls::RustCryptoApi(aes_gcm::Aes256Gcm::__keyed_on(
                key.try_into().expect("key length"),
                engine,
            ))
        })
    }
}

/// One build of the cookie bench (`benches/cookie/main.rs`), running as a child process: it
/// answers each request line `LEN N` with the nanoseconds that `N` add+get round trips of a
/// `LEN`-byte value took. Dropping it closes its stdin, which ends it.
struct CookieChild {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl CookieChild {
    fn spawn(bin: &str) -> Self {
        let mut child = Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("headline: {bin}: {e}"));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut c = Self {
            child,
            stdin,
            stdout,
            line: String::new(),
        };
        let ready = c.read_line();
        assert!(ready.starts_with("ready"), "{bin}: said {ready:?}");
        c
    }

    fn read_line(&mut self) -> String {
        self.line.clear();
        self.stdout
            .read_line(&mut self.line)
            .expect("cookie bench's stdout");
        self.line.trim().to_owned()
    }

    /// Nanoseconds of `n` round trips of a `len`-byte value.
    fn batch(&mut self, len: usize, n: u64) -> f64 {
        let stdin = self.stdin.as_mut().expect("open until dropped");
        writeln!(stdin, "{len} {n}")
            .and_then(|()| stdin.flush())
            .expect("cookie bench's stdin");
        let reply = self.read_line();
        reply
            .parse()
            .unwrap_or_else(|_| panic!("cookie bench replied {reply:?}"))
    }
}

impl Drop for CookieChild {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// A runner that times `len`-byte cookies in a child process of `bin`.
fn cookie_runner(bin: &str, len: usize) -> Runner {
    let mut child = CookieChild::spawn(bin);
    Box::new(move |n| child.batch(len, n))
}

/// One case's result: per implementation, its time (the [`benches::Q`] quantile over the rounds) and
/// the median of the per-round ratios of its time to ours (above 1: ours is faster).
struct Row {
    label: &'static str,
    kind: Kind,
    len: usize,
    roundtrip: bool,
    impls: Vec<(String, f64, f64)>,
}

fn measure(
    c: &Case,
    rounds: usize,
    batch_ns: f64,
    cookie: Option<&(String, String)>,
) -> Option<Row> {
    let (names, mut rs): (Vec<String>, Vec<Runner>) = runners(c, cookie)?.into_iter().unzip();
    // A sporadic case's batch is about 20 us of messages (some 60 gaps, 12 ms).
    let batch_ns = if c.gap_us > 0 || c.syscall || c.cold_buffer {
        batch_ns.min(20e3)
    } else {
        batch_ns
    };
    let mut times = benches::interleave(&mut rs, rounds, batch_ns);
    drop(rs);
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
    Some(Row {
        label: c.label,
        kind: c.kind,
        len: c.len,
        roundtrip: c.roundtrip,
        impls,
    })
}

/// The bytes one operation of `row` processes.
fn bytes(row: &Row) -> f64 {
    row.len as f64 * if row.roundtrip { 2.0 } else { 1.0 }
}

fn main() {
    let args = benches::InterleavedArgs::parse("headline", 41, 2e6);
    let (rounds, batch_ns, filter) = (args.rounds, args.batch_ns, &args.filter);
    let ghz = benches::measure_core_ghz("before");
    let mut rows = Vec::new();
    for c in CASES.iter().filter(|c| c.label.contains(filter.as_str())) {
        let Some(row) = measure(c, rounds, batch_ns, args.cookie.as_ref()) else {
            continue;
        };
        let ours_ns = row.impls[0].1;
        for (name, ns, ratio) in &row.impls {
            println!(
                "{:<72} {:<14} {:>9.1} ns {:>6.2} GB/s {:>7.3} c/B  ours {:.2}x (paired median {:.2}x)",
                row.label,
                name,
                ns,
                bytes(&row) / ns,
                ns * ghz / bytes(&row),
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

/// A time per operation, in ns or µs.
fn time(ns: f64) -> String {
    if ns < 1000.0 {
        format!("{ns:.0} ns")
    } else {
        format!("{:.2} µs", ns / 1000.0)
    }
}

/// A table cell for `ns` per operation of `row`: throughput and time, or time alone for the
/// cookie rows (whose operation is more than the AEAD's bytes).
fn cell(row: &Row, ns: f64) -> String {
    if row.kind == Kind::Cookie {
        time(ns)
    } else {
        format!("{:.2} GB/s, {}", bytes(row) / ns, time(ns))
    }
}

/// The README's headline table: ours, the best peer and the ratios, per case.
fn render(rows: &[Row], ghz: f64, rounds: usize, note: &str) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{}; core clock {ghz:.2} GHz. {rounds} rounds of interleaved batches per case; each \
         implementation's time is its {}th percentile over the rounds, and a ratio is the \
         peer's time over ours (above 1x: ours is faster). Best peer: the faster of ring and \
         aws-lc-rs (aws-lc-rs alone for AES-GCM-SIV; ring alone on the VAES-256 rows). \
         Every implementation's message buffer starts {} bytes past a page boundary. \
         RustCrypto: `aes-gcm` 0.11.1, on the `aes-gcm 0.10` rows 0.10.3, `aes-gcm-siv` \
         0.12.1, on the `aes-gcm-siv 0.11` row 0.11.1; on the cookie rows, the published \
         `cookie` on RustCrypto's `aes-gcm` 0.10.3 against the same with ours patched in. \
         \"fresh key\": the key setup (`KeyInit::new`, ring's and aws-lc-rs's \
         `UnboundKey::new` + `LessSafeKey::new`) on different key bytes per message, timed \
         with the message. \"one per 200 µs\": 200 µs of other work before each message, \
         each message timed alone (the clock's reading, about 20 ns, in every column); \
         \"one per system call\": a `sched_yield` before each message, likewise; \
         \"buffer not in cache\": the buffer's lines flushed (`CLFLUSH`) before each message, \
         likewise. \"forged\": decryption in place, every message with a tag that does not \
         verify, or one in eight (the others the same sealed message, copied into the buffer \
         first in every column); ours and RustCrypto's leave a forgery's ciphertext as it was \
         (ours decrypts and hashes in one pass, then runs the keystream again to restore it, \
         and after four forgeries in a row hashes first until enough valid messages follow; \
         RustCrypto's always hashes first), ring and aws-lc-rs decrypt and hash in one pass, \
         then zero the buffer.\n\n",
        if note.is_empty() {
            "Measured on this machine"
        } else {
            note
        },
        (benches::Q * 100.0).round(),
        benches::place(),
    ));
    s.push_str(
        "| case | ours | best peer | ours vs best peer | ours vs RustCrypto |\n\
         |---|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let (ours, peers) = row.impls.split_first().expect("ours is measured");
        let best = peers
            .iter()
            .filter(|(n, _, _)| ["ring", "aws-lc-rs"].contains(&n.as_str()))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let (best_cell, best_ratio) = best.map_or((String::new(), String::new()), |b| {
            (
                format!("{} ({})", cell(row, b.1), b.0),
                format!("{:.2}x", b.1 / ours.1),
            )
        });
        let rustcrypto = peers
            .iter()
            .find(|(n, _, _)| n == "rustcrypto")
            .map_or(String::new(), |r| format!("{:.2}x", r.1 / ours.1));
        s.push_str(&format!(
            "| {} | {} | {best_cell} | {best_ratio} | {rustcrypto} |\n",
            row.label,
            cell(row, ours.1),
        ));
    }
    s
}
