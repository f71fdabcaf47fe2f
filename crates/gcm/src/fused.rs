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

use crate::{Block, Error, tag_matches};
use aead::inout::InOutBuf;

#[cfg(target_arch = "x86_64")]
use crate::x86::vaes512::Vaes512;

/// A fused kernel family. Not a stable API: for our tests, benches and fuzzers.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// The generic two-pass path (any block cipher): CTR with the cipher, then GHASH.
    Generic,
    /// VAES + VPCLMULQDQ on 512-bit registers, 16 blocks per iteration.
    #[cfg(target_arch = "x86_64")]
    Vaes512,
}

impl Engine {
    /// Every engine compiled for this target, generic first.
    pub const ALL: &'static [Engine] = &[
        Engine::Generic,
        #[cfg(target_arch = "x86_64")]
        Engine::Vaes512,
    ];

    /// Whether this CPU can run the engine.
    pub fn is_available(self) -> bool {
        match self {
            Engine::Generic => true,
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes512 => crate::x86::vaes512::available() && crate::x86::aesni::available(),
        }
    }

    /// The fastest engine this CPU can run for AES keys.
    pub fn detect() -> Engine {
        Self::ALL
            .iter()
            .copied()
            .filter(|e| e.is_available())
            .last()
            .unwrap_or(Engine::Generic)
    }
}

/// Round keys for one of the fused engines.
#[derive(Clone)]
pub(crate) enum Fused {
    #[cfg(target_arch = "x86_64")]
    Vaes512(Vaes512),
}

impl Fused {
    /// The fused state for `engine` and AES key `key`, if the CPU runs `engine` and the key
    /// schedule agrees with the caller's cipher on `E_K(0) = h`.
    pub(crate) fn new(engine: Engine, key: &[u8], h: &Block) -> Option<Self> {
        let h: &[u8; 16] = h.as_ref();
        match engine {
            Engine::Generic => None,
            #[cfg(target_arch = "x86_64")]
            Engine::Vaes512 => Vaes512::new(key, h).map(Fused::Vaes512),
        }
    }

    pub(crate) fn engine(&self) -> Engine {
        match self {
            #[cfg(target_arch = "x86_64")]
            Fused::Vaes512(_) => Engine::Vaes512,
        }
    }

    /// Encrypts `buffer` and returns the full tag. `ghash` has its powers precomputed.
    pub(crate) fn seal(
        &self,
        ghash: &clmul_core::Ghash,
        j0: &Block,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> Block {
        let (key, _) = ghash.__key();
        match self {
            #[cfg(target_arch = "x86_64")]
            Fused::Vaes512(k) => k.seal(key, j0.as_ref(), aad, buffer).into(),
        }
    }

    /// Checks the tag and decrypts; on failure the buffer's output is as it was.
    pub(crate) fn open(
        &self,
        ghash: &clmul_core::Ghash,
        j0: &Block,
        aad: &[u8],
        mut buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> Result<(), Error> {
        let (key, _) = ghash.__key();
        let j0: &[u8; 16] = j0.as_ref();
        let in_place = core::ptr::eq(buffer.get_in().as_ptr(), buffer.get_out().as_ptr());
        match self {
            #[cfg(target_arch = "x86_64")]
            Fused::Vaes512(k) => {
                if in_place {
                    let buf = buffer.get_out();
                    let expected: Block = k.open_in_place(key, j0, aad, buf).into();
                    if tag_matches(&expected, tag) {
                        return Ok(());
                    }
                    // Undo the decryption: the same keystream over the plaintext gives back
                    // the ciphertext, byte for byte.
                    k.ctr_in_place(j0, buf);
                    Err(Error)
                } else {
                    let expected: Block = k.tag(key, j0, aad, buffer.get_in()).into();
                    if !tag_matches(&expected, tag) {
                        return Err(Error);
                    }
                    k.ctr(j0, buffer);
                    Ok(())
                }
            }
        }
    }
}
