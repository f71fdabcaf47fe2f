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
//! its own inverse); out of place it hashes first and writes the output only after the tag
//! matches, since the output's old contents could not be restored.

// Targets without a fused engine keep the dispatch code, unused.
#![cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )),
    allow(dead_code, unused_imports, unused_macros, unused_variables)
)]

use crate::powers::Key;
use crate::tag_matches;
use inout::InOutBuf;

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
use crate::aarch64::Armv8Gcm;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use crate::x86::aesni_gcm::AesNiGcm;
#[cfg(target_arch = "x86_64")]
use crate::x86::vaes256::Vaes256;
#[cfg(target_arch = "x86_64")]
use crate::x86::vaes512::Vaes512;

/// A fused kernel family, or the generic two-pass path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// The generic two-pass path (any block cipher): CTR with the cipher, then GHASH.
    Generic,
    /// AES-NI + PCLMULQDQ on 128-bit registers, 8 blocks per iteration.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNi,
    /// VAES + VPCLMULQDQ on 256-bit registers (AVX2), 16 blocks per iteration.
    #[cfg(target_arch = "x86_64")]
    Vaes256,
    /// VAES + VPCLMULQDQ on 512-bit registers, 32 blocks per iteration.
    #[cfg(target_arch = "x86_64")]
    Vaes512,
    /// ARMv8 AES + PMULL, 8 blocks per iteration.
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Armv8,
}

impl Engine {
    /// Every engine compiled for this target, slowest first.
    pub const ALL: &'static [Engine] = &[
        Engine::Generic,
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Engine::AesNi,
        #[cfg(target_arch = "x86_64")]
        Engine::Vaes256,
        #[cfg(target_arch = "x86_64")]
        Engine::Vaes512,
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Engine::Armv8,
    ];

    /// Whether this CPU can run the engine.
    pub fn is_available(self) -> bool {
        match self {
            Engine::Generic => true,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Engine::AesNi => crate::x86::aesni_gcm::available() && crate::x86::aesni::available(),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes256 => crate::x86::vaes256::available() && crate::x86::aesni::available(),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes512 => crate::x86::vaes512::available() && crate::x86::aesni::available(),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Engine::Armv8 => crate::aarch64::available(),
        }
    }

    /// The engines this CPU can run, slowest first.
    pub fn available() -> impl Iterator<Item = Engine> {
        Self::ALL.iter().copied().filter(|e| e.is_available())
    }

    /// The fastest engine this CPU can run for AES keys (the generic one when the build sets
    /// `--cfg polyval_backend="soft"`, which asks for portable code only).
    pub fn detect() -> Engine {
        if cfg!(polyval_backend = "soft") {
            return Engine::Generic;
        }
        Self::available().last().unwrap_or(Engine::Generic)
    }
}

/// Runs `$e` with `$k` bound to the engine inside `$fused`: static dispatch, so the small
/// safe wrappers inline and the buffer's pointers reach the kernel in registers.
macro_rules! dispatch {
    ($fused:expr, $k:ident => $e:expr) => {
        match $fused {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Keys::AesNi($k) => $e,
            #[cfg(target_arch = "x86_64")]
            Keys::Vaes256($k) => $e,
            #[cfg(target_arch = "x86_64")]
            Keys::Vaes512($k) => $e,
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Keys::Armv8($k) => $e,
            #[cfg(not(any(
                target_arch = "x86",
                target_arch = "x86_64",
                all(target_arch = "aarch64", target_endian = "little")
            )))]
            Keys::None(never) => match *never {},
        }
    };
}

/// A decryption whose tag did not match: the buffer's output is as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagMismatch;

/// Round keys for one of the fused engines (holding one proves the CPU runs that engine), and
/// every power of H its GHASH steps use, computed once per key.
#[derive(Clone)]
pub struct Fused {
    keys: Keys,
    table: Key,
}

/// The round keys of each engine (the variants are private: `Fused` is opaque).
#[derive(Clone)]
enum Keys {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNi(AesNiGcm),
    #[cfg(target_arch = "x86_64")]
    Vaes256(Vaes256),
    #[cfg(target_arch = "x86_64")]
    Vaes512(Vaes512),
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Armv8(Armv8Gcm),
    /// Targets without a fused engine: no value of this type exists there.
    #[cfg(not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )))]
    #[allow(dead_code)]
    None(core::convert::Infallible),
}

