//! The two-pass path is generic over any 128-bit block cipher, and its CTR loop batches counter
//! blocks by the cipher backend's `ParBlocksSize`. Each generation's test target wraps AES in
//! ciphers whose backends report odd batch sizes (its `cipher` traits differ) and runs them
//! through [`same_as_reference`], over every length that straddles a batch: hunts off-by-one
//! errors in the batch/tail split (a tail of exactly `ParBlocksSize - 1` whole blocks plus a
//! partial block is a full batch), and counter increments lost between batches.

use super::{Gcm, bytes, rng};

/// `gcm` (AES-128 under `key`, some cipher type) against `reference` (our `Aes128Gcm` under
/// the same key): every length 0..=600, random nonces and associated data, both directions.
pub fn same_as_reference(name: &str, key: &[u8], reference: &dyn Gcm, gcm: &dyn Gcm) {
    let mut rng = rng(50 ^ key[0] as u64);
    let pt_all = bytes(&mut rng, 600);
    for len in 0..=600 {
        let nonce = bytes(&mut rng, 12);
        let aad = bytes(&mut rng, len % 19);
        let pt = &pt_all[..len];

        let mut a = pt.to_vec();
        let ta = reference.seal(&nonce, &aad, &mut a).expect("encrypt");
        let mut b = pt.to_vec();
        let tb = gcm.seal(&nonce, &aad, &mut b).expect("encrypt");
        assert_eq!(a, b, "{name}: ciphertext, len {len}");
        assert_eq!(ta, tb, "{name}: tag, len {len}");

        gcm.open(&nonce, &aad, &mut b, &tb).expect("decrypt");
        assert_eq!(b, pt, "{name}: plaintext, len {len}");
    }
}
