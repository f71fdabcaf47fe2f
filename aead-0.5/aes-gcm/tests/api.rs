//! The public surface of aes-gcm 0.10.3 (API-REFERENCE-0.10-SIV.md section 1.3), checked at
//! compile time where possible: a drop-in must accept every program written against upstream.
//! Run with `--all-features` too, for the `stream`, `heapless`, `arrayvec` and `getrandom` parts.
#![cfg(all(feature = "aes", feature = "alloc"))]

use aes_gcm::{
    A_MAX, AeadCore, AeadInPlace, Aes128Gcm, Aes256Gcm, AesGcm, C_MAX, Error, Key, KeyInit,
    KeySizeUser, Nonce, P_MAX, Tag,
    aead::{
        Aead, AeadMut, AeadMutInPlace, Payload,
        consts::{U0, U12, U13, U16, U32},
        generic_array::typenum::Unsigned,
    },
    aes::{Aes128, Aes192, Aes256},
};
use core::marker::PhantomData;

#[test]
fn constants() {
    assert_eq!(A_MAX, 1 << 36);
    assert_eq!(P_MAX, 1 << 36);
    assert_eq!(C_MAX, (1 << 36) + 16);
    assert_eq!(<Aes128Gcm as AeadCore>::NonceSize::USIZE, 12);
    assert_eq!(<Aes128Gcm as AeadCore>::TagSize::USIZE, 16);
    assert_eq!(<Aes128Gcm as AeadCore>::CiphertextOverhead::USIZE, 0);
    assert_eq!(<Aes256Gcm as KeySizeUser>::KeySize::USIZE, 32);
    assert_eq!(<AesGcm<Aes192, U12> as KeySizeUser>::KeySize::USIZE, 24);
    assert_eq!(<AesGcm<Aes128, U12, U13> as AeadCore>::TagSize::USIZE, 13);
    fn overhead_is_u0<A: AeadCore<CiphertextOverhead = U0>>() {}
    overhead_is_u0::<Aes256Gcm>();
}

/// Whether `T: Debug`, decided by method resolution (an inherent method that needs `Debug`
/// wins over the trait method that does not).
struct Probe<T>(PhantomData<T>);
trait NoDebug {
    fn has_debug(&self) -> bool {
        false
    }
}
impl<T> NoDebug for Probe<T> {}
impl<T: core::fmt::Debug> Probe<T> {
    fn has_debug(&self) -> bool {
        true
    }
}

/// Upstream 0.10.3 has no `Debug` for `AesGcm` (0.11 added one); its GHASH and POLYVAL print
/// `GHash { ... }` and `Polyval { ... }`.
#[test]
fn debug_as_upstream() {
    assert!(!Probe::<Aes128Gcm>(PhantomData).has_debug());
    assert!(Probe::<ghash::GHash>(PhantomData).has_debug());
    let g = ghash::GHash::new(&[1u8; 16].into());
    assert_eq!(format!("{g:?}"), "GHash { ... }");
}

#[test]
fn traits_and_auto_traits() {
    fn assert_traits<
        T: Clone + Send + Sync + Unpin + KeyInit + AeadInPlace + AeadMutInPlace + From<Aes128>,
    >() {
    }
    assert_traits::<Aes128Gcm>();
    fn assert_aead<T: Aead + AeadMut>() {}
    assert_aead::<Aes256Gcm>();
    // Tag sizes 12..=16; any nonce size; `Tag` defaults to 16 bytes.
    let _: Tag = Tag::<U16>::default();
    let _ = core::mem::size_of::<AesGcm<Aes128, U32, U12>>();
}

/// The provided and blanket methods all agree: `Aead` (alloc), `AeadMut`, `encrypt_in_place` /
/// `decrypt_in_place` on a `Vec`, the detached methods; and `aead::Error`'s text.
#[test]
fn provided_methods_agree() {
    let mut gcm = Aes128Gcm::new(Key::<Aes128Gcm>::from_slice(&[3u8; 16]));
    let nonce = Nonce::from_slice(&[4; 12]);
    let (msg, aad) = (b"the message".as_slice(), b"the header".as_slice());

    let sealed = gcm.encrypt(nonce, Payload { msg, aad }).expect("encrypt");
    let opened = gcm.decrypt(nonce, Payload { msg: &sealed, aad });
    assert_eq!(opened.expect("decrypt"), msg);
    let sealed_mut = AeadMut::encrypt(&mut gcm, nonce, Payload { msg, aad });
    assert_eq!(sealed_mut.expect("encrypt"), sealed);

    let mut buf = msg.to_vec();
    gcm.encrypt_in_place(nonce, aad, &mut buf).expect("encrypt");
    assert_eq!(buf, sealed);
    gcm.decrypt_in_place(nonce, aad, &mut buf).expect("decrypt");
    assert_eq!(buf, msg);

    let mut buf = msg.to_vec();
    let tag = gcm
        .encrypt_in_place_detached(nonce, aad, &mut buf)
        .expect("encrypt");
    assert_eq!([buf.as_slice(), tag.as_slice()].concat(), sealed);
    gcm.decrypt_in_place_detached(nonce, aad, &mut buf, &tag)
        .expect("decrypt");
    assert_eq!(buf, msg);

    // Too short for a tag: an error, not a panic.
    let err: Result<Vec<u8>, Error> = gcm.decrypt(nonce, &sealed[..15]);
    assert_eq!(err, Err(Error));
    assert_eq!(Error.to_string(), "aead::Error");
}

