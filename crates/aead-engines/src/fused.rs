//! Dispatch to the fused AES-CTR+GHASH kernels.
//!
//! A fused state is built at key setup, only from a raw AES key (so only through `KeyInit`),
//! and only if our own key schedule reproduces the user's cipher on the GHASH key block
//! (`E_K(0^128) == H`): that proves the `Aes` type is AES under this key, whatever wrapper type
//! it is, without `TypeId` or specialization. Ciphers that fail the check, or instances made
//! with `From<Aes>` (no key to expand), keep the generic two-pass path.
//!
//! Decryption in place runs one pass (hash and decrypt together) and, if the tag is wrong,
//! runs the keystream over the buffer once more, which restores the ciphertext exactly (CTR is
//! its own inverse); while a key meets a run of forgeries it hashes first instead
//! (`Forgeries`). Out of place it hashes first and writes the output only after the tag
//! matches, since the output's old contents could not be restored.

// Targets without a fused engine keep the dispatch code, unused (`Token` is uninhabited
// there and every `dispatch!` diverges).
#![cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )),
    allow(
        dead_code,
        unused_imports,
        unused_macros,
        unused_mut,
        unused_variables,
        unreachable_code
    )
)]

use crate::engine::{self, Engine, Isa};
use crate::tables::RoundKeys;
use crate::{J0, tag_matches};
use clmul_core::wide::KeptPowers;
use core::sync::atomic::{AtomicU8, Ordering::Relaxed};
use inout::InOutBuf;

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
use crate::aarch64::Armv8;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use crate::x86::AesNi;
#[cfg(target_arch = "x86_64")]
use crate::x86::{Vaes256, Vaes512};

impl Engine {
    /// Whether this CPU can run the engine.
    pub fn is_available(self) -> bool {
        match self {
            Engine::Generic => true,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Engine::AesNi => AesNi::detect().is_some(),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes256 => Vaes256::detect().is_some(),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes512 | Engine::Vaes512Schoolbook => Vaes512::detect().is_some(),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Engine::Armv8 => Armv8::detect().is_some(),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Engine::Armv8Eor3 => Armv8::detect_eor3().is_some(),
        }
    }

    /// The engines this CPU can run, slowest first.
    pub fn available() -> impl Iterator<Item = Engine> {
        Self::ALL.iter().copied().filter(|e| e.is_available())
    }

    /// The fastest engine this CPU can run for AES keys (the generic one when the build sets
    /// `--cfg polyval_backend="soft"`, which asks for portable code only): the last available
    /// one of [`Engine::ALL`], except that Intel's CPUs get the 512-bit schoolbook shape.
    ///
    /// Detected once and cached: every `KeyInit::new` asks (a fresh key per message asks per
    /// message), and the detection walks every engine's feature checks.
    pub fn detect() -> Engine {
        use core::sync::atomic::{AtomicU8, Ordering::Relaxed};
        /// 0 until detected, then 1 + the engine's index in [`Engine::ALL`].
        static DETECTED: AtomicU8 = AtomicU8::new(0);
        if cfg!(polyval_backend = "soft") {
            return Engine::Generic;
        }
        let at = usize::from(DETECTED.load(Relaxed));
        if let Some(&engine) = at.checked_sub(1).and_then(|i| Self::ALL.get(i)) {
            return engine;
        }
        let best = Self::detect_uncached();
        if let Some(i) = Self::ALL.iter().position(|&e| e == best) {
            // `ALL` has fewer than 255 engines.
            DETECTED.store(1 + i as u8, Relaxed);
        }
        best
    }

    /// [`Engine::detect`] without the cache.
    fn detect_uncached() -> Engine {
        let best = Self::available().last().unwrap_or(Engine::Generic);
        #[cfg(target_arch = "x86_64")]
        if best == Engine::Vaes512 && crate::x86::intel() {
            return Engine::Vaes512Schoolbook;
        }
        best
    }
}

/// Runs `$e` with `$t` bound to the engine token inside `$token`: static dispatch, so the
/// small safe wrappers of `engine` inline and the buffer's pointers reach the kernel in
/// registers.
macro_rules! dispatch {
    ($token:expr, $t:ident => $e:expr) => {
        match $token {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Token::AesNi($t) => $e,
            #[cfg(target_arch = "x86_64")]
            Token::Vaes256($t) => $e,
            #[cfg(target_arch = "x86_64")]
            Token::Vaes512($t) => $e,
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Token::Armv8($t) => $e,
            #[cfg(not(any(
                target_arch = "x86",
                target_arch = "x86_64",
                all(target_arch = "aarch64", target_endian = "little")
            )))]
            Token::None($t) => $e,
        }
    };
}

