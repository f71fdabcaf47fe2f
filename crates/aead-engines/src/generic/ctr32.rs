//! GCM's counter mode against a one-block-at-a-time reference, for each generation's generic
//! two-pass path (`apply_keystream`, whose CTR loop uses that generation's `cipher` traits):
//! the `aes` crate's 0.9 (`cipher` 0.5) and 0.8 (`cipher` 0.4) as the block cipher.

use crate::ctr::Counter32;
use std::vec::Vec;

/// One block at a time: `out[i] = in[i] ^ E_K(prefix || (ctr0 + 1 + i/16 mod 2^32))`.
fn naive(encrypt_block: &dyn Fn(&mut [u8; 16]), j0: &[u8; 16], data: &mut [u8]) {
    let mut ctr = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
    for chunk in data.chunks_mut(16) {
        ctr = ctr.wrapping_add(1);
        let mut ks = *j0;
        ks[12..].copy_from_slice(&ctr.to_be_bytes());
        encrypt_block(&mut ks);
        for (d, k) in chunk.iter_mut().zip(ks.iter()) {
            *d ^= k;
        }
    }
}

/// The counter is 32 bits and wraps without carrying into the nonce bytes (SP 800-38D inc32),
/// across batch boundaries. Reachable only with non-96-bit nonces (J0 from GHASH), so it is
/// hard to hit through the public API on purpose: hunts a 64- or 128-bit increment and a
/// counter lost between a batch and the tail. `apply_keystream(j0, data)` is the code under
/// test, `encrypt_block` the same AES key's single-block encryption.
fn counter_wraps_in_32_bits(
    encrypt_block: &dyn Fn(&mut [u8; 16]),
    apply_keystream: &dyn Fn(&[u8; 16], &mut [u8]),
) {
    for low in [0xffff_fff0u32, 0xffff_fffe, 0xffff_ffff, 0] {
        let mut j0 = [0xab; 16];
        j0[12..].copy_from_slice(&low.to_be_bytes());
        for len in [0, 1, 16, 17, 47, 128, 129, 500] {
            let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut expected = data.clone();
            naive(encrypt_block, &j0, &mut expected);
            let mut got = data.clone();
            apply_keystream(&j0, &mut got);
            assert_eq!(got, expected, "low {low:#x}, len {len}");
        }
    }
}

#[cfg(feature = "cipher-0.5")]
#[test]
fn counter_wraps_in_32_bits_cipher05() {
    use aes::Aes128;
    use cipher05::{BlockCipherEncrypt, KeyInit};
    let cipher = Aes128::new(&[7u8; 16].into());
    counter_wraps_in_32_bits(&|b| cipher.encrypt_block(b.into()), &|j0, data| {
        let first = Counter32::Gcm.add(j0, 1);
        super::cipher05::apply_keystream(&cipher, Counter32::Gcm, &first, data.into())
    });
}

#[cfg(feature = "cipher-0.4")]
#[test]
fn counter_wraps_in_32_bits_cipher04() {
    use aes08::Aes128;
    use cipher04::{BlockEncrypt, KeyInit};
    let cipher = Aes128::new(&[7u8; 16].into());
    counter_wraps_in_32_bits(&|b| cipher.encrypt_block(b.into()), &|j0, data| {
        let first = Counter32::Gcm.add(j0, 1);
        super::cipher04::apply_keystream(&cipher, Counter32::Gcm, &first, data.into())
    });
}
