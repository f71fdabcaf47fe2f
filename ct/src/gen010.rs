//! The aead 0.5 generation: our `aes-gcm` 0.10 (`AeadInPlace`, cipher 0.4, the `aes` crate
//! 0.8), `gcm010-generic-<backend>` (its own two-pass path, `aead-0.5/aes-gcm/src/generic.rs`)
//! and `gcm010-<engine>`. The kernels are the ones the 0.11 targets check in depth; these check
//! the 0.10 layer's own code around them (length checks, the J0 and tag handling, the tag
//! comparison of its generic path, buffer handling) with the same secrets: key, plaintext,
//! associated data, ciphertext and received tag.

use crate::{Mode, Plan, Rng, op, taint};
use aes_gcm_010::aead::consts::{U12, U16};
use aes_gcm_010::aead::generic_array::GenericArray;
use aes_gcm_010::aead::{AeadInPlace, KeyInit};
use aes_gcm_010::aes::cipher::{BlockCipher, BlockEncrypt, BlockSizeUser, KeySizeUser};
use aes_gcm_010::{AesGcm, Key, Nonce, Tag};
use clmul_core::Backend;

/// Runs the operations of `target` for AES-128 and AES-256.
pub fn run(target: &str, mode: Mode, plan: &Plan) {
    suite::<aes_gcm_010::aes::Aes128>(target, "aes128", mode, plan);
    suite::<aes_gcm_010::aes::Aes256>(target, "aes256", mode, plan);
}

/// An aes-gcm 0.10 instance for `mode`, checked to run where it was asked to.
fn build<A>(key: &Key<AesGcm<A, U12>>, mode: Mode) -> AesGcm<A, U12>
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
{
    match mode {
        Mode::Generic(b) => {
            let g = AesGcm::__with_ghash_backend(A::new(key), b).expect("available");
            assert_eq!(g.__ghash_backend(), b);
            g
        }
        Mode::Fused(e) => {
            let g = AesGcm::<A, U12>::with_engine(key, e).expect("available");
            assert_eq!(g.__engine(), e);
            g
        }
        Mode::KeyInit => AesGcm::<A, U12>::new(key),
    }
}

/// Key setup (the key alone secret), then for each length encryption in place and decryption
/// in place with the good tag, a forged tag and a modified ciphertext; outputs that depend on
/// a secret must carry the marking, the verdict is public. Encryption is checked against the
/// generic path on the portable GHASH with unmarked inputs.
fn suite<A>(target: &str, cipher: &str, mode: Mode, plan: &Plan)
where
    A: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + KeySizeUser,
{
    let mut rng = Rng(0x0a1b_2c3d_4e5f_6071);
    let mut key = Key::<AesGcm<A, U12>>::default();
    rng.fill(&mut key);
    let nonce = Nonce::<U12>::clone_from_slice(b"unique nonce");
    let max_aad = plan.gen010_aad_lens.iter().copied().max().unwrap_or(0);
    let max_pt = plan.gen010_lens.iter().copied().max().unwrap_or(0);
    let mut aad_all = vec![0u8; max_aad];
    rng.fill(&mut aad_all);
    let mut pt_all = vec![0u8; max_pt];
    rng.fill(&mut pt_all);
    let reference =
        AesGcm::<A, U12>::__with_ghash_backend(A::new(&key), Backend::Portable).expect("portable");

    op(target, &format!("{cipher}-keysetup"), || {
        let mut k = key.clone();
        taint::secret(k.as_mut_slice());
        let g = build::<A>(&k, mode);
        let mut buf = pt_all.clone();
        let mut tag = g
            .encrypt_in_place_detached(&nonce, &aad_all, &mut buf)
            .expect("encrypt");
        taint::expect_secret(&buf);
        taint::expect_secret(&tag);
        taint::public(buf.as_mut_slice());
        taint::public(tag.as_mut_slice());
    });

    let mut k = key.clone();
    taint::secret(k.as_mut_slice());
    let gcm = build::<A>(&k, mode);

    for &alen in plan.gen010_aad_lens {
        let aad = &aad_all[..alen];
        for &plen in plan.gen010_lens {
            let pt = &pt_all[..plen];
            let mut want = pt.to_vec();
            let want_tag = reference
                .encrypt_in_place_detached(&nonce, aad, &mut want)
                .expect("encrypt");

            let mut ct = pt.to_vec();
            let mut tag = Tag::<U16>::default();
            op(target, &format!("{cipher}-encrypt-a{alen}-p{plen}"), || {
                let mut a = aad.to_vec();
                taint::secret(ct.as_mut_slice());
                taint::secret(a.as_mut_slice());
                tag = gcm
                    .encrypt_in_place_detached(&nonce, &a, &mut ct)
                    .expect("encrypt");
                taint::expect_secret(&ct);
                taint::expect_secret(&tag);
                taint::public(ct.as_mut_slice());
                taint::public(tag.as_mut_slice());
            });
            assert_eq!((&ct, &tag), (&want, &want_tag), "{target} encrypt");
            decryptions(target, cipher, &gcm, &nonce, aad, pt, &ct, &tag);
        }
    }
}

/// Decryption in place of `(ct, tag)` (the encryption of `pt`) with the good tag, a forged
/// tag and a modified ciphertext, everything secret; a refused buffer must come back as it
/// was.
#[allow(clippy::too_many_arguments)]
fn decryptions<G: AeadInPlace<NonceSize = U12, TagSize = U16>>(
    target: &str,
    cipher: &str,
    gcm: &G,
    nonce: &Nonce<U12>,
    aad: &[u8],
    pt: &[u8],
    ct: &[u8],
    tag: &GenericArray<u8, U16>,
) {
    let (alen, plen) = (aad.len(), pt.len());
    // (description, flip a ciphertext byte?, flip a tag byte?)
    let cases: &[(&str, bool, bool)] = &[
        ("decrypt-good", false, false),
        ("decrypt-badtag", false, true),
        ("decrypt-badct", true, false),
    ];
    for &(name, bad_ct, bad_tag) in cases {
        if bad_ct && plen == 0 {
            continue;
        }
        let mut c = ct.to_vec();
        let mut t = *tag;
        if bad_ct {
            c[plen / 2] ^= 0x80;
        }
        if bad_tag {
            t[15] ^= 1;
        }
        let original = c.clone();
        let mut ok = false;
        let expect_ok = !bad_ct && !bad_tag;
        op(target, &format!("{cipher}-{name}-a{alen}-p{plen}"), || {
            let mut a = aad.to_vec();
            taint::secret(c.as_mut_slice());
            taint::secret(a.as_mut_slice());
            taint::secret(t.as_mut_slice());
            ok = gcm.decrypt_in_place_detached(nonce, &a, &mut c, &t).is_ok();
            // The verdict is public (see the 0.11 targets).
            taint::public(&mut ok);
            // The plaintext, or the ciphertext left as it was.
            taint::expect_secret(&c);
            taint::public(c.as_mut_slice());
        });
        assert_eq!(ok, expect_ok, "{target} {name} a{alen} p{plen}");
        if expect_ok {
            assert_eq!(c.as_slice(), pt, "{target} {name}");
        } else {
            assert_eq!(c, original, "{target} {name}: buffer changed");
        }
    }
}