pub(crate) use dispatch;

/// A decryption whose tag did not match: the buffer's output is as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagMismatch;

/// The fused state of one AES-GCM key: an engine's token (holding it proves the CPU runs the
/// engine), our AES round keys, and the powers H^1..H^12 of the hash key H in POLYVAL's domain
/// (GHASH as byte-reflected POLYVAL: `mulX_POLYVAL(ByteReverse(E_K(0^128)))`, RFC 8452
/// Appendix A). Key setup is one key expansion, one block (`E_K(0)`) and those powers, with
/// the engine's carry-less multiplies in its own function (`kernel::kept_powers`: depth four,
/// in registers); no other AES schedule is made for the `aes` crate's types, and no portable
/// multiply runs. Each message builds the table it multiplies by from the kept powers in the
/// engine's function (their Karatsuba middles, and for a message of more than twelve blocks
/// the higher powers, by doubling in registers), on the stack, wiped after the call with the
/// feature `zeroize`. The key also counts the forgeries it has recently rejected in place
/// (`Forgeries`), which decides how it decrypts in place.
#[derive(Clone)]
pub struct Fused {
    token: Token,
    forgeries: Forgeries,
    keys: RoundKeys,
    kept: KeptPowers,
}

/// A key's recent forgeries, as a score: each forgery (in place or not) adds
/// [`Forgeries::STEP`] (up to [`Forgeries::CAP`]), each message that verifies takes one away,
/// and from [`Forgeries::FROM`] on the key hashes a message before it decrypts it in place.
///
/// In place, a key decrypts and hashes in one pass and, on a forgery, runs the keystream
/// again to restore the ciphertext: a forgery costs about two passes where the peers (which
/// zero the buffer instead) pay one. Hashing first costs a forgery the hash alone, but a valid
/// message two passes instead of one (measured on AMD Zen 4, docs/AES-GCM.md: 16 KiB 1.14 ->
/// 1.40 µs, 1420 B +11%). The first pays when forgeries are more than about one message in
/// six or seven; the score climbs when they are more than one in five (`STEP` against one),
/// and only a run of forgeries (four in a row) reaches `FROM`, so an occasional forgery, or
/// TLS's one before the connection closes, never changes the path. After the forgeries stop,
/// at most `CAP - FROM + 1` valid messages are hashed first.
///
/// The score is public: it follows verdicts the caller sees. A relaxed load and store, not a
/// read-modify-write (some targets have no compare-and-swap): threads racing on one key may
/// lose an update, which moves the score by a step and changes no output.
struct Forgeries(AtomicU8);

impl Forgeries {
    const STEP: u8 = 4;
    const FROM: u8 = 16;
    const CAP: u8 = 32;

    const fn new() -> Self {
        Forgeries(AtomicU8::new(0))
    }

    /// Whether the next message in place is hashed before it is decrypted.
    #[inline]
    fn hash_first(&self) -> bool {
        self.0.load(Relaxed) >= Self::FROM
    }

    /// A message was rejected.
    #[inline]
    fn forged(&self) {
        let s = self.0.load(Relaxed);
        self.0
            .store(s.saturating_add(Self::STEP).min(Self::CAP), Relaxed);
    }

    /// A message verified (nothing stored while the score is zero).
    #[inline]
    fn verified(&self) {
        let s = self.0.load(Relaxed);
        if s > 0 {
            self.0.store(s - 1, Relaxed);
        }
    }
}

impl Clone for Forgeries {
    fn clone(&self) -> Self {
        Forgeries(AtomicU8::new(self.0.load(Relaxed)))
    }
}

/// A secret block (GCM's hash key, in either domain), cleared on drop with `zeroize`.
#[derive(Clone)]
pub(crate) struct Secret16(pub(crate) [u8; 16]);

