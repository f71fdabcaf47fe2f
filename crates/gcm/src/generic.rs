//! The generic two-pass path's CTR, checked against a one-block-at-a-time reference: the path
//! itself is `aead_engines::generic::cipher05::GcmKey` (shared with the other generation).

/// The reference check of the counter, shared with the other generation's generic path.
#[cfg(all(test, feature = "aes"))]
#[path = "../tests/suite/ctr32.rs"]
mod ctr32;

#[cfg(all(test, feature = "aes"))]
mod tests {
    use super::ctr32;
    use aead_engines::Counter32;
    use aes::Aes128;
    use cipher::{BlockCipherEncrypt, KeyInit};

    #[test]
    fn counter_wraps_in_32_bits() {
        let cipher = Aes128::new(&[7u8; 16].into());
        ctr32::counter_wraps_in_32_bits(&|b| cipher.encrypt_block(b.into()), &|j0, data| {
            let first = Counter32::Gcm.add(j0, 1);
            aead_engines::generic::cipher05::apply_keystream(
                &cipher,
                Counter32::Gcm,
                &first,
                data.into(),
            )
        });
    }
}
