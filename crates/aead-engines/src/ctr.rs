//! The 32-bit block counters of CTR mode, and the pieces of the generic paths' CTR loop that do
//! not depend on the `cipher` generation (the loop itself is in [`crate::generic`]).
//!
//! GCM and AES-GCM-SIV both count blocks with a 32-bit counter that wraps without carrying into
//! the rest of the counter block; they differ only in where it lives ([`Counter32`]).
// The loop's pieces serve the generic paths of the `cipher-0.4` and `cipher-0.5` features.
#![cfg_attr(
    not(any(feature = "cipher-0.4", feature = "cipher-0.5")),
    allow(dead_code)
)]

use hybrid_array::{Array, sizes::U16};
use inout::InOutBuf;

/// A 32-bit block counter, and where it lives in the 16-byte counter block. Both wrap modulo
/// 2^32 and leave the other 12 bytes as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter32 {
    /// GCM (NIST SP 800-38D, `inc32`): big-endian, in bytes 12..16.
    Gcm,
    /// AES-GCM-SIV (RFC 8452, section 4): little-endian, in bytes 0..4.
    Siv,
}

impl Counter32 {
    /// The counter in `block`.
    #[inline(always)]
    pub fn get(self, block: &[u8; 16]) -> u32 {
        match self {
            Counter32::Gcm => u32::from_be_bytes([block[12], block[13], block[14], block[15]]),
            Counter32::Siv => u32::from_le_bytes([block[0], block[1], block[2], block[3]]),
        }
    }

    /// Sets the counter in `block` to `counter`.
    #[inline(always)]
    pub fn set(self, block: &mut [u8; 16], counter: u32) {
        match self {
            Counter32::Gcm => block[12..].copy_from_slice(&counter.to_be_bytes()),
            Counter32::Siv => block[..4].copy_from_slice(&counter.to_le_bytes()),
        }
    }

    /// `block` with its counter advanced by `n`, modulo 2^32.
    #[inline]
    pub fn add(self, block: &[u8; 16], n: u32) -> [u8; 16] {
        let mut b = *block;
        self.set(&mut b, self.get(block).wrapping_add(n));
        b
    }
}

/// The counter blocks of one message: `first`, then `first` with the counter advanced by one,
/// two, ...
#[derive(Clone)]
pub(crate) struct Blocks {
    block: [u8; 16],
    counter: u32,
    flavor: Counter32,
}

impl Blocks {
    #[inline(always)]
    pub(crate) fn new(flavor: Counter32, first: &[u8; 16]) -> Self {
        Self {
            block: *first,
            counter: flavor.get(first),
            flavor,
        }
    }

    /// Writes the next counter block into `out`.
    #[inline(always)]
    fn next_into(&mut self, out: &mut [u8]) {
        self.flavor.set(&mut self.block, self.counter);
        self.counter = self.counter.wrapping_add(1);
        out.copy_from_slice(&self.block);
    }
}

/// Fills the first `n` of `ks` with the next counter blocks, `n` being what `len` more bytes
/// need, at most `ks.len()`; returns `n`.
#[inline(always)]
pub(crate) fn fill<K: AsMut<[u8]>>(blocks: &mut Blocks, ks: &mut [K], len: usize) -> usize {
    let n = len.div_ceil(16).min(ks.len());
    for k in &mut ks[..n] {
        blocks.next_into(k.as_mut());
    }
    n
}

/// XORs the keystream blocks `ks` into the first `16 * ks.len()` bytes of `buffer` (input to
/// output; a final partial block takes the first bytes of its keystream block) and returns the
/// rest of `buffer`. Whole blocks go as 128-bit words (a byte loop of run-time length would
/// not vectorize, and cost a cycle a byte).
#[inline(always)]
pub(crate) fn xor<'i, 'o, K: AsRef<[u8]>>(
    ks: &[K],
    buffer: InOutBuf<'i, 'o, u8>,
) -> InOutBuf<'i, 'o, u8> {
    let n = (16 * ks.len()).min(buffer.len());
    let (head, rest) = buffer.split_at(n);
    let (mut blocks, mut tail) = head.into_chunks::<U16>();
    let whole = blocks.len();
    for (i, k) in ks.iter().enumerate().take(whole) {
        let k = k
            .as_ref()
            .first_chunk::<16>()
            .expect("16-byte keystream blocks");
        let mut b = blocks.get(i);
        let x = u128::from_ne_bytes(b.get_in().0) ^ u128::from_ne_bytes(*k);
        *b.get_out() = Array(x.to_ne_bytes());
    }
    if let Some(k) = ks.get(whole).filter(|_| !tail.is_empty()) {
        tail.xor_in2out(&k.as_ref()[..tail.len()]);
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::Counter32;

    /// Hunts a counter that carries into the neighbouring bytes, or sits at the wrong end.
    #[test]
    fn counters_wrap_in_place() {
        let mut b = [0xab; 16];
        Counter32::Gcm.set(&mut b, u32::MAX);
        assert_eq!(Counter32::Gcm.add(&b, 1)[..12], [0xab; 12]);
        assert_eq!(Counter32::Gcm.add(&b, 1)[12..], [0; 4]);
        assert_eq!(Counter32::Gcm.add(&b, 3)[12..], [0, 0, 0, 2]);
        let mut s = [0xcd; 16];
        Counter32::Siv.set(&mut s, 0xffff_fffe);
        assert_eq!(s[..4], [0xfe, 0xff, 0xff, 0xff]);
        let t = Counter32::Siv.add(&s, 3);
        assert_eq!(t[..4], [1, 0, 0, 0]);
        assert_eq!(t[4..], [0xcd; 12]);
        assert_eq!(Counter32::Siv.get(&t), 1);
    }
}
