//! The checks behind the fuzz targets, shared with the ordinary test suite:
//! `crates/interop/tests/fuzz_regressions.rs` includes this file (`#[path]`) and runs every
//! seed and crash reproducer under `fuzz/seeds/` through the same functions, so a fuzzer
//! finding becomes a regression test by dropping its input into that directory.
//!
//! Each check decodes the fuzz input itself (no `arbitrary` derive), so that the input format
//! is written down here and the seeds are plain files. Every check panics on a disagreement;
//! every input is valid.

use aes_gcm::aead::array::typenum::{U1, U12, U16};
use aes_gcm::aead::{AeadInOut, KeyInit, inout::InOutBuf};
use aes_gcm::{__Engine as Engine, AesGcm};
use clmul_core::Backend;
use polyval::universal_hash::UniversalHash;

/// A cursor over the fuzz input: takes bytes from the front, zeros once exhausted.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> usize {
        usize::from(self.byte()) | usize::from(self.byte()) << 8
    }
    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        for b in &mut a {
            *b = self.byte();
        }
        a
    }
    /// Up to `n` bytes (fewer if the input runs out).
    fn take(&mut self, n: usize) -> &'a [u8] {
        let (a, b) = self.0.split_at(n.min(self.0.len()));
        self.0 = b;
        a
    }
    fn rest(self) -> &'a [u8] {
        self.0
    }
}

/// `uhf_backends`: POLYVAL and GHASH on every backend this CPU has, fed in random whole-block
/// pieces (then a padded tail), against the portable backend in one call and against the
/// published `polyval` 0.7.3 / `ghash` 0.6.0.
///
/// Input: `key[16] || nsplits[1] || split[2] * (nsplits % 8) || message`.
pub fn check_uhf(data: &[u8]) {
    let mut inp = Input(data);
    let key: [u8; 16] = inp.array();
    let nsplits = usize::from(inp.byte() % 8);
    let splits: Vec<usize> = (0..nsplits).map(|_| inp.u16()).collect();
    let msg = inp.rest();
    let (blocks, tail) = msg.as_chunks::<16>();

    let reference = |ghash: bool| -> [u8; 16] {
        if ghash {
            let mut s = clmul_core::Ghash::with_backend(&key, Backend::Portable).expect("portable");
            s.update_padded(msg);
            s.finalize()
        } else {
            let mut s =
                clmul_core::Polyval::with_backend(&key, Backend::Portable).expect("portable");
            s.update_padded(msg);
            s.finalize()
        }
    };
    let want_p = reference(false);
    let want_g = reference(true);

    // The portable reference against the published crates.
    let mut up = upstream_polyval::Polyval::new(&key.into());
    up.update_padded(msg);
    assert_eq!(
        up.finalize().as_slice(),
        want_p,
        "portable vs upstream polyval"
    );
    let mut up = upstream_ghash::GHash::new(&key.into());
    up.update_padded(msg);
    assert_eq!(
        up.finalize().as_slice(),
        want_g,
        "portable vs upstream ghash"
    );

    for b in Backend::available() {
        let mut p = clmul_core::Polyval::with_backend(&key, b).expect("available");
        let mut g = clmul_core::Ghash::with_backend(&key, b).expect("available");
        let mut rest = blocks;
        for &s in &splits {
            let (piece, r) = rest.split_at(s % (rest.len() + 1));
            p.update(piece);
            g.update(piece);
            rest = r;
        }
        p.update(rest);
        g.update(rest);
        p.update_padded(tail);
        g.update_padded(tail);
        assert_eq!(p.finalize(), want_p, "polyval {b:?} split {splits:?}");
        assert_eq!(g.finalize(), want_g, "ghash {b:?} split {splits:?}");

        // The public `ghash` API, in byte pieces at the same split points (in bytes).
        let mut pub_g = ghash::GHash::__with_backend(&key.into(), b).expect("available");
        let mut rest = msg;
        for &s in &splits {
            // `update_padded` pads each piece, so only whole-block pieces keep the sum.
            let n = (s % (rest.len() / 16 + 1)) * 16;
            let (piece, r) = rest.split_at(n);
            pub_g.update_padded(piece);
            rest = r;
        }
        pub_g.update_padded(rest);
        assert_eq!(pub_g.finalize().as_slice(), want_g, "ghash crate {b:?}");
    }
    let mut pv = polyval::Polyval::new(&key.into());
    pv.update_padded(msg);
    assert_eq!(pv.finalize().as_slice(), want_p, "polyval crate");
}

