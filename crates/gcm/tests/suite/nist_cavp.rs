//! NIST CAVP GCM test vectors (gcmEncryptExtIV128.rsp, gcmEncryptExtIV256.rsp): every vector in
//! `tests/data/`, on every GHASH backend and fused engine this CPU has.
//!
//! For each vector: encryption gives exactly `CT || Tag` (detached, and through `Aead` with a
//! `Payload`), decryption gives back `PT`, and a ciphertext, tag or AAD with one byte changed is
//! refused, leaving the buffer as it was (in place on a `Vec` through `decrypt_in_place`: content
//! and length; and through `decrypt_inout_detached`).
//!
//! The data files hold no AES-192 vectors (NIST's gcmEncryptExtIV192.rsp is not among them);
//! AES-192 is covered by the McGrew-Viega cases in `gcm_spec.rs` and by Wycheproof.

use super::{Generation, ours_all};
use hex_literal::hex;

/// One `Count` block of a `.rsp`-style file, with the line it starts on.
#[derive(Debug, Default, Clone)]
struct Vector {
    line: usize,
    key: Vec<u8>,
    iv: Vec<u8>,
    pt: Vec<u8>,
    aad: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
}

fn unhex(s: &str, line: usize) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("line {line}: bad hex {s:?}"));
    }
    Ok((0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("checked hex"))
        .collect())
}

/// Checks a finished block: every field present, lengths as its section header gives.
fn finish(v: Vector, seen: u8, section: &[(String, usize)]) -> Result<Vector, String> {
    let at = v.line;
    if seen != 0b11_1111 {
        return Err(format!("vector at line {at}: missing fields"));
    }
    if v.ct.len() != v.pt.len() {
        return Err(format!("vector at line {at}: CT and PT lengths differ"));
    }
    for (name, bits) in section {
        let len = match name.as_str() {
            "Keylen" => v.key.len(),
            "IVlen" => v.iv.len(),
            "PTlen" => v.pt.len(),
            "AADlen" => v.aad.len(),
            "Taglen" => v.tag.len(),
            other => return Err(format!("unknown section header {other}")),
        };
        if len * 8 != *bits {
            return Err(format!("vector at line {at}: {name} is {} bits", len * 8));
        }
    }
    Ok(v)
}

/// Parses a `.rsp`-style file: `#` comments, `[Name = bits]` section headers, and blocks of
/// `Count`, `Key`, `IV`, `PT`, `AAD`, `CT`, `Tag`. Every field of every block must be present,
/// and its length must be the one its section header gives; anything else is an error.
fn parse(text: &str) -> Result<Vec<Vector>, String> {
    let mut section: Vec<(String, usize)> = Vec::new();
    let mut in_header = false;
    let mut vectors = Vec::new();
    let mut cur: Option<(Vector, u8)> = None; // the fields seen, one bit each
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(h) = l.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            if let Some((v, seen)) = cur.take() {
                vectors.push(finish(v, seen, &section)?);
            }
            if !in_header {
                section.clear();
                in_header = true;
            }
            let (name, bits) = h
                .split_once('=')
                .ok_or(format!("line {line}: expected [Name = bits]"))?;
            let bits = bits
                .trim()
                .parse()
                .map_err(|_| format!("line {line}: bad section value"))?;
            section.push((name.trim().to_string(), bits));
            continue;
        }
        in_header = false;
        let (name, value) = l
            .split_once('=')
            .ok_or(format!("line {line}: expected `Name = value`"))?;
        let (name, value) = (name.trim(), value.trim());
        if name == "Count" {
            if let Some((v, seen)) = cur.take() {
                vectors.push(finish(v, seen, &section)?);
            }
            value
                .parse::<usize>()
                .map_err(|_| format!("line {line}: bad Count"))?;
            cur = Some((
                Vector {
                    line,
                    ..Vector::default()
                },
                0,
            ));
            continue;
        }
        let (v, seen) = cur
            .as_mut()
            .ok_or(format!("line {line}: field outside a Count block"))?;
        let (field, bit) = match name {
            "Key" => (&mut v.key, 0),
            "IV" => (&mut v.iv, 1),
            "PT" => (&mut v.pt, 2),
            "AAD" => (&mut v.aad, 3),
            "CT" => (&mut v.ct, 4),
            "Tag" => (&mut v.tag, 5),
            other => return Err(format!("line {line}: unknown field {other}")),
        };
        if *seen & (1 << bit) != 0 {
            return Err(format!("line {line}: {name} given twice"));
        }
        *seen |= 1 << bit;
        *field = unhex(value, line)?;
    }
    if let Some((v, seen)) = cur.take() {
        vectors.push(finish(v, seen, &section)?);
    }
    Ok(vectors)
}

