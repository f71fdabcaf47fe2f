//! The contract between the dispatch ([`crate::fused`]) and an engine's module: the [`Isa`]
//! trait, whose values prove that the CPU has the engine's features, and the safe operations
//! on buffers every engine gets from it.
#![allow(unsafe_code)]

use crate::fused::Engine;
use crate::kernel::Hashing;
use crate::tables::{PowerTable, RoundKeys};
use inout::InOutBuf;

/// One fused engine, through a token type.
///
/// # Safety
///
/// A value of the implementing type exists only on a CPU that has every target feature the
/// engine's `#[target_feature]` functions are compiled with: [`Isa::detect`] is its only
/// constructor (the type has private fields) and returns a value only after the engine's
/// detection succeeded. The methods' `unsafe` blocks rest on that.
pub(crate) unsafe trait Isa: Copy {
    /// The engine the token runs.
    const ENGINE: Engine;

    /// The token, if this CPU runs the engine.
    fn detect() -> Option<Self>;

    /// FIPS-197 key expansion with the engine's AES instructions; `None` for a key length
    /// that is not AES's.
    fn expand(self, aes_key: &[u8]) -> Option<RoundKeys>;

    /// AES encryption of one block.
    fn encrypt_block(self, rk: &RoundKeys, block: &[u8; 16]) -> [u8; 16];

    /// AES-ECB of `blocks`, in place.
    #[allow(dead_code)]
    fn encrypt_blocks(self, rk: &RoundKeys, blocks: &mut [[u8; 16]]);

    /// GCM ([`crate::kernel::gcm`]) over `len` bytes from `inp` to `out`.
    ///
    /// # Safety
    /// `len` bytes are readable at `inp` and writable at `out`, which are equal or disjoint.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gcm(
        self,
        rk: &RoundKeys,
        tbl: &PowerTable,
        j0: &[u8; 16],
        aad: &[u8],
        inp: *const u8,
        out: *mut u8,
        len: usize,
        hashing: Hashing,
    ) -> [u8; 16];

    /// GCM's full tag of `(aad, ct)` without decrypting ([`crate::kernel::gcm_tag`]).
    fn gcm_tag(
        self,
        rk: &RoundKeys,
        tbl: &PowerTable,
        j0: &[u8; 16],
        aad: &[u8],
        ct: &[u8],
    ) -> [u8; 16];
}

/// Our key schedule for `aes_key`, if it has an AES length and reproduces `h = E_K(0^128)`
/// (which proves the caller's cipher is AES under that key), compared in constant time.
pub(crate) fn checked_schedule<I: Isa>(isa: I, aes_key: &[u8], h: &[u8; 16]) -> Option<RoundKeys> {
    let rk = isa.expand(aes_key)?;
    let e0 = isa.encrypt_block(&rk, &[0; 16]);
    ctutils::CtEq::ct_eq(&e0[..], &h[..])
        .to_bool()
        .then_some(rk)
}

/// Encrypts `buffer` with the keystream from `inc32(J0)`; returns the full tag.
#[inline]
pub(crate) fn seal<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    tbl: &PowerTable,
    j0: &[u8; 16],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
) -> [u8; 16] {
    let len = buffer.len();
    let (inp, out) = buffer.into_raw();
    // SAFETY: `isa` proves the features (the trait's contract); `InOutBuf` guarantees `len`
    // valid bytes at `inp` and `out`, equal or disjoint.
    unsafe { isa.gcm(rk, tbl, j0, aad, inp, out, len, Hashing::Output) }
}

/// Decrypts `buffer` in place in one pass; returns the expected full tag.
#[inline]
pub(crate) fn open_in_place<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    tbl: &PowerTable,
    j0: &[u8; 16],
    aad: &[u8],
    buffer: &mut [u8],
) -> [u8; 16] {
    let p = buffer.as_mut_ptr();
    // SAFETY: as in `seal`; one buffer, read and written in place.
    unsafe { isa.gcm(rk, tbl, j0, aad, p, p, buffer.len(), Hashing::Input) }
}

/// The keystream from `inc32(J0)` XORed over the input, written to the output.
#[inline]
pub(crate) fn ctr<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    tbl: &PowerTable,
    j0: &[u8; 16],
    buffer: InOutBuf<'_, '_, u8>,
) {
    let len = buffer.len();
    let (inp, out) = buffer.into_raw();
    // SAFETY: as in `seal`.
    unsafe { isa.gcm(rk, tbl, j0, &[], inp, out, len, Hashing::Off) };
}
