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

/// Defines [`Held`] with its field boxed where `$cond` holds and inline elsewhere (the
/// condition written once).
macro_rules! held {
    ($($cond:tt)+) => {
        /// The generic path's part of a key enum (`GcmKey`, `SivKey`): on the heap where the
        /// enum's fused variant is what keys normally hold (the `alloc` feature, on x86 and
        /// little-endian aarch64), so that the rarely used generic cipher does not make every
        /// key larger; inline where the generic path is the build's own (other architectures,
        /// which have no fused engine, and the forced-portable build,
        /// `--cfg polyval_backend="soft"`, whose `KeyInit` always picks it), so that a key
        /// there costs no allocation. Without `alloc`, inline everywhere.
        #[cfg(any(feature = "cipher-0.5", feature = "cipher-0.4"))]
        #[derive(Clone)]
        pub struct Held<T>(
            #[cfg($($cond)+)] alloc::boxed::Box<T>,
            #[cfg(not($($cond)+))] T,
        );
    };
}

held!(all(
    feature = "alloc",
    any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    ),
    not(polyval_backend = "soft")
));

#[cfg(any(feature = "cipher-0.5", feature = "cipher-0.4"))]
impl<T> Held<T> {
    /// Holds `value`.
    #[inline]
    #[allow(
        clippy::useless_conversion,
        reason = "the identity where the field is inline, `Box::from` where it is boxed"
    )]
    pub fn new(value: T) -> Self {
        // `Box::from` or the value itself (`From<T> for T`), whichever the field is.
        Self(value.into())
    }
}

