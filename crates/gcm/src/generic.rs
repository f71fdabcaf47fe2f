//! The generic two-pass path, for any 128-bit block cipher.
//!
//! Encryption: the CTR keystream over the whole buffer, then GHASH over the whole ciphertext.
//! Decryption: GHASH over the whole ciphertext, the constant-time tag check, and only then the
//! keystream. Two passes over the data, each at full width:
//!
//! - **CTR.** The keystream comes from the cipher's own parallel backend
//!   ([`BlockCipherEncrypt::encrypt_with_backend`]): counter blocks are generated in batches of
//!   the backend's `ParBlocksSize` (8 for AES-NI and ARMv8, 30 for VAES in the `aes` crate) and
//!   encrypted with one `encrypt_par_blocks` call, so the AES rounds of a batch pipeline. The
//!   whole tail (the last partial batch and a partial final block) is one more batch.
//! - **GHASH.** Associated data and ciphertext each go to the GHASH state in one
//!   `update_padded` call, i.e. to the wide kernel's aggregated-reduction loop.
//!
//! # The contract a fused kernel must keep
//!
//! A fused AES-CTR+GHASH kernel replacing this path (at `AesGcm::seal`/`AesGcm::open`) must
//! produce the same bytes (keystream from `inc32(J0)`, 32-bit big-endian counter wrapping mod
//! 2^32, tag mask `E_K(J0)`), and, in decryption, must not leave plaintext in the buffer when
//! the tag does not match: an in-place kernel that decrypts while hashing has to re-encrypt on
//! failure, and an out-of-place output must not be written at all before the tag is checked
//! (its previous contents cannot be restored).

use crate::{Block, Error};
use aead::inout::InOutBuf;
use aead_engines::{ghash_tag, tag_matches};
use cipher::{
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, ParBlocks,
    consts::U16, typenum::Unsigned,
};
use ghash::GHash;

/// Encrypts `buffer` (input to output) with the keystream from `inc32(J0)` and returns the full
/// tag over the ciphertext.
pub(crate) fn seal<C>(
    cipher: &C,
    ghash: &GHash,
    j0: &Block,
    associated_data: &[u8],
    mut buffer: InOutBuf<'_, '_, u8>,
) -> Block
where
    C: BlockCipherEncrypt<BlockSize = U16>,
{
    let mask = tag_mask(cipher, j0);
    apply_keystream(cipher, j0, buffer.reborrow());
    ghash_tag(ghash.__core(), associated_data, buffer.get_out(), &mask.0).into()
}

/// Checks the tag over the input of `buffer` and, only on success, decrypts it to the output.
pub(crate) fn open<C>(
    cipher: &C,
    ghash: &GHash,
    j0: &Block,
    associated_data: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
    tag: &[u8],
) -> Result<(), Error>
where
    C: BlockCipherEncrypt<BlockSize = U16>,
{
    let mask = tag_mask(cipher, j0);
    let expected = ghash_tag(ghash.__core(), associated_data, buffer.get_in(), &mask.0);
    if tag_matches(&expected, tag) {
        apply_keystream(cipher, j0, buffer);
        Ok(())
    } else {
        Err(Error)
    }
}

/// `E_K(J0)`, the block XORed into the GHASH output to make the tag.
#[inline]
fn tag_mask<C: BlockCipherEncrypt<BlockSize = U16>>(cipher: &C, j0: &Block) -> Block {
    let mut mask = *j0;
    cipher.encrypt_block(&mut mask);
    mask
}

/// XORs the CTR32-BE keystream starting at `inc32(J0)` into `buffer` (input to output).
///
/// At most `P_MAX / 16 < 2^32 - 1` blocks are ever requested, so the counter never comes back
/// to J0 (whose encryption is the tag mask).
#[inline]
pub(crate) fn apply_keystream<C: BlockCipherEncrypt<BlockSize = U16>>(
    cipher: &C,
    j0: &Block,
    buffer: InOutBuf<'_, '_, u8>,
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

/// The CTR loop, run inside the cipher's backend (a rank-2 closure: `call` is generic over the
/// backend type, so its `ParBlocksSize` and its `#[target_feature]` context are known).
struct Ctr32<'i, 'o> {
    /// The first 12 bytes of every counter block (J0's).
    prefix: [u8; 12],
    /// The 32-bit counter of the next block.
    counter: u32,
    /// The data, read from its input and written to its output.
    buffer: InOutBuf<'i, 'o, u8>,
}

impl BlockSizeUser for Ctr32<'_, '_> {
    type BlockSize = U16;
}

impl Ctr32<'_, '_> {
    /// Writes the next `blocks.len()` counter blocks into `blocks`.
    #[inline(always)]
    fn fill(prefix: &[u8; 12], counter: &mut u32, blocks: &mut [Block]) {
        for block in blocks {
            block[..12].copy_from_slice(prefix);
            block[12..].copy_from_slice(&counter.to_be_bytes());
            *counter = counter.wrapping_add(1);
        }
    }
}

impl BlockCipherEncClosure for Ctr32<'_, '_> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
        let Self {
            prefix,
            mut counter,
            buffer,
        } = self;
        let mut ks = ParBlocks::<B>::default();

        let (blocks, mut partial) = buffer.into_chunks::<U16>();
        let (batches, rest) = blocks.into_chunks::<B::ParBlocksSize>();

        // Whole batches: one parallel encryption of ParBlocksSize counter blocks each.
        for mut batch in batches {
            Self::fill(&prefix, &mut counter, &mut ks);
            backend.encrypt_par_blocks_inplace(&mut ks);
            batch.xor_in2out(&ks);
        }

        // The tail: fewer than ParBlocksSize whole blocks, plus a partial block if any, as one
        // last batch (at most ParBlocksSize blocks in all).
        let n = rest.len() + usize::from(!partial.is_empty());
        if n == 0 {
            return;
        }
        if n == B::ParBlocksSize::USIZE {
            // `encrypt_tail_blocks` takes fewer than ParBlocksSize blocks; this is a full batch.
            Self::fill(&prefix, &mut counter, &mut ks);
            backend.encrypt_par_blocks_inplace(&mut ks);
        } else {
            Self::fill(&prefix, &mut counter, &mut ks[..n]);
            backend.encrypt_tail_blocks_inplace(&mut ks[..n]);
        }
        let (whole, last) = ks[..n].split_at(rest.len());
        for (mut block, k) in rest.into_iter().zip(whole) {
            block.xor_in2out(k);
        }
        if let Some(k) = last.first() {
            partial.xor_in2out(&k[..partial.len()]);
        }
    }
}

/// The reference check of the counter, shared with the other generation's generic path.
#[cfg(all(test, feature = "aes"))]
#[path = "../tests/suite/ctr32.rs"]
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
            apply_keystream(&cipher, &Block::from(*j0), data.into())
        });
    }
}
