//! Every fused engine this CPU has against the generic two-pass path: every length 0..=1024
//! and random lengths to 64 KiB, AAD lengths 0..=300, AES-128/192/256, encryption and
//! decryption, in place and (where the API has it) out of place, and forged tags refused with
//! the buffer unchanged. Engines the CPU lacks are skipped with a message.

use super::{Engine, Gcm, Generation};

#[cfg(target_arch = "x86_64")]
use aes_gcm::__pace as pace;
#[cfg(target_arch = "x86_64")]
#[path = "pacing.rs"]
mod pacing;

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// [`check`] with 96-bit nonces.
fn check<G: Generation>(rng: &mut Rng, e: Engine, bits: usize, len: usize, aad_len: usize) {
    check_nonce::<G>(rng, e, bits, 12, len, aad_len);
}

/// Engine `e` against the generic path, AES-`bits`, `nonce_len`-byte nonces (other than 12
/// bytes, J0 comes from GHASH), `len` bytes of plaintext and `aad_len` of associated data.
fn check_nonce<G: Generation>(
    rng: &mut Rng,
    e: Engine,
    bits: usize,
    nonce_len: usize,
    len: usize,
    aad_len: usize,
) {
    check_on::<G>(rng, Make::WithEngine(e), bits, nonce_len, len, aad_len);
}

/// How [`check_on`] makes the key it checks.
#[derive(Clone, Copy)]
enum Make {
    /// `KeyInit::new`: the detected engine.
    KeyInit,
    /// The hidden `with_engine`, on an engine this CPU has.
    WithEngine(Engine),
    /// The hidden `__keyed_on`: `KeyInit::new`'s code with this engine, or the generic path
    /// where the CPU lacks it.
    KeyedOn(Engine),
}

/// [`check_nonce`] on the key `make` makes.
fn check_on<G: Generation>(
    rng: &mut Rng,
    make: Make,
    bits: usize,
    nonce_len: usize,
    len: usize,
    aad_len: usize,
) {
    let key = rng.bytes(bits / 8);
    let nonce = rng.bytes(nonce_len);
    let pt = rng.bytes(len);
    let aad = rng.bytes(aad_len);
    let fused = match make {
        Make::WithEngine(e) => {
            let fused = G::with_engine(bits, &key, nonce_len, 16, e).expect("engine available");
            assert_eq!(fused.engine(), e);
            fused
        }
        Make::KeyedOn(e) => {
            let fused = G::keyed_on(bits, &key, nonce_len, 16, e).expect("listed size");
            let want = if e.is_available() { e } else { Engine::Generic };
            assert_eq!(fused.engine(), want, "{}: __keyed_on({e:?})", G::NAME);
            fused
        }
        Make::KeyInit => G::new_from_slice(bits, &key, nonce_len, 16)
            .expect("listed size")
            .expect("key length"),
    };
    let generic = G::with_engine(bits, &key, nonce_len, 16, Engine::Generic).expect("generic");
    assert_eq!(generic.engine(), Engine::Generic);
    let e = fused.engine();
    let what = format!("{}: {e:?} AES-{bits} len {len} aad {aad_len}", G::NAME);

    // Encrypt in place vs generic.
    let mut a = pt.clone();
    let ta = fused.seal(&nonce, &aad, &mut a).expect("encrypt");
    let mut b = pt.clone();
    let tb = generic.seal(&nonce, &aad, &mut b).expect("encrypt");
    assert_eq!(a, b, "{what}: ciphertext");
    assert_eq!(ta, tb, "{what}: tag");

    // Encrypt out of place into a garbage-filled buffer.
    let mut out = vec![0xa5; len];
    if let Some(tc) = fused.seal_to(&nonce, &aad, &pt, &mut out) {
        assert_eq!(out, b, "{what}: out of place");
        assert_eq!(tc.expect("encrypt"), tb);
    }

    // Decrypt in place and out of place.
    let mut d = b.clone();
    fused.open(&nonce, &aad, &mut d, &tb).expect("decrypt");
    assert_eq!(d, pt, "{what}: plaintext");
    let mut out = vec![0x5a; len];
    if let Some(r) = fused.open_to(&nonce, &aad, &b, &mut out, &tb) {
        r.expect("decrypt out of place");
        assert_eq!(out, pt, "{what}: plaintext out of place");
    }

    // A forged tag: refused, in-place buffer back to the ciphertext, out-of-place output
    // untouched.
    let mut bad = tb.clone();
    bad[rng.below(16)] ^= 1 << rng.below(8);
    let mut d = b.clone();
    assert!(fused.open(&nonce, &aad, &mut d, &bad).is_err(), "{what}");
    assert_eq!(d, b, "{what}: buffer restored");
    let mut out = vec![0x77; len];
    if let Some(r) = fused.open_to(&nonce, &aad, &b, &mut out, &bad) {
        assert!(r.is_err(), "{what}");
        assert!(out.iter().all(|&x| x == 0x77), "{what}: output written");
    }
    // A flipped ciphertext bit: refused, buffer unchanged.
    if len > 0 {
        let mut d = b.clone();
        d[rng.below(len)] ^= 0x10;
        let before = d.clone();
        assert!(fused.open(&nonce, &aad, &mut d, &tb).is_err(), "{what}");
        assert_eq!(d, before, "{what}: flipped bit");
    }
}

/// The engines to test, printing those this CPU lacks.
fn engines() -> Vec<Engine> {
    super::fused_engines()
}

