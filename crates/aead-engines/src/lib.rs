//! The fused AES-CTR + GHASH engines and the generation-neutral parts of AES-GCM, shared by
//! our `aes-gcm` 0.10 (the aead 0.5 / cipher 0.4 API) and `aes-gcm` 0.11 (aead 0.6 / cipher
//! 0.5). Internal: not a stable API.
//!
//! - [`Engine`] names a fused kernel family (AES-NI + PCLMULQDQ, VAES + VPCLMULQDQ on 256 or
//!   512 bits, ARMv8 AES + PMULL) or the generic two-pass path; [`Engine::detect`] picks the
//!   fastest this CPU runs.
//! - [`Fused`] holds our own AES round keys for one engine and the powers H^1..H^12 of the hash
//!   key, made from the raw AES key at key setup (one key expansion, `E_K(0)`, and the
//!   engine's own multiplies); [`Fused::seal`] and [`Fused::open`] run a whole message, which
//!   computes any higher power it needs itself.
//! - [`generic`]'s `GcmKey` (one per `cipher` generation) is the key of both `aes-gcm` crates:
//!   a [`Fused`] state, or the cipher and `H` for the generic two-pass path, never both.
//! - [`j0`], [`ghash_tag`] and [`tag_matches`]: GCM's pre-counter block, the GHASH tag of the
//!   two-pass path and the constant-time tag comparison, over `clmul_core`'s keyed GHASH state.
//!
//! - [`siv`]: AES-GCM-SIV (RFC 8452) apart from the trait generation, for our `aes-gcm-siv`
//!   0.11 and 0.12: key derivation, POLYVAL tag, SIV counter, and the decryption rules.
//! - [`ctr`]: the 32-bit counter flavors ([`Counter32`]: GCM's and SIV's).
//! - [`generic`]: behind the features `cipher-0.4` and `cipher-0.5`, the generic paths' glue to
//!   that `cipher` generation: AES-GCM's key and two-pass path, CTR over any block cipher, and
//!   AES-GCM-SIV's keys over any block cipher.
//! - `glue`: the macros `gcm_glue!` and `siv_glue!`, which write each `aes-gcm` and
//!   `aes-gcm-siv` crate's AEAD struct over its `generic` key, and the key setup around it
//!   (`KeyInit`, `From<Aes>`, the hidden constructors and accessors), once for both
//!   generations.
//!
//! What stays in each `aes-gcm` and `aes-gcm-siv` crate is what depends on its trait
//! generation: the AEAD trait impls, the length limits, the constants and type aliases.
//!
//! Buffers are [`InOutBuf`] (the `inout` 0.2 crate): an input and an output slice of the same
//! length that are either the same memory or disjoint. aead 0.6 hands it to the 0.11 crate as
//! is, the 0.10 crate makes one from its `&mut [u8]` (in place), and its invariant is exactly
//! what the kernels' raw-pointer loops rely on.
//!
//! The only `unsafe` code is in the kernel modules (`x86`, `aarch64`), next to the intrinsics.
#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs)]
// Targets without a fused engine (neither x86 nor little-endian aarch64) compile the kernel
// and its jobs for the type check only: no engine token exists there to run them.
#![cfg_attr(
    not(any(
        target_arch = "x86",
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_endian = "little")
    )),
    allow(dead_code)
)]

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod aarch64;
pub mod ctr;
mod engine;
mod fused;
pub mod generic;
#[doc(hidden)]
pub mod glue;
mod kernel;
mod lanes;
pub mod siv;
mod tables;
mod wipe;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86;

pub use ctr::Counter32;
pub use engine::Engine;
pub use fused::{Fused, TagMismatch};
pub use inout::{self, InOutBuf};
pub use wipe::Wiped;
/// How keys on Intel's 512-bit engine pace their messages (see the module), and the hidden
/// override of tests and benches.
#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
pub use x86::pace;

/// Whether `T` is one of the types `ids` names (their `TypeId`s compared; `T` need not be
/// `'static`, as the AEADs' cipher parameters need not be), for [`define_is_aes!`].
#[inline]
pub fn is_one_of<T: ?Sized>(ids: &[core::any::TypeId]) -> bool {
    ids.contains(&typeid::of::<T>())
}

