//! The AES-GCM implementations the benches compare, behind one trait ([`Gcm`]), and their
//! constructors: shared by `aead.rs` (criterion, the full matrix) and `headline.rs` (the
//! interleaved headline comparison). The `new_*` and `*_key` constructors are the key setup
//! the fresh-key-per-message cases time.
#![allow(dead_code, unused_macros)]

use upstream_aes_gcm::aead;

/// An arbitrary nonce: the criterion benches never vary it, which no real protocol may do; the
/// headline's runners number their messages ([`nonce`]).
pub const NONCE: [u8; 12] = *b"\x4e\x30\x7a\x1c\x9b\x02\x55\xe1\x0d\x88\x3f\x61";

/// The nonce of message `seq`: [`NONCE`] with the big-endian sequence number XORed into its
/// last eight bytes, as TLS 1.3 and QUIC build theirs.
#[inline]
pub fn nonce(seq: u64) -> [u8; 12] {
    let mut n = NONCE;
    let tail = u64::from_be_bytes(n[4..].try_into().expect("8 bytes")) ^ seq;
    n[4..].copy_from_slice(&tail.to_be_bytes());
    n
}
/// 13 bytes of AAD, as TLS 1.2 uses.
pub const AAD13: [u8; 13] = *b"\x00\x00\x00\x00\x00\x00\x00\x01\x17\x03\x03\x40\x00";
/// Key bytes; AES-128 uses the first 16.
pub const KEY: [u8; 32] = *b"\xfe\xff\xe9\x92\x86\x65\x73\x1c\x6d\x6a\x8f\x94\x67\x30\x83\x08\
                             \xfe\xff\xe9\x92\x86\x65\x73\x1c\x6d\x6a\x8f\x94\x67\x30\x83\x08";

/// An AES-GCM implementation, keyed, through the in-place detached-tag calls each API offers.
pub trait Gcm {
    /// Encrypts `buf` in place under `nonce` and returns the tag.
    fn seal_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16];
    /// Decrypts `buf` in place under `nonce` if `tag` verifies; returns whether it did.
    fn open_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool;
    /// [`Gcm::seal_with`] under [`NONCE`].
    #[inline]
    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        self.seal_with(&NONCE, aad, buf)
    }
    /// [`Gcm::open_with`] under [`NONCE`].
    #[inline]
    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        self.open_with(&NONCE, aad, buf, tag)
    }
}

/// The RustCrypto API (RustCrypto's crate and ours).
pub struct RustCryptoApi<A>(pub A);

impl<A: aead::AeadInOut<TagSize = aead::consts::U16>> Gcm for RustCryptoApi<A> {
    #[inline]
    fn seal_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = aead::Nonce::<A>::try_from(&nonce[..]).expect("12-byte nonce");
        let tag = self.0.encrypt_inout_detached(&nonce, aad, buf.into());
        tag.expect("length within GCM's limits").into()
    }

    #[inline]
    fn open_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aead::Nonce::<A>::try_from(&nonce[..]).expect("12-byte nonce");
        self.0
            .decrypt_inout_detached(&nonce, aad, buf.into(), tag.into())
            .is_ok()
    }
}

/// The aead 0.5 API (RustCrypto's `aes-gcm` 0.10.3 and our 0.10).
pub struct AeadInPlace05<A>(pub A);

impl<A: aes_gcm_010::AeadInPlace<TagSize = aes_gcm_010::aead::consts::U16>> Gcm
    for AeadInPlace05<A>
{
    #[inline]
    fn seal_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = aes_gcm_010::aead::Nonce::<A>::from_slice(nonce);
        let tag = self.0.encrypt_in_place_detached(nonce, aad, buf);
        tag.expect("length within GCM's limits").into()
    }

    #[inline]
    fn open_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aes_gcm_010::aead::Nonce::<A>::from_slice(nonce);
        self.0
            .decrypt_in_place_detached(nonce, aad, buf, tag.into())
            .is_ok()
    }
}

impl Gcm for ring::aead::LessSafeKey {
    #[inline]
    fn seal_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = ring::aead::Nonce::assume_unique_for_key(*nonce);
        let tag = self.seal_in_place_separate_tag(nonce, ring::aead::Aad::from(aad), buf);
        let tag = tag.expect("length within GCM's limits");
        tag.as_ref().try_into().expect("16-byte tag")
    }

    #[inline]
    fn open_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = ring::aead::Nonce::assume_unique_for_key(*nonce);
        let tag = ring::aead::Tag::from(*tag);
        self.open_in_place_separate_tag(nonce, ring::aead::Aad::from(aad), tag, buf, 0..)
            .is_ok()
    }
}

impl Gcm for aws_lc_rs::aead::LessSafeKey {
    #[inline]
    fn seal_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(*nonce);
        let tag = self.seal_in_place_separate_tag(nonce, aws_lc_rs::aead::Aad::from(aad), buf);
        let tag = tag.expect("length within GCM's limits");
        tag.as_ref().try_into().expect("16-byte tag")
    }

    #[inline]
    fn open_with(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(*nonce);
        let aad = aws_lc_rs::aead::Aad::from(aad);
        self.open_in_place_separate_tag(nonce, aad, &tag[..], buf)
            .is_ok()
    }
}