// Without a fused engine `Fused` is uninhabited and every `dispatch!` diverges.
#[cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )),
    allow(unreachable_code)
)]
impl Fused {
    /// The fused state for `engine` and AES key `aes_key` (16, 24 or 32 bytes), if the CPU
    /// runs `engine` and our key schedule agrees with the caller's cipher on `E_K(0^128) = h`
    /// (compared in constant time). `None` for [`Engine::Generic`]. The powers of H are
    /// computed with the detected GHASH backend's multiplies.
    pub fn new(engine: Engine, aes_key: &[u8], h: &[u8; 16]) -> Option<Self> {
        let _ = (aes_key, h);
        let keys = match engine {
            Engine::Generic => None,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Engine::AesNi => AesNiGcm::new(aes_key, h).map(Keys::AesNi),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes256 => Vaes256::new(aes_key, h).map(Keys::Vaes256),
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes512 => Vaes512::new(aes_key, h).map(Keys::Vaes512),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Engine::Armv8 => Armv8Gcm::new(aes_key, h).map(Keys::Armv8),
        };
        let keys = keys?;
        let table = clmul_core::Ghash::new(h).__full_key();
        Some(Fused { keys, table })
    }

    /// The engine these round keys run on.
    pub fn engine(&self) -> Engine {
        dispatch!(&self.keys, k => k.engine())
    }

    /// Encrypts `buffer` (input to output) with the keystream from `inc32(J0)` and returns the
    /// full 16-byte tag.
    pub fn seal(&self, j0: &[u8; 16], aad: &[u8], buffer: InOutBuf<'_, '_, u8>) -> [u8; 16] {
        let key = &self.table;
        dispatch!(&self.keys, k => k.seal(key, j0, aad, buffer))
    }

    /// Checks `tag` (a prefix of the full tag, in constant time) against the input of `buffer`
    /// and, only if it matches, leaves the plaintext in the output. On a mismatch the output
    /// is exactly as it was.
    pub fn open(
        &self,
        j0: &[u8; 16],
        aad: &[u8],
        mut buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> Result<(), TagMismatch> {
        let key = &self.table;
        let in_place = core::ptr::eq(buffer.get_in().as_ptr(), buffer.get_out().as_ptr());
        if in_place {
            let buf = buffer.get_out();
            let expected = dispatch!(&self.keys, k => k.open_in_place(key, j0, aad, buf));
            if tag_matches(&expected, tag) {
                return Ok(());
            }
            // Undo the decryption: the same keystream over the plaintext gives back the
            // ciphertext, byte for byte.
            dispatch!(&self.keys, k => k.ctr_in_place(j0, buf));
            Err(TagMismatch)
        } else {
            let expected = dispatch!(&self.keys, k => k.tag(key, j0, aad, buffer.get_in()));
            if !tag_matches(&expected, tag) {
                return Err(TagMismatch);
            }
            dispatch!(&self.keys, k => k.ctr(j0, buffer));
            Ok(())
        }
    }
}

pub(crate) use crate::length_block;

/// Copies `data` into whole zero-padded blocks at the start of `out`; returns how many.
/// `out` must have room (`data.len() <= 16 * out.len()`).
pub(crate) fn copy_padded(data: &[u8], out: &mut [[u8; 16]]) -> usize {
    let (blocks, rest) = data.as_chunks::<16>();
    out[..blocks.len()].copy_from_slice(blocks);
    if rest.is_empty() {
        blocks.len()
    } else {
        out[blocks.len()][..rest.len()].copy_from_slice(rest);
        blocks.len() + 1
    }
}

/// Expanded AES round keys (`rounds + 1` keys of 16 bytes, at most 15), for every fused engine.
#[derive(Clone)]
pub(crate) struct RoundKeys {
    /// The round keys, in memory order.
    pub(crate) rk: [[u8; 16]; 15],
    /// 10, 12 or 14.
    pub(crate) rounds: usize,
}

#[cfg(feature = "zeroize")]
impl Drop for RoundKeys {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.rk);
    }
}

