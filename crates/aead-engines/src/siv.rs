//! AES-GCM-SIV (RFC 8452) apart from the trait generation: the per-nonce key derivation, the
//! POLYVAL tag, CTR with the SIV counter, and the rules of decryption, written once over two
//! small traits and shared by our `aes-gcm-siv` 0.11 (aead 0.5) and 0.12 (aead 0.6):
//!
//! - [`SivKeys`]: the key-generating key. It encrypts the derivation blocks and builds each
//!   message's keys. `crate::generic` implements it over any block cipher of either `cipher`
//!   generation (the generic path: `Aes::new` per message, POLYVAL on `clmul_core`'s keyed
//!   state); [`FusedSiv`] over a fused engine's own round keys.
//! - [`SivMessage`]: one message's keys: single blocks (the tag), CTR with the SIV counter,
//!   POLYVAL, and decryption with POLYVAL of the plaintext, which a fused engine does in one
//!   pass (`crate::kernel`'s stitched loop with the `Le32` counter in the `PolyvalDomain`).
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
//!   chunk, wiped afterwards with the feature `siv-wipe`) and the output is written only after the tag
//!   matched: its previous contents could not be restored. (RustCrypto's 0.12.1 decrypts into
//!   the output first and leaves the plaintext there on failure.)

pub(crate) use crate::wipe::wipe;
use crate::{TagMismatch, ctr::Counter32, short_layout, tag_matches};
use clmul_core::Polyval;
use inout::InOutBuf;

mod fused;

pub use fused::{FusedSiv, HORNER_UPTO, NARROW_BELOW, STITCH_FROM, WIDE_FROM};

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

/// The bytes of decrypted text hashed per step when the output must not be written before the
/// tag is checked (out of place): the size of the scratch buffer on the stack.
pub const SCRATCH: usize = 1024;

/// One message's keys: AES under the derived message-encryption key, and the derived
/// message-authentication key for POLYVAL.
pub trait SivMessage {
    /// Encrypts `block` in place under the message-encryption key (the tag).
    fn encrypt_block(&self, block: &mut [u8; 16]);

    /// XORs the CTR keystream from `counter_block` into `buffer`, input to output, with the
    /// SIV counter: 32-bit little-endian in bytes 0..4, wrapping modulo 2^32
    /// ([`Counter32::Siv`]).
    fn ctr(&self, counter_block: &[u8; 16], buffer: InOutBuf<'_, '_, u8>);

    /// An empty POLYVAL state under the message-authentication key.
    fn polyval(&self) -> Polyval;

    /// Encrypts `block` in place (it becomes the tag), then [`Self::ctr`] from the tag's
    /// counter block ([`counter_block`]) over `buffer`: the end of an encryption. A fused
    /// engine does both in one call.
    fn encrypt_then_ctr(&self, block: &mut [u8; 16], buffer: InOutBuf<'_, '_, u8>) {
        self.encrypt_block(block);
        self.ctr(&counter_block(block), buffer);
    }

    /// `POLYVAL(pad(aad) || pad(msg) || lengths)` (step 2 of the module docs, before the nonce
    /// and the encryption).
    fn hash(&self, aad: &[u8], msg: &[u8]) -> [u8; 16] {
        polyval_hash(self, aad, msg)
    }

    /// [`Self::ctr`], then [`Self::hash`] of `aad` and the output (the plaintext, when
    /// decrypting). A fused engine does both in one pass.
    fn ctr_hash(
        &self,
        counter_block: &[u8; 16],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> [u8; 16] {
        ctr_then_hash(self, counter_block, aad, buffer)
    }

    /// [`Self::hash`] of `aad` and the decryption of `input`, without writing the decryption
    /// anywhere the caller can see: CTR into a scratch buffer on the stack and POLYVAL from
    /// there, [`SCRATCH`] bytes at a time (the buffer wiped afterwards with the feature `siv-wipe`).
    fn ctr_hash_discard(&self, counter_block: &[u8; 16], aad: &[u8], input: &[u8]) -> [u8; 16] {
        let mut polyval = self.polyval();
        polyval.update_padded(aad);
        let mut scratch = [0u8; SCRATCH];
        let mut counter = *counter_block;
        for chunk in input.chunks(SCRATCH) {
            let out = &mut scratch[..chunk.len()];
            self.ctr(&counter, InOutBuf::new(chunk, out).expect("equal lengths"));
            polyval.update_padded(out);
            counter = Counter32::Siv.add(&counter, (SCRATCH / 16) as u32);
        }
        wipe(&mut scratch);
        polyval.update(&[length_block(aad.len(), input.len())]);
        polyval.finalize()
    }
}

/// [`SivMessage::hash`]'s default: on [`SivMessage::polyval`]'s state. A short message (up to
/// eight blocks with the length block) is laid out, zero-padded, in one buffer
/// ([`short_layout`]) and hashed in one call: one reduction with the powers the state
/// computed at setup.
pub(crate) fn polyval_hash<M: SivMessage + ?Sized>(m: &M, aad: &[u8], msg: &[u8]) -> [u8; 16] {
    let mut polyval = m.polyval();
    let lengths = length_block(aad.len(), msg.len());
    if let Some((mut blocks, n)) = short_layout(aad, msg, lengths) {
        polyval.update(&blocks[..n]);
        wipe(blocks.as_flattened_mut());
    } else {
        polyval.update_padded(aad);
        polyval.update_padded(msg);
        polyval.update(&[lengths]);
    }
    polyval.finalize()
}

/// [`SivMessage::ctr_hash`]'s default: CTR, then POLYVAL of the output.
pub(crate) fn ctr_then_hash<M: SivMessage + ?Sized>(
    m: &M,
    counter_block: &[u8; 16],
    aad: &[u8],
    mut buffer: InOutBuf<'_, '_, u8>,
) -> [u8; 16] {
    m.ctr(counter_block, buffer.reborrow());
    m.hash(aad, buffer.get_out())
}

/// The key-generating key of AES-GCM-SIV: encrypts the derivation blocks and makes each
/// message's keys.
pub trait SivKeys {
    /// One message's keys.
    type Message: SivMessage;

