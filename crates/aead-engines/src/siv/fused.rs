//! AES-GCM-SIV on the fused engines: the key-generating key's round keys for one engine, and
//! per message the derived keys on the same engine (`crate::engine`'s jobs over the stitched
//! kernel, `crate::kernel`, with the `Le32` counter and the `Polyval` domain):
//!
//! - **Key derivation**: the four to six derivation blocks in one AES-ECB call, then our AES key
//!   expansion of the derived key (a schedule per message, as the construction needs).
//! - **POLYVAL**: for a message (AAD and text) of [`WIDE_FROM`] bytes or more, the engine's
//!   wide loop with a table of H^1..H^33 computed for the message; below that, `clmul_core`'s
//!   keyed state, which computes only H^2..H^4 at setup (what a short message uses).
//! - **Encryption**: POLYVAL of the plaintext, the tag, then CTR on the engine (two passes:
//!   the tag, hence the counter, depends on the whole plaintext).
//! - **Decryption in place**: CTR and POLYVAL of its output in one stitched pass (long
//!   messages; short ones CTR, then POLYVAL of the L1-resident plaintext). Out of place, the
//!   shared rule of `siv::SivMessage::ctr_hash_discard`: CTR into a scratch buffer and POLYVAL
//!   from it, the output written only after the tag matched.

use super::{SivKeys, SivMessage, ctr_then_hash, polyval_hash, wipe};
use crate::engine::{self, Isa};
use crate::fused::{Engine, Token, dispatch};
use crate::kernel::Hashing;
use crate::tables::{EMPTY, PowerTable, RoundKeys};
use crate::{TagMismatch, siv::NONCE_LEN};
use clmul_core::Polyval;
use inout::InOutBuf;

/// From this many bytes of associated data and text, POLYVAL runs on the engine's wide loop
/// with a table of powers made for the message (stitched with CTR when decrypting); below, on
/// `clmul_core`'s keyed state, which computes only the powers the message uses.
pub const WIDE_FROM: usize = 4096;

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
    allow(unreachable_code, unused_variables)
)]
impl FusedSiv {
    /// The state for `engine` and AES key `aes_key` (16, 24 or 32 bytes), if the CPU runs
    /// `engine` and our key schedule agrees with the caller's cipher on `E_K(0^128) = check`
    /// (compared in constant time), which proves the caller's cipher is AES under that key.
    /// `None` for [`Engine::Generic`].
    pub fn new(engine: Engine, aes_key: &[u8], check: &[u8; 16]) -> Option<Self> {
        let token = Token::detect(engine)?;
        let keys = dispatch!(token, t => engine::checked_schedule(t, aes_key, check))?;
        Some(Self {
            token,
            small: token.narrowest(),
            keys,
        })
    }

    /// The engine it runs on.
    pub fn engine(&self) -> Engine {
        dispatch!(self.token, t => t.engine())
    }

    /// [`super::seal`] on this engine.
    pub fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> [u8; 16] {
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
        derive: impl FnOnce(&mut [u8], &mut [u8; 16]),
        f: impl FnOnce(&Message) -> R,
    ) -> R {
        let mut msg = Message {
            token: self.token,
            small: self.small,
            keys: RoundKeys::zero(),
            mac: [0; 16],
        };
        let mut key = [0u8; 32];
        let key = &mut key[..self.key_len()];
        derive(key, &mut msg.mac);
        // A derived key has its key-generating key's (AES) length: the expansion succeeds.
        let expanded = dispatch!(self.token, t => t.expand_into(key, &mut msg.keys));
        debug_assert!(expanded);
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
    /// The table of powers of the authentication key for the engine's wide loop, if a message
    /// of `len` bytes (associated data and text) is long enough to gain from it.
    #[inline]
    fn table(&self, len: usize) -> Option<PowerTable> {
        (len >= WIDE_FROM).then(|| PowerTable::polyval(&self.mac))
    }

    /// The engine for CTR over `len` bytes: the wide one, or for short data the narrowest
    /// (its setup, broadcasting the round keys, costs less).
    #[inline]
    fn for_len(&self, len: usize) -> Token {
        if len < WIDE_FROM {
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
        dispatch!(token, t => engine::siv_crypt(t, rk, &EMPTY, counter_block, &[], buffer, off));
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
        let Some(tbl) = self.table(aad.len() + msg.len()) else {
            return polyval_hash(self, aad, msg);
        };
        dispatch!(self.token, t => engine::polyval(t, &tbl, aad, msg))
    }

    #[inline]
    fn ctr_hash(
        &self,
        counter_block: &[u8; 16],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> [u8; 16] {
        let len = buffer.len();
        let Some(tbl) = self.table(aad.len() + len) else {
            return ctr_then_hash(self, counter_block, aad, buffer);
        };
        let (rk, out) = (&self.keys, Hashing::Output);
        dispatch!(self.token, t => engine::siv_crypt(t, rk, &tbl, counter_block, aad, buffer, out))
    }
}