/// Every engine and every GHASH backend of the generic path for `key`.
fn instances<A, N>(key: &aes_gcm::Key<A>) -> Vec<(String, AesGcm<A, N>)>
where
    A: cipher::BlockCipherEncrypt + cipher::BlockSizeUser<BlockSize = U16> + KeyInit,
    N: aes_gcm::aead::array::ArraySize,
{
    let mut v: Vec<(String, AesGcm<A, N>)> = Engine::available()
        .filter(|&e| e != Engine::Generic)
        .filter_map(|e| Some((format!("{e:?}"), AesGcm::with_engine(key, e)?)))
        .collect();
    for b in Backend::available() {
        let g = AesGcm::__with_ghash_backend(A::new(key), b).expect("available");
        v.push((format!("Generic/{b:?}"), g));
    }
    v
}

/// The parameters decoded from an AEAD fuzz input.
struct Message<'a> {
    aes256: bool,
    key: [u8; 32],
    nonce: [u8; 12],
    aad: &'a [u8],
    pt: &'a [u8],
    /// Bytes left for the tamper check.
    extra: [u8; 4],
}

/// Input: `flags[1] || key[32] || nonce[12] || aad_len[2] || extra[4] || aad || plaintext`.
fn message(data: &[u8]) -> Message<'_> {
    let mut inp = Input(data);
    let flags = inp.byte();
    let key = inp.array();
    let nonce = inp.array();
    let aad_len = inp.u16();
    let extra = inp.array();
    let aad = inp.take(aad_len);
    Message {
        aes256: flags & 1 == 1,
        key,
        nonce,
        aad,
        pt: inp.rest(),
        extra,
    }
}

/// `aead_diff`: AES-128/256-GCM on every fused engine and every GHASH backend of the generic
/// path against the published `aes-gcm` 0.11.1, ring and aws-lc-rs (96-bit nonce, 16-byte
/// tag): the same ciphertext and tag, each opens what it sealed, and aws-lc-rs opens ours.
/// Also a 1-byte nonce (J0 through GHASH) against the published crate.
pub fn check_aead(data: &[u8]) {
    let m = message(data);
    if m.aes256 {
        let algs = (&ring::aead::AES_256_GCM, aws::AES_256_GCM);
        aead_diff::<aes::Aes256>(&m.key, algs, &m);
    } else {
        let algs = (&ring::aead::AES_128_GCM, aws::AES_128_GCM);
        aead_diff::<aes::Aes128>(&m.key[..16], algs, &m);
    }
}

/// aws-lc-rs's AES-GCM algorithms, where it is built: always in the fuzz targets; in their
/// regression tests (`crates/interop`) on x86_64 outside the forced-portable build only, as
/// its C build takes about 100 s per target and build (every other peer is checked there).
#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
mod aws {
    pub type Algorithm = &'static aws_lc_rs::aead::Algorithm;
    pub const AES_128_GCM: Algorithm = &aws_lc_rs::aead::AES_128_GCM;
    pub const AES_256_GCM: Algorithm = &aws_lc_rs::aead::AES_256_GCM;
}

/// Without aws-lc-rs (see above): no algorithm, and [`aws_lc`] gives nothing.
#[cfg(not(all(target_arch = "x86_64", not(polyval_backend = "soft"))))]
mod aws {
    pub type Algorithm = ();
    pub const AES_128_GCM: Algorithm = ();
    pub const AES_256_GCM: Algorithm = ();
}