/// Defines `fn is_aes<Aes>() -> bool` in the calling crate: whether `Aes` is one of the six AES
/// types of the `aes` crate that crate names `aes` (behind its feature `aes`; without it,
/// never), whose key schedule then needs no check against the caller's cipher.
#[macro_export]
macro_rules! define_is_aes {
    () => {
        /// Whether `Aes` is one of the `aes` crate's AES types, whose key schedule needs no
        /// check against the caller's cipher.
        #[inline]
        fn is_aes<Aes>() -> bool {
            #[cfg(feature = "aes")]
            return $crate::is_one_of::<Aes>(&[
                core::any::TypeId::of::<aes::Aes128>(),
                core::any::TypeId::of::<aes::Aes192>(),
                core::any::TypeId::of::<aes::Aes256>(),
                core::any::TypeId::of::<aes::Aes128Enc>(),
                core::any::TypeId::of::<aes::Aes192Enc>(),
                core::any::TypeId::of::<aes::Aes256Enc>(),
            ]);
            #[cfg(not(feature = "aes"))]
            false
        }
    };
}

/// `usize` to `u64`, saturating (only matters on a hypothetical >64-bit `usize`, where a
/// saturated length still exceeds every limit).
#[inline]
pub fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A byte length in bits, as GCM's length blocks encode it. Saturating: inputs that reach the
/// length block are within the AEAD's limits (so the product fits), and a nonce cannot be
/// 2^61 bytes long.
#[inline]
pub fn bits(len: usize) -> u64 {
    to_u64(len).saturating_mul(8)
}

/// GCM's length block: `[bits(A)]_64 || [bits(C)]_64`, big-endian.
#[inline]
pub fn length_block(aad_len: usize, ct_len: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&bits(aad_len).to_be_bytes());
    b[8..].copy_from_slice(&bits(ct_len).to_be_bytes());
    b
}

/// [`siv::HORNER_UPTO`]'s value, here at the crate root (below every module) so that both
/// `siv` and the x86 engine's one-call short encryption (`x86::siv_short`) read it while
/// imports run one way.
pub(crate) const SIV_HORNER_UPTO: usize = 112;

/// AES-GCM-SIV's POLYVAL length block: `LE64(bits(A)) || LE64(bits(P))` (RFC 8452,
/// section 4; `siv::length_block`).
#[inline]
pub fn siv_length_block(aad_len: usize, msg_len: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&bits(aad_len).to_le_bytes());
    b[8..].copy_from_slice(&bits(msg_len).to_le_bytes());
    b
}

/// Writes the little-endian words `lo` and `hi` to `dst` with one 16-byte store where the
/// target has 16-byte registers (x86 with SSE2, little-endian aarch64 with NEON), else as the
/// compiler chooses. For a block that a kernel soon loads whole (J0, from the bytes of a
/// nonce): a load that spans several narrower stores cannot take its bytes from them while
/// they are in flight and waits until they are written to the cache, which ties the message's
/// first AES rounds to the retirement of everything before them. Measured on AMD Zen 4
/// (AES-128-GCM with 16 B of AAD, before -> after): 0 B of text 36 -> 27 ns, 16 B 50 -> 39 ns,
/// 64 B 50 -> 39 ns.
#[inline(always)]
pub(crate) fn store_words(dst: &mut [u8; 16], lo: u64, hi: u64) {
    // The MemorySanitizer check's build (`ct_taint`) takes the plain store below: MSan checks
    // an `asm!`'s operands as it checks a branch, and these blocks carry data.
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "x86", target_feature = "sse2")
    ))]
    if !cfg!(ct_taint) {
        return x86::store_words(dst, lo, hi);
    }
    #[cfg(all(
        target_arch = "aarch64",
        target_endian = "little",
        target_feature = "neon"
    ))]
    if !cfg!(ct_taint) {
        return aarch64::store_words(dst, lo, hi);
    }
    *dst = (u128::from(lo) | u128::from(hi) << 64).to_le_bytes();
}

