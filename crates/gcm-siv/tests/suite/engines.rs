//! Every fused engine this CPU has against the generic path: every length 0..=1024 and random
//! lengths to 64 KiB, AAD lengths 0..=300, AES-128/192/256, encryption and decryption, in place
//! and (where the API has it) out of place, and forged tags refused with the buffer unchanged.
//! Engines the CPU lacks are skipped with a message.

use super::{Engine, Generation, fused_engines, refused, seal_copy};
use rand::{Rng, SeedableRng, rngs::SmallRng};

#[cfg(target_arch = "x86_64")]
use aes_gcm_siv::__pace as pace;
#[cfg(target_arch = "x86_64")]
#[path = "../../../gcm/tests/suite/pacing.rs"]
mod pacing;

fn bytes(rng: &mut SmallRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill(&mut v[..]);
    v
}

/// Engine `e` against the generic path for one random message: AES-`bits`, `len` bytes of
/// plaintext, `aad_len` of associated data. Hunts an engine whose stride, tail, counter or
/// POLYVAL handling differs from the generic path at this shape.
fn check<G: Generation>(rng: &mut SmallRng, e: Engine, bits: usize, len: usize, aad_len: usize) {
    check_on::<G>(rng, Some(e), bits, len, aad_len);
}

/// [`check`] on engine `e`, or (`None`) on the key `KeyInit` makes.
fn check_on<G: Generation>(
    rng: &mut SmallRng,
    e: Option<Engine>,
    bits: usize,
    len: usize,
    aad_len: usize,
) {
    let key = bytes(rng, bits / 8);
    let nonce = bytes(rng, 12);
    let (pt, aad) = (bytes(rng, len), bytes(rng, aad_len));
    let fused = match e {
        Some(e) => {
            let fused = G::with_engine(bits, &key, e).expect("engine available");
            assert_eq!(fused.engine(), e);
            fused
        }
        None => G::new_from_slice(bits, &key)
            .expect("listed size")
            .expect("key length"),
    };
    let generic = G::with_engine(bits, &key, Engine::Generic).expect("generic");
    assert_eq!(generic.engine(), Engine::Generic);
    let e = fused.engine();
    let what = format!("{}: {e:?} AES-{bits} len {len} aad {aad_len}", G::NAME);

    let (ct, tag) = seal_copy(&*generic, &nonce, &aad, &pt);
    assert_eq!(
        seal_copy(&*fused, &nonce, &aad, &pt),
        (ct.clone(), tag.clone()),
        "{what}"
    );
    let mut out = vec![0xa5; len];
    if let Some(t) = fused.seal_to(&nonce, &aad, &pt, &mut out) {
        assert_eq!(
            (out, t.expect("encrypt")),
            (ct.clone(), tag.clone()),
            "{what}: to"
        );
    }

    let mut d = ct.clone();
    fused.open(&nonce, &aad, &mut d, &tag).expect("decrypt");
    assert_eq!(d, pt, "{what}: plaintext");
    let mut out = vec![0x5a; len];
    if let Some(r) = fused.open_to(&nonce, &aad, &ct, &mut out, &tag) {
        r.expect("decrypt out of place");
        assert_eq!(out, pt, "{what}: plaintext out of place");
    }

    // A forged tag: refused, the in-place buffer back to the ciphertext, an out-of-place
    // output untouched.
    let mut bad = tag.clone();
    bad[rng.random_range(0..16)] ^= 1 << rng.random_range(0..8);
    refused(&*fused, &nonce, &aad, &ct, &bad, &what);
    // A flipped ciphertext bit (the tag no longer matches the plaintext it decrypts to).
    if len > 0 {
        let mut c = ct.clone();
        c[rng.random_range(0..len)] ^= 0x10;
        refused(&*fused, &nonce, &aad, &c, &tag, &what);
    }
}