impl RoundKeys {
    /// FIPS-197 key expansion (section 5.2) of a 16-, 24- or 32-byte key, with `sub_word` the
    /// S-box on each byte of a word, computed by the caller's AES instruction (so no table is
    /// indexed by key bytes). Other key lengths get `None`.
    #[inline(always)]
    pub(crate) fn expand(key: &[u8], sub_word: impl Fn(u32) -> u32) -> Option<Self> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        let nk = key.len() / 4;
        let rounds = nk + 6;
        let mut w = [0u32; 60];
        for (i, c) in key.chunks_exact(4).enumerate() {
            w[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let mut rcon = 1u32;
        for i in nk..4 * (rounds + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 {
                // RotWord then SubWord, XOR Rcon (little-endian words: byte 0 is the low byte).
                t = sub_word(t.rotate_right(8)) ^ rcon;
                rcon = ((rcon << 1) & 0xff) ^ (((rcon >> 7) & 1) * 0x1b);
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut rk = [[0u8; 16]; 15];
        for (r, out) in rk.iter_mut().enumerate().take(rounds + 1) {
            for j in 0..4 {
                out[4 * j..4 * j + 4].copy_from_slice(&w[4 * r + j].to_le_bytes());
            }
        }
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut w);
        Some(Self { rk, rounds })
    }
}

/// Defines an engine's key type in a kernel module: its round keys, whose existence proves the
/// module's detection (`available()`) succeeded, and safe methods over the module's
/// `aead::<ENC>`, `ctr` and `tag_only` kernels. `$schedule(key, h)` expands the key and checks
/// it against `h = E_K(0)`.
macro_rules! engine_keys {
    ($(#[$m:meta])* $name:ident = $engine:ident, $schedule:path) => {
        $(#[$m])*
        #[derive(Clone)]
        pub(crate) struct $name {
            keys: RoundKeys,
        }

        impl $name {
            /// The engine these keys run on.
            #[inline]
            pub(crate) fn engine(&self) -> crate::fused::Engine {
                crate::fused::Engine::$engine
            }

            /// Expands `key`; `None` if the CPU lacks the engine's features, the key length is
            /// not an AES one, or `E_K(0)` differs from `h` (compared in constant time).
            pub(crate) fn new(key: &[u8], h: &[u8; 16]) -> Option<Self> {
                if !available() {
                    return None;
                }
                $schedule(key, h).map(|keys| Self { keys })
            }

            /// Encrypts `buffer`; returns the full tag.
            #[inline]
            pub(crate) fn seal(&self, key: &Key, j0: &[u8; 16], aad: &[u8], buffer: InOutBuf<'_, '_, u8>) -> [u8; 16] {
                let len = buffer.len();
                let (inp, out) = buffer.into_raw();
                // SAFETY: a key value exists only after `available()` succeeded (`new`);
                // `InOutBuf` guarantees `len` valid bytes at `inp` and `out`, equal or
                // disjoint; `rounds` comes from our key schedule.
                unsafe { aead::<true>(&self.keys, key, j0, aad, inp, out, len) }
            }

            /// Decrypts `buffer` in place in one pass; returns the expected full tag.
            #[inline]
            pub(crate) fn open_in_place(&self, key: &Key, j0: &[u8; 16], aad: &[u8], buffer: &mut [u8]) -> [u8; 16] {
                let p = buffer.as_mut_ptr();
                // SAFETY: detection as in `seal`; one buffer, read and written in place.
                unsafe { aead::<false>(&self.keys, key, j0, aad, p, p, buffer.len()) }
            }

            /// The keystream from `inc32(J0)` XORed over `buffer`.
            #[inline]
            pub(crate) fn ctr_in_place(&self, j0: &[u8; 16], buffer: &mut [u8]) {
                let p = buffer.as_mut_ptr();
                // SAFETY: detection as in `seal`; one buffer, in place.
                unsafe { ctr(&self.keys, j0, p, p, buffer.len()) }
            }

            /// The keystream from `inc32(J0)` XORed over the input, written to the output.
            #[inline]
            pub(crate) fn ctr(&self, j0: &[u8; 16], buffer: InOutBuf<'_, '_, u8>) {
                let len = buffer.len();
                let (inp, out) = buffer.into_raw();
                // SAFETY: detection as in `seal`; `InOutBuf` guarantees the pointers.
                unsafe { ctr(&self.keys, j0, inp, out, len) }
            }

            /// The expected full tag of `(aad, ct)`, without decrypting.
            #[inline]
            pub(crate) fn tag(&self, key: &Key, j0: &[u8; 16], aad: &[u8], ct: &[u8]) -> [u8; 16] {
                // SAFETY: detection as in `seal`.
                unsafe { tag_only(&self.keys, key, j0, aad, ct) }
            }
        }
    };
}
pub(crate) use engine_keys;
