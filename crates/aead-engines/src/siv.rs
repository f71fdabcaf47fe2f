//! AES-GCM-SIV (RFC 8452) apart from the trait generation: the per-nonce key derivation, the
//! POLYVAL tag, CTR with the SIV counter, and the rules of decryption, written once over two
//! small traits and shared by our `aes-gcm-siv` 0.11 (aead 0.5) and 0.12 (aead 0.6):
//!
//! - [`SivKeys`]: the key-generating key. It encrypts the derivation blocks and builds AES
//!   under each message's derived key. Each crate implements it over any block cipher of its
//!   `cipher` generation (the generic path: `Aes::new` per message); the fused engines
//!   implement it over their own round keys.
//! - [`SivAes`]: AES under one message's key: single blocks (the tag), CTR with the SIV counter,
//!   and decryption with POLYVAL of the plaintext, which a fused engine does in one pass.
//!
//! # The construction (RFC 8452, section 4)
//!
//! For key-generating key `K` and nonce `N` (12 bytes):
//!
//! 1. Encrypt the blocks `LE32(i) || N` for `i = 0, 1, ...` under `K` and keep the first 8 bytes
//!    of each: blocks 0 and 1 give the message-authentication key (16 bytes), the next ones the
//!    message-encryption key (as long as `K`: two blocks for AES-128, three for AES-192, four
//!    for AES-256).
//! 2. `S = POLYVAL(pad(A) || pad(P) || LE64(bits(A)) || LE64(bits(P)))` under the
//!    authentication key; XOR `N` into its first 12 bytes and clear the top bit of byte 15;
//!    the tag is that block encrypted under the encryption key.
//! 3. The ciphertext is `P` XOR the keystream of CTR from the tag with the top bit of byte 15
//!    set, whose 32-bit little-endian counter in bytes 0..4 wraps modulo 2^32.
//!
//! Decryption runs step 3 backwards with the received tag, hashes the plaintext, and compares
//! tags in constant time.
//!
//! # Refused decryptions
//!
//! A failed decryption leaves its output as it was:
//!
//! - **in place**, the buffer is decrypted and hashed in one pass; if the tag does not match,
//!   the same keystream is applied once more, which gives back the ciphertext byte for byte;
//! - **out of place**, the plaintext is hashed from a scratch buffer on the stack (chunk by
//!   chunk, wiped afterwards with `zeroize`) and the output is written only after the tag
//!   matched: its previous contents could not be restored. (RustCrypto's 0.12.1 decrypts into
//!   the output first and leaves the plaintext there on failure.)

use crate::{Engine, TagMismatch, bits, ctr::Counter32, tag_matches};
use clmul_core::{Backend, Polyval};
use inout::InOutBuf;

/// The nonce length in bytes (96 bits).
pub const NONCE_LEN: usize = 12;

/// The longest associated data, in bytes (RFC 8452, section 6).
pub const A_MAX: u64 = 1 << 36;

/// The longest plaintext, in bytes (RFC 8452, section 6): 2^32 blocks, every value of the
/// 32-bit counter once.
pub const P_MAX: u64 = 1 << 36;

/// The longest ciphertext RFC 8452 (section 6) names, tag included. Both generations of
/// RustCrypto's crate compare the ciphertext *without* its tag to it, so they take up to
/// 2^32 + 1 blocks, the last under the first block's keystream again (0.11.1), or panic
/// (0.12.1). [`lengths_ok`] refuses those: no encryption makes them.
pub const C_MAX: u64 = (1 << 36) + 16;

/// Whether a message of `msg_len` bytes (a plaintext, or a ciphertext without its tag) and
/// `aad_len` bytes of associated data are within the limits: at most [`P_MAX`] and [`A_MAX`].
/// Checked before anything else, so a refused buffer is never read or written.
#[inline]
pub fn lengths_ok(msg_len: usize, aad_len: usize) -> bool {
    crate::to_u64(msg_len) <= P_MAX && crate::to_u64(aad_len) <= A_MAX
}

/// The fused engines that run AES-GCM-SIV ([`FusedSiv`]); the others (and the generic engine)
/// leave it to the generic path.
pub const ENGINES: &[Engine] = &[];

/// AES-GCM-SIV on a fused engine: the key-generating key's round keys for that engine.
///
/// (Until the engines' SIV kernels land, [`ENGINES`] is empty and no value of this type
/// exists.)
#[derive(Clone)]
pub struct FusedSiv {
    never: core::convert::Infallible,
}

impl FusedSiv {
    /// The state for `engine` and AES key `aes_key`, if the engine runs AES-GCM-SIV, the CPU
    /// runs the engine, and our key schedule agrees with the caller's cipher on
    /// `E_K(0^128) = check` (compared in constant time).
    pub fn new(engine: Engine, aes_key: &[u8], check: &[u8; 16]) -> Option<Self> {
        let _ = (engine, aes_key, check);
        None
    }