#[cfg(feature = "zeroize")]
impl Drop for Secret16 {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

/// GCM's hash key in POLYVAL's domain (see [`Fused`]).
type HashKey = Secret16;

impl Secret16 {
    /// GCM's hash key in POLYVAL's domain, from its block `E_K(0^128)`.
    fn from_block(e0: &[u8; 16]) -> Self {
        let h = clmul_core::soft::mulx(u128::from_be_bytes(*e0));
        // One 16-byte store (`crate::store_words`): the engine's load of the key forwards
        // from it.
        let mut k = Secret16([0; 16]);
        crate::store_words(&mut k.0, h as u64, (h >> 64) as u64);
        k
    }
}

/// The token of each engine (the variants are private: `Fused` and `siv::FusedSiv` are
/// opaque).
#[derive(Clone, Copy)]
pub(crate) enum Token {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNi(AesNi),
    #[cfg(target_arch = "x86_64")]
    Vaes256(Vaes256),
    #[cfg(target_arch = "x86_64")]
    Vaes512(Vaes512),
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Armv8(Armv8),
    /// Targets without a fused engine: no value of this type exists there (its [`Isa`]
    /// implementation lets the dispatch compile unchanged).
    #[cfg(not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )))]
    #[allow(dead_code)]
    None(core::convert::Infallible),
}

impl Token {
    /// The narrowest engine of the same family (AES-NI for every x86 engine, which all have
    /// it): the cheapest setup for a few blocks.
    #[inline]
    pub(crate) fn narrowest(self) -> Token {
        match self {
            #[cfg(target_arch = "x86_64")]
            Token::Vaes256(_) | Token::Vaes512(_) => AesNi::detect().map_or(self, Token::AesNi),
            other => other,
        }
    }

    /// The token `KeyInit` keys: on Intel, the 512-bit engine's made [`paced`](crate::x86::pace)
    /// (a message may run on the 256-bit engine after a rest); any other token as it is.
    #[inline]
    #[cfg_attr(
        not(any(feature = "cipher-0.4", feature = "cipher-0.5")),
        allow(dead_code)
    )]
    pub(crate) fn paced(self) -> Token {
        match self {
            #[cfg(target_arch = "x86_64")]
            Token::Vaes512(t) if crate::x86::intel() => Token::Vaes512(t.paced()),
            other => other,
        }
    }

    /// The token that runs a message of `len` bytes (AAD and text) whose 96-bit nonce folds
    /// to `fold` ([`crate::nonce_fold`]; `None` if no nonce is public): the 256-bit engine's
    /// for a paced 512-bit token whose pacing says so, otherwise this one.
    #[inline(always)]
    pub(crate) fn for_message(self, len: usize, fold: Option<u8>) -> Token {
        match self {
            #[cfg(target_arch = "x86_64")]
            Token::Vaes512(t) if !t.runs(len, fold) => {
                Vaes256::detect().map_or(self, Token::Vaes256)
            }
            _ => {
                let _ = (len, fold);
                self
            }
        }
    }

    /// [`Token::for_message`]'s choice for `len` bytes as the thread's pacing stands, without
    /// reading the clock or moving that state.
    #[inline]
    pub(crate) fn peek(self, len: usize) -> Token {
        match self {
            #[cfg(target_arch = "x86_64")]
            Token::Vaes512(t) if !t.runs_now(len) => Vaes256::detect().map_or(self, Token::Vaes256),
            _ => {
                let _ = len;
                self
            }
        }
    }

    /// The token of `engine`, if this CPU runs it (`None` for [`Engine::Generic`]).
    pub(crate) fn detect(engine: Engine) -> Option<Token> {
        match engine {
            Engine::Generic => None,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Engine::AesNi => AesNi::detect().map(Token::AesNi),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes256 => Vaes256::detect().map(Token::Vaes256),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes512 => Vaes512::detect().map(|t| Token::Vaes512(t.karatsuba(true))),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes512Schoolbook => {
                Vaes512::detect().map(|t| Token::Vaes512(t.karatsuba(false)))
            }
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Engine::Armv8 => Armv8::detect().map(Token::Armv8),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Engine::Armv8Eor3 => Armv8::detect_eor3().map(Token::Armv8),
        }
    }
}

impl Fused {
    /// The fused state for `engine` and the AES key `aes_key` (16, 24 or 32 bytes), if the CPU
    /// runs `engine`; `None` for [`Engine::Generic`] and other key lengths. The caller knows
    /// that its cipher is AES (its type is one of the `aes` crate's), so nothing is checked.
    #[inline]
    pub fn new(engine: Engine, aes_key: &[u8]) -> Option<Self> {
        Self::empty(Token::detect(engine)?).initialized(aes_key, None)
    }

