//! The generic two-pass path, for any 128-bit block cipher.
//!
//! Encryption: the CTR keystream over the whole buffer, then GHASH over the whole ciphertext.
//! Decryption: GHASH over the whole ciphertext, the constant-time tag check, and only then the
//! keystream. Two passes over the data, each at full width:
//!
//! - **CTR.** The keystream comes from the cipher's own parallel backend
//!   ([`BlockCipherEncrypt::encrypt_with_backend`], through `aead_engines::generic`): counter blocks
//!   are generated in batches of the backend's `ParBlocksSize` (8 for AES-NI and ARMv8, 30 for
//!   VAES in the `aes` crate) and encrypted with one parallel call, so the AES rounds of a
//!   batch pipeline. The whole tail (the last partial batch and a partial final block) is one
//!   more batch.
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
use aead_engines::{Counter32, ghash_tag, tag_matches};
use cipher::{BlockCipherEncrypt, consts::U16};
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

/// XORs the CTR32-BE keystream starting at `inc32(J0)` into `buffer` (input to output), with
/// the cipher's own parallel backend (`aead_engines::generic`, shared with the other generation
/// and with AES-GCM-SIV).
///
/// At most `P_MAX / 16 < 2^32 - 1` blocks are ever requested, so the counter never comes back
/// to J0 (whose encryption is the tag mask).
#[inline]
pub(crate) fn apply_keystream<C: BlockCipherEncrypt<BlockSize = U16>>(
    cipher: &C,
    j0: &Block,
    buffer: InOutBuf<'_, '_, u8>,
) {
    let first = Counter32::Gcm.add(&j0.0, 1);
    aead_engines::generic::cipher05::apply_keystream(cipher, Counter32::Gcm, &first, buffer);
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