    /// The key length in bytes, which the derived message-encryption key has too.
    fn key_len(&self) -> usize;

    /// Encrypts each of `blocks` in place under the key-generating key.
    fn encrypt_derivation(&self, blocks: &mut [[u8; 16]]);

    /// Runs `f` with the message keys that `derive` writes: the message-encryption key into a
    /// zeroed buffer of [`Self::key_len`] bytes, the message-authentication key into the second
    /// (both wiped afterwards with `zeroize`). The keys live in this call's frame: nothing
    /// copies a key schedule around.
    /// `nonce` is the message's, for an implementation that derives the keys its own way;
    /// `len` its length (AAD and text), for one that picks its engine by it.
    fn with_message<R>(
        &self,
        nonce: &[u8; NONCE_LEN],
        len: usize,
        derive: impl FnOnce(&mut [u8], &mut [u8; 16]),
        f: impl FnOnce(&Self::Message) -> R,
    ) -> R;
}

/// Encrypts `buffer` (input to output) under `keys` and nonce `nonce`; returns the tag.
pub fn seal<K: SivKeys>(
    keys: &K,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
) -> [u8; 16] {
    with_message(keys, nonce, aad.len() + buffer.len(), |msg| {
        let mut tag = tag_input(msg.hash(aad, buffer.get_in()), nonce);
        msg.encrypt_then_ctr(&mut tag, buffer);
        tag
    })
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
    let counter = counter_block(tag);
    let in_place = core::ptr::eq(buffer.get_in().as_ptr(), buffer.get_out().as_ptr());
    with_message(keys, nonce, aad.len() + buffer.len(), |msg| {
        if in_place {
            let s = msg.ctr_hash(&counter, aad, buffer.reborrow());
            if tag_matches(&self::tag(msg, s, nonce), tag) {
                return Ok(());
            }
            // The same keystream over the plaintext gives back the ciphertext.
            msg.ctr(&counter, buffer);
            Err(TagMismatch)
        } else {
            let s = msg.ctr_hash_discard(&counter, aad, buffer.get_in());
            if !tag_matches(&self::tag(msg, s, nonce), tag) {
                return Err(TagMismatch);
            }
            msg.ctr(&counter, buffer);
            Ok(())
        }
    })
}

/// The derivation block `i`: `LE32(i) || nonce` (the tests' reference; `derive` writes them in
/// place).
#[cfg(test)]
fn derivation_block(i: usize, nonce: &[u8; NONCE_LEN]) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..4].copy_from_slice(&(i as u32).to_le_bytes());
    b[4..].copy_from_slice(nonce);
    b
}

/// Derives the message-authentication key into `mac` and the message-encryption key into
/// `enc` (step 1 of the module docs): the first 8 bytes of each encrypted derivation block, in
/// order; all blocks in one call for every AES key size (up to six), batches of six for a
/// longer key.
fn derive<K: SivKeys>(keys: &K, nonce: &[u8; NONCE_LEN], mac: &mut [u8; 16], enc: &mut [u8]) {
    const BATCH: usize = 6;
    let total = 2 + enc.len().div_ceil(8);
    let mut batch = [[0u8; 16]; BATCH];
    // Each block written with one 16-byte store (`crate::store_words`), which the kernel's
    // load of it forwards from.
    let [n0, n1, n2] = crate::nonce_words(nonce);
    let (lo, hi) = (u64::from(n0) << 32, u64::from(n1) | u64::from(n2) << 32);
    let mut first = 0;
    while first < total {
        let n = (total - first).min(BATCH);
        for (j, b) in batch[..n].iter_mut().enumerate() {
            // At most 2 + key_len / 8 blocks: far below 2^32.
            crate::store_words(b, lo | (first + j) as u64, hi);
        }
        keys.encrypt_derivation(&mut batch[..n]);
        // The halves in order: block `i` gives bytes `8i..8i + 8` of `mac || enc`.
        for (j, b) in batch[..n].iter().enumerate() {
            let at = 8 * (first + j);
            let dst = if at < 16 {
                &mut mac[at..at + 8]
            } else {
                let m = (enc.len() - (at - 16)).min(8);
                &mut enc[at - 16..at - 16 + m]
            };
            let len = dst.len();
            dst.copy_from_slice(&b[..len]);
        }
        first += n;
    }
    wipe(batch.as_flattened_mut());
}

