//! The generic two-pass path, for any 128-bit block cipher of the `cipher` 0.4 generation.
//!
//! Encryption: the CTR keystream over the whole buffer, then GHASH over the whole ciphertext.
//! Decryption: GHASH over the whole ciphertext, the constant-time tag check, and only then the
//! keystream, so a refused message leaves the buffer untouched.
//!
//! - **CTR.** The keystream comes from the cipher's own parallel backend
//!   ([`BlockEncrypt::encrypt_with_backend`]): counter blocks are generated in batches of the
//!   backend's `ParBlocksSize` and encrypted with one `proc_par_blocks_inplace` call, so the
//!   AES rounds of a batch pipeline; a last, shorter batch goes through
//!   `proc_tail_blocks_inplace`.
//! - **GHASH.** Associated data and ciphertext each go to the wide kernel in one call
//!   (`aead_engines::ghash_tag`, shared with our `aes-gcm` 0.11).
//!
//! At most 2^32 - 2 blocks are ever requested (the crate's length check), so the 32-bit
//! counter never comes back to J0, whose encryption is the tag mask.

use crate::{Block, Error};
use aead_engines::{ghash_tag, tag_matches};
use cipher::{
    BlockBackend, BlockClosure, BlockEncrypt, BlockSizeUser, ParBlocks, consts::U16,
    typenum::Unsigned,
};
use ghash::GHash;

/// Encrypts `buffer` in place with the keystream from `inc32(J0)` and returns the full tag over
/// the ciphertext.
pub(crate) fn seal<C>(
    cipher: &C,
    ghash: &GHash,
    j0: &[u8; 16],
    associated_data: &[u8],
    buffer: &mut [u8],
) -> [u8; 16]
where
    C: BlockEncrypt<BlockSize = U16>,
{
    let mask = tag_mask(cipher, j0);
    apply_keystream(cipher, j0, buffer);
    ghash_tag(ghash.__core(), associated_data, buffer, &mask)
}

/// Checks `tag` against the ciphertext in `buffer` and, only on success, decrypts it in place.
pub(crate) fn open<C>(
    cipher: &C,
    ghash: &GHash,
    j0: &[u8; 16],
    associated_data: &[u8],
    buffer: &mut [u8],
    tag: &[u8],
) -> Result<(), Error>
where
    C: BlockEncrypt<BlockSize = U16>,
{
    let mask = tag_mask(cipher, j0);
    let expected = ghash_tag(ghash.__core(), associated_data, buffer, &mask);
    if tag_matches(&expected, tag) {
        apply_keystream(cipher, j0, buffer);
        Ok(())
    } else {
        Err(Error)
    }
}

/// `E_K(J0)`, the block XORed into the GHASH output to make the tag.
#[inline]
fn tag_mask<C: BlockEncrypt<BlockSize = U16>>(cipher: &C, j0: &[u8; 16]) -> [u8; 16] {
    let mut mask = Block::from(*j0);
    cipher.encrypt_block(&mut mask);
    mask.into()
}

/// XORs the CTR32-BE keystream starting at `inc32(J0)` into `buffer`.
#[inline]
pub(crate) fn apply_keystream<C: BlockEncrypt<BlockSize = U16>>(
    cipher: &C,
    j0: &[u8; 16],
    buffer: &mut [u8],
) {
    if buffer.is_empty() {
        return;
    }
    let mut prefix = [0u8; 12];
    prefix.copy_from_slice(&j0[..12]);
    let counter = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
    cipher.encrypt_with_backend(Ctr32 {
        prefix,
        counter,
        buffer,
    });
}

/// The CTR loop, run inside the cipher's backend (`call` is generic over the backend type, so
/// its `ParBlocksSize` and its `#[target_feature]` context are known).
struct Ctr32<'a> {
    /// The first 12 bytes of every counter block (J0's).
    prefix: [u8; 12],
    /// The 32-bit counter of the next block.
    counter: u32,
    /// The data, XORed in place.
    buffer: &'a mut [u8],
}

impl BlockSizeUser for Ctr32<'_> {
    type BlockSize = U16;
}

impl BlockClosure for Ctr32<'_> {
    #[inline(always)]
    fn call<B: BlockBackend<BlockSize = Self::BlockSize>>(self, backend: &mut B) {
        let Self {
            prefix,
            mut counter,
            buffer,
        } = self;
        let par = B::ParBlocksSize::USIZE;
        let mut ks = ParBlocks::<B>::default();
        for chunk in buffer.chunks_mut(16 * par) {
            // Whole batches in parallel; the last, shorter one through the tail call, which
            // takes fewer than `ParBlocksSize` blocks.
            let n = chunk.len().div_ceil(16);
            for block in &mut ks[..n] {
                block[..12].copy_from_slice(&prefix);
                block[12..].copy_from_slice(&counter.to_be_bytes());
                counter = counter.wrapping_add(1);
            }
            if n == par {
                backend.proc_par_blocks_inplace(&mut ks);
            } else {
                backend.proc_tail_blocks_inplace(&mut ks[..n]);
            }
            for (d, k) in chunk.iter_mut().zip(ks.iter().flatten()) {
                *d ^= k;
            }
        }
    }
}

/// The reference check of the counter, shared with the other generation's generic path.
#[cfg(all(test, feature = "aes"))]
#[path = "../../../crates/gcm/tests/suite/ctr32.rs"]
mod ctr32;

#[cfg(all(test, feature = "aes"))]
mod tests {
    use super::*;
    use aes::Aes128;
    use cipher::KeyInit;

    use super::ctr32;

    #[test]
    fn counter_wraps_in_32_bits() {
        let cipher = Aes128::new(&[7u8; 16].into());
        ctr32::counter_wraps_in_32_bits(&|b| cipher.encrypt_block(b.into()), &|j0, data| {
            apply_keystream(&cipher, j0, data)
        });
    }
}