/// Our `aes-gcm` 0.11 on either key size.
#[cfg(feature = "ours-aead")]
pub type Ours = OursOrTheirs<RustCryptoApi<aes_gcm::Aes128Gcm>, RustCryptoApi<aes_gcm::Aes256Gcm>>;

/// Our `aes-gcm` keyed with `key` (16 or 32 bytes) on `engine`, if this CPU has it.
#[cfg(feature = "ours-aead")]
pub fn ours(key: &[u8], engine: aes_gcm::__Engine) -> Option<Ours> {
    Some(if key.len() == 16 {
        OursOrTheirs::A128(RustCryptoApi(aes_gcm::Aes128Gcm::with_engine(
            key.try_into().expect("key"),
            engine,
        )?))
    } else {
        OursOrTheirs::A256(RustCryptoApi(aes_gcm::Aes256Gcm::with_engine(
            key.try_into().expect("key"),
            engine,
        )?))
    })
}

/// Our `aes-gcm` as users key it, `KeyInit::new`: the engine this CPU detects, and on Intel's
/// 512-bit engine the pacing of messages after a rest (`aes_gcm::__pace`), which keys on a
/// named engine do not have.
#[cfg(feature = "ours-aead")]
pub fn ours_detected(key: &[u8]) -> Option<Ours> {
    use aes_gcm::KeyInit;
    Some(if key.len() == 16 {
        OursOrTheirs::A128(RustCryptoApi(aes_gcm::Aes128Gcm::new_from_slice(key).ok()?))
    } else {
        OursOrTheirs::A256(RustCryptoApi(aes_gcm::Aes256Gcm::new_from_slice(key).ok()?))
    })
}

/// Our 256-bit VAES engine, if the target and CPU have it.
#[cfg(feature = "ours-aead")]
pub fn ours_vaes256(key: &[u8]) -> Option<Ours> {
    #[cfg(target_arch = "x86_64")]
    return ours(key, aes_gcm::__Engine::Vaes256);
    #[cfg(not(target_arch = "x86_64"))]
    return None;
}

/// RustCrypto's `aes-gcm` keyed with `key`.
pub fn rustcrypto(
    key: &[u8],
) -> Option<
    OursOrTheirs<
        RustCryptoApi<upstream_aes_gcm::Aes128Gcm>,
        RustCryptoApi<upstream_aes_gcm::Aes256Gcm>,
    >,
> {
    use aead::KeyInit;
    Some(if key.len() == 16 {
        OursOrTheirs::A128(RustCryptoApi(
            upstream_aes_gcm::Aes128Gcm::new_from_slice(key).expect("key"),
        ))
    } else {
        OursOrTheirs::A256(RustCryptoApi(
            upstream_aes_gcm::Aes256Gcm::new_from_slice(key).expect("key"),
        ))
    })
}

/// ring's AES-GCM for a key of `len` bytes (16 or 32).
pub fn ring_gcm(len: usize) -> &'static ring::aead::Algorithm {
    if len == 16 {
        &ring::aead::AES_128_GCM
    } else {
        &ring::aead::AES_256_GCM
    }
}

/// aws-lc-rs's AES-GCM for a key of `len` bytes (16 or 32).
pub fn aws_lc_gcm(len: usize) -> &'static aws_lc_rs::aead::Algorithm {
    if len == 16 {
        &aws_lc_rs::aead::AES_128_GCM
    } else {
        &aws_lc_rs::aead::AES_256_GCM
    }
}

/// aws-lc-rs's AES-GCM-SIV for a key of `len` bytes (16 or 32).
pub fn aws_lc_gcm_siv(len: usize) -> &'static aws_lc_rs::aead::Algorithm {
    if len == 16 {
        &aws_lc_rs::aead::AES_128_GCM_SIV
    } else {
        &aws_lc_rs::aead::AES_256_GCM_SIV
    }
}

/// ring's key setup: `UnboundKey::new` + `LessSafeKey::new`.
#[inline]
pub fn ring_key(alg: &'static ring::aead::Algorithm, key: &[u8]) -> ring::aead::LessSafeKey {
    ring::aead::LessSafeKey::new(ring::aead::UnboundKey::new(alg, key).expect("key"))
}

/// aws-lc-rs's key setup: `UnboundKey::new` + `LessSafeKey::new`.
#[inline]
pub fn aws_lc_key(
    alg: &'static aws_lc_rs::aead::Algorithm,
    key: &[u8],
) -> aws_lc_rs::aead::LessSafeKey {
    aws_lc_rs::aead::LessSafeKey::new(aws_lc_rs::aead::UnboundKey::new(alg, key).expect("key"))
}

