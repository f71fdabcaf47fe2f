//! AES-GCM-SIV (our `aes-gcm-siv` 0.12, aead 0.6): `siv-generic-<backend>` (the `aes` crate's
//! AES, a key schedule per message, POLYVAL on that backend) and `siv-<engine>` (the fused
//! engine's key derivation, POLYVAL, tag and CTR; in place, decryption stitched).
//!
//! The secrets are those of the AES-GCM targets: key, plaintext, associated data, ciphertext
//! and the received tag. The nonce is public. The tag an encryption returns is public once
//! sent, but it is computed from the key and the message (and is the CTR's first counter
//! block), so it must carry the marking when it comes out, like GCM's tag and the ciphertext.

use crate::{Mode, Plan, Rng, decryptions, op, taint};
use aes::cipher::{BlockCipherEncrypt, BlockSizeUser, KeyInit, KeySizeUser};
use aes_gcm::aead::AeadInOut;
use aes_gcm::aead::consts::U16;
use aes_gcm_siv::{AesGcmSiv, Nonce, Tag};
use clmul_core::Backend;

/// Runs the operations of `target` for AES-128 and AES-256.
pub fn run(target: &str, mode: Mode, plan: &Plan) {
    suite::<aes::Aes128>(target, "aes128", mode, plan);
    suite::<aes::Aes256>(target, "aes256", mode, plan);
}

/// An AES-GCM-SIV instance for `mode`, checked to run where it was asked to.
fn build<A>(key: &aes_gcm_siv::Key<AesGcmSiv<A>>, mode: Mode) -> AesGcmSiv<A>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
{
    match mode {
        Mode::Generic(b) => {
            let s = AesGcmSiv::__with_polyval_backend(A::new(key), b).expect("available");
            assert_eq!(s.__polyval_backend(), b);
            s
        }
        Mode::Fused(e) => {
            let s = AesGcmSiv::<A>::with_engine(key, e).expect("available");
            assert_eq!(s.__engine(), e);
            s
        }
        Mode::KeyInit => AesGcmSiv::<A>::new(key),
    }
}

/// Key setup (the key alone secret: ciphertext and tag of public data must carry the
/// marking, as everything comes from the derived keys), then encryption of every length of
/// the plan with every associated data length, each checked against the generic path on the
/// portable POLYVAL with unmarked inputs, and the decryptions of [`decryptions`] (good tag,
/// forged tag, modified ciphertext; in place and out of place).
fn suite<A>(target: &str, cipher: &str, mode: Mode, plan: &Plan)
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + KeySizeUser,
{
    let mut rng = Rng(0x5eed_0f51_7a9c_0de5);
    let mut key = aes_gcm_siv::Key::<AesGcmSiv<A>>::default();
    rng.fill(&mut key);
    let nonce = Nonce::from(*b"siv nonce 12");
    let max_aad = plan.siv_aad_lens.iter().copied().max().unwrap_or(0);
    let max_pt = plan.siv_lens.iter().copied().max().unwrap_or(0);
    let mut aad_all = vec![0u8; max_aad];
    rng.fill(&mut aad_all);
    let mut pt_all = vec![0u8; max_pt];
    rng.fill(&mut pt_all);
    let reference =
        AesGcmSiv::__with_polyval_backend(A::new(&key), Backend::Portable).expect("portable");

    op(target, &format!("{cipher}-keysetup"), || {
        let mut k = key.clone();
        taint::secret(k.as_mut_slice());
        let s = build::<A>(&k, mode);
        let mut buf = pt_all[..max_pt.min(600)].to_vec();
        let mut tag = s
            .encrypt_inout_detached(&nonce, &aad_all, buf.as_mut_slice().into())
            .expect("encrypt");
        taint::expect_secret(&buf);
        taint::expect_secret(&tag);
        taint::public(buf.as_mut_slice());
        taint::public(&mut tag);
    });

    let mut k = key.clone();
    taint::secret(k.as_mut_slice());
    let siv = build::<A>(&k, mode);

    for &alen in plan.siv_aad_lens {
        let aad = &aad_all[..alen];
        for &plen in plan.siv_lens {
            let pt = &pt_all[..plen];
            let mut want = pt.to_vec();
            let want_tag = reference
                .encrypt_inout_detached(&nonce, aad, want.as_mut_slice().into())
                .expect("encrypt");

            let mut ct = pt.to_vec();
            let mut tag = Tag::default();
            op(target, &format!("{cipher}-encrypt-a{alen}-p{plen}"), || {
                let mut a = aad.to_vec();
                taint::secret(ct.as_mut_slice());
                taint::secret(a.as_mut_slice());
                tag = siv
                    .encrypt_inout_detached(&nonce, &a, ct.as_mut_slice().into())
                    .expect("encrypt");
                taint::expect_secret(&ct);
                taint::expect_secret(&tag);
                taint::public(ct.as_mut_slice());
                taint::public(&mut tag);
            });
            assert_eq!((&ct, &tag), (&want, &want_tag), "{target} encrypt");
            decryptions(target, cipher, &siv, &nonce, aad, pt, &ct, &tag);
        }
    }
}
