//! The public surface of aes-gcm 0.11.1 (API-REFERENCE.md section 1.3), checked at compile time
//! where possible: a drop-in must accept every program written against upstream.
#![cfg(feature = "aes")]
#![allow(deprecated)] // `AeadInPlace` is deprecated upstream too, and still has to work.

use aes_gcm::{
    A_MAX, AeadCore, AeadInOut, Aes128Gcm, Aes256Gcm, AesGcm, Error, Key, KeyInit, KeySizeUser,
    Nonce, P_MAX, Tag,
    aead::{
        AeadInPlace, TagPosition,
        array::typenum::{U12, U13, U16, U32, Unsigned},
    },
    aes::{Aes128, Aes192, Aes256},
};

#[test]
fn constants() {
    assert_eq!(A_MAX, (1 << 61) - 1);
    assert_eq!(P_MAX, (1 << 36) - 32);
    assert_eq!(Aes128Gcm::TAG_POSITION, TagPosition::Postfix);
    assert_eq!(<Aes128Gcm as AeadCore>::NonceSize::USIZE, 12);
    assert_eq!(<Aes128Gcm as AeadCore>::TagSize::USIZE, 16);
    assert_eq!(<Aes256Gcm as KeySizeUser>::KeySize::USIZE, 32);
    assert_eq!(<AesGcm<Aes192, U12> as KeySizeUser>::KeySize::USIZE, 24);
    assert_eq!(<AesGcm<Aes128, U12, U13> as AeadCore>::TagSize::USIZE, 13);
}

/// Debug prints no key material, exactly as upstream: `AesGcm { .. }`.
#[test]
fn debug_is_opaque() {
    let gcm = Aes128Gcm::new(&Key::<Aes128Gcm>::from([0x42; 16]));
    assert_eq!(format!("{gcm:?}"), "AesGcm { .. }");
}

#[test]
fn traits_and_auto_traits() {
    fn assert_traits<
        T: Clone + core::fmt::Debug + Send + Sync + Unpin + KeyInit + AeadInOut + From<Aes128>,
    >() {
    }
    assert_traits::<Aes128Gcm>();
    fn assert_aead<T: aes_gcm::aead::Aead>() {}
    assert_aead::<Aes256Gcm>();
    #[cfg(feature = "zeroize")]
    {
        fn assert_zod<T: zeroize::ZeroizeOnDrop>() {}
        assert_zod::<Aes128Gcm>();
    }
    // Tag sizes 12..=16 (4 and 8 with `hazmat`); any nonce size; `Tag` defaults to 16 bytes.
    let _: Tag = Tag::<U16>::default();
    let _ = core::mem::size_of::<AesGcm<Aes128, U32, U12>>();
}

#[test]
fn new_from_slice_checks_length() {
    assert!(Aes128Gcm::new_from_slice(&[0; 16]).is_ok());
    assert!(Aes128Gcm::new_from_slice(&[0; 15]).is_err());
    assert!(Aes128Gcm::new_from_slice(&[0; 32]).is_err());
    assert!(Aes256Gcm::new_from_slice(&[0; 32]).is_ok());
}

/// `From<Aes>` and `KeyInit::new` build the same instance.
#[test]
fn from_cipher_equals_new() {
    let key = [7u8; 32];
    let a = Aes256Gcm::new(&key.into());
    let b = Aes256Gcm::from(Aes256::new(&key.into()));
    let nonce = Nonce::<U12>::from([1; 12]);
    let (mut x, mut y) = (vec![9u8; 40], vec![9u8; 40]);
    let tx = a.encrypt_inout_detached(&nonce, b"", x.as_mut_slice().into());
    let ty = b.encrypt_inout_detached(&nonce, b"", y.as_mut_slice().into());
    assert_eq!((x, tx), (y, ty));
}

/// The provided and blanket methods all agree: `Aead` (alloc), `encrypt_in_place` /
/// `decrypt_in_place` on a `Vec`, the deprecated `AeadInPlace` detached methods.
#[test]
fn provided_methods_agree() {
    use aes_gcm::aead::{Aead, Payload};
    let gcm = Aes128Gcm::new(&[3u8; 16].into());
    let nonce = Nonce::<U12>::from([4; 12]);
    let (msg, aad) = (b"the message".as_slice(), b"the header".as_slice());

    let sealed = gcm.encrypt(&nonce, Payload { msg, aad }).expect("encrypt");
    assert_eq!(
        gcm.decrypt(&nonce, Payload { msg: &sealed, aad })
            .expect("decrypt"),
        msg
    );

    let mut buf = msg.to_vec();
    AeadInOut::encrypt_in_place(&gcm, &nonce, aad, &mut buf).expect("encrypt");
    assert_eq!(buf, sealed);
    AeadInOut::decrypt_in_place(&gcm, &nonce, aad, &mut buf).expect("decrypt");
    assert_eq!(buf, msg);

    let mut buf = msg.to_vec();
    let tag = AeadInPlace::encrypt_in_place_detached(&gcm, &nonce, aad, &mut buf).expect("enc");
    assert_eq!([buf.as_slice(), tag.as_slice()].concat(), sealed);
    AeadInPlace::decrypt_in_place_detached(&gcm, &nonce, aad, &mut buf, &tag).expect("dec");
    assert_eq!(buf, msg);

    // Too short for a tag: an error, not a panic.
    let err: Result<Vec<u8>, Error> = gcm.decrypt(&nonce, &sealed[..15]);
    assert_eq!(err, Err(Error));
}

/// The empty message and AAD-only (GMAC) cases.
#[test]
fn empty_message_and_aad_only() {
    let gcm = Aes128Gcm::new(&[5u8; 16].into());
    let nonce = Nonce::<U12>::from([6; 12]);
    for aad in [&b""[..], b"only associated data"] {
        let mut buf = Vec::new();
        let tag = gcm
            .encrypt_inout_detached(&nonce, aad, buf.as_mut_slice().into())
            .expect("encrypt");
        assert!(buf.is_empty());
        gcm.decrypt_inout_detached(&nonce, aad, buf.as_mut_slice().into(), &tag)
            .expect("decrypt");
        let mut bad = tag;
        bad[15] ^= 1;
        assert!(
            gcm.decrypt_inout_detached(&nonce, aad, buf.as_mut_slice().into(), &bad)
                .is_err()
        );
    }
}