    /// All zero, on `token`: [`Fused::init`] fills it in place (the state is written where
    /// it stays, not built and then copied).
    #[inline]
    pub(crate) fn empty(token: Token) -> Self {
        Fused {
            token,
            forgeries: Forgeries::new(),
            keys: RoundKeys::zero(),
            kept: KeptPowers::zero(),
        }
    }

    /// [`Fused::init`], by value.
    #[inline]
    fn initialized(mut self, aes_key: &[u8], check: Option<&[u8; 16]>) -> Option<Self> {
        self.init(aes_key, check).then_some(self)
    }

    /// Our key schedule of `aes_key` and `e0 = E_K(0)` with it (one call, `Isa::expand_e0`;
    /// compared with `check`, in constant time, when given), and the kept powers of GCM's hash
    /// key from `e0`; `false` for a key length that is not AES's or a failed check.
    #[inline]
    pub(crate) fn init(&mut self, aes_key: &[u8], check: Option<&[u8; 16]>) -> bool {
        let small = self.token.narrowest();
        let keys = &mut self.keys;
        let Some(mut e0) = dispatch!(small, t => t.expand_e0(aes_key, keys)) else {
            return false;
        };
        let agrees = check.is_none_or(|h| crate::ct_verdict(&e0, h));
        if agrees {
            let h = HashKey::from_block(&e0);
            let kept = &mut self.kept;
            dispatch!(self.token, t => engine::kept_powers(t, &h.0, kept));
        }
        crate::wipe::wipe(&mut e0);
        agrees
    }

    /// The engine this state runs on.
    pub fn engine(&self) -> Engine {
        dispatch!(self.token, t => t.engine())
    }

    /// J0 for `nonce` (see [`J0`]): a 96-bit nonce as it is, any other length hashed on the
    /// engine.
    #[inline]
    pub fn j0(&self, nonce: &[u8]) -> J0 {
        if nonce.len() == 12 {
            return J0::of_nonce(nonce);
        }
        self.j0_hashed(nonce)
    }

    /// [`Fused::j0`] of a nonce of another length than 96 bits.
    #[inline(never)]
    fn j0_hashed(&self, nonce: &[u8]) -> J0 {
        let block = dispatch!(self.token, t => engine::gcm_j0(t, &self.kept, nonce));
        J0::from_hash(block)
    }

    /// Encrypts `buffer` (input to output) with the keystream from `inc32(J0)` and returns the
    /// full 16-byte tag.
    #[inline]
    pub fn seal(&self, j0: &J0, aad: &[u8], buffer: InOutBuf<'_, '_, u8>) -> [u8; 16] {
        let (rk, tbl) = (&self.keys, &self.kept);
        let token = self
            .token
            .for_message(aad.len() + buffer.len(), j0.nonce_fold());
        dispatch!(token, t => engine::seal(t, rk, tbl, j0, aad, buffer))
    }

    /// The engine a message of `len` bytes (AAD and text) would run on now: [`Fused::engine`],
    /// or, for a key that `KeyInit` made on an Intel CPU's 512-bit engine, the 256-bit one
    /// while the thread's pacing says so (`aead_engines::pace`). Reads no clock and changes
    /// nothing.
    pub fn engine_for(&self, len: usize) -> Engine {
        dispatch!(self.token.peek(len), t => t.engine())
    }