pub fn every_length<G: Generation>() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for e in engines() {
        // Every length to 1 KiB, then around the changes of stride of the 256-bit engine
        // (1536) and the 512-bit one (4096).
        for len in (0..=1024).chain(1500..=1580).chain(4060..=4140) {
            let aad = rng.below(301);
            check::<G>(&mut rng, e, 128, len, aad);
            if len % 7 == 0 {
                check::<G>(&mut rng, e, 192, len, aad);
                check::<G>(&mut rng, e, 256, len, aad);
            }
        }
    }
}

/// Every length to 1 KiB with the short AADs protocols send (0..=64 bytes: TLS 1.3's 5, TLS
/// 1.2's 13, ESP's 8, QUIC's about 20), which the 256-bit and 512-bit engines' grouped path
/// (messages under 512 bytes, 672 on the 512-bit engine) folds into its first reduction (up
/// to three blocks) or hashes apart.
pub fn every_length_short_aad<G: Generation>() {
    let mut rng = Rng(0x5eed_a11d);
    for e in engines() {
        for len in 0..=1024 {
            let aad = rng.below(65);
            check::<G>(&mut rng, e, 128, len, aad);
            if len % 5 == 0 {
                check::<G>(&mut rng, e, 256, len, aad);
            }
        }
    }
}

pub fn aad_lengths<G: Generation>() {
    let mut rng = Rng(77);
    for e in engines() {
        for aad in 0..=300 {
            let len = rng.below(600);
            check::<G>(&mut rng, e, 256, len, aad);
        }
    }
}

pub fn long_random_lengths<G: Generation>() {
    let mut rng = Rng(12345);
    for e in engines() {
        for _ in 0..40 {
            let (len, aad) = (rng.below(65536), rng.below(64));
            check::<G>(&mut rng, e, 128, len, aad);
            let (len, aad) = (rng.below(65536), rng.below(64));
            check::<G>(&mut rng, e, 256, len, aad);
        }
    }
}

/// `__keyed_on` (the benches' way to time a narrower engine's first message) on every engine,
/// the CPU's and the others: the engine asked for where the CPU has it, otherwise the generic
/// path, and either way the generic path's bytes, at lengths about each engine's strides,
/// AES-128/192/256, 96-bit and 128-bit nonces.
pub fn keyed_on<G: Generation>() {
    let mut rng = Rng(0x6b65_7965_645f_6f6e);
    for &e in Engine::ALL {
        for len in [0, 1, 15, 16, 17, 64, 255, 511, 1024, 1537, 4113, 8209] {
            for bits in [128, 192, 256] {
                let aad = rng.below(40);
                check_on::<G>(&mut rng, Make::KeyedOn(e), bits, 12, len, aad);
            }
            let aad = rng.below(40);
            check_on::<G>(&mut rng, Make::KeyedOn(e), 128, 16, len, aad);
        }
    }
}

/// `KeyInit::new` picks the detected engine (the generic one when the build forces portable
/// code); `From<Aes>` has no key and stays generic.
pub fn default_engine<G: Generation>() {
    let key = [7u8; 32];
    let g = G::new_from_slice(256, &key, 12, 16)
        .expect("listed size")
        .expect("key length");
    let want = if G::FORCED_SOFT {
        Engine::Generic
    } else {
        Engine::detect()
    };
    assert_eq!(g.engine(), want);
    let f = G::from_cipher(256, &key, 12, 16).expect("listed size");
    assert_eq!(f.engine(), Engine::Generic);
    eprintln!("{}: engine in this build: {:?}", G::NAME, g.engine());
}

/// The key `KeyInit` makes, with its messages' pacing forced each way and then by the clock
/// (`pacing`), against the generic path: lengths across both ends of the pacing's window,
/// split between AAD and text, and random ones; and which engine each length runs on.
#[cfg(target_arch = "x86_64")]
pub fn keyinit_paced<G: Generation>() {
    let key = <aes_gcm::Aes128Gcm as aes_gcm::KeyInit>::new_from_slice(&[7; 16]).expect("key");
    pacing::engine_choice(key.__engine(), |len| key.__engine_for(len));
    // The generator is shared by both closures.
    let rng = core::cell::RefCell::new(Rng(0x5eed));
    pacing::across_window(
        |len, aad| check_on::<G>(&mut rng.borrow_mut(), Make::KeyInit, 128, 12, len, aad),
        || {
            let mut rng = rng.borrow_mut();
            for _ in 0..20 {
                let (len, aad) = (rng.below(20000), rng.below(40));
                check_on::<G>(&mut rng, Make::KeyInit, 256, 12, len, aad);
            }
        },
    );
}

/// Nonces other than 96 bits: J0 comes from GHASH, so the 32-bit counter starts anywhere.
/// Hunts counter handling bugs (the low byte and the whole word wrapping inside a fused
/// iteration) that the sequential counters of 96-bit nonces rarely reach.
pub fn long_nonces_random_counters<G: Generation>() {
    let mut rng = Rng(4242);
    for e in engines() {
        for _ in 0..48 {
            let (len, aad_len) = (rng.below(9000), rng.below(40));
            check_nonce::<G>(&mut rng, e, 128, 16, len, aad_len);
        }
    }
}

/// Everything `Gcm` returns for one sealed message, for comparisons in other modules.
pub fn seal_copy(gcm: &dyn Gcm, nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut buf = pt.to_vec();
    let tag = gcm.seal(nonce, aad, &mut buf).expect("encrypt");
    (buf, tag)
}
