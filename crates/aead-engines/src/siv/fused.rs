//! AES-GCM-SIV on the fused engines: the key-generating key's round keys for one engine, and
//! per message the derived keys on the same engine (`crate::engine`'s jobs over the stitched
//! kernel, `crate::kernel`, with the `Le32` counter and the `PolyvalDomain`):
//!
//! - **Key derivation**: the four to six derivation blocks in one AES-ECB call, then our AES key
//!   expansion of the derived key (a schedule per message, as the construction needs).
//! - **POLYVAL**: for a message (AAD and text) of [`WIDE_FROM`] bytes or more, the engine's
//!   wide loop with the powers of H its loop multiplies by (H^1..H^8 on AES-NI, ..H^16 on
//!   VAES-256, ..H^32 on VAES-512), computed in the call with the engine's own multiplies
//!   (`Powers::of_key`); below that, `clmul_core`'s keyed state, which computes only
//!   H^2..H^4 at setup (what a short message uses).
//! - **Encryption**: POLYVAL of the plaintext, the tag, then CTR on the engine (two passes:
//!   the tag, hence the counter, depends on the whole plaintext).
//! - **Decryption in place**: CTR and POLYVAL of its output in one stitched pass (from
//!   [`STITCH_FROM`] bytes; shorter ones CTR, then POLYVAL of the L1-resident plaintext). Out
//!   of place, the shared rule of `siv::SivMessage::ctr_hash_discard`: CTR into a scratch buffer and POLYVAL
//!   from it, the output written only after the tag matched.

use super::{SivKeys, SivMessage, ctr_then_hash, polyval_hash, wipe};
use crate::engine::{self, Engine, Isa};
use crate::fused::{Token, dispatch};
use crate::kernel::Hashing;
use crate::tables::RoundKeys;
use crate::{TagMismatch, siv::NONCE_LEN};
use clmul_core::Polyval;
use clmul_core::wide::{EMPTY, Powers};
use inout::InOutBuf;

/// From this many bytes of associated data and text, an encryption's POLYVAL runs on the
/// engine's wide loop with the powers of H made for the message (in the call, as many as the
/// loop multiplies by); below, on `clmul_core`'s keyed state, which computes only the powers
/// it uses. (Measured on AMD Zen 4 with a whole table of H^1..H^33 per message: the keyed
/// state ahead at 512 and 768 bytes, the table at 1420.)
pub const WIDE_FROM: usize = 1024;

/// Up to this many bytes of associated data and text, POLYVAL runs block by block on the
/// narrowest engine (Horner's rule, `kernel::polyval_horner`): a short message's few
/// multiplies cost less than the keyed state's setup for them (H^2..H^8 for a fresh
/// authentication key: a fresh `clmul_core` state took 45 ns for 6 blocks on Emerald Rapids).
/// Measured there, AES-GCM-SIV 64 B with 16 B of associated data (kept and fresh key, AES-128
/// and AES-256) 7-17% faster with this bound at 112 bytes than at 64.
pub const HORNER_UPTO: usize = crate::SIV_HORNER_UPTO;

/// From this many bytes of associated data and text, a decryption in place runs CTR and
/// POLYVAL of its output in one stitched pass with the message's table; below, CTR then
/// POLYVAL of the (cache-resident) plaintext. (Measured: the stitched pass ahead from 256.)
pub const STITCH_FROM: usize = 256;

/// Below this many bytes, CTR runs on the narrowest engine of the family (AES-NI for the VAES
/// engines): a few blocks do not fill a wide register, and its setup costs less.
pub const NARROW_BELOW: usize = 256;

/// AES-GCM-SIV on a fused engine: the engine's token (holding it proves the CPU runs the
/// engine), the token of the narrowest engine of the same family for the few blocks of each
/// message's setup and of short messages, and our round keys of the key-generating key.
#[derive(Clone)]
pub struct FusedSiv {
    token: Token,
    small: Token,
    keys: RoundKeys,
}

// Without a fused engine `FusedSiv` is uninhabited and every `dispatch!` diverges.
#[cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )),
    allow(unreachable_code, unused_variables, unused_mut)
)]
impl FusedSiv {
    /// The state for `engine` and AES key `aes_key` (16, 24 or 32 bytes), if the CPU runs
    /// `engine` and our key schedule agrees with the caller's cipher on `E_K(0^128) = check`
    /// (compared in constant time), which proves the caller's cipher is AES under that key.
    /// `None` for [`Engine::Generic`].
    pub fn new(engine: Engine, aes_key: &[u8], check: &[u8; 16]) -> Option<Self> {
        let mut s = Self::empty(Token::detect(engine)?);
        s.init(aes_key, Some(check)).then_some(s)
    }