    /// The engine it runs on.
    pub fn engine(&self) -> Engine {
        match self.never {}
    }

    /// [`seal`] on this engine.
    pub fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> [u8; 16] {
        let _ = (nonce, aad, buffer);
        match self.never {}
    }

    /// [`open`] on this engine.
    pub fn open(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8; 16],
    ) -> Result<(), TagMismatch> {
        let _ = (nonce, aad, buffer, tag);
        match self.never {}
    }
}

/// The bytes of decrypted text hashed per step when the output must not be written before the
/// tag is checked (out of place): the size of the scratch buffer on the stack.
pub const SCRATCH: usize = 1024;

/// AES under one key, as a message of AES-GCM-SIV uses it.
pub trait SivAes {
    /// Encrypts each of `blocks` in place.
    fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]);

    /// XORs the CTR keystream from `counter_block` into `buffer`, input to output, with the
    /// SIV counter: 32-bit little-endian in bytes 0..4, wrapping modulo 2^32
    /// ([`Counter32::Siv`]).
    fn ctr(&self, counter_block: &[u8; 16], buffer: InOutBuf<'_, '_, u8>);

    /// [`Self::ctr`], then absorbs the output (the plaintext, when decrypting) into `polyval`,
    /// zero-padding a final partial block. A fused engine does both in one pass.
    fn ctr_hash(
        &self,
        counter_block: &[u8; 16],
        polyval: &mut Polyval,
        mut buffer: InOutBuf<'_, '_, u8>,
    ) {
        self.ctr(counter_block, buffer.reborrow());
        polyval.update_padded(buffer.get_out());
    }

    /// Absorbs the decryption of `input` into `polyval` without writing it anywhere the caller
    /// can see: [`Self::ctr_hash`] into a scratch buffer on the stack, [`SCRATCH`] bytes at a
    /// time.
    fn ctr_hash_discard(&self, counter_block: &[u8; 16], polyval: &mut Polyval, input: &[u8]) {
        let mut scratch = [0u8; SCRATCH];
        let mut counter = *counter_block;
        for chunk in input.chunks(SCRATCH) {
            let out = &mut scratch[..chunk.len()];
            let buf = InOutBuf::new(chunk, out).expect("equal lengths");
            self.ctr_hash(&counter, polyval, buf);
            counter = Counter32::Siv.add(&counter, (SCRATCH / 16) as u32);
        }
        wipe(&mut scratch);
    }
}

/// The key-generating key of AES-GCM-SIV: encrypts the derivation blocks and makes AES under
/// each message's derived key.
pub trait SivKeys {
    /// AES under a message-encryption key.
    type Message: SivAes;

    /// The key length in bytes, which the derived message-encryption key has too.
    fn key_len(&self) -> usize;

    /// Encrypts each of `blocks` in place under the key-generating key.
    fn encrypt_derivation(&self, blocks: &mut [[u8; 16]]);

    /// AES under the message-encryption key that `derive` writes into a zeroed buffer of
    /// [`Self::key_len`] bytes (which is wiped afterwards).
    fn message_aes(&self, derive: impl FnOnce(&mut [u8])) -> Self::Message;

    /// The POLYVAL backend of each message (one this CPU runs).
    fn polyval_backend(&self) -> Backend;
}

/// Encrypts `buffer` (input to output) under `keys` and nonce `nonce`; returns the tag.
pub fn seal<K: SivKeys>(
    keys: &K,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
) -> [u8; 16] {
    let (aes, mut polyval) = message(keys, nonce);
    polyval.update_padded(aad);
    polyval.update_padded(buffer.get_in());
    let tag = tag(&aes, polyval, nonce, aad.len(), buffer.len());
    aes.ctr(&counter_block(&tag), buffer);
    tag
}

/// Decrypts the input of `buffer` to its output if `tag` is the right one for it and `aad`;
/// otherwise the output is left exactly as it was (see the module docs).
pub fn open<K: SivKeys>(
    keys: &K,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    mut buffer: InOutBuf<'_, '_, u8>,
    tag: &[u8; 16],
) -> Result<(), TagMismatch> {
    let (aes, mut polyval) = message(keys, nonce);
    polyval.update_padded(aad);
    let counter = counter_block(tag);
    let len = buffer.len();
    let in_place = core::ptr::eq(buffer.get_in().as_ptr(), buffer.get_out().as_ptr());
    if in_place {
        aes.ctr_hash(&counter, &mut polyval, buffer.reborrow());
        let expected = self::tag(&aes, polyval, nonce, aad.len(), len);
        if tag_matches(&expected, tag) {
            return Ok(());
        }
        // The same keystream over the plaintext gives back the ciphertext.
        aes.ctr(&counter, buffer);
        Err(TagMismatch)
    } else {
        aes.ctr_hash_discard(&counter, &mut polyval, buffer.get_in());
        let expected = self::tag(&aes, polyval, nonce, aad.len(), len);
        if !tag_matches(&expected, tag) {
            return Err(TagMismatch);
        }
        aes.ctr(&counter, buffer);
        Ok(())
    }
}