/// `getrandom`: keys and nonces from the OS (`KeyInit::generate_key`, `AeadCore::generate_nonce`).
#[cfg(feature = "getrandom")]
#[test]
fn random_keys_and_nonces() {
    use aes_gcm::aead::OsRng;
    let key = Aes256Gcm::generate_key(OsRng);
    let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
    let gcm = Aes256Gcm::new(&key);
    let sealed = gcm.encrypt(&nonce, b"x".as_ref()).expect("encrypt");
    assert_eq!(gcm.decrypt(&nonce, sealed.as_ref()).expect("decrypt"), b"x");
}

/// `heapless` and `arrayvec`: fixed-capacity buffers through `aead::Buffer`; a full buffer
/// refuses the tag.
#[cfg(all(feature = "heapless", feature = "arrayvec"))]
#[test]
fn fixed_capacity_buffers() {
    use aes_gcm::aead::{arrayvec::ArrayVec, heapless};
    let gcm = Aes128Gcm::new(&[5u8; 16].into());
    let nonce = Nonce::from_slice(&[6; 12]);
    let mut h: heapless::Vec<u8, 64> = heapless::Vec::new();
    h.extend_from_slice(b"heapless").expect("room");
    gcm.encrypt_in_place(nonce, b"", &mut h).expect("encrypt");
    let mut a: ArrayVec<u8, 64> = ArrayVec::new();
    a.try_extend_from_slice(b"heapless").expect("room");
    gcm.encrypt_in_place(nonce, b"", &mut a).expect("encrypt");
    assert_eq!(h.as_slice(), a.as_slice());
    gcm.decrypt_in_place(nonce, b"", &mut a).expect("decrypt");
    assert_eq!(a.as_slice(), b"heapless");
    let mut full: heapless::Vec<u8, 8> = heapless::Vec::new();
    full.extend_from_slice(b"12345678").expect("room");
    assert!(gcm.encrypt_in_place(nonce, b"", &mut full).is_err());
}

/// `stream`: the STREAM construction (big-endian 32-bit counter) over `Aes256Gcm`.
#[cfg(feature = "stream")]
#[test]
fn stream_round_trip() {
    use aes_gcm::aead::stream::{DecryptorBE32, EncryptorBE32};
    let key = Key::<Aes256Gcm>::from_slice(&[7u8; 32]);
    let nonce = [8u8; 7];
    let mut enc = EncryptorBE32::<Aes256Gcm>::new(key, (&nonce).into());
    let c1 = enc.encrypt_next(b"one".as_ref()).expect("encrypt");
    let c2 = enc.encrypt_last(b"two".as_ref()).expect("encrypt");
    let mut dec = DecryptorBE32::<Aes256Gcm>::new(key, (&nonce).into());
    assert_eq!(dec.decrypt_next(c1.as_ref()).expect("decrypt"), b"one");
    assert_eq!(dec.decrypt_last(c2.as_ref()).expect("decrypt"), b"two");
}

/// `From<Aes>` and `KeyInit::new` build the same instance.
#[test]
fn from_cipher_equals_new() {
    let key = [7u8; 32];
    let a = Aes256Gcm::new(&key.into());
    let b = Aes256Gcm::from(<Aes256 as KeyInit>::new(&key.into()));
    let nonce = Nonce::from_slice(&[1; 12]);
    let (mut x, mut y) = (vec![9u8; 40], vec![9u8; 40]);
    let tx = a.encrypt_in_place_detached(nonce, b"", &mut x);
    let ty = b.encrypt_in_place_detached(nonce, b"", &mut y);
    assert_eq!((x, tx), (y, ty));
}