/// `KeyInit::new` of the aead 0.6 API (RustCrypto's `aes-gcm` 0.11.1 and `aes-gcm-siv`
/// 0.12.1, and ours): the key setup of a fresh key per message.
#[inline]
pub fn new_06<A: aead::KeyInit>(key: &[u8]) -> RustCryptoApi<A> {
    RustCryptoApi(A::new(key.try_into().expect("key length")))
}

/// `KeyInit::new` of the aead 0.5 API (RustCrypto's `aes-gcm` 0.10.3 and `aes-gcm-siv`
/// 0.11.1, and ours).
#[inline]
pub fn new_05<A: aes_gcm_010::KeyInit>(key: &[u8]) -> AeadInPlace05<A> {
    AeadInPlace05(A::new(
        aes_gcm_010::aead::generic_array::GenericArray::from_slice(key),
    ))
}

/// ring keyed with `key`.
pub fn ring(key: &[u8]) -> Option<OursOrTheirs<Unused, Unused, ring::aead::LessSafeKey>> {
    Some(OursOrTheirs::Other(ring_key(ring_gcm(key.len()), key)))
}

/// aws-lc-rs keyed with `key`.
pub fn aws_lc(key: &[u8]) -> Option<OursOrTheirs<Unused, Unused, aws_lc_rs::aead::LessSafeKey>> {
    Some(OursOrTheirs::Other(aws_lc_key(aws_lc_gcm(key.len()), key)))
}

/// One implementation: a RustCrypto-API cipher of either key size (they are different types),
/// or a peer's key.
pub enum OursOrTheirs<A, B, C = Unused> {
    A128(A),
    A256(B),
    Other(C),
}

/// The variants of [`OursOrTheirs`] an implementation does not use.
pub enum Unused {}

impl Gcm for Unused {
    fn seal_with(&self, _: &[u8; 12], _: &[u8], _: &mut [u8]) -> [u8; 16] {
        match *self {}
    }
    fn open_with(&self, _: &[u8; 12], _: &[u8], _: &mut [u8], _: &[u8; 16]) -> bool {
        match *self {}
    }
}

/// Runs `$body` with `$gcm` bound to each implementation of the list (`"name" => constructor`
/// pairs, each constructor taking the key and returning `Option<OursOrTheirs<..>>`, `None`
/// where the CPU lacks it), keyed with `$key`. Static dispatch per concrete type: a list of
/// boxed trait objects would cost a virtual call per iteration.
macro_rules! for_each {
    ($key:expr, [$($name:literal => $make:expr),* $(,)?], |$n:ident, $gcm:ident| $body:expr) => {{
        let key: &[u8] = $key;
        $(
            let $n = $name;
            match &$make(key) {
                Some($crate::impls::OursOrTheirs::A128($gcm)) => $body,
                Some($crate::impls::OursOrTheirs::A256($gcm)) => $body,
                Some($crate::impls::OursOrTheirs::Other($gcm)) => $body,
                None => eprintln!("{}: not available on this CPU; skipped", $n),
            }
        )*
    }};
}
#[allow(unused_imports)]
pub(crate) use for_each;

/// Our `aes-gcm-siv` (on the engine this CPU detects) keyed with `key`.
pub fn ours_siv(
    key: &[u8],
) -> Option<
    OursOrTheirs<
        RustCryptoApi<aes_gcm_siv::Aes128GcmSiv>,
        RustCryptoApi<aes_gcm_siv::Aes256GcmSiv>,
    >,
> {
    use aes_gcm_siv::KeyInit;
    Some(if key.len() == 16 {
        OursOrTheirs::A128(RustCryptoApi(
            aes_gcm_siv::Aes128GcmSiv::new_from_slice(key).ok()?,
        ))
    } else {
        OursOrTheirs::A256(RustCryptoApi(
            aes_gcm_siv::Aes256GcmSiv::new_from_slice(key).ok()?,
        ))
    })
}

/// RustCrypto's `aes-gcm-siv` 0.12.1 keyed with `key`.
pub fn rustcrypto_siv(
    key: &[u8],
) -> Option<
    OursOrTheirs<
        RustCryptoApi<upstream_aes_gcm_siv::Aes128GcmSiv>,
        RustCryptoApi<upstream_aes_gcm_siv::Aes256GcmSiv>,
    >,
> {
    use upstream_aes_gcm_siv::KeyInit;
    Some(if key.len() == 16 {
        OursOrTheirs::A128(RustCryptoApi(
            upstream_aes_gcm_siv::Aes128GcmSiv::new_from_slice(key).ok()?,
        ))
    } else {
        OursOrTheirs::A256(RustCryptoApi(
            upstream_aes_gcm_siv::Aes256GcmSiv::new_from_slice(key).ok()?,
        ))
    })
}

/// aws-lc-rs's AES-GCM-SIV keyed with `key` (ring has none).
pub fn aws_lc_siv(
    key: &[u8],
) -> Option<OursOrTheirs<Unused, Unused, aws_lc_rs::aead::LessSafeKey>> {
    Some(OursOrTheirs::Other(aws_lc_key(
        aws_lc_gcm_siv(key.len()),
        key,
    )))
}