/// The peers' algorithm for one key size: ring's and aws-lc-rs's.
type PeerAlgs = (&'static ring::aead::Algorithm, aws::Algorithm);

/// What [`aws_lc`] gives: its ciphertext and tag, and the plaintext if it opened `sealed`.
type AwsLcResult = Option<(Vec<u8>, Vec<u8>, Option<Vec<u8>>)>;

/// Where aws-lc-rs is not built: nothing to compare.
#[cfg(not(all(target_arch = "x86_64", not(polyval_backend = "soft"))))]
fn aws_lc(_: aws::Algorithm, _: &[u8], _: &Message<'_>, _: &[u8]) -> AwsLcResult {
    None
}

/// aws-lc-rs's AES-GCM: seals `m` (ciphertext and tag), and opens `sealed` (ciphertext || tag)
/// if the tag is right.
#[cfg(all(target_arch = "x86_64", not(polyval_backend = "soft")))]
fn aws_lc(alg: aws::Algorithm, key: &[u8], m: &Message<'_>, sealed: &[u8]) -> AwsLcResult {
    use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
    let k = LessSafeKey::new(UnboundKey::new(alg, key).expect("aws-lc-rs key"));
    let mut ct = m.pt.to_vec();
    let tag = k
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(m.nonce),
            Aad::from(m.aad),
            &mut ct,
        )
        .expect("aws-lc-rs seal");
    let mut buf = sealed.to_vec();
    let opened = k
        .open_in_place(
            Nonce::assume_unique_for_key(m.nonce),
            Aad::from(m.aad),
            &mut buf,
        )
        .ok()
        .map(|p| p.to_vec());
    Some((ct, tag.as_ref().to_vec(), opened))
}