    /// All zero, on `token`: [`FusedSiv::init`] fills it in place (the key is written where
    /// it stays, not built and then copied).
    #[inline]
    pub(crate) fn empty(token: Token) -> Self {
        Self {
            token,
            small: token.narrowest(),
            keys: RoundKeys::zero(),
        }
    }

    /// Our key schedule of `aes_key` in place, checked against the caller's cipher on
    /// `E_K(0^128) = check` (in constant time) when given; `false` for a key length that is
    /// not AES's or a failed check (the round keys are then wiped when dropped, with the
    /// `zeroize` feature).
    #[inline]
    pub(crate) fn init(&mut self, aes_key: &[u8], check: Option<&[u8; 16]>) -> bool {
        let keys = &mut self.keys;
        if !dispatch!(self.token, t => t.expand_into(aes_key, keys)) {
            return false;
        }
        match check {
            None => true,
            Some(h) => {
                let mut e0 =
                    dispatch!(self.small, t => engine::encrypt_block(t, &self.keys, &[0; 16]));
                let ok = crate::ct_verdict(&e0, h);
                wipe(&mut e0);
                ok
            }
        }
    }

    /// [`FusedSiv::new`] for a caller that knows its cipher to be AES (one of the `aes`
    /// crate's types): nothing to check, one key expansion.
    pub fn for_aes(engine: Engine, aes_key: &[u8]) -> Option<Self> {
        // Expanded where the key stays (`init`): a schedule built and then moved would be
        // copied by loads wider than its stores, which wait for those stores to reach the
        // cache.
        let mut s = Self::empty(Token::detect(engine)?);
        s.init(aes_key, None).then_some(s)
    }

    /// The engine it runs on.
    pub fn engine(&self) -> Engine {
        dispatch!(self.token, t => t.engine())
    }

    /// The engine a message of `len` bytes (AAD and text) would run on now: [`Self::engine`],
    /// or for a paced key the 256-bit one while the thread's pacing says so (`Token::peek`;
    /// reads no clock).
    pub fn engine_for(&self, len: usize) -> Engine {
        dispatch!(self.token.peek(len), t => t.engine())
    }

    /// [`super::seal`] on this engine: a message of at most [`HORNER_UPTO`] bytes of AAD and
    /// text in one call where the engine has one (`Isa::siv_seal_short`: the derivation, the
    /// schedule interleaved with POLYVAL, the tag and CTR), any other on the general path.
    pub fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        mut buffer: InOutBuf<'_, '_, u8>,
    ) -> [u8; 16] {
        if aad.len() + buffer.len() <= HORNER_UPTO {
            let (kgk, b) = (&self.keys, buffer.reborrow());
            if let Some(tag) = dispatch!(self.small, t => t.siv_seal_short(kgk, nonce, aad, b)) {
                return tag;
            }
        }
        super::seal(self, nonce, aad, buffer)
    }

    /// [`super::open`] on this engine.
    pub fn open(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8; 16],
    ) -> Result<(), TagMismatch> {
        super::open(self, nonce, aad, buffer, tag)
    }
}

#[cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )),
    allow(unreachable_code, unused_variables)
)]
impl SivKeys for FusedSiv {
    type Message = Message;

    #[inline]
    fn key_len(&self) -> usize {
        // 10, 12 or 14 rounds: a 16-, 24- or 32-byte key.
        4 * (self.keys.rounds() - 6)
    }

    #[inline]
    fn encrypt_derivation(&self, blocks: &mut [[u8; 16]]) {
        dispatch!(self.small, t => engine::encrypt_blocks(t, &self.keys, blocks));
    }

    #[inline]
    fn with_message<R>(
        &self,
        nonce: &[u8; NONCE_LEN],
        len: usize,
        derive: impl FnOnce(&mut [u8], &mut [u8; 16]),
        f: impl FnOnce(&Message) -> R,
    ) -> R {
        // One engine for the whole message (its power table is the engine's shape): a paced
        // key's may be the 256-bit one (`Token::for_message`).
        let mut msg = Message {
            token: self.token.for_message(len, Some(crate::nonce_fold(nonce))),
            small: self.small,
            keys: RoundKeys::zero(),
            mac: [0; 16],
        };
        let (kgk, mac, keys) = (&self.keys, &mut msg.mac, &mut msg.keys);
        if dispatch!(self.small, t => t.siv_message_keys(kgk, nonce, mac, keys)) {
            return f(&msg);
        }
        let mut key = [0u8; 32];
        let key = &mut key[..self.key_len()];
        derive(key, &mut msg.mac);
        // A derived key has its key-generating key's (AES) length: the expansion succeeds
        // (checked in release builds too: all-zero round keys must never encrypt).
        let expanded = dispatch!(self.token, t => t.expand_into(key, &mut msg.keys));
        assert!(expanded, "a derived key has an AES key length");
        wipe(key);
        f(&msg)
    }
}