/// The derivation block `i`: `LE32(i) || nonce`.
#[inline]
fn derivation_block(i: usize, nonce: &[u8; NONCE_LEN]) -> [u8; 16] {
    let mut b = [0u8; 16];
    // At most 2 + key_len / 8 blocks: far below 2^32.
    b[..4].copy_from_slice(&(i as u32).to_le_bytes());
    b[4..].copy_from_slice(nonce);
    b
}

/// Derives the message-authentication key into `mac` and the message-encryption key into
/// `enc` (step 1 of the module docs): the first 8 bytes of each encrypted derivation block, in
/// order, batches of up to eight blocks at a time (one batch for every AES key size).
fn derive<K: SivKeys>(keys: &K, nonce: &[u8; NONCE_LEN], mac: &mut [u8; 16], enc: &mut [u8]) {
    let total = 2 + enc.len().div_ceil(8);
    let mut batch = [[0u8; 16]; 8];
    let mut first = 0;
    while first < total {
        let n = (total - first).min(batch.len());
        for (j, b) in batch[..n].iter_mut().enumerate() {
            *b = derivation_block(first + j, nonce);
        }
        keys.encrypt_derivation(&mut batch[..n]);
        for (j, b) in batch[..n].iter().enumerate() {
            let half = &b[..8];
            match first + j {
                i @ 0..2 => mac[8 * i..8 * i + 8].copy_from_slice(half),
                i => {
                    let at = 8 * (i - 2);
                    let m = (enc.len() - at).min(8);
                    enc[at..at + m].copy_from_slice(&half[..m]);
                }
            }
        }
        first += n;
    }
    wipe(batch.as_flattened_mut());
}

/// One message's AES (under the derived encryption key) and POLYVAL (under the derived
/// authentication key, empty).
fn message<K: SivKeys>(keys: &K, nonce: &[u8; NONCE_LEN]) -> (K::Message, Polyval) {
    let mut mac = [0u8; 16];
    let aes = keys.message_aes(|enc| derive(keys, nonce, &mut mac, enc));
    let polyval =
        Polyval::with_backend(&mac, keys.polyval_backend()).unwrap_or_else(|| Polyval::new(&mac));
    wipe(&mut mac);
    (aes, polyval)
}

/// POLYVAL's length block: `LE64(bits(A)) || LE64(bits(P))`.
#[inline]
pub fn length_block(aad_len: usize, msg_len: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&bits(aad_len).to_le_bytes());
    b[8..].copy_from_slice(&bits(msg_len).to_le_bytes());
    b
}

/// The tag (step 2 of the module docs), from `polyval` holding the padded AAD and message.
fn tag<A: SivAes>(
    aes: &A,
    mut polyval: Polyval,
    nonce: &[u8; NONCE_LEN],
    aad_len: usize,
    msg_len: usize,
) -> [u8; 16] {
    polyval.update(&[length_block(aad_len, msg_len)]);
    let mut s = [polyval.finalize()];
    for (b, n) in s[0].iter_mut().zip(nonce) {
        *b ^= n;
    }
    s[0][15] &= 0x7f;
    aes.encrypt_blocks(&mut s);
    s[0]
}

/// The first counter block: the tag with the top bit of byte 15 set.
#[inline]
pub fn counter_block(tag: &[u8; 16]) -> [u8; 16] {
    let mut c = *tag;
    c[15] |= 0x80;
    c
}

