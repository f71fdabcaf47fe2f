//! `AesGcm` 0.10 is generic over any 128-bit `BlockEncrypt` (cipher 0.4): wrappers of AES whose
//! backends report odd batch sizes (1, 2, 3, 7, 9, 16, 31), run against `Aes128Gcm` by
//! `suite::block_cipher` (see there for what it hunts). Also `Aes128Enc` as the cipher, and
//! `From<Aes>` against `KeyInit`.

use super::Wrap;
use crate::suite::{block_cipher::same_as_reference, bytes, rng};
use aes::{Aes128, Aes128Enc};
use aes_gcm::{
    Aes128Gcm, AesGcm,
    aead::{
        AeadInPlace, KeyInit,
        consts::{U1, U2, U3, U7, U9, U12, U16, U31},
        generic_array::{ArrayLength, GenericArray},
    },
};
use cipher::{
    Block, BlockBackend, BlockCipher, BlockClosure, BlockEncrypt, BlockSizeUser, KeySizeUser,
    ParBlocksSizeUser, inout::InOut,
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

impl<P> BlockCipher for OddBatch<P> {}

impl<P: ArrayLength<GenericArray<u8, U16>>> BlockEncrypt for OddBatch<P> {
    fn encrypt_with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
        f.call(&mut OddBackend::<P>(&self.0, PhantomData));
    }
}

struct OddBackend<'a, P>(&'a Aes128, PhantomData<P>);

impl<P> BlockSizeUser for OddBackend<'_, P> {
    type BlockSize = U16;
}

impl<P: ArrayLength<GenericArray<u8, U16>>> ParBlocksSizeUser for OddBackend<'_, P> {
    type ParBlocksSize = P;
}

impl<P: ArrayLength<GenericArray<u8, U16>>> BlockBackend for OddBackend<'_, P> {
    fn proc_block(&mut self, block: InOut<'_, '_, Block<Self>>) {
        self.0.encrypt_block_inout(block);
    }
}

fn check_cipher<C>(name: &str)
where
    C: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Sync,
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

/// `From<Aes>` (the two-pass path, no key to expand) and `KeyInit` (a fused engine where the
/// CPU has one) give the same bytes.
pub fn from_cipher_equals_new() {
    let mut rng = rng(51);
    let key = bytes(&mut rng, 16);
    let from: AesGcm<Aes128, U12> = AesGcm::from(Aes128::new_from_slice(&key).expect("key"));
    let new = Aes128Gcm::new_from_slice(&key).expect("key");
    let nonce = GenericArray::clone_from_slice(&bytes(&mut rng, 12));
    let pt = bytes(&mut rng, 100);
    let (mut a, mut b) = (pt.clone(), pt.clone());
    let ta = from.encrypt_in_place_detached(&nonce, b"ad", &mut a);
    let tb = new.encrypt_in_place_detached(&nonce, b"ad", &mut b);
    assert_eq!((a, ta), (b, tb));
}
