#![cfg(feature = "aes")]
//! Every fused engine this CPU has against the generic two-pass path: every length 0..=1024
//! and random lengths to 64 KiB, AAD lengths 0..=300, AES-128/192/256, encryption and
//! decryption, in place and out of place, and forged tags refused with the buffer unchanged.
//! Engines the CPU lacks are skipped with a message.

use aes_gcm::{
    __Engine as Engine, AesGcm,
    aead::{
        AeadInOut, KeyInit,
        array::{Array, ArraySize},
        consts::U12,
        inout::InOutBuf,
    },
    aes::{Aes128, Aes192, Aes256},
};

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

fn engines() -> Vec<Engine> {
    for e in Engine::ALL {
        if !e.is_available() {
            eprintln!("note: this CPU lacks the {e:?} engine; skipping it");
        }
    }
    Engine::available()
        .filter(|e| *e != Engine::Generic)
        .collect()
}

fn check<A>(rng: &mut Rng, e: Engine, len: usize, aad_len: usize)
where
    A: cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = aes_gcm::aead::consts::U16>
        + KeyInit,
{
    check_nonce::<A, U12>(rng, e, len, aad_len);
}

/// [`check`] with `N`-byte nonces (other than 12 bytes, J0 comes from GHASH).
fn check_nonce<A, N>(rng: &mut Rng, e: Engine, len: usize, aad_len: usize)
where
    A: cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = aes_gcm::aead::consts::U16>
        + KeyInit,
    N: ArraySize,
{
    let key = Array::try_from(&rng.bytes(A::KeySize::USIZE)[..]).unwrap();
    let nonce = Array::<u8, N>::try_from(&rng.bytes(N::USIZE)[..]).unwrap();
    let pt = rng.bytes(len);
    let aad = rng.bytes(aad_len);
    let fused = AesGcm::<A, N>::with_engine(&key, e).expect("engine available");
    assert_eq!(fused.__engine(), e);
    let generic = AesGcm::<A, N>::with_engine(&key, Engine::Generic).unwrap();
    assert_eq!(generic.__engine(), Engine::Generic);

    // Encrypt in place vs generic.
    let mut a = pt.clone();
    let ta = fused
        .encrypt_inout_detached(&nonce, &aad, a.as_mut_slice().into())
        .unwrap();
    let mut b = pt.clone();
    let tb = generic
        .encrypt_inout_detached(&nonce, &aad, b.as_mut_slice().into())
        .unwrap();
    assert_eq!(a, b, "{e:?} ct len {len} aad {aad_len}");
    assert_eq!(ta, tb, "{e:?} tag len {len} aad {aad_len}");

    // Encrypt out of place into a garbage-filled buffer.
    let mut out = vec![0xa5; len];
    let tc = fused
        .encrypt_inout_detached(&nonce, &aad, InOutBuf::new(&pt, &mut out).unwrap())
        .unwrap();
    assert_eq!(out, b);
    assert_eq!(tc, tb);

    // Decrypt in place and out of place.
    let mut d = b.clone();
    fused
        .decrypt_inout_detached(&nonce, &aad, d.as_mut_slice().into(), &tb)
        .unwrap();
    assert_eq!(d, pt);
    let mut out = vec![0x5a; len];
    fused
        .decrypt_inout_detached(&nonce, &aad, InOutBuf::new(&b, &mut out).unwrap(), &tb)
        .unwrap();
    assert_eq!(out, pt);

    // A forged tag: refused, in-place buffer back to the ciphertext, out-of-place output
    // untouched.
    let mut bad = tb;
    bad[rng.below(16)] ^= 1 << rng.below(8);
    let mut d = b.clone();
    assert!(
        fused
            .decrypt_inout_detached(&nonce, &aad, d.as_mut_slice().into(), &bad)
            .is_err()
    );
    assert_eq!(d, b, "{e:?} buffer restored, len {len}");
    let mut out = vec![0x77; len];
    assert!(
        fused
            .decrypt_inout_detached(&nonce, &aad, InOutBuf::new(&b, &mut out).unwrap(), &bad)
            .is_err()
    );
    assert!(out.iter().all(|&x| x == 0x77));
    // A flipped ciphertext bit: refused, buffer unchanged.
    if len > 0 {
        let mut d = b.clone();
        d[rng.below(len)] ^= 0x10;
        let before = d.clone();
        assert!(
            fused
                .decrypt_inout_detached(&nonce, &aad, d.as_mut_slice().into(), &tb)
                .is_err()
        );
        assert_eq!(d, before);
    }
}

use aes_gcm::aead::array::typenum::Unsigned;

#[test]
fn every_length_every_engine() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for e in engines() {
        for len in 0..=1024 {
            let aad = rng.below(301);
            check::<Aes128>(&mut rng, e, len, aad);
            if len % 7 == 0 {
                check::<Aes192>(&mut rng, e, len, aad);
                check::<Aes256>(&mut rng, e, len, aad);
            }
        }
    }
}

#[test]
fn aad_lengths_every_engine() {
    let mut rng = Rng(77);
    for e in engines() {
        for aad in 0..=300 {
            let len = rng.below(600);
            check::<Aes256>(&mut rng, e, len, aad);
        }
    }
}

#[test]
fn long_random_lengths_every_engine() {
    let mut rng = Rng(12345);
    for e in engines() {
        for _ in 0..40 {
            let (len, aad) = (rng.below(65536), rng.below(64));
            check::<Aes128>(&mut rng, e, len, aad);
            let (len, aad) = (rng.below(65536), rng.below(64));
            check::<Aes256>(&mut rng, e, len, aad);
        }
    }
}

/// `KeyInit::new` picks the detected engine; `From<Aes>` has no key and stays generic.
#[test]
fn default_engine() {
    let key = [7u8; 32];
    let g = AesGcm::<Aes256, U12>::new(&key.into());
    assert_eq!(g.__engine(), Engine::detect());
    let c = <Aes256 as KeyInit>::new(&key.into());
    let f = AesGcm::<Aes256, U12>::from(c);
    assert_eq!(f.__engine(), Engine::Generic);
    eprintln!("engine in this build: {:?}", g.__engine());
}

/// Nonces other than 96 bits: J0 comes from GHASH, so the 32-bit counter starts anywhere.
/// Hunts counter handling bugs (the low byte and the whole word wrapping inside a fused
/// iteration) that the sequential counters of 96-bit nonces rarely reach.
#[test]
fn long_nonces_random_counters_every_engine() {
    use aes_gcm::aead::consts::U16;
    let mut rng = Rng(4242);
    for e in engines() {
        for _ in 0..48 {
            let (len, aad_len) = (rng.below(9000), rng.below(40));
            check_nonce::<Aes128, U16>(&mut rng, e, len, aad_len);
        }
    }
}