pub fn every_length<G: Generation>() {
    let mut rng = SmallRng::seed_from_u64(0x9e37_79b9_7f4a_7c15);
    for e in fused_engines() {
        for len in 0..=1024 {
            let aad = rng.random_range(0..=300);
            check::<G>(&mut rng, e, 128, len, aad);
            check::<G>(&mut rng, e, 256, len, aad);
            if len % 7 == 0 {
                check::<G>(&mut rng, e, 192, len, aad);
            }
        }
    }
}

/// Every total of AAD and text up to 128 bytes, split at the block edges of either (no AAD, a
/// partial or whole first block, half, all AAD) and at a random point: the one-call
/// encryption of a short message (up to `HORNER_UPTO`, 112 bytes, of both) and the general
/// path just past it, every key size (AES-192 takes the general path).
pub fn short_messages<G: Generation>() {
    let mut rng = SmallRng::seed_from_u64(0x5151);
    for e in fused_engines() {
        for total in 0..=128usize {
            let mut splits = vec![0, 1, 15, 16, 17, 32, 33, total / 2, total.saturating_sub(1)];
            splits.extend([total, rng.random_range(0..=total)]);
            splits.retain(|&a| a <= total);
            splits.sort_unstable();
            splits.dedup();
            for aad in splits {
                check::<G>(&mut rng, e, 128, total - aad, aad);
                check::<G>(&mut rng, e, 256, total - aad, aad);
                if total % 5 == 0 {
                    check::<G>(&mut rng, e, 192, total - aad, aad);
                }
            }
        }
    }
}

pub fn aad_lengths<G: Generation>() {
    let mut rng = SmallRng::seed_from_u64(77);
    for e in fused_engines() {
        for aad in 0..=300 {
            let len = rng.random_range(0..600);
            check::<G>(&mut rng, e, 256, len, aad);
        }
    }
}

pub fn long_random_lengths<G: Generation>() {
    let mut rng = SmallRng::seed_from_u64(12345);
    for e in fused_engines() {
        for _ in 0..40 {
            for bits in [128, 256] {
                let (len, aad) = (rng.random_range(0..=65536), rng.random_range(0..64));
                check::<G>(&mut rng, e, bits, len, aad);
            }
        }
    }
}

/// The key `KeyInit` makes, with its messages' pacing forced each way and then by the clock
/// (`pacing`, shared with the AES-GCM suite), against the generic path: lengths across both
/// ends of the pacing's window, split between AAD and text, and random ones; and which engine
/// each length runs on.
#[cfg(target_arch = "x86_64")]
pub fn keyinit_paced<G: Generation>() {
    let key =
        <aes_gcm_siv::Aes128GcmSiv as aes_gcm_siv::KeyInit>::new_from_slice(&[7; 16]).expect("key");
    pacing::engine_choice(key.__engine(), |len| key.__engine_for(len));
    // The generator is shared by both closures.
    let rng = core::cell::RefCell::new(SmallRng::seed_from_u64(0x5eed));
    pacing::across_window(
        |len, aad| check_on::<G>(&mut rng.borrow_mut(), None, 128, len, aad),
        || {
            let mut rng = rng.borrow_mut();
            for _ in 0..20 {
                let (len, aad) = (rng.random_range(0..20000), rng.random_range(0..40));
                check_on::<G>(&mut rng, None, 256, len, aad);
            }
        },
    );
}

/// `KeyInit::new` picks the detected engine (the generic one when the build forces portable
/// code); `From<Aes>` has no raw key and stays generic.
pub fn default_engine<G: Generation>() {
    let key = [7u8; 32];
    let g = G::new_from_slice(256, &key)
        .expect("AES-256")
        .expect("key length");
    let want = if G::FORCED_SOFT {
        Engine::Generic
    } else {
        Engine::detect()
    };
    assert_eq!(g.engine(), want);
    let f = G::from_cipher(256, &key).expect("AES-256");
    assert_eq!(f.engine(), Engine::Generic);
    assert_eq!(
        seal_copy(&*g, &[1; 12], b"a", b"m"),
        seal_copy(&*f, &[1; 12], b"a", b"m")
    );
    eprintln!("{}: engine in this build: {:?}", G::NAME, g.engine());
}