/// Runs `f` with one message's keys (step 1 of the module docs).
#[inline]
fn with_message<K: SivKeys, R>(
    keys: &K,
    nonce: &[u8; NONCE_LEN],
    len: usize,
    f: impl FnOnce(&K::Message) -> R,
) -> R {
    keys.with_message(nonce, len, |enc, mac| derive(keys, nonce, mac, enc), f)
}

pub use crate::siv_length_block as length_block;

/// The block the tag encrypts (step 2 of the module docs), from `s`, the POLYVAL of the
/// message: `s` with the nonce XORed into its first 12 bytes and the top bit cleared.
/// As one 128-bit word: byte-wise pieces (an 8-, a 4- and a 1-byte store) read back as one
/// 16-byte load would miss store-to-load forwarding, some 20 cycles of a short message.
#[inline]
fn tag_input(s: [u8; 16], nonce: &[u8; NONCE_LEN]) -> [u8; 16] {
    let (s_lo, s_hi) = s.split_at(8);
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let [n0, n1, n2] = crate::nonce_words(nonce);
    // One 16-byte store (`crate::store_words`): the engine's load of the block forwards from it.
    let mut t = [0u8; 16];
    crate::store_words(
        &mut t,
        word(s_lo) ^ (u64::from(n0) | u64::from(n1) << 32),
        (word(s_hi) ^ u64::from(n2)) & !(1 << 63),
    );
    t
}

/// The tag (step 2 of the module docs) from `s`, the POLYVAL of the message.
#[inline]
fn tag<M: SivMessage>(msg: &M, s: [u8; 16], nonce: &[u8; NONCE_LEN]) -> [u8; 16] {
    let mut t = tag_input(s, nonce);
    msg.encrypt_block(&mut t);
    t
}

/// The first counter block: the tag with the top bit of byte 15 set.
#[inline]
pub fn counter_block(tag: &[u8; 16]) -> [u8; 16] {
    // A byte operation: as a 128-bit word the compiler takes the block through general-purpose
    // registers inside the engines' jobs, where the disassembly check of `cargo xtask ct`
    // (rightly) wants data to stay in vector registers.
    let mut c = *tag;
    c[15] |= 0x80;
    c
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

        /// "Encrypts" each block by setting its byte 4, so that the halves show; checks what
        /// `derive` wrote against that.
        struct Echo(usize);
        struct NoAes;
        impl SivMessage for NoAes {
            fn encrypt_block(&self, _: &mut [u8; 16]) {}
            fn ctr(&self, _: &[u8; 16], _: InOutBuf<'_, '_, u8>) {}
            fn polyval(&self) -> Polyval {
                Polyval::new(&[0; 16])
            }
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
            fn with_message<R>(
                &self,
                _nonce: &[u8; NONCE_LEN],
                _len: usize,
                derive: impl FnOnce(&mut [u8], &mut [u8; 16]),
                f: impl FnOnce(&NoAes) -> R,
            ) -> R {
                let (mut k, mut mac) = ([0u8; 40], [0u8; 16]);
                derive(&mut k[..self.0], &mut mac);
                let half = |i| {
                    let mut h = derivation_block(i, &[3; 12])[..8].to_vec();
                    h[4] = 0xee;
                    h
                };
                let want: Vec<u8> = (2..).flat_map(half).take(self.0).collect();
                assert_eq!(k[..self.0], want[..]);
                assert!(k[self.0..].iter().all(|&x| x == 0));
                assert_eq!(mac[..], [half(0), half(1)].concat()[..]);
                f(&NoAes)
            }
        }
        for len in [16, 24, 32, 36, 40] {
            with_message(&Echo(len), &[3; 12], 0, |_| ());
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
            backend: clmul_core::Backend::Portable,
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

        with_message(&keys, &nonce, 8, |msg| {
            let s = msg.hash(&[], &[1, 0, 0, 0, 0, 0, 0, 0]);
            assert_eq!(s, hex("eb93b7740962c5e49d2a90a7dc5cec74"), "POLYVAL");
            let tag = tag(msg, s, &nonce);
            assert_eq!(tag, hex("578782fff6013b815b287c22493a364c"), "tag");
        });
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