/// One message's keys on a fused engine: our round keys of the derived encryption key and the
/// derived authentication key (wiped on drop with the feature `siv-wipe`; the round keys with
/// `zeroize`).
pub struct Message {
    token: Token,
    small: Token,
    keys: RoundKeys,
    mac: [u8; 16],
}

#[cfg(feature = "siv-wipe")]
impl Drop for Message {
    fn drop(&mut self) {
        wipe(&mut self.mac);
    }
}

impl Message {
    /// The engine for CTR over `len` bytes: the wide one, or for short data the narrowest
    /// (its setup, broadcasting the round keys, costs less).
    #[inline]
    fn for_len(&self, len: usize) -> Token {
        if len < NARROW_BELOW {
            self.small
        } else {
            self.token
        }
    }
}

#[cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )),
    allow(unreachable_code, unused_variables)
)]
impl SivMessage for Message {
    #[inline]
    fn encrypt_block(&self, block: &mut [u8; 16]) {
        let blocks = core::slice::from_mut(block);
        dispatch!(self.small, t => engine::encrypt_blocks(t, &self.keys, blocks));
    }

    #[inline]
    fn ctr(&self, counter_block: &[u8; 16], buffer: InOutBuf<'_, '_, u8>) {
        let (rk, off) = (&self.keys, Hashing::Off);
        let token = self.for_len(buffer.len());
        let none = Powers::of_table(&EMPTY);
        dispatch!(token, t => engine::siv_crypt(t, rk, none, counter_block, &[], buffer, off));
    }

    #[inline]
    fn polyval(&self) -> Polyval {
        Polyval::new(&self.mac)
    }

    #[inline]
    fn encrypt_then_ctr(&self, block: &mut [u8; 16], buffer: InOutBuf<'_, '_, u8>) {
        let token = self.for_len(buffer.len());
        dispatch!(token, t => engine::siv_tag_ctr(t, &self.keys, block, buffer));
    }

    #[inline]
    fn hash(&self, aad: &[u8], msg: &[u8]) -> [u8; 16] {
        if aad.len() + msg.len() <= HORNER_UPTO {
            return dispatch!(self.small, t => engine::polyval_short(t, &self.mac, aad, msg));
        }
        if aad.len() + msg.len() < WIDE_FROM {
            return polyval_hash(self, aad, msg);
        }
        let key = Powers::of_key(&self.mac);
        dispatch!(self.token, t => engine::polyval(t, key, aad, msg))
    }