#[cfg(any(feature = "cipher-0.5", feature = "cipher-0.4"))]
impl<T> core::ops::Deref for Held<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

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
            use crate::fused::Secret16;
            use crate::siv::{NONCE_LEN, SivKeys, SivMessage, wipe};
            #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
            use crate::{Fused, siv::FusedSiv};
            use crate::{Engine, TagMismatch, ghash_tag, tag_matches};
            use super::Held;
            use clmul_core::{Backend, Ghash, Polyval};
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

            /// `E_K(0^128)` under the caller's cipher `C` for `key`, in `h`, unless
            /// `known_aes` (the `aes` crate's types, whose schedule needs no check): the block
            /// a fused key's own schedule must reproduce (`Fused::init`, `FusedSiv::init`).
            #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
            #[inline]
            fn check_block<'h, C: $Encrypt<BlockSize = U16> + KeyInit>(
                key: &Key<C>,
                known_aes: bool,
                h: &'h mut [u8; 16],
            ) -> Option<&'h [u8; 16]> {
                if known_aes {
                    return None;
                }
                encrypt_each(&C::new(key), core::slice::from_mut(h));
                Some(h)
            }

            /// AES-GCM's key over any block cipher of this generation: one of two kinds,
            /// never both, so that a key is no larger than RustCrypto's (the cipher and
            /// GHASH's key):
            ///
            /// - **Fused**: our own AES round keys and GHASH's key for a fused
            ///   AES-CTR+GHASH engine ([`Fused`]); the cipher instance is not kept.
            /// - **Generic**: the cipher, `H = E_K(0^128)` and the GHASH backend of the
            ///   two-pass path: CTR with the cipher's own parallel backend over the whole
            ///   buffer, then GHASH over the whole ciphertext in one call to the wide kernel
            ///   (decryption: GHASH, the constant-time tag check, and only then CTR). Each
            ///   message keys a GHASH state from `H`, which costs no multiply (its powers
            ///   are computed in the hash's registers).
            ///
            /// Both produce the same bytes (keystream from `inc32(J0)`, a 32-bit big-endian
            /// counter wrapping mod 2^32, tag mask `E_K(J0)`); a refused decryption leaves the
            /// output as it was. At most `2^32 - 2` blocks are ever requested (the crates'
            /// length checks), so the counter never comes back to J0.
            // Where `Held` boxes, the fused variant is the larger one (our round keys and
            // H^1..H^12, 496 bytes on x86_64, against a pointer); where it does not, the generic
            // one (352 bytes and more for the `aes` crate's types, 720 for the `aes` 0.8
            // generation's AES-128, whose cipher keeps a software schedule beside AES-NI's).
            #[allow(clippy::large_enum_variant)]
            #[derive(Clone)]
            pub enum GcmKey<C> {
                /// A fused engine's key (only where an engine exists: elsewhere a key is the
                /// generic path's alone, no larger than RustCrypto's).
                #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                Fused(Fused),
                /// The generic two-pass path's key, held by [`Held`]: on the heap where
                /// `KeyInit` keys are fused, so that a key is the fused state's size (with
                /// the `aes` 0.8 generation's ciphers, 736 and 992 bytes inline).
                Generic(Held<GcmGeneric<C>>),
            }

            /// The generic path's key: see [`GcmKey`].
            #[derive(Clone)]
            pub struct GcmGeneric<C> {
                cipher: C,
                h: Secret16,
                backend: Backend,
            }

            impl<C: $Encrypt<BlockSize = U16>> GcmKey<C> {
                /// The generic path's key for `cipher`, GHASH on the detected backend.
                pub fn from_cipher(cipher: C) -> Self {
                    let backend = Backend::detect();
                    Self::generic(cipher, backend)
                }

                /// The generic path's key with GHASH on `backend` (our tests'); `None` if
                /// this CPU cannot run it.
                pub fn with_backend(cipher: C, backend: Backend) -> Option<Self> {
                    backend.is_available().then(|| Self::generic(cipher, backend))
                }

                fn generic(cipher: C, backend: Backend) -> Self {
                    let mut h = [0u8; 16];
                    encrypt_each(&cipher, core::slice::from_mut(&mut h));
                    GcmKey::Generic(Held::new(GcmGeneric {
                        cipher,
                        h: Secret16(h),
                        backend,
                    }))
                }

                /// The engine this key runs on ([`Engine::Generic`] for the two-pass path).
                pub fn engine(&self) -> Engine {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        GcmKey::Fused(f) => f.engine(),
                        GcmKey::Generic(_) => Engine::Generic,
                    }
                }

                /// The engine a message of `len` bytes (AAD and text) would run on now
                /// (`Fused::engine_for`).
                pub fn engine_for(&self, len: usize) -> Engine {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        GcmKey::Fused(f) => f.engine_for(len),
                        GcmKey::Generic(_) => {
                            let _ = len;
                            Engine::Generic
                        }
                    }
                }

                /// The GHASH backend of the two-pass path (for a fused key, the one this CPU
                /// would give it).
                pub fn ghash_backend(&self) -> Backend {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        GcmKey::Fused(_) => Backend::detect(),
                        GcmKey::Generic(g) => g.backend,
                    }
                }

                /// Encrypts `buffer` (input to output) under `nonce` and returns the full
                /// 16-byte tag.
                #[inline]
                pub fn seal(
                    &self,
                    nonce: &[u8],
                    aad: &[u8],
                    mut buffer: InOutBuf<'_, '_, u8>,
                ) -> [u8; 16] {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        GcmKey::Fused(f) => f.seal(&f.j0(nonce), aad, buffer),
                        GcmKey::Generic(g) => {
                            let (ghash, first, mask) = g.message(nonce);
                            apply_keystream(&g.cipher, Counter32::Gcm, &first, buffer.reborrow());
                            ghash_tag(&ghash, aad, buffer.get_out(), &mask)
                        }
                    }
                }

                /// Checks `tag` (a prefix of the full tag, in constant time) against the
                /// input of `buffer` and, only if it matches, leaves the plaintext in the
                /// output; on a mismatch the output is exactly as it was.
                #[inline]
                pub fn open(
                    &self,
                    nonce: &[u8],
                    aad: &[u8],
                    buffer: InOutBuf<'_, '_, u8>,
                    tag: &[u8],
                ) -> Result<(), TagMismatch> {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        GcmKey::Fused(f) => f.open(&f.j0(nonce), aad, buffer, tag),
                        GcmKey::Generic(g) => {
                            let (ghash, first, mask) = g.message(nonce);
                            let expected = ghash_tag(&ghash, aad, buffer.get_in(), &mask);
                            if !tag_matches(&expected, tag) {
                                return Err(TagMismatch);
                            }
                            apply_keystream(&g.cipher, Counter32::Gcm, &first, buffer);
                            Ok(())
                        }
                    }
                }
            }

            impl<C: $Encrypt<BlockSize = U16> + KeyInit> GcmKey<C> {
                /// `KeyInit::new`'s key: [`GcmKey::new`] on `engine`, or the generic path's if
                /// the CPU cannot run `engine` or `C` is not AES under `key`.
                #[inline]
                pub fn keyed(key: &Key<C>, engine: Engine, known_aes: bool) -> Self {
                    #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                    {
                        // `KeyInit`'s token is paced (`crate::x86::pace`): on Intel, a message
                        // after a rest may run on the 256-bit engine.
                        let token = crate::fused::Token::detect(engine).map(crate::fused::Token::paced);
                        Self::keyed_on(key, token, known_aes).0
                    }
                    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little"))))]
                    {
                        let _ = (engine, known_aes);
                        Self::from_cipher(C::new(key))
                    }
                }

                /// The key on `token`'s engine, or the generic path's if there is no token or
                /// `C` is not AES under `key` (checked on `E_K(0)` unless `known_aes`), and
                /// whether it is on `token`'s. The fused state is written where it stays, and
                /// every path returns the same local (no `Option` around the key: each was a
                /// copy of it); [`GcmKey::keyed`] and [`GcmKey::new`] share it.
                #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                #[inline(always)]
                fn keyed_on(key: &Key<C>, token: Option<crate::fused::Token>, known_aes: bool) -> (Self, bool) {
                    let mut out = match token {
                        Some(token) => GcmKey::Fused(Fused::empty(token)),
                        None => Self::from_cipher(C::new(key)),
                    };
                    let mut fused = false;
                    if let GcmKey::Fused(f) = &mut out {
                        let mut h = [0u8; 16];
                        fused = f.init(key, check_block::<C>(key, known_aes, &mut h));
                        wipe(&mut h);
                        if !fused {
                            out = Self::from_cipher(C::new(key));
                        }
                    }
                    (out, fused)
                }

                /// The key `key` on `engine`: for a fused engine, `None` if this CPU cannot
                /// run it or `C` is not AES under `key` (checked on `E_K(0)` unless the
                /// caller knows `C` to be AES, `known_aes`, when no other key schedule is
                /// made); [`Engine::Generic`] always works.
                #[inline]
                pub fn new(key: &Key<C>, engine: Engine, known_aes: bool) -> Option<Self> {
                    if engine == Engine::Generic {
                        return Some(Self::from_cipher(C::new(key)));
                    }
                    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little"))))]
                    {
                        // No engine but the generic one exists on this target.
                        let _ = known_aes;
                        None
                    }
                    #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                    {
                        let token = crate::fused::Token::detect(engine)?;
                        let (out, fused) = Self::keyed_on(key, Some(token), known_aes);
                        fused.then_some(out)
                    }
                }
            }

            impl<C: $Encrypt<BlockSize = U16>> GcmGeneric<C> {
                /// One message's GHASH state, first counter block `inc32(J0)` and tag mask
                /// `E_K(J0)`.
                #[inline]
                fn message(&self, nonce: &[u8]) -> (Ghash, [u8; 16], [u8; 16]) {
                    let ghash = Ghash::with_backend(&self.h.0, self.backend)
                        .unwrap_or_else(|| Ghash::new(&self.h.0));
                    let j0 = *crate::j0(&ghash, nonce).block();
                    let mut mask = j0;
                    encrypt_each(&self.cipher, core::slice::from_mut(&mut mask));
                    (ghash, Counter32::Gcm.add(&j0, 1), mask)
                }
            }

            /// AES-GCM-SIV's key over any block cipher of this generation: one of two kinds,
            /// never both (as [`GcmKey`]): our round keys of the key-generating key for a
            /// fused engine ([`FusedSiv`]; the cipher instance is not kept, and for the `aes`
            /// crate's types none is made), or the cipher and the POLYVAL backend of the
            /// generic path ([`SivGenericKey`]), held by [`Held`].
            ///
            /// The cipher's bytes (a union of round keys in the `aes` crate) have no invalid
            /// value for the variant's tag to use, so held inline the generic variant would make
            /// every key 16 bytes larger than the cipher alone (RustCrypto's key); boxed (with
            /// `alloc`, where the fused variant exists and `KeyInit` can pick it), a key is the
            /// fused variant's size and a tag, and the generic path there (CPUs without AES
            /// instructions, other ciphers) pays one allocation per key. Where every key is
            /// generic (other architectures, the forced-portable build) it is inline.
            // The fused variant is the larger one where `Held` boxes, the generic one (352
            // bytes and more for the `aes` crate's types) where it holds the cipher inline.
            #[allow(clippy::large_enum_variant)]
            #[derive(Clone)]
            pub enum SivKey<C> {
                /// A fused engine's key-generating key (only where an engine exists).
                #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                Fused(FusedSiv),
                /// The generic path's key-generating key and POLYVAL backend.
                Generic(Held<SivGenericKey<C>>),
            }

            /// The generic path's key-generating key and the POLYVAL backend of its messages.
            #[derive(Clone)]
            pub struct SivGenericKey<C> {
                cipher: C,
                backend: Backend,
            }

            impl<C> SivKey<C> {
                /// The generic path's key: `cipher` and POLYVAL on `backend`.
                #[inline]
                pub fn generic(cipher: C, backend: Backend) -> Self {
                    SivKey::Generic(Held::new(SivGenericKey { cipher, backend }))
                }
            }

            impl<C: $Encrypt<BlockSize = U16> + KeyInit> SivKey<C> {
                /// `KeyInit`'s key: on `engine` if this CPU runs it and `C` is AES under
                /// `key` (checked on `E_K(0)` unless `known_aes`), written in place;
                /// otherwise the generic path's, its POLYVAL on `backend`.
                #[inline]
                pub fn keyed(key: &Key<C>, engine: Engine, known_aes: bool, backend: Backend) -> Self {
                    // One value, returned at the one exit. It is still copied once to the
                    // caller, whole (`FusedSiv::init` takes its address, so it is not built in
                    // the return slot).
                    #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                    // `KeyInit`'s token is paced, as AES-GCM's (`crate::x86::pace`).
                    let mut out = match crate::fused::Token::detect(engine).map(crate::fused::Token::paced) {
                        Some(token) => SivKey::Fused(FusedSiv::empty(token)),
                        None => SivKey::generic(C::new(key), backend),
                    };
                    #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                    if let SivKey::Fused(f) = &mut out {
                        let mut h = [0u8; 16];
                        let ok = f.init(key, check_block::<C>(key, known_aes, &mut h));
                        wipe(&mut h);
                        if !ok {
                            out = SivKey::generic(C::new(key), backend);
                        }
                    }
                    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little"))))]
                    let out = {
                        let _ = (engine, known_aes);
                        SivKey::generic(C::new(key), backend)
                    };
                    out
                }

                /// The key `key` on `engine`: for a fused engine, `None` if this CPU cannot
                /// run it or `C` is not AES under `key` (checked on `E_K(0)` unless the
                /// caller knows `C` to be AES, `known_aes`); [`Engine::Generic`] always works,
                /// its POLYVAL on `backend`.
                #[inline]
                pub fn new(
                    key: &Key<C>,
                    engine: Engine,
                    known_aes: bool,
                    backend: Backend,
                ) -> Option<Self> {
                    if engine == Engine::Generic {
                        return Some(SivKey::generic(C::new(key), backend));
                    }
                    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little"))))]
                    {
                        let _ = known_aes;
                        None
                    }
                    #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                    {
                        let fused = if known_aes {
                            FusedSiv::for_aes(engine, key)?
                        } else {
                            let mut h = [0u8; 16];
                            encrypt_each(&C::new(key), core::slice::from_mut(&mut h));
                            let f = FusedSiv::new(engine, key, &h);
                            wipe(&mut h);
                            f?
                        };
                        Some(SivKey::Fused(fused))
                    }
                }
            }

            impl<C> SivKey<C> {
                /// The engine this key runs on ([`Engine::Generic`] for the generic path).
                pub fn engine(&self) -> Engine {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        SivKey::Fused(f) => f.engine(),
                        SivKey::Generic(..) => Engine::Generic,
                    }
                }

                /// The engine a message of `len` bytes (AAD and text) would run on now
                /// (`FusedSiv::engine_for`).
                pub fn engine_for(&self, len: usize) -> Engine {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        SivKey::Fused(f) => f.engine_for(len),
                        SivKey::Generic(..) => {
                            let _ = len;
                            Engine::Generic
                        }
                    }
                }

                /// The POLYVAL backend of the generic path (for a fused key, the one this
                /// CPU would give it).
                pub fn polyval_backend(&self) -> Backend {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        SivKey::Fused(_) => Backend::detect(),
                        SivKey::Generic(g) => g.backend,
                    }
                }
            }

            impl<C: $Encrypt<BlockSize = U16> + KeyInit> SivKey<C> {
                /// [`crate::siv::seal`] with this key.
                #[inline]
                pub fn seal(
                    &self,
                    nonce: &[u8; NONCE_LEN],
                    aad: &[u8],
                    buffer: InOutBuf<'_, '_, u8>,
                ) -> [u8; 16] {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        SivKey::Fused(f) => f.seal(nonce, aad, buffer),
                        SivKey::Generic(g) => {
                            let k = SivGeneric {
                                cipher: &g.cipher,
                                backend: g.backend,
                            };
                            crate::siv::seal(&k, nonce, aad, buffer)
                        }
                    }
                }

                /// [`crate::siv::open`] with this key.
                #[inline]
                pub fn open(
                    &self,
                    nonce: &[u8; NONCE_LEN],
                    aad: &[u8],
                    buffer: InOutBuf<'_, '_, u8>,
                    tag: &[u8; 16],
                ) -> Result<(), TagMismatch> {
                    match self {
                        #[cfg(any(target_arch = "x86", target_arch = "x86_64", all(target_arch = "aarch64", target_endian = "little")))]
                        SivKey::Fused(f) => f.open(nonce, aad, buffer, tag),
                        SivKey::Generic(g) => {
                            let k = SivGeneric {
                                cipher: &g.cipher,
                                backend: g.backend,
                            };
                            crate::siv::open(&k, nonce, aad, buffer, tag)
                        }
                    }
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

                /// The message's POLYVAL state, copied as it is (`fork`): `clone` would
                /// compute H^2..H^4 for a state that hashes this one message only.
                #[inline]
                fn polyval(&self) -> Polyval {
                    self.polyval.fork()
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
                    _len: usize,
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

/// The generic paths' CTR against a one-block-at-a-time reference, in both generations.
#[cfg(all(test, any(feature = "cipher-0.4", feature = "cipher-0.5")))]
mod ctr32;