/// Checks one vector on every implementation of generation `G` (AES-`bits`).
fn check<G: Generation>(bits: usize, v: &Vector) {
    let nonce = v.iv.as_slice();
    let tag = v.tag.as_slice();
    let sealed = [v.ct.as_slice(), v.tag.as_slice()].concat();
    let mut all = ours_all::<G>(&v.key, nonce.len(), 16);
    // And the public constructor (whatever engine it picks).
    all.push((
        "KeyInit::new_from_slice".into(),
        G::new_from_slice(bits, &v.key, nonce.len(), 16)
            .expect("listed size")
            .expect("key"),
    ));
    for (imp, gcm) in &all {
        let what = format!("vector at line {}, {imp}", v.line);

        // Detached, in place.
        let mut buf = v.pt.clone();
        let got = gcm.seal(nonce, &v.aad, &mut buf).expect("encrypt");
        assert_eq!(buf, v.ct, "{what}: ciphertext");
        assert_eq!(got, tag, "{what}: tag");
        gcm.open(nonce, &v.aad, &mut buf, tag)
            .unwrap_or_else(|_| panic!("{what}: decryption refused"));
        assert_eq!(buf, v.pt, "{what}: plaintext");

        // Through the `Buffer` API on a `Vec`.
        let mut buf = v.pt.clone();
        gcm.seal_vec(nonce, &v.aad, &mut buf).expect("encrypt");
        assert_eq!(buf, sealed, "{what}: encrypt_in_place");
        gcm.open_vec(nonce, &v.aad, &mut buf)
            .unwrap_or_else(|_| panic!("{what}: decrypt_in_place refused"));
        assert_eq!(buf, v.pt, "{what}: decrypt_in_place");

        // Through `Aead` with a `Payload`.
        let got = gcm.encrypt(nonce, &v.aad, &v.pt).expect("encrypt");
        assert_eq!(got, sealed, "{what}: Aead::encrypt");
        let got = gcm
            .decrypt(nonce, &v.aad, &sealed)
            .unwrap_or_else(|_| panic!("{what}: Aead::decrypt refused"));
        assert_eq!(got, v.pt, "{what}: Aead::decrypt");

        // Forgeries: one byte changed in the ciphertext (first and last), the tag (first and
        // last) or the AAD (first).
        let mut forgeries = Vec::new();
        let n = sealed.len();
        for (pos, name) in [
            (0, "ciphertext"),
            (v.ct.len().saturating_sub(1), "ciphertext"),
        ]
        .into_iter()
        .filter(|_| !v.ct.is_empty())
        .chain([(v.ct.len(), "tag"), (n - 1, "tag")])
        {
            let mut s = sealed.clone();
            s[pos] ^= 0x01;
            forgeries.push((s, v.aad.clone(), format!("{name} byte {pos} changed")));
        }
        if !v.aad.is_empty() {
            let mut a = v.aad.clone();
            a[0] ^= 0x80;
            forgeries.push((sealed.clone(), a, "AAD byte 0 changed".into()));
        }
        for (s, aad, change) in forgeries {
            let what = format!("{what}, {change}");

            let mut buf = s.clone();
            assert!(
                gcm.open_vec(nonce, &aad, &mut buf).is_err(),
                "{what}: decrypt_in_place accepted a forgery"
            );
            assert_eq!(buf, s, "{what}: decrypt_in_place changed the buffer");

            let (c, t) = s.split_at(v.ct.len());
            let mut buf = c.to_vec();
            assert!(
                gcm.open(nonce, &aad, &mut buf, t).is_err(),
                "{what}: detached decryption accepted a forgery"
            );
            assert_eq!(buf, c, "{what}: detached decryption changed the buffer");

            assert!(
                gcm.decrypt(nonce, &aad, &s).is_err(),
                "{what}: Aead::decrypt accepted a forgery"
            );
        }
    }
}

