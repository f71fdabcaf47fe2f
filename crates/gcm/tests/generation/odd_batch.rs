//! `AesGcm` 0.11 is generic over any 128-bit `BlockCipherEncrypt` (cipher 0.5): wrappers of AES
//! whose backends report odd batch sizes (1, 2, 3, 7, 9, 16, 31), run against `Aes128Gcm` by
//! `suite::block_cipher` (see there for what it hunts). Also `&Aes128` and `Aes128Enc` as
//! ciphers.

use super::Wrap;
use crate::suite::{block_cipher::same_as_reference, bytes, rng};
use aes::{Aes128, Aes128Enc};
use aes_gcm::{
    Aes128Gcm, AesGcm,
    aead::{
        AeadInOut, KeyInit,
        array::{
            ArraySize,
            typenum::{U1, U2, U3, U7, U9, U12, U16, U31},
        },
    },
};
use cipher::{
    Block, BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser,
    KeySizeUser, ParBlocksSizeUser, inout::InOut,
};
use core::marker::PhantomData;

/// AES-128 whose backend claims to encrypt `P` blocks in parallel (it does them one by one).
#[derive(Clone)]
struct OddBatch<P>(Aes128, PhantomData<P>);

impl<P> KeySizeUser for OddBatch<P> {
    type KeySize = U16;
}

impl<P> KeyInit for OddBatch<P> {
    fn new(key: &cipher::Key<Self>) -> Self {
        Self(Aes128::new(key), PhantomData)
    }
}

impl<P> BlockSizeUser for OddBatch<P> {
    type BlockSize = U16;
}

impl<P: ArraySize> BlockCipherEncrypt for OddBatch<P> {
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        f.call(&OddBackend::<P>(&self.0, PhantomData));
    }
}

struct OddBackend<'a, P>(&'a Aes128, PhantomData<P>);

impl<P> BlockSizeUser for OddBackend<'_, P> {
    type BlockSize = U16;
}

impl<P: ArraySize> ParBlocksSizeUser for OddBackend<'_, P> {
    type ParBlocksSize = P;
}

impl<P: ArraySize> BlockCipherEncBackend for OddBackend<'_, P> {
    fn encrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        self.0.encrypt_block_inout(block);
    }
}

fn check_cipher<C>(name: &str)
where
    C: BlockCipherEncrypt<BlockSize = U16> + KeyInit + Sync,
{
    let key = bytes(&mut rng(50), 16);
    let reference = Wrap::reference(Aes128Gcm::new_from_slice(&key).expect("key"));
    let gcm = Wrap::reference(AesGcm::<C, U12>::new_from_slice(&key).expect("key"));
    same_as_reference(name, &key, &reference, &gcm);
}

pub fn odd_parallel_batch_sizes() {
    check_cipher::<OddBatch<U1>>("batch 1");
    check_cipher::<OddBatch<U2>>("batch 2");
    check_cipher::<OddBatch<U3>>("batch 3");
    check_cipher::<OddBatch<U7>>("batch 7");
    check_cipher::<OddBatch<U9>>("batch 9");
    check_cipher::<OddBatch<U16>>("batch 16");
    check_cipher::<OddBatch<U31>>("batch 31");
}

pub fn encrypt_only_aes() {
    check_cipher::<Aes128Enc>("Aes128Enc");
}

/// A borrowed cipher (`&Aes128: BlockCipherEncrypt`) through `From`.
pub fn borrowed_cipher_via_from() {
    let mut rng = rng(51);
    let key = bytes(&mut rng, 16);
    let aes = Aes128::new_from_slice(&key).expect("key");
    let borrowed: AesGcm<&Aes128, U12> = AesGcm::from(&aes);
    let owned = Aes128Gcm::new_from_slice(&key).expect("key");
    let nonce = bytes(&mut rng, 12).as_slice().try_into().expect("nonce");
    let pt = bytes(&mut rng, 100);
    let (mut a, mut b) = (pt.clone(), pt.clone());
    let ta = borrowed
        .encrypt_inout_detached(&nonce, b"ad", a.as_mut_slice().into())
        .expect("encrypt");
    let tb = owned
        .encrypt_inout_detached(&nonce, b"ad", b.as_mut_slice().into())
        .expect("encrypt");
    assert_eq!((a, ta), (b, tb));
}