/// A 96-bit nonce as three little-endian 4-byte words, each read with its own 4-byte load (an
/// empty `asm!` on the values keeps the compiler from merging two into one 8-byte load). A load
/// takes its bytes from a store still in flight only when it lies within that store, and
/// callers write nonces in pieces: TLS 1.3's and QUIC's per-record nonce is the IV XOR the
/// sequence number in the last eight bytes (a 4-byte and an 8-byte store), others 8 + 4 or
/// whole. A 4-byte word lies within a store in each of these; an 8-byte load of the first
/// eight bytes would wait for the caller's stores to reach the cache.
#[inline(always)]
pub(crate) fn nonce_words(nonce: &[u8; 12]) -> [u32; 3] {
    let w = |i: usize| u32::from_le_bytes([nonce[i], nonce[i + 1], nonce[i + 2], nonce[i + 3]]);
    opaque_words([w(0), w(4), w(8)])
}

/// `w` through an empty `asm!`, each word in a general-purpose register, on the targets with
/// fused engines ([`nonce_words`]); as it is elsewhere.
#[inline(always)]
#[allow(unsafe_code, unused_mut, unused_macros)]
fn opaque_words(mut w: [u32; 3]) -> [u32; 3] {
    macro_rules! opaque {
        ($template:literal) => {
            // SAFETY: an empty `asm!` that reads and writes three registers and nothing else.
            unsafe {
                core::arch::asm!(
                    $template,
                    inout(reg) w[0],
                    inout(reg) w[1],
                    inout(reg) w[2],
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
        };
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    opaque!("/* {0:e} {1:e} {2:e} */");
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    opaque!("/* {0:w} {1:w} {2:w} */");
    w
}

/// GCM's pre-counter block J0 (NIST SP 800-38D, section 7.1, step 2), and where it came from:
///
/// - a 96-bit nonce: `J0 = nonce || 0^31 || 1`, public like the nonce;
/// - any other length: `J0 = GHASH_H(nonce || 0^s || 0^64 || [len(nonce)]_64)`, where the
///   `0^s` pads the nonce to whole blocks and the length is in bits: a value of the hash key,
///   which the fused engines then treat as secret (no branch on its counter, which otherwise
///   picks the counter's shuffle-free step).
#[derive(Clone, Copy)]
pub struct J0 {
    block: [u8; 16],
    from_nonce: bool,
    /// The 96-bit nonce's [`nonce_fold`] (0 for a GHASH value).
    fold: u8,
}

impl J0 {
    /// The block.
    #[inline]
    pub fn block(&self) -> &[u8; 16] {
        &self.block
    }

    /// Whether it is the 96-bit nonce with the counter 1 (public), not a GHASH value.
    #[inline]
    pub fn from_nonce(&self) -> bool {
        self.from_nonce
    }

    /// The [`nonce_fold`] of the 96-bit nonce it was made from; `None` for a GHASH value
    /// (which is secret).
    #[inline]
    pub(crate) fn nonce_fold(&self) -> Option<u8> {
        self.from_nonce.then_some(self.fold)
    }
}

impl J0 {
    /// J0 of a 96-bit nonce: `nonce || 0^31 || 1`, written with one 16-byte store
    /// ([`store_words`]). Panics unless `nonce` is 12 bytes long.
    #[inline]
    pub(crate) fn of_nonce(nonce: &[u8]) -> Self {
        let [w0, w1, w2] = nonce_words(nonce.try_into().expect("a 96-bit nonce"));
        let mut j0 = J0 {
            block: [0; 16],
            from_nonce: true,
            fold: fold_word(w0 ^ w1 ^ w2),
        };
        store_words(
            &mut j0.block,
            u64::from(w0) | u64::from(w1) << 32,
            u64::from(w2) | 1 << 56,
        );
        j0
    }

    /// J0 hashed from a nonce of another length.
    #[inline]
    pub(crate) fn from_hash(block: [u8; 16]) -> Self {
        J0 {
            block,
            from_nonce: false,
            fold: 0,
        }
    }
}

/// A nonce's bytes XORed together (twelve of them for the callers here), in the words they
/// are loaded as: the public value by which a paced key samples the clock (`pace`).
#[inline]
pub(crate) fn nonce_fold(nonce: &[u8]) -> u8 {
    fold_word(nonce.chunks(4).fold(0u32, |x, w| {
        x ^ w.iter().rev().fold(0u32, |a, &b| a << 8 | u32::from(b))
    }))
}

/// [`nonce_fold`]'s last step: the XOR of a word's four bytes.
#[inline]
fn fold_word(x: u32) -> u8 {
    let x = x ^ (x >> 16);
    (x ^ (x >> 8)) as u8
}

/// J0 for `nonce` (see [`J0`]); `ghash` is the keyed state (its accumulator is not used).
pub fn j0(ghash: &clmul_core::Ghash, nonce: &[u8]) -> J0 {
    if nonce.len() == 12 {
        J0::of_nonce(nonce)
    } else {
        let mut acc = [0u8; 16];
        ghash.update_detached_padded(&mut acc, nonce);
        ghash.update_detached(&mut acc, &[length_block(0, nonce.len())]);
        J0::from_hash(acc)
    }
}

/// `GHASH_H(A || pad || C || pad || [bits(A)]_64 || [bits(C)]_64) XOR mask`: the full tag, with
/// `mask = E_K(J0)`. `ghash` is the keyed state (its accumulator is not used); each input goes
/// to the wide kernel in one call, or, on the portable backend, a message of up to eight
/// blocks with the length block goes in one call (laid out by `short_layout`).
pub fn ghash_tag(
    ghash: &clmul_core::Ghash,
    associated_data: &[u8],
    ciphertext: &[u8],
    mask: &[u8; 16],
) -> [u8; 16] {
    let mut acc = [0u8; 16];
    let lengths = length_block(associated_data.len(), ciphertext.len());
    // The portable backend splits H into multiplier lanes once per call: a short message laid
    // out in one buffer (the associated data and ciphertext are public) takes one call, not
    // three. The SIMD backends keep the three calls: up to four blocks run on the kept
    // H^1..H^4, and one call of more would compute H^5..H^8 for it.
    let short = (ghash.backend() == clmul_core::Backend::Portable)
        .then(|| short_layout(associated_data, ciphertext, lengths))
        .flatten();
    if let Some((blocks, n)) = short {
        ghash.update_detached(&mut acc, &blocks[..n]);
    } else {
        for data in [associated_data, ciphertext] {
            ghash.update_detached_padded(&mut acc, data);
        }
        ghash.update_detached(&mut acc, &[lengths]);
    }
    for (t, m) in acc.iter_mut().zip(mask) {
        *t ^= m;
    }
    acc
}

/// The most blocks (associated data, text and the length block) a short message's hash
/// ([`ghash_tag`] on the portable backend, AES-GCM-SIV's `siv::polyval_hash`) lays out in one
/// buffer.
const SHORT_BLOCKS: usize = 8;

/// `pad(aad) || pad(text) || lengths` in one buffer, and its number of blocks, if that is at
/// most [`SHORT_BLOCKS`]: a short message's hash input for one call. The caller wipes
/// the buffer if the text is secret.
#[inline]
pub(crate) fn short_layout(
    aad: &[u8],
    text: &[u8],
    lengths: [u8; 16],
) -> Option<([[u8; 16]; SHORT_BLOCKS], usize)> {
    let (na, nt) = (aad.len().div_ceil(16), text.len().div_ceil(16));
    if na + nt >= SHORT_BLOCKS {
        return None;
    }
    let mut blocks = [[0u8; 16]; SHORT_BLOCKS];
    put_padded(&mut blocks, 0, aad);
    put_padded(&mut blocks, na, text);
    blocks[na + nt] = lengths;
    Some((blocks, na + nt + 1))
}

/// Writes `data` zero-padded to whole blocks into `blocks` from block `at` on (what does not
/// fit is left out; [`short_layout`] checks that it fits): whole blocks as 16-byte moves in a loop
/// of a fixed count, the partial one by word reads ([`clmul_core::__private::pad_block`]), not
/// by two calls to `memcpy` of a variable length, which took 7% of a fresh key's 64-byte
/// AES-GCM-SIV message on Emerald Rapids.
#[inline]
fn put_padded(blocks: &mut [[u8; 16]; SHORT_BLOCKS], at: usize, data: &[u8]) {
    let (whole, rest) = data.as_chunks::<16>();
    for i in 0..SHORT_BLOCKS {
        if let (Some(dst), Some(src)) = (blocks.get_mut(at + i), whole.get(i)) {
            *dst = *src;
        }
    }
    if !rest.is_empty()
        && let Some(dst) = blocks.get_mut(at + whole.len())
    {
        *dst = clmul_core::__private::pad_block(rest);
    }
}

/// Whether the first `tag.len()` bytes of `expected` equal `tag`, in constant time (no
/// data-dependent branch or early exit; the one branch is on the final verdict). A `tag`
/// longer than 16 bytes never matches.
#[inline]
pub fn tag_matches(expected: &[u8; 16], tag: &[u8]) -> bool {
    match expected.get(..tag.len()) {
        Some(prefix) => ct_verdict(prefix, tag),
        None => false,
    }
}

/// Whether `a == b`, compared in constant time, as a public verdict: ctutils' comparison, or
/// in the MemorySanitizer check's build (`ct_taint`) [`eq_fold`], because MSan counts the
/// outputs of ctutils' `cmov` assembly as public, which would hide a branch on the comparison
/// of secrets. The result is declassified for that check (it is returned to the caller).
#[inline]
pub(crate) fn ct_verdict(a: &[u8], b: &[u8]) -> bool {
    let eq = if cfg!(ct_taint) {
        eq_fold(a, b)
    } else {
        ctutils::CtEq::ct_eq(a, b).to_bool()
    };
    clmul_core::__private::declassify(eq)
}

/// `a == b` without a data-dependent branch: the OR of the XOR of every byte pair is zero.
/// Slices of different lengths are unequal.
#[inline]
fn eq_fold(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(test)]
extern crate std;

#[cfg(test)]
mod tests {
    use super::*;

    /// The checker build's comparison against ctutils' (the shipped one): equal slices, one
    /// flipped bit at every position, and different lengths.
    #[test]
    fn comparison_variants_agree() {
        let a: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5a);
        for n in 0..=16 {
            assert!(eq_fold(&a[..n], &a[..n]));
            assert!(ctutils::CtEq::ct_eq(&a[..n], &a[..n]).to_bool());
            for bit in 0..8 * n {
                let mut b = a;
                b[bit / 8] ^= 1 << (bit % 8);
                assert!(!eq_fold(&a[..n], &b[..n]));
                assert!(!ctutils::CtEq::ct_eq(&a[..n], &b[..n]).to_bool());
            }
        }
        assert!(!eq_fold(&a[..4], &a[..5]));
        assert!(!ctutils::CtEq::ct_eq(&a[..4], &a[..5]).to_bool());
        assert!(ct_verdict(&a, &a) && !ct_verdict(&a, &a[..15]));
    }

    #[test]
    fn tag_prefix_comparison() {
        let expected = [0x5a; 16];
        assert!(tag_matches(&expected, &[0x5a; 16]));
        assert!(tag_matches(&expected, &[0x5a; 4]));
        assert!(!tag_matches(&expected, &[0x5b; 16]));
        let mut last = [0x5a; 12];
        last[11] ^= 1;
        assert!(!tag_matches(&expected, &last));
        assert!(!tag_matches(&expected, &[0x5a; 17]));
    }

    /// J0 of a 96-bit nonce, written by `store_words` (a vector store on x86 and aarch64):
    /// `nonce || 0^31 || 1` byte for byte, and the nonce's fold.
    #[test]
    fn j0_of_nonce() {
        for seed in 0..64u8 {
            let nonce: [u8; 12] =
                core::array::from_fn(|i| seed.wrapping_mul(29) ^ (i as u8).wrapping_mul(71));
            let j0 = J0::of_nonce(&nonce);
            let mut want = [0u8; 16];
            want[..12].copy_from_slice(&nonce);
            want[15] = 1;
            assert_eq!(j0.block(), &want);
            assert!(j0.from_nonce());
            assert_eq!(j0.nonce_fold(), Some(nonce_fold(&nonce)));
        }
        let mut b = [0xaa; 16];
        store_words(&mut b, 0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908);
        assert_eq!(b, core::array::from_fn(|i| i as u8));
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn bit_lengths() {
        let a_max = (1usize << 61) - 1;
        assert_eq!(bits(a_max), ((1u64 << 61) - 1) * 8);
        assert_eq!(bits(usize::MAX), u64::MAX);
        assert_eq!(bits(12), 96);
        let b = length_block(2, 3);
        assert_eq!(b[..8], 16u64.to_be_bytes());
        assert_eq!(b[8..], 24u64.to_be_bytes());
    }
}
