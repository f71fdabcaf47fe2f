//! The forged messages of the tamper tests, for any AEAD (shared by the AES-GCM suite's
//! `tamper` module and the AES-GCM-SIV suite's, `crates/gcm-siv/tests/suite/tamper.rs`).

/// Message lengths: empty, partial and whole blocks, and both sides of the 64- and 256-byte
/// strides of the wide and fused kernels, up to a length with a partial tail after many strides.
pub const LENGTHS: &[usize] = &[
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000,
    1023, 1024, 1025, 4100,
];

/// Byte positions of `len` whose bits get flipped: all of them for short data, else the first
/// and last 17 and both sides of every 16-byte boundary below 64 and every 64-byte boundary.
pub fn positions(len: usize) -> Vec<usize> {
    if len <= 48 {
        return (0..len).collect();
    }
    let mut p: Vec<usize> = (0..17).chain(len - 17..len).collect();
    p.extend((1..4).flat_map(|k| [16 * k - 1, 16 * k]));
    p.extend((1..=len / 64).flat_map(|k| [64 * k - 1, 64 * k]));
    p.retain(|&i| i < len);
    p.sort_unstable();
    p.dedup();
    p
}

/// The forged inputs: (ciphertext, tag, aad) with exactly one bit or byte changed, or the
/// ciphertext or AAD one byte shorter or longer.
pub fn forgeries(ct: &[u8], tag: &[u8], aad: &[u8]) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for i in positions(ct.len()) {
        // Every bit of a short ciphertext; one bit per position (varying) for a long one.
        let bits: Vec<usize> = if ct.len() <= 48 {
            (0..8).collect()
        } else {
            vec![i % 8]
        };
        for b in bits {
            let mut c = ct.to_vec();
            c[i] ^= 1 << b;
            out.push((c, tag.to_vec(), aad.to_vec()));
        }
    }
    for i in 0..tag.len() * 8 {
        let mut t = tag.to_vec();
        t[i / 8] ^= 1 << (i % 8);
        out.push((ct.to_vec(), t, aad.to_vec()));
    }
    for i in positions(aad.len()) {
        let mut a = aad.to_vec();
        a[i] ^= 0x80;
        out.push((ct.to_vec(), tag.to_vec(), a));
    }
    // A truncated and an extended ciphertext, and a dropped and an added AAD byte.
    if !ct.is_empty() {
        out.push((ct[..ct.len() - 1].to_vec(), tag.to_vec(), aad.to_vec()));
    }
    out.push(([ct, &[0]].concat(), tag.to_vec(), aad.to_vec()));
    if !aad.is_empty() {
        out.push((ct.to_vec(), tag.to_vec(), aad[..aad.len() - 1].to_vec()));
    }
    out.push((ct.to_vec(), tag.to_vec(), [aad, &[0]].concat()));
    out
}
