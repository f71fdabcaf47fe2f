//! A real client of `aes-gcm` 0.10: `cookie` 0.18.1's private jar (feature `private`), which
//! builds a fresh `Aes256Gcm` for every cookie it seals (`add`) and opens (`get`).
//!
//! `cargo xtask bench` builds this program twice, in two scratch workspaces under
//! `<target>/cookie-bench/`: once as published (`cookie` on RustCrypto's `aes-gcm` 0.10.3)
//! and once with our `aes-gcm` 0.10 (`aead-0.5/aes-gcm`) patched in with
//! `[patch.crates-io]`, since one `cargo` graph holds only one `aes-gcm` 0.10. The headline
//! bench (`benches/benches/headline.rs`) runs both as child processes and times them
//! interleaved, batch by batch, through this protocol:
//!
//! - at start, after checking that every value survives `add` + `get`, it prints `ready`;
//! - each line `LEN N` on stdin runs `N` operations on the `LEN`-byte value (16, 200 or
//!   2000 bytes) and answers with the nanoseconds they took, on a line;
//! - at the end of stdin it exits.
//!
//! One operation: `jar.private_mut(&key).add(cookie)` (encrypt under a fresh key setup,
//! base64) then `jar.private(&key).get(name)` (base64, decrypt under a fresh key setup,
//! verify), on one jar kept across operations (the cookie replaces itself), the result read
//! through `black_box`.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::io::{BufRead, Write};
use std::time::Instant;

use cookie::{Cookie, CookieJar, Key};

/// The value lengths, in bytes.
const SIZES: [usize; 3] = [16, 200, 2000];
/// The cookie's name (also the AAD cookie's AEAD uses).
const NAME: &str = "session";
/// An arbitrary 64-byte master key (`Key::from` takes at least 64; the private jar encrypts
/// with 32 of them).
const KEY: [u8; 64] = *b"\x0b\x8e\x55\x21\xc4\x7a\x93\x3f\xd8\x10\x6c\xe2\x47\xb9\x05\x9a\
                         \x31\xf6\x88\x2d\x5c\xa0\x13\xe9\x72\x4b\xbe\x06\x99\xd5\x60\x1c\
                         \x8f\x23\xca\x57\x0e\xb1\x74\x3a\xe6\x49\x92\x1d\xf0\x65\xab\x38\
                         \x5d\xc2\x17\x8b\x44\xf9\x2e\x70\xa6\x03\xdb\x69\x1f\xb4\x82\x4d";

/// `len` bytes of cookie-safe text, the same on every run.
fn value(len: usize) -> &'static str {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut s = 0x9e37_79b9_7f4a_7c15_u64;
    let v: String = (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            CHARS[(s >> 58) as usize] as char
        })
        .collect();
    v.leak()
}

fn main() {
    let key = Key::from(&KEY);
    let values = SIZES.map(value);
    let mut jar = CookieJar::new();
    for v in values {
        jar.private_mut(&key).add(Cookie::new(NAME, v));
        let got = jar.private(&key).get(NAME).expect("the cookie decrypts");
        assert_eq!(got.value(), v, "add + get returned another value");
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "ready")
        .and_then(|()| out.flush())
        .expect("stdout");
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let mut words = line.split_whitespace().map(|w| w.parse::<u64>());
        let (Some(Ok(len)), Some(Ok(n)), None) = (words.next(), words.next(), words.next()) else {
            panic!("cookie bench: expected `LEN N`, got {line:?}");
        };
        let v = *SIZES
            .iter()
            .zip(&values)
            .find(|(s, _)| **s as u64 == len)
            .unwrap_or_else(|| panic!("cookie bench: no {len}-byte value (have {SIZES:?})"))
            .1;
        let start = Instant::now();
        for _ in 0..n {
            jar.private_mut(black_box(&key))
                .add(Cookie::new(NAME, black_box(v)));
            black_box(jar.private(black_box(&key)).get(black_box(NAME)));
        }
        let ns = start.elapsed().as_nanos();
        writeln!(out, "{ns}")
            .and_then(|()| out.flush())
            .expect("stdout");
    }
}
