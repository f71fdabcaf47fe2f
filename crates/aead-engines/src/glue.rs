//! The AEAD types' trait glue, the same in both API generations but for the names of the
//! traits: [`gcm_glue!`](crate::gcm_glue) and [`siv_glue!`](crate::siv_glue) write, in the
//! calling crate, the struct (`AesGcm` over a [`generic`](crate::generic) `GcmKey`, `AesGcmSiv`
//! over a `SivKey`), its `KeySizeUser`, `KeyInit` and `From<Aes>` impls, the `aes` aliases
//! (`Aes128Gcm`, `Aes256GcmSiv`, ...), AES-GCM-SIV's length constants, and the hidden
//! constructors and accessors of our tests, benches and fuzzers. A fix to that layer is made
//! here, once, for our `aes-gcm` 0.10 and 0.11 and `aes-gcm-siv` 0.11 and 0.12.
//!
//! Each crate names its generation: the [`generic`](crate::generic) module of its `cipher`
//! crate (`cipher04` or `cipher05`), its `aead` and `cipher` crates (as it names them), the
//! block-encryption trait (`BlockEncrypt` or `BlockCipherEncrypt`), whether the build forces
//! portable code (the aead 0.5 generation's `polyval_force_soft`), and the doc text that
//! differs between the generations. The AEAD trait impls (`AeadInOut` or `AeadInPlace`), the
//! length checks, AES-GCM's constants, the `Nonce` and `Tag` aliases (over each generation's
//! array type), the `TagSize` trait, and `Debug` and `ZeroizeOnDrop` (which only the aead 0.6
//! generation has) stay in each crate.

/// The hash backend type the hidden constructors and accessors take and return.
pub use clmul_core::Backend;

/// The engine `KeyInit` keys: the generic one where the build forces portable code
/// (`force_portable`, the macros' expression evaluated in the calling crate), otherwise the
/// fastest this CPU runs ([`Engine::detect`](crate::Engine::detect)).
#[inline]
pub fn key_engine(force_portable: bool) -> crate::Engine {
    if force_portable {
        crate::Engine::Generic
    } else {
        crate::Engine::detect()
    }
}