/// Clears `bytes` that held key material or plaintext (with the `zeroize` feature).
#[inline]
fn wipe(bytes: &mut [u8]) {
    #[cfg(feature = "zeroize")]
    zeroize::Zeroize::zeroize(bytes);
    #[cfg(not(feature = "zeroize"))]
    let _ = bytes;
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The derivation's block layout and the 8-byte halves, against RFC 8452 C.1's first
    /// vector's inputs (key `01 00..`, nonce `03 00..`): hunts a swapped counter byte order or
    /// a wrong half.
    #[test]
    fn derivation_blocks_and_halves() {
        let nonce = [3u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let b = derivation_block(5, &nonce);
        assert_eq!(b[..4], [5, 0, 0, 0]);
        assert_eq!(b[4..], nonce);

        /// "Encrypts" each block to itself with byte 15 = its index, so the halves show.
        struct Echo(usize);
        struct NoAes;
        impl SivAes for NoAes {
            fn encrypt_blocks(&self, _: &mut [[u8; 16]]) {}
            fn ctr(&self, _: &[u8; 16], _: InOutBuf<'_, '_, u8>) {}
        }
        impl SivKeys for Echo {
            type Message = NoAes;
            fn key_len(&self) -> usize {
                self.0
            }
            fn encrypt_derivation(&self, blocks: &mut [[u8; 16]]) {
                for b in blocks {
                    b[4] = 0xee;
                }
            }
            fn message_aes(&self, derive: impl FnOnce(&mut [u8])) -> NoAes {
                let mut k = [0u8; 40];
                derive(&mut k[..self.0]);
                let want: Vec<u8> = (2..)
                    .flat_map(|i| {
                        let mut h = derivation_block(i, &[3; 12])[..8].to_vec();
                        h[4] = 0xee;
                        h
                    })
                    .take(self.0)
                    .collect();
                assert_eq!(k[..self.0], want[..]);
                assert!(k[self.0..].iter().all(|&x| x == 0));
                NoAes
            }
            fn polyval_backend(&self) -> Backend {
                Backend::Portable
            }
        }
        for len in [16, 24, 32, 36, 40] {
            let _ = message(&Echo(len), &[3; 12]);
        }
    }

    /// The limits are inclusive maxima, for the message and the associated data
    /// independently; every length of the window that upstream 0.12.1 panics in
    /// (`P_MAX + 1 ..= C_MAX`) and 0.11.1 runs its counter through is refused. (Integration
    /// tests cannot allocate 64 GiB; the suite's over-limit test maps a few of them.)
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn length_limits() {
        let p_max = usize::try_from(P_MAX).expect("64-bit test host");
        let c_max = usize::try_from(C_MAX).expect("64-bit test host");
        let a_max = usize::try_from(A_MAX).expect("64-bit test host");
        assert!(lengths_ok(0, 0));
        assert!(lengths_ok(p_max, a_max));
        for len in p_max + 1..=c_max + 1 {
            assert!(!lengths_ok(len, 0), "{len}");
        }
        assert!(!lengths_ok(usize::MAX, 0));
        assert!(!lengths_ok(0, a_max + 1));
        assert!(!lengths_ok(0, usize::MAX));
    }

    /// On 32-bit targets no `usize` length reaches either limit.
    #[test]
    #[cfg(not(target_pointer_width = "64"))]
    fn length_limits_32() {
        assert!(lengths_ok(usize::MAX, usize::MAX));
    }

    /// RFC 8452 C.1's first two vectors, step by step (the RFC prints the intermediate
    /// values): the derived keys (hunts a wrong derivation block or half), the POLYVAL value of
    /// the 8-byte message (hunts the length block's layout or byte order) and its tag.
    #[test]
    #[cfg(feature = "cipher-0.5")]
    fn rfc8452_c1_intermediate_values() {
        use crate::generic::cipher05::SivGeneric;
        use aes::cipher::KeyInit;
        let hex = |s: &str| -> [u8; 16] {
            core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        };
        let aes = aes::Aes128::new(&hex("01000000000000000000000000000000").into());
        let keys = SivGeneric {
            cipher: &aes,
            backend: Backend::Portable,
        };
        let nonce: [u8; 12] = hex("03000000000000000000000000000000")[..12]
            .try_into()
            .unwrap();
        let (mut mac, mut enc) = ([0u8; 16], [0u8; 16]);
        derive(&keys, &nonce, &mut mac, &mut enc);
        assert_eq!(
            mac,
            hex("d9b360279694941ac5dbc6987ada7377"),
            "authentication key"
        );
        assert_eq!(
            enc,
            hex("4004a0dcd862f2a57360219d2d44ef6c"),
            "encryption key"
        );

        let mut pv = Polyval::with_backend(&mac, Backend::Portable).unwrap();
        pv.update_padded(&[1, 0, 0, 0, 0, 0, 0, 0]);
        let mut check = pv.clone();
        check.update(&[length_block(0, 8)]);
        assert_eq!(
            check.finalize(),
            hex("eb93b7740962c5e49d2a90a7dc5cec74"),
            "POLYVAL"
        );
        let (aes_msg, _) = message(&keys, &nonce);
        let tag = tag(&aes_msg, pv, &nonce, 0, 8);
        assert_eq!(tag, hex("578782fff6013b815b287c22493a364c"), "tag");
    }

    #[test]
    fn length_and_counter_blocks() {
        let l = length_block(1, 2);
        assert_eq!(l[..8], 8u64.to_le_bytes());
        assert_eq!(l[8..], 16u64.to_le_bytes());
        let c = counter_block(&[0x11; 16]);
        assert_eq!(c[15], 0x91);
        assert_eq!(c[..15], [0x11; 15]);
    }
}
