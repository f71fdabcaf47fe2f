//! The generic paths' glue to each `cipher` generation: CTR over any 128-bit block cipher, and
//! AES-GCM-SIV's key-generating key and per-message AES over any such cipher (the
//! [`crate::siv`] traits). Behind the features `cipher-0.4` (module `cipher04`: our `aes-gcm`
//! 0.10 and `aes-gcm-siv` 0.11) and `cipher-0.5` (module `cipher05`: our `aes-gcm` 0.11 and
//! `aes-gcm-siv` 0.12).
//!
//! The two generations' traits differ in their names only (and in whether a backend is
//! borrowed mutably), so each module is one expansion of `glue!` over those names.
//!
//! # CTR
//!
//! Counter blocks ([`crate::ctr::Counter32`]: GCM's or SIV's) are generated in batches of the
//! cipher backend's `ParBlocksSize` (8 for AES-NI and ARMv8, 30 for VAES in the `aes` crate)
//! and encrypted with one parallel call, so the AES rounds of a batch pipeline; the whole tail
//! (the last partial batch and a partial final block) is one more batch, through the backend's
//! tail call.
//!
//! # AES-GCM-SIV
//!
//! `SivGeneric` is the key-generating key: it encrypts the derivation blocks with the caller's
//! cipher and builds each message's AES with `Aes::new` (a key schedule per message, as
//! upstream does) and POLYVAL on `clmul_core`'s keyed state (H^2..H^4 at setup, higher powers
//! as the message needs them), as a `GenericMessage`.

