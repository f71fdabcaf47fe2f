//! Carry-less multiplication and GF(2^128) arithmetic for POLYVAL and GHASH.
//!
//! This crate is the engine under our `polyval`, `ghash` and `aes-gcm` crates. It provides:
//!
//! - [`soft`]: portable, constant-time 64x64->128 carry-less multiply (the bit-masked "holes"
//!   method, with a 32-bit-word variant and a bit-reverse variant), POLYVAL's Montgomery
//!   reduction, and a bit-at-a-time oracle for tests.
//! - SIMD backends: x86/x86_64 PCLMULQDQ, x86_64 VPCLMULQDQ on 256 bits (AVX2) and 512 bits
//!   (AVX-512), and aarch64 PMULL.
//! - [`Backend`]: which implementation runs. It is detected once, when a key is set up, stored
//!   in the keyed state, and matched on in the hot path; every backend the CPU supports can also
//!   be chosen explicitly ([`Backend::available`]) so tests, benches and fuzzers run them all.
//! - [`Polyval`] and [`Ghash`]: keyed hash states (96 bytes) that process whole slices in the
//!   backend's wide loop, against powers of H with one reduction per stride (aggregated
//!   reduction). A state keeps H from key setup and H^2..H^4 from its first update of two
//!   blocks or more; the powers of a wider stride (up to H^32 on the 512-bit backend) are
//!   computed by each update that uses them, into a table on its stack. Creating, cloning and
//!   moving a state per message therefore costs a few register copies and what the message
//!   needs (see the `state` and `powers` modules).
//! - `wide` (hidden, for `aead-engines`): the one wide GHASH/POLYVAL, written once over a
//!   register of one to four blocks, that the `Pclmul`, `Avx2`, `Avx512` and `Pmull`
//!   backends instantiate for their registers and `aead-engines`' stitched AES-GCM and
//!   AES-GCM-SIV loops interleave with their AES rounds; with the power tables and their
//!   fill.
//!
//! # Backends and selection
//!
//! | backend | target | features checked at run time (and enabled in the kernel) | widest stride |
//! |---|---|---|---|
//! | `Portable` | all | none | 4 blocks (from 32-block inputs; Horner's rule below) |
//! | `Pclmul` | x86, x86_64 | `pclmulqdq`, `sse2`, `ssse3` | 8 blocks |
//! | `Avx2` | x86_64 | `pclmulqdq`, `sse2`, `ssse3`, `avx`, `avx2`, `vpclmulqdq` (with the AVX state only, see `x86::ymm`) | 16 blocks (8 ymm) |
//! | `Avx512` | x86_64 | `vpclmulqdq`, `pclmulqdq`, `avx`, `avx2`, `avx512f`, `avx512bw`, `avx512vl` | 32 blocks (8 zmm) |
//! | `Pmull` | aarch64 | `aes` (PMULL; implies `neon`) | 8 blocks |
//! | `PmullEor3` | aarch64 | `aes`, `sha2`, `sha3` (FEAT_SHA3's `EOR3`) | 8 blocks |
//!
//! Inputs of up to four blocks run on 128-bit multiplies on every SIMD backend (their latency
//! is shorter), and on x86 so do those of five to seven (as four blocks and the rest).
//!
//! [`Backend::detect`] picks the first available from the bottom of that table up. Each
//! kernel's `#[target_feature]` list and its detection are generated from one list by the
//! `target_tier!` macro, so they cannot drift apart. `--cfg polyval_backend="soft"` makes
//! [`Backend::detect`] return the portable backend for a whole build.
//!
//! # Constant time
//!
//! No backend branches on or indexes memory by key or data: the portable multiply is integer
//! multiplies and masks, the SIMD ones use carry-less multiply instructions, which are constant
//! time on the CPUs that have them. Branches depend only on lengths. The repository's
//! `cargo xtask ct` checks every backend with Valgrind, MemorySanitizer (the `ct_taint` build)
//! and rules on the release binary's disassembly.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(ct_taint, feature(cfg_sanitize))]
#![warn(missing_docs)]