/// Writes `AesGcm<Aes, NonceSize, TagSize>` over `generic::$generic::GcmKey`, with its
/// `KeySizeUser`, `KeyInit` and `From<Aes>` impls, the hidden `with_engine`,
/// `__with_ghash_backend`, `__engine` and `__ghash_backend`, `fn is_aes`
/// ([`define_is_aes!`](crate::define_is_aes)), and, with the calling crate's `aes` feature,
/// the aliases `Aes128Gcm` and `Aes256Gcm` (96-bit nonces) over its `aes` dependency. The
/// calling module defines the trait `TagSize` that bounds the tag size.
///
/// The doc comments before `struct AesGcm;` and `fn __with_ghash_backend;` are those items'
/// docs. `KeyInit` keys the fastest engine this CPU runs
/// ([`Engine::detect`](crate::Engine::detect)), or the generic one where `force_portable` (a
/// `bool` expression, evaluated in the calling crate) is true.
#[doc(hidden)]
#[macro_export]
macro_rules! gcm_glue {
    (
        $(#[$struct_doc:meta])*
        struct AesGcm;
        generic: $generic:ident,
        aead: $aead:ident,
        cipher: $cipher:ident,
        encrypt: $Encrypt:ident,
        force_portable: $force_portable:expr,
        $(#[$with_ghash_backend_doc:meta])*
        fn __with_ghash_backend;
    ) => {
        /// AES-GCM with a 128-bit key and 96-bit nonce.
        #[cfg(feature = "aes")]
        #[cfg_attr(docsrs, doc(cfg(feature = "aes")))]
        pub type Aes128Gcm = AesGcm<aes::Aes128, $cipher::consts::U12>;

        /// AES-GCM with a 256-bit key and 96-bit nonce.
        #[cfg(feature = "aes")]
        #[cfg_attr(docsrs, doc(cfg(feature = "aes")))]
        pub type Aes256Gcm = AesGcm<aes::Aes256, $cipher::consts::U12>;

        $(#[$struct_doc])*
        #[derive(Clone)]
        pub struct AesGcm<Aes, NonceSize, TagSize = $cipher::consts::U16>
        where
            TagSize: self::TagSize,
        {
            /// The key: a fused engine's, or the cipher and GHASH's key for the generic two-pass
            /// path (`aead_engines::generic`), never both.
            key: $crate::Wiped<$crate::generic::$generic::GcmKey<Aes>>,

            /// Length of the nonce.
            nonce_size: core::marker::PhantomData<NonceSize>,

            /// Length of the tag.
            tag_size: core::marker::PhantomData<TagSize>,
        }

        $crate::define_is_aes!();

        impl<Aes, NonceSize, TagSize> $aead::KeySizeUser for AesGcm<Aes, NonceSize, TagSize>
        where
            Aes: $aead::KeySizeUser,
            TagSize: self::TagSize,
        {
            type KeySize = Aes::KeySize;
        }

        impl<Aes, NonceSize, TagSize> $aead::KeyInit for AesGcm<Aes, NonceSize, TagSize>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16>
                + $cipher::$Encrypt
                + $aead::KeyInit,
            TagSize: self::TagSize,
        {
            #[inline]
            fn new(key: &$aead::Key<Self>) -> Self {
                Self::__keyed_on(key, $crate::glue::key_engine($force_portable))
            }
        }

        impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16>
                + $cipher::$Encrypt
                + $aead::KeyInit,
            TagSize: self::TagSize,
        {
            /// Not part of the upstream API: an instance on the chosen engine, for our tests,
            /// benches and fuzzers. `None` if this CPU cannot run it or `Aes` is not AES under
            /// `key` (checked on `E_K(0)` unless `Aes` is one of the `aes` crate's types);
            /// [`__Engine::Generic`] always works.
            #[doc(hidden)]
            #[inline]
            pub fn with_engine(key: &$aead::Key<Self>, engine: $crate::Engine) -> Option<Self> {
                $crate::generic::$generic::GcmKey::new(key, engine, is_aes::<Aes>())
                    .map(Self::assemble)
            }

            /// Not part of the upstream API: `KeyInit::new` with `engine` in place of the one
            /// this CPU would get (the generic path's key if it cannot run `engine`), by the
            /// same code: for benches that time a narrower engine's first message on a wider
            /// CPU ([`Self::with_engine`] returns an `Option`, which costs a copy of the key).
            #[doc(hidden)]
            #[inline]
            pub fn __keyed_on(key: &$aead::Key<Self>, engine: $crate::Engine) -> Self {
                Self::assemble($crate::generic::$generic::GcmKey::keyed(key, engine, is_aes::<Aes>()))
            }
        }

        impl<Aes, NonceSize, TagSize> From<Aes> for AesGcm<Aes, NonceSize, TagSize>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16> + $cipher::$Encrypt,
            TagSize: self::TagSize,
        {
            fn from(cipher: Aes) -> Self {
                Self::assemble($crate::generic::$generic::GcmKey::from_cipher(cipher))
            }
        }

        impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16> + $cipher::$Encrypt,
            TagSize: self::TagSize,
        {
            $(#[$with_ghash_backend_doc])*
            #[doc(hidden)]
            pub fn __with_ghash_backend(
                cipher: Aes,
                backend: $crate::glue::Backend,
            ) -> Option<Self> {
                $crate::generic::$generic::GcmKey::with_backend(cipher, backend)
                    .map(Self::assemble)
            }

            /// Not part of the upstream API: the fused engine this instance runs on
            /// ([`__Engine::Generic`] for the two-pass path).
            #[doc(hidden)]
            pub fn __engine(&self) -> $crate::Engine {
                self.key.engine()
            }

            /// Not part of the upstream API: the engine a message of `len` bytes (AAD and
            /// text) would run on now (a key `KeyInit` made on Intel's 512-bit engine may run
            /// one on the 256-bit engine: `aead_engines::pace`); reads no clock.
            #[doc(hidden)]
            pub fn __engine_for(&self, len: usize) -> $crate::Engine {
                self.key.engine_for(len)
            }

            /// Not part of the upstream API: the GHASH backend the two-pass path runs on (for a
            /// fused engine, the one this CPU would give it).
            #[doc(hidden)]
            pub fn __ghash_backend(&self) -> $crate::glue::Backend {
                self.key.ghash_backend()
            }

            #[inline]
            fn assemble(key: $crate::generic::$generic::GcmKey<Aes>) -> Self {
                Self {
                    key: $crate::Wiped::new(key),
                    nonce_size: core::marker::PhantomData,
                    tag_size: core::marker::PhantomData,
                }
            }
        }
    };
}

/// Writes `AesGcmSiv<Aes>` over `generic::$generic::SivKey`, with its `KeySizeUser`, `KeyInit`
/// and `From<Aes>` impls, the hidden `with_engine`, `__with_polyval_backend`, `__engine` and
/// `__polyval_backend`, `fn is_aes` ([`define_is_aes!`](crate::define_is_aes)), the length
/// constants `A_MAX`, `P_MAX` and `C_MAX` (RFC 8452's, [`crate::siv`]'s) and the check of them
/// the AEAD impls make (`fn check_lengths`), the `Nonce` and
/// `Tag` aliases over the generation's array type (`array`, a name in scope in the calling
/// module), and, with the calling crate's `aes` feature, the aliases `Aes128GcmSiv` and
/// `Aes256GcmSiv` over its `aes` dependency.
///
/// The doc comments before `struct AesGcmSiv;` end the struct's docs. `KeyInit` picks the
/// engine as [`gcm_glue!`](crate::gcm_glue) does (`force_portable`), and `polyval_backend` is
/// called for the POLYVAL backend of every key `KeyInit`, `with_engine` and `From<Aes>` make.
#[doc(hidden)]
#[macro_export]
macro_rules! siv_glue {
    (
        $(#[$struct_doc:meta])*
        struct AesGcmSiv;
        generic: $generic:ident,
        aead: $aead:ident,
        cipher: $cipher:ident,
        encrypt: $Encrypt:ident,
        array: $Array:ident,
        force_portable: $force_portable:expr,
        polyval_backend: $polyval_backend:path,
    ) => {
        /// AES-GCM-SIV nonces.
        pub type Nonce = $Array<u8, $cipher::consts::U12>;

        /// AES-GCM-SIV tags.
        pub type Tag = $Array<u8, $cipher::consts::U16>;

        /// Maximum length of associated data (from RFC 8452, section 6).
        pub const A_MAX: u64 = $crate::siv::A_MAX;

        /// Maximum length of plaintext (from RFC 8452, section 6).
        pub const P_MAX: u64 = $crate::siv::P_MAX;

        /// Maximum length of ciphertext (from RFC 8452, section 6; see the crate docs: a
        /// ciphertext longer than [`P_MAX`] without its tag is refused, as no encryption makes
        /// one).
        pub const C_MAX: u64 = $crate::siv::C_MAX;

        /// The length limits ([`lengths_ok`](crate::siv::lengths_ok): the message at most
        /// [`P_MAX`] bytes, the associated data at most [`A_MAX`]), checked before the buffer
        /// is touched.
        #[inline]
        fn check_lengths(buffer_len: usize, associated_data_len: usize) -> Result<(), $aead::Error> {
            if $crate::siv::lengths_ok(buffer_len, associated_data_len) {
                Ok(())
            } else {
                Err($aead::Error)
            }
        }

        /// AES-GCM-SIV with a 128-bit key.
        #[cfg(feature = "aes")]
        #[cfg_attr(docsrs, doc(cfg(feature = "aes")))]
        pub type Aes128GcmSiv = AesGcmSiv<aes::Aes128>;

        /// AES-GCM-SIV with a 256-bit key.
        #[cfg(feature = "aes")]
        #[cfg_attr(docsrs, doc(cfg(feature = "aes")))]
        pub type Aes256GcmSiv = AesGcmSiv<aes::Aes256>;

        /// AES-GCM-SIV: nonce-misuse-resistant authenticated encryption (RFC 8452), generic over
        /// the block cipher (`Aes`), which derives the per-message keys and is keyed anew with
        /// them for each message.
        ///
        /// The cipher is generic so that another AES implementation can be substituted; the
        /// construction's security analysis assumes AES. If in doubt, use [`Aes128GcmSiv`] or
        /// [`Aes256GcmSiv`].
        $(#[$struct_doc])*
        #[derive(Clone)]
        pub struct AesGcmSiv<Aes> {
            /// The key-generating key: our round keys for a fused engine, or the cipher and the
            /// POLYVAL backend of the generic path (`aead_engines::generic`), never both.
            key: $crate::Wiped<$crate::generic::$generic::SivKey<Aes>>,
        }

        $crate::define_is_aes!();

        impl<Aes> $aead::KeySizeUser for AesGcmSiv<Aes>
        where
            Aes: $aead::KeySizeUser,
        {
            type KeySize = Aes::KeySize;
        }

        impl<Aes> $aead::KeyInit for AesGcmSiv<Aes>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16>
                + $cipher::$Encrypt
                + $aead::KeyInit,
        {
            fn new(key: &$aead::Key<Self>) -> Self {
                let engine = $crate::glue::key_engine($force_portable);
                // The schedule is expanded into the key (`SivKey::keyed`), not built apart and
                // then moved into it.
                Self {
                    key: $crate::Wiped::new($crate::generic::$generic::SivKey::keyed(
                        key,
                        engine,
                        is_aes::<Aes>(),
                        $polyval_backend(),
                    )),
                }
            }
        }

        impl<Aes> AesGcmSiv<Aes>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16>
                + $cipher::$Encrypt
                + $aead::KeyInit,
        {
            /// Not part of the upstream API: an instance on the chosen engine, for our tests,
            /// benches and fuzzers. `None` if this CPU cannot run it or `Aes` is not AES under
            /// `key` (checked on `E_K(0)` unless `Aes` is one of the `aes` crate's types);
            /// [`__Engine::Generic`] always works.
            #[doc(hidden)]
            pub fn with_engine(key: &$aead::Key<Self>, engine: $crate::Engine) -> Option<Self> {
                $crate::generic::$generic::SivKey::new(
                    key,
                    engine,
                    is_aes::<Aes>(),
                    $polyval_backend(),
                )
                .map(|key| Self {
                    key: $crate::Wiped::new(key),
                })
            }
        }

        impl<Aes> From<Aes> for AesGcmSiv<Aes>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16> + $cipher::$Encrypt,
        {
            fn from(key_generating_key: Aes) -> Self {
                Self {
                    key: $crate::Wiped::new($crate::generic::$generic::SivKey::generic(
                        key_generating_key,
                        $polyval_backend(),
                    )),
                }
            }
        }

        impl<Aes> AesGcmSiv<Aes>
        where
            Aes: $cipher::BlockSizeUser<BlockSize = $cipher::consts::U16> + $cipher::$Encrypt,
        {
            /// Not part of the upstream API: an instance on the generic path whose POLYVAL runs on
            /// the chosen backend, for our tests, benches and fuzzers. `None` if this CPU cannot
            /// run it.
            #[doc(hidden)]
            pub fn __with_polyval_backend(
                key_generating_key: Aes,
                backend: $crate::glue::Backend,
            ) -> Option<Self> {
                backend.is_available().then_some(Self {
                    key: $crate::Wiped::new($crate::generic::$generic::SivKey::generic(
                        key_generating_key,
                        backend,
                    )),
                })
            }

            /// Not part of the upstream API: the engine this instance runs on
            /// ([`__Engine::Generic`] for the generic path).
            #[doc(hidden)]
            pub fn __engine(&self) -> $crate::Engine {
                self.key.engine()
            }

            /// Not part of the upstream API: the engine a message of `len` bytes (AAD and
            /// text) would run on now (see `aead_engines::pace`); reads no clock.
            #[doc(hidden)]
            pub fn __engine_for(&self, len: usize) -> $crate::Engine {
                self.key.engine_for(len)
            }

            /// Not part of the upstream API: the POLYVAL backend of the generic path.
            #[doc(hidden)]
            pub fn __polyval_backend(&self) -> $crate::glue::Backend {
                self.key.polyval_backend()
            }
        }
    };
}