/// Runs every vector of `file`, which must hold `expected` of them.
fn run_file<G: Generation>(bits: usize, name: &str, file: &str, expected: usize) {
    let vectors = parse(file).unwrap_or_else(|e| panic!("{name}: {e}"));
    println!("{name}: {} vectors", vectors.len());
    assert_eq!(vectors.len(), expected, "{name}: vector count");
    for v in &vectors {
        check::<G>(bits, v);
    }
}

pub fn ext_iv128<G: Generation>() {
    run_file::<G>(
        128,
        "gcmEncryptExtIV128",
        include_str!("../data/gcmEncryptExtIV128.txt"),
        375,
    );
}

pub fn ext_iv256<G: Generation>() {
    run_file::<G>(
        256,
        "gcmEncryptExtIV256",
        include_str!("../data/gcmEncryptExtIV256.txt"),
        375,
    );
}

/// IVs other than 96 bits (J0 from GHASH): NIST CAVP gcmEncryptExtIV128.rsp, Count 0 of the
/// sections [Keylen = 128] [IVlen = 8] and [IVlen = 1024], both with [PTlen = 128] [AADlen = 0]
/// [Taglen = 128].
pub fn other_iv_lengths<G: Generation>() {
    let ivlen8 = Vector {
        line: 0,
        key: hex!("15b2d414826453f9e1c7dd0b69d8d1eb").to_vec(),
        iv: hex!("b6").to_vec(),
        pt: hex!("8cfa255530c6fbc19d51bd4aeb39c91b").to_vec(),
        aad: Vec::new(),
        ct: hex!("4822cb98bd5f5d921ee19285c9032375").to_vec(),
        tag: hex!("8a40670ebac98cf4e9cc1bf8f803167d").to_vec(),
    };
    check::<G>(128, &ivlen8);

    let ivlen1024 = Vector {
        line: 0,
        key: hex!("71eebc49c8fb773b2224eaff3ad68714").to_vec(),
        iv: hex!(
            "07e961e67784011f72faafd95b0eb64089c8de15ad685ec57e63d56e679d3e20"
            "2b18b75fcbbec3185ffc41653bc2ac4ae6ae8be8c85636f353a9d19a86100d0b"
            "d035cc6bdefcab4318ac7b1a08b819427ad8f6abc782466c6ebd4d6a0dd76e78"
            "389b0a2a66506bb85f038ffc1da220c24f3817c7b2d02c5e8fc5e7e3be5074bc"
        )
        .to_vec(),
        pt: hex!("705da82292143d2c949dc4ba014f6396").to_vec(),
        aad: Vec::new(),
        ct: hex!("032363cf0828a03553478bec0f51f372").to_vec(),
        tag: hex!("c681b2c568feaa21900bc44b86aeb946").to_vec(),
    };
    check::<G>(128, &ivlen1024);
}

/// The parser refuses what it does not understand, so a damaged data file cannot pass by
/// yielding fewer or emptier vectors.
pub fn parser_rejects_damaged_files() {
    let good = "[Keylen = 128]\n[IVlen = 96]\n[PTlen = 0]\n[AADlen = 0]\n[Taglen = 128]\n\n\
                Count = 0\nKey = 11754cd72aec309bf52f7687212e8957\nIV = 3c819d9a9bed087615030b65\n\
                PT =\nAAD =\nCT =\nTag = 250327c674aaf477aef2675748cf6971\n";
    assert_eq!(parse(good).expect("good file").len(), 1);
    for bad in [
        good.replace("Tag = ", "Tog = "),
        good.replace("IV = 3c819d9a9bed087615030b65\n", ""),
        good.replace("[PTlen = 0]", "[PTlen = 8]"),
        good.replace("3c819d9a9bed087615030b65", "3c819d9a9bed087615030b6"),
        good.replace("3c819d9a9bed087615030b65", "3c819d9a9bed087615030bxx"),
        good.replace("Count = 0\n", ""),
        good.replace("PT =\n", "PT =\nPT =\n"),
    ] {
        let err = parse(&bad).expect_err(&bad);
        println!("rejected as expected: {err}");
    }
}