    /// Checks `tag` (a prefix of the full tag, in constant time) against the input of `buffer`
    /// and, only if it matches, leaves the plaintext in the output. On a mismatch the output
    /// is exactly as it was.
    #[inline]
    pub fn open(
        &self,
        j0: &J0,
        aad: &[u8],
        mut buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> Result<(), TagMismatch> {
        let (rk, tbl) = (&self.keys, &self.kept);
        let token = self
            .token
            .for_message(aad.len() + buffer.len(), j0.nonce_fold());
        let in_place = core::ptr::eq(buffer.get_in().as_ptr(), buffer.get_out().as_ptr());
        if in_place && !self.forgeries.hash_first() {
            let buf = buffer.get_out();
            let expected = dispatch!(token, t => engine::open_in_place(t, rk, tbl, j0, aad, buf));
            if tag_matches(&expected, tag) {
                self.forgeries.verified();
                return Ok(());
            }
            // Undo the decryption: the same keystream over the plaintext gives back the
            // ciphertext, byte for byte.
            dispatch!(token, t => engine::ctr(t, rk, j0, buf.into()));
            self.forgeries.forged();
            return Err(TagMismatch);
        }
        // The hash of the input first, the output written only if it verifies: out of place
        // always (the output's old contents could not be restored), in place under a run of
        // forgeries (`Forgeries`).
        let expected = dispatch!(token, t => engine::tag(t, rk, tbl, j0, aad, buffer.get_in()));
        if !tag_matches(&expected, tag) {
            self.forgeries.forged();
            return Err(TagMismatch);
        }
        dispatch!(token, t => engine::ctr(t, rk, j0, buffer));
        self.forgeries.verified();
        Ok(())
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    extern crate std;

    use super::*;
    use crate::x86::pace::{self, LONGEST, Mode, SHORTEST};
    use std::vec::Vec;
    use std::{eprintln, vec};

    /// A paced 512-bit key (paced here whatever the vendor, as `KeyInit` paces it on Intel)
    /// against unpaced keys on the 512-bit and 256-bit engines, pacing forced each way:
    /// the engine each length runs on, and the same ciphertext, tag, plaintext and refused
    /// forgery (buffer restored) as both, for lengths around the window's ends, split between
    /// AAD and text every way that moves a message across them.
    #[test]
    fn paced_key_runs_either_engine_and_agrees() {
        let (Some(Token::Vaes512(t)), Some(_)) = (
            Token::detect(Engine::Vaes512Schoolbook),
            Token::detect(Engine::Vaes256),
        ) else {
            eprintln!("note: no 512-bit engine on this CPU, pacing not tested");
            return;
        };
        let key = [0x42u8; 16];
        let paced = Fused::empty(Token::Vaes512(t.paced()))
            .initialized(&key, None)
            .expect("AES-128 key");
        let wide = Fused::new(Engine::Vaes512Schoolbook, &key).expect("available");
        let narrow = Fused::new(Engine::Vaes256, &key).expect("available");
        let j0 = J0::of_nonce(&[9; 12]);
        let mut lens: Vec<(usize, usize)> = Vec::new();
        for end in [SHORTEST, LONGEST] {
            for total in end - 2..=end + 1 {
                lens.extend([(0, total), (13, total - 13), (total, 0)]);
            }
        }
        lens.extend([(16, 100), (16, 1420), (5, 16385)]);
        for mode in [Mode::Narrow, Mode::Wide] {
            pace::set_mode(mode);
            for &(aad_len, len) in &lens {
                let total = aad_len + len;
                let moves = mode == Mode::Narrow && (SHORTEST..LONGEST).contains(&total);
                let want = if moves {
                    Engine::Vaes256
                } else {
                    Engine::Vaes512Schoolbook
                };
                assert_eq!(paced.engine_for(total), want, "{mode:?} {aad_len}+{len}");
                assert_eq!(paced.engine(), Engine::Vaes512Schoolbook);
                let aad: Vec<u8> = (0..aad_len).map(|i| i as u8).collect();
                let pt: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
                let mut sealed = Vec::new();
                for f in [&paced, &wide, &narrow] {
                    let mut buf = pt.clone();
                    let tag = f.seal(&j0, &aad, buf.as_mut_slice().into());
                    sealed.push((buf, tag));
                }
                assert!(
                    sealed.windows(2).all(|w| w[0] == w[1]),
                    "{mode:?} {aad_len}+{len}"
                );
                let (ct, tag) = &sealed[0];
                let mut buf = ct.clone();
                paced
                    .open(&j0, &aad, buf.as_mut_slice().into(), tag)
                    .expect("opens");
                assert_eq!(buf, pt);
                let mut out = vec![0x77; len];
                let io = InOutBuf::new(ct, &mut out).expect("same lengths");
                paced.open(&j0, &aad, io, tag).expect("opens out of place");
                assert_eq!(out, pt);
                let mut bad = *tag;
                bad[total % 16] ^= 1;
                let mut buf = ct.clone();
                assert!(
                    paced
                        .open(&j0, &aad, buf.as_mut_slice().into(), &bad)
                        .is_err()
                );
                assert_eq!(&buf, ct, "in-place buffer restored");
                let mut out = vec![0x77; len];
                let io = InOutBuf::new(ct, &mut out).expect("same lengths");
                assert!(paced.open(&j0, &aad, io, &bad).is_err());
                assert!(out.iter().all(|&b| b == 0x77), "output untouched");
            }
        }
        pace::set_mode(Mode::Clock);
    }
}

// On every target: where no fused engine exists, the score's rule is still tested and the
// engines' loop finds none to run.
#[cfg(test)]
mod forgery_tests {
    extern crate std;

    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// The score's steps: four forgeries in a row reach the hash-first path, the cap bounds
    /// how long it lasts, and valid messages bring it back to zero and stop there.
    #[test]
    fn score_steps() {
        let f = Forgeries::new();
        for _ in 0..3 {
            f.forged();
            assert!(!f.hash_first());
        }
        f.forged();
        assert!(f.hash_first());
        for _ in 0..10 {
            f.forged();
        }
        assert_eq!(f.0.load(Relaxed), Forgeries::CAP);
        let c = f.clone();
        let mut hashed_first = 0;
        while f.hash_first() {
            f.verified();
            hashed_first += 1;
        }
        assert_eq!(hashed_first, Forgeries::CAP - Forgeries::FROM + 1);
        for _ in 0..100 {
            f.verified();
        }
        assert_eq!(f.0.load(Relaxed), 0);
        assert_eq!(
            c.0.load(Relaxed),
            Forgeries::CAP,
            "a clone keeps its own score"
        );
        // Forgeries rarer than one in five leave the path alone.
        let g = Forgeries::new();
        for i in 0..1000 {
            if i % 6 == 0 {
                g.forged();
            } else {
                g.verified();
            }
            assert!(!g.hash_first(), "message {i}");
        }
    }

    /// On every engine this CPU runs, a key decrypting in place through a run of forgeries
    /// and back: every forgery refused with the buffer exactly as it was, every valid message
    /// opened to its plaintext, on the one-pass path and on the hash-first one (each checked
    /// to be the one taken), for lengths on both sides of the engines' paths' ends, and the
    /// ciphertext and tag the same as a fresh key's.
    #[test]
    fn forgery_runs_switch_the_path_and_change_no_output() {
        let key = [0x3cu8; 32];
        let j0 = J0::of_nonce(&[5; 12]);
        let mut ran = 0;
        for &engine in Engine::ALL {
            for key_len in [16, 32] {
                let Some(f) = Fused::new(engine, &key[..key_len]) else {
                    continue;
                };
                ran += 1;
                for (aad_len, len) in [(0, 0), (13, 1), (5, 16), (16, 17), (0, 100)]
                    .into_iter()
                    .chain([(20, 1200), (8, 1420), (13, 4096), (5, 16385)])
                {
                    let aad: Vec<u8> = (0..aad_len).map(|i| (i * 3) as u8).collect();
                    let pt: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
                    let mut ct = pt.clone();
                    let tag = f.seal(&j0, &aad, ct.as_mut_slice().into());
                    let fresh = Fused::new(engine, &key[..key_len]).expect("available");
                    let mut again = pt.clone();
                    assert_eq!(fresh.seal(&j0, &aad, again.as_mut_slice().into()), tag);
                    assert_eq!(again, ct);
                    let mut bad = tag;
                    bad[(len + 3) % 16] ^= 0x80;
                    let forge = |f: &Fused| {
                        let mut buf = ct.clone();
                        let r = f.open(&j0, &aad, buf.as_mut_slice().into(), &bad);
                        assert_eq!(r, Err(TagMismatch), "{engine:?} {aad_len}+{len}");
                        assert_eq!(buf, ct, "{engine:?} {aad_len}+{len}: buffer restored");
                    };
                    let open = |f: &Fused| {
                        let mut buf = ct.clone();
                        f.open(&j0, &aad, buf.as_mut_slice().into(), &tag)
                            .expect("opens");
                        assert_eq!(buf, pt, "{engine:?} {aad_len}+{len}");
                    };
                    assert!(!f.forgeries.hash_first());
                    open(&f);
                    for _ in 0..4 {
                        forge(&f);
                    }
                    assert!(f.forgeries.hash_first(), "{engine:?}: four in a row");
                    forge(&f);
                    open(&f);
                    assert!(f.forgeries.hash_first());
                    let mut out = vec![0x77; len];
                    let io = InOutBuf::new(&ct, &mut out).expect("same lengths");
                    f.open(&j0, &aad, io, &tag).expect("opens out of place");
                    assert_eq!(out, pt);
                    // Back on the one-pass path once valid messages bring the score down,
                    // where a lone forgery stays.
                    while f.forgeries.0.load(Relaxed) > 0 {
                        open(&f);
                    }
                    forge(&f);
                    assert!(!f.forgeries.hash_first());
                    open(&f);
                }
            }
        }
        if ran == 0 {
            std::eprintln!("note: no fused engine here, forgery runs not tested");
        }
    }
}