// `--cfg ct_taint` is the build that `cargo xtask ct` checks with MemorySanitizer (nightly);
// `taint::declassify` calls into the MSan runtime, which only that sanitizer links.
// (In a module of its own: the gated `sanitize` cfg is then only read in that build.)
#[cfg(ct_taint)]
mod needs_msan {
    #[cfg(not(sanitize = "memory"))]
    compile_error!(
        "`--cfg ct_taint` is the MemorySanitizer check's build: add `-Zsanitizer=memory`"
    );
}

pub mod soft;

mod backend;
mod portable;
mod powers;
mod state;
mod taint;
#[doc(hidden)]
pub mod wide;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86;

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod aarch64;

pub use backend::Backend;
pub use state::{Ghash, Hasher, Polyval};

#[doc(hidden)]
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
pub use cpufeatures as __cpufeatures;

/// What the workspace's other crates and this crate's integration tests reach inside (not a
/// stable API): the constant-time check's declassification (`aead-engines`' tag check), the
/// CPU vendor (`aead-engines`' choice of loop shape), the AVX (ymm) state detection and the
/// AVX-512 three-way XOR (the backend tests).
#[doc(hidden)]
pub mod __private {
    pub use crate::soft::pad_block;
    pub use crate::taint::declassify;
    #[cfg(target_arch = "x86_64")]
    pub use crate::x86::is_intel;
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    pub use crate::x86::ymm;
    /// The AVX-512 tier's detection (`tests/taint_swaps.rs`).
    #[cfg(target_arch = "x86_64")]
    pub mod avx512 {
        pub use crate::x86::avx512::available;
    }
}

/// Declares a CPU tier: a `cpufeatures` detection module and `unsafe fn`s compiled with exactly
/// the same target features, from one list.
///
/// ```text
/// clmul_core::target_tier! {
///     detect cpuid = ["pclmulqdq", "sse2"];
///     /// # Safety
///     /// The CPU has the tier's features.
///     pub unsafe fn kernel(x: u64) -> u64 { x }
/// }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! target_tier {
    (@fn [$($f:tt),+] $item:item) => {
        /// # Safety
        ///
        /// Compiled with this tier's target features: outside code compiled with them, call it
        /// only after the tier's `available()` returned true.
        ///
        $( #[target_feature(enable = $f)] )+
        $item
    };
    (@detect $detect:ident [$($f:tt),+]) => {
        $crate::__cpufeatures::new!($detect, $($f),+);
        /// Whether this CPU has every feature of the tier (detected once, then cached).
        #[allow(unused_imports)]
        pub use $detect::get as available;
        /// The target features this tier checks at run time and enables in its kernels.
        #[allow(dead_code)]
        pub const FEATURES: &[&str] = &[$($f),+];
    };
    (detect $detect:ident = $feats:tt; $($item:item)*) => {
        $crate::target_tier!(@detect $detect $feats);
        $( $crate::target_tier!(@fn $feats $item); )*
    };
    // A tier that also uses VPCLMULQDQ and/or VAES on 256-bit registers only: those are checked
    // with the AVX (ymm) OS state, not cpufeatures' AVX-512 one (see `x86::ymm`).
    (detect $detect:ident = [$($f:tt),+] + ymm [$($y:tt),+]; $($item:item)*) => {
        $crate::target_tier!(@ymm $detect [$($f),+] [$($y),+] [$($f,)+ $($y),+] $($item)*);
    };
    (@ymm $detect:ident [$($f:tt),+] [$($y:tt),+] $all:tt $($item:item)*) => {
        $crate::__cpufeatures::new!($detect, $($f),+);
        /// The target features this tier checks at run time and enables in its kernels.
        #[allow(dead_code)]
        pub const FEATURES: &[&str] = &[$($f,)+ $($y),+];
        /// Whether this CPU has every feature of the tier (detected once, then cached).
        #[allow(dead_code)]
        pub fn available() -> bool {
            $detect::get() && $crate::__private::ymm::has_all(&[$($y),+])
        }
        $( $crate::target_tier!(@fn $all $item); )*
    };
}