    #[inline]
    fn ctr_hash(
        &self,
        counter_block: &[u8; 16],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> [u8; 16] {
        if aad.len() + buffer.len() < STITCH_FROM {
            return ctr_then_hash(self, counter_block, aad, buffer);
        }
        let (rk, key, out) = (&self.keys, Powers::of_key(&self.mac), Hashing::Output);
        dispatch!(self.token, t => engine::siv_crypt(t, rk, key, counter_block, aad, buffer, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;

    /// The message keys made in registers (`Isa::siv_message_keys`) against the derivation
    /// block by block (RFC 8452, section 4) and the engine's key expansion, for every key
    /// size: hunts a swapped half, a wrong block index, a key schedule off by a round. Every
    /// engine takes the register path for 128- and 256-bit keys.
    #[test]
    fn message_keys_in_registers() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        };
        for engine in Engine::ALL.iter().copied() {
            let Some(token) = Token::detect(engine) else {
                continue;
            };
            for len in [16usize, 24, 32] {
                for _ in 0..64 {
                    let key: std::vec::Vec<u8> = (0..len).map(|_| next()).collect();
                    let nonce: [u8; NONCE_LEN] = core::array::from_fn(|_| next());
                    let kgk = dispatch!(token, t => t.expand(&key)).expect("AES key");
                    let (mut mac, mut keys) = ([0u8; 16], RoundKeys::zero());
                    let fast = dispatch!(token, t => t.siv_message_keys(&kgk, &nonce, &mut mac, &mut keys));
                    assert_eq!(fast, len != 24, "{engine:?}: {len}-byte key");
                    if !fast {
                        continue;
                    }
                    let mut blocks: std::vec::Vec<[u8; 16]> = (0..2 + len / 8)
                        .map(|i| super::super::derivation_block(i, &nonce))
                        .collect();
                    dispatch!(token, t => engine::encrypt_blocks(t, &kgk, &mut blocks));
                    let halves: std::vec::Vec<u8> =
                        blocks.iter().flat_map(|b| b[..8].iter().copied()).collect();
                    assert_eq!(mac[..], halves[..16], "{engine:?}: {len}-byte key, mac");
                    let want = dispatch!(token, t => t.expand(&halves[16..16 + len])).unwrap();
                    assert_eq!(keys.rounds(), want.rounds());
                    for r in 0..15 {
                        assert_eq!(keys.key(r), want.key(r), "{engine:?}: {len}-byte key, {r}");
                    }
                }
            }
        }
    }

    /// The checked key setup (a cipher not known to be AES): on every engine and AES key
    /// size, the check block `E_K(0)` of the reference AES gives the schedule `for_aes` gives;
    /// any other check block, or a key of another length, gives `None`.
    #[test]
    fn checked_key_setup_agrees_or_refuses() {
        use aes::cipher::{BlockCipherEncrypt, KeyInit, consts::U16};
        fn e0<C: BlockCipherEncrypt<BlockSize = U16> + KeyInit>(key: &[u8]) -> [u8; 16] {
            let mut b = aes::Block::default();
            C::new_from_slice(key)
                .expect("key length")
                .encrypt_block(&mut b);
            b.into()
        }
        for engine in Engine::ALL.iter().copied() {
            if Token::detect(engine).is_none() {
                continue;
            }
            for len in [16usize, 24, 32] {
                let key: std::vec::Vec<u8> = (0..len).map(|i| (i * 29 + len) as u8).collect();
                let h = match len {
                    16 => e0::<aes::Aes128>(&key),
                    24 => e0::<aes::Aes192>(&key),
                    _ => e0::<aes::Aes256>(&key),
                };
                // The round count and all fifteen slots of each schedule.
                let schedule = |s: Option<FusedSiv>| {
                    s.map(|s| (s.keys.rounds(), (0..15).map(|r| *s.keys.key(r)).collect()))
                };
                let checked: Option<(usize, std::vec::Vec<[u8; 16]>)> =
                    schedule(FusedSiv::new(engine, &key, &h));
                assert!(checked.is_some(), "{engine:?} {len}: E_K(0) agrees");
                assert_eq!(
                    checked,
                    schedule(FusedSiv::for_aes(engine, &key)),
                    "{engine:?} {len}"
                );
                for bit in [0usize, 77, 127] {
                    let mut wrong = h;
                    wrong[bit / 8] ^= 1 << (bit % 8);
                    assert!(
                        FusedSiv::new(engine, &key, &wrong).is_none(),
                        "{engine:?} {bit}"
                    );
                }
            }
            for len in [0usize, 15, 20, 33] {
                assert!(FusedSiv::new(engine, &[7; 40][..len], &[0; 16]).is_none());
                assert!(FusedSiv::for_aes(engine, &[7; 40][..len]).is_none());
            }
        }
    }

    /// The engines' block-by-block POLYVAL of short messages against `clmul_core`'s keyed
    /// state, on every split of up to 128 bytes into associated data and text (partial
    /// blocks on both sides, empty ones, past [`HORNER_UPTO`]).
    #[test]
    fn horner_on_every_engine() {
        const _: () = assert!(HORNER_UPTO < 128);
        let data: [u8; 128] = core::array::from_fn(|i| (i as u8).wrapping_mul(151) ^ 0x5a);
        let h: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29) | 1);
        for engine in Engine::ALL.iter().copied() {
            let Some(token) = Token::detect(engine) else {
                continue;
            };
            for total in 0..=data.len() {
                for a in 0..=total {
                    let (aad, msg) = (&data[..a], &data[a..total]);
                    let got = dispatch!(token, t => engine::polyval_short(t, &h, aad, msg));
                    let mut p = Polyval::new(&h);
                    p.update_padded(aad);
                    p.update_padded(msg);
                    p.update(&[super::super::length_block(aad.len(), msg.len())]);
                    assert_eq!(got, p.finalize(), "{engine:?}: aad {a}, text {}", total - a);
                }
            }
        }
    }
}