/// Defines the module `$module` for the `cipher` crate `$cipher`, whose traits go by the names
/// given.
#[cfg(any(feature = "cipher-0.5", feature = "cipher-0.4"))]
macro_rules! glue {
    (
        $(#[$doc:meta])*
        $module:ident: $cipher:ident {
            encrypt: $Encrypt:ident,
            closure: $Closure:ident,
            backend: $Backend:ident, &$($mut:ident)?,
            par: $par:ident,
            tail: $tail:ident $(,)?
        }
    ) => {
        $(#[$doc])*
        pub mod $module {
            use crate::ctr::{Blocks, Counter32, fill, xor};
            use crate::siv::{NONCE_LEN, SivKeys, SivMessage, wipe};
            use clmul_core::{Backend, Polyval};
            use inout::InOutBuf;
            use $cipher::{
                $Backend, $Closure, $Encrypt, Block, BlockSizeUser, Key, KeyInit, ParBlocks,
                consts::U16,
                typenum::Unsigned,
            };

            /// XORs the CTR keystream of `cipher` from counter block `first` into `buffer`
            /// (input to output).
            #[inline]
            pub fn apply_keystream<C: $Encrypt<BlockSize = U16>>(
                cipher: &C,
                flavor: Counter32,
                first: &[u8; 16],
                buffer: InOutBuf<'_, '_, u8>,
            ) {
                if !buffer.is_empty() {
                    let blocks = Blocks::new(flavor, first);
                    cipher.encrypt_with_backend(Ctr { blocks, buffer });
                }
            }

            /// The loop, run inside the cipher's backend (a rank-2 closure: `call` is generic
            /// over the backend type, so its `ParBlocksSize` and its `#[target_feature]`
            /// context are known).
            struct Ctr<'i, 'o> {
                blocks: Blocks,
                buffer: InOutBuf<'i, 'o, u8>,
            }

            impl BlockSizeUser for Ctr<'_, '_> {
                type BlockSize = U16;
            }

            impl $Closure for Ctr<'_, '_> {
                #[inline(always)]
                fn call<B: $Backend<BlockSize = U16>>(self, backend: &$($mut)? B) {
                    let Self {
                        mut blocks,
                        mut buffer,
                    } = self;
                    let mut ks = ParBlocks::<B>::default();
                    while !buffer.is_empty() {
                        let n = fill(&mut blocks, &mut ks, buffer.len());
                        if n == B::ParBlocksSize::USIZE {
                            backend.$par(&mut ks);
                        } else {
                            // Takes fewer than ParBlocksSize blocks.
                            backend.$tail(&mut ks[..n]);
                        }
                        buffer = xor(&ks[..n], buffer);
                    }
                }
            }

            /// Encrypts each of `blocks` in place, one call to the cipher per block.
            #[inline]
            fn encrypt_each<C: $Encrypt<BlockSize = U16>>(cipher: &C, blocks: &mut [[u8; 16]]) {
                for b in blocks {
                    let mut block = Block::<C>::from(*b);
                    cipher.encrypt_block(&mut block);
                    *b = block.into();
                }
            }

            /// AES-GCM-SIV's key-generating key: any block cipher of this generation, and the
            /// POLYVAL backend of its messages.
            pub struct SivGeneric<'a, C> {
                /// The key-generating key.
                pub cipher: &'a C,
                /// A backend this CPU runs.
                pub backend: Backend,
            }

            /// One AES-GCM-SIV message's keys: the cipher keyed with the derived key, and
            /// POLYVAL keyed with the other.
            pub struct GenericMessage<C> {
                cipher: C,
                polyval: Polyval,
            }

            impl<C: $Encrypt<BlockSize = U16>> SivMessage for GenericMessage<C> {
                #[inline]
                fn encrypt_block(&self, block: &mut [u8; 16]) {
                    encrypt_each(&self.cipher, core::slice::from_mut(block));
                }

                #[inline]
                fn ctr(&self, counter_block: &[u8; 16], buffer: InOutBuf<'_, '_, u8>) {
                    apply_keystream(&self.cipher, Counter32::Siv, counter_block, buffer);
                }

                #[inline]
                fn polyval(&self) -> Polyval {
                    self.polyval.clone()
                }
            }

            impl<C: $Encrypt<BlockSize = U16> + KeyInit> SivKeys for SivGeneric<'_, C> {
                type Message = GenericMessage<C>;

                #[inline]
                fn key_len(&self) -> usize {
                    <C::KeySize as Unsigned>::USIZE
                }

                #[inline]
                fn encrypt_derivation(&self, blocks: &mut [[u8; 16]]) {
                    encrypt_each(self.cipher, blocks);
                }

                #[inline]
                fn with_message<R>(
                    &self,
                    _nonce: &[u8; NONCE_LEN],
                    derive: impl FnOnce(&mut [u8], &mut [u8; 16]),
                    f: impl FnOnce(&GenericMessage<C>) -> R,
                ) -> R {
                    let (mut key, mut mac) = (Key::<C>::default(), [0u8; 16]);
                    derive(&mut key[..], &mut mac);
                    let cipher = C::new(&key);
                    let polyval = Polyval::with_backend(&mac, self.backend)
                        .unwrap_or_else(|| Polyval::new(&mac));
                    wipe(&mut key[..]);
                    wipe(&mut mac);
                    f(&GenericMessage { cipher, polyval })
                }
            }
        }
    };
}

#[cfg(feature = "cipher-0.5")]
glue! {
    /// The `cipher` 0.5 generation (`aead` 0.6: our `aes-gcm` 0.11 and `aes-gcm-siv` 0.12).
    cipher05: cipher05 {
        encrypt: BlockCipherEncrypt,
        closure: BlockCipherEncClosure,
        backend: BlockCipherEncBackend, &,
        par: encrypt_par_blocks_inplace,
        tail: encrypt_tail_blocks_inplace,
    }
}

#[cfg(feature = "cipher-0.4")]
glue! {
    /// The `cipher` 0.4 generation (`aead` 0.5: our `aes-gcm` 0.10 and `aes-gcm-siv` 0.11).
    cipher04: cipher04 {
        encrypt: BlockEncrypt,
        closure: BlockClosure,
        backend: BlockBackend, &mut,
        par: proc_par_blocks_inplace,
        tail: proc_tail_blocks_inplace,
    }
}