fn aead_diff<A>(key: &[u8], (alg, aws_alg): PeerAlgs, m: &Message<'_>)
where
    A: cipher::BlockCipherEncrypt + cipher::BlockSizeUser<BlockSize = U16> + KeyInit,
{
    let key = aes_gcm::Key::<A>::try_from(key).expect("key length");
    let nonce = aes_gcm::Nonce::<U12>::from(m.nonce);

    let up = upstream_aes_gcm::AesGcm::<A, U12>::new(&key);
    let mut want = m.pt.to_vec();
    let want_tag = up
        .encrypt_inout_detached(&nonce, m.aad, want.as_mut_slice().into())
        .expect("upstream encrypt");

    let rk = ring::aead::LessSafeKey::new(
        ring::aead::UnboundKey::new(alg, key.as_slice()).expect("ring key"),
    );
    let mut ring_ct = m.pt.to_vec();
    let ring_tag = rk
        .seal_in_place_separate_tag(
            ring::aead::Nonce::assume_unique_for_key(m.nonce),
            ring::aead::Aad::from(m.aad),
            &mut ring_ct,
        )
        .expect("ring seal");
    assert_eq!(ring_ct, want, "ring vs upstream ciphertext");
    assert_eq!(
        ring_tag.as_ref(),
        want_tag.as_slice(),
        "ring vs upstream tag"
    );
    let mut sealed = want.clone();
    sealed.extend_from_slice(&want_tag);
    if let Some((aws_ct, aws_tag, aws_opened)) = aws_lc(aws_alg, key.as_slice(), m, &sealed) {
        assert_eq!(aws_ct, want, "aws-lc-rs vs upstream ciphertext");
        assert_eq!(aws_tag, want_tag.as_slice(), "aws-lc-rs vs upstream tag");
        assert_eq!(
            aws_opened.as_deref(),
            Some(m.pt),
            "aws-lc-rs opens the sealed message"
        );
    }

    for (name, gcm) in instances::<A, U12>(&key) {
        let mut ct = m.pt.to_vec();
        let tag = gcm
            .encrypt_inout_detached(&nonce, m.aad, ct.as_mut_slice().into())
            .expect("encrypt");
        assert_eq!(ct, want, "{name} ciphertext");
        assert_eq!(tag, want_tag, "{name} tag");
        // Out of place, into a garbage-filled output.
        let mut out = vec![0xa5; m.pt.len()];
        let tag2 = gcm
            .encrypt_inout_detached(
                &nonce,
                m.aad,
                InOutBuf::new(m.pt, &mut out).expect("same length"),
            )
            .expect("encrypt");
        assert_eq!((&out, tag2), (&want, want_tag), "{name} out of place");
        gcm.decrypt_inout_detached(&nonce, m.aad, ct.as_mut_slice().into(), &tag)
            .expect("decrypt");
        assert_eq!(ct, m.pt, "{name} round trip");
        // aws-lc-rs opens what this engine sealed (the same bytes as upstream's by now, but
        // through its own tag check).
        let mut sealed = want.clone();
        sealed.extend_from_slice(&tag);
        if let Some((_, _, opened)) = aws_lc(aws_alg, key.as_slice(), m, &sealed) {
            assert_eq!(
                opened.as_deref(),
                Some(m.pt),
                "aws-lc-rs opens {name}'s message"
            );
        }
    }

    // A 1-byte nonce: J0 = GHASH(nonce || pad || lengths).
    let n1 = aes_gcm::Nonce::<U1>::from([m.nonce[0]]);
    let up1 = upstream_aes_gcm::AesGcm::<A, U1>::new(&key);
    let mut want1 = m.pt.to_vec();
    let want1_tag = up1
        .encrypt_inout_detached(&n1, m.aad, want1.as_mut_slice().into())
        .expect("upstream encrypt");
    for (name, gcm) in instances::<A, U1>(&key) {
        let mut ct = m.pt.to_vec();
        let tag = gcm
            .encrypt_inout_detached(&n1, m.aad, ct.as_mut_slice().into())
            .expect("encrypt");
        assert_eq!((&ct, tag), (&want1, want1_tag), "{name} 1-byte nonce");
    }
}

/// `aead_tamper`: a sealed message with one bit flipped in the ciphertext, the tag or the
/// associated data (chosen by the input) is refused by every engine, in place (the buffer,
/// including a `Vec`'s length, unchanged) and out of place (the output not written).
pub fn check_tamper(data: &[u8]) {
    let m = message(data);
    if m.aes256 {
        tamper::<aes::Aes256>(&m.key, &m);
    } else {
        tamper::<aes::Aes128>(&m.key[..16], &m);
    }
}

fn tamper<A>(key: &[u8], m: &Message<'_>)
where
    A: cipher::BlockCipherEncrypt + cipher::BlockSizeUser<BlockSize = U16> + KeyInit,
{
    let key = aes_gcm::Key::<A>::try_from(key).expect("key length");
    let nonce = aes_gcm::Nonce::<U12>::from(m.nonce);
    let [what, pos_lo, pos_hi, bit] = m.extra;
    let pos = usize::from(pos_lo) | usize::from(pos_hi) << 8;
    let mask = 1u8 << (bit % 8);
    for (name, gcm) in instances::<A, U12>(&key) {
        let mut sealed = m.pt.to_vec();
        gcm.encrypt_in_place(&nonce, m.aad, &mut sealed)
            .expect("encrypt");
        let mut aad = m.aad.to_vec();
        // What to modify: the sealed message (ciphertext || tag), or the associated data.
        if what % 3 == 0 && !aad.is_empty() {
            let i = pos % aad.len();
            aad[i] ^= mask;
        } else if what % 3 == 1 {
            // The tag only.
            let n = sealed.len();
            sealed[n - 16 + pos % 16] ^= mask;
        } else {
            let i = pos % sealed.len();
            sealed[i] ^= mask;
        }
        // Exactly one bit of the message or of the associated data differs now.
        let before = sealed.clone();
        assert!(
            gcm.decrypt_in_place(&nonce, &aad, &mut sealed).is_err(),
            "{name}: forged message accepted"
        );
        assert_eq!(
            sealed, before,
            "{name}: refused decryption changed the buffer"
        );

        let (ct, tag) = before.split_at(m.pt.len());
        let tag = aes_gcm::Tag::<U16>::try_from(tag).expect("16 bytes");
        let mut out = vec![0x3c; ct.len()];
        let buf = InOutBuf::new(ct, &mut out).expect("same length");
        assert!(gcm.decrypt_inout_detached(&nonce, &aad, buf, &tag).is_err());
        assert!(
            out.iter().all(|&b| b == 0x3c),
            "{name}: refused decryption wrote the output"
        );
    }
}
