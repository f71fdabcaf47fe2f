//! The contract between the dispatch ([`crate::fused`]) and an engine's module.
//!
//! An engine is a token type ([`Isa`]) whose values prove that the CPU has the engine's
//! features, with one way in: [`Isa::run`] runs a [`Job`] inside the engine's single
//! `#[target_feature]` function, where the job's generic code ([`crate::kernel`]) is
//! instantiated for the engine's register type. Every operation (GCM, its tag alone, CTR with
//! any counter and hash domain, AES-ECB) is a job written once here; an engine's module
//! holds only its [`AesLanes`] implementation, that function and its detection.
#![allow(unsafe_code)]

use crate::J0;
use crate::kernel::{
    self, AesKeys, Counter, Counter0, Domain, GhashDomain, Hashing, Inc32, Powers,
};
use crate::lanes::AesLanes;
use crate::tables::RoundKeys;
use clmul_core::wide::{EMPTY, KeptPowers};
use inout::InOutBuf;

/// A fused kernel family, or the generic two-pass path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// The generic two-pass path (any block cipher): CTR with the cipher, then GHASH.
    Generic,
    /// AES-NI + PCLMULQDQ on 128-bit registers, 8 blocks per iteration.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNi,
    /// VAES + VPCLMULQDQ on 256-bit registers (AVX2), 16 blocks per iteration.
    #[cfg(target_arch = "x86_64")]
    Vaes256,
    /// VAES + VPCLMULQDQ on 512-bit registers, 32 blocks per iteration, Karatsuba multiplies
    /// (three a register: AMD's Zen 4 issues a 512-bit multiply every other cycle).
    #[cfg(target_arch = "x86_64")]
    Vaes512,
    /// The 512-bit engine with schoolbook multiplies (four a register, no shuffle or XOR for
    /// the middle term: Intel's port 5 runs every 512-bit multiply and shuffle).
    #[cfg(target_arch = "x86_64")]
    Vaes512Schoolbook,
    /// ARMv8 AES + PMULL, 8 blocks per iteration.
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Armv8,
    /// The ARMv8 engine on CPUs with FEAT_SHA3 (Neoverse V1/V2/N2, Apple M1 and later): the
    /// same loop with three-way `EOR3` XORs.
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Armv8Eor3,
}

impl Engine {
    /// Every engine compiled for this target, slowest first.
    pub const ALL: &'static [Engine] = &[
        Engine::Generic,
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Engine::AesNi,
        #[cfg(target_arch = "x86_64")]
        Engine::Vaes256,
        #[cfg(target_arch = "x86_64")]
        Engine::Vaes512Schoolbook,
        #[cfg(target_arch = "x86_64")]
        Engine::Vaes512,
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Engine::Armv8,
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Engine::Armv8Eor3,
    ];
}

/// Work for an engine: generic code run with the engine's register type `L`, `N` registers to
/// a stitched iteration, and Karatsuba or schoolbook multiplies.
pub(crate) trait Job {
    /// What the job returns.
    type Output;

    /// Whether the job runs the stitched loop, whose multiplies have an engine-chosen shape
    /// (Karatsuba or schoolbook); the others take Karatsuba's, one instantiation. Read by the
    /// x86 engines only (the ARMv8 one has one shape).
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(dead_code)
    )]
    const SHAPED: bool = false;

    /// Runs the job.
    ///
    /// # Safety
    /// The CPU has `L`'s features and this runs inlined into a function compiled with them
    /// (an engine's `run`); and the job's own obligations, stated where it is built, hold.
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> Self::Output;
}

/// One fused engine, through a token type.
///
/// # Safety
///
/// A value of the implementing type exists only on a CPU that has every target feature the
/// engine's `#[target_feature]` function is compiled with: [`Isa::detect`] is its only
/// constructor (the type has private fields) and returns a value only after the engine's
/// detection succeeded. The callers' `unsafe` blocks rest on that.
pub(crate) unsafe trait Isa: Copy {
    /// The engine the token runs.
    fn engine(self) -> Engine;

    /// Below this many bytes of text, AES-GCM runs iterations of half the engine's width (a
    /// job of its own; messages under [`Self::GCM_GROUPED_BELOW`] bytes go in groups of
    /// eight blocks instead, `kernel::crypt_grouped`): 1536 on the 256-bit engine, 4096 on the
    /// 512-bit one, none elsewhere. Half the width, the call multiplies by fewer powers than
    /// the full width's (H^1..H^8 of the key's twelve on the 256-bit engine; at most H^13..H^17
    /// made for the call on the 512-bit one, not H^13..H^32), and hashes half as much of its
    /// output after the loop (the first `kernel::LAG` iterations'), so that more of a
    /// mid-sized message's iterations are stitched.
    ///
    /// Measured on AMD Zen 3 (in-process A/B, AES-128 with 16 B of AAD, medians of per-round
    /// ratios, four runs): 256 B 1.00-1.19x faster, 512 B to 1420 B 1.00-1.09x (the most
    /// while the shared host was loaded); from 2 KiB the full width is ahead (1.03-1.07x at
    /// 4-16 KiB). On AMD Zen 4 (headline rows, AES-128 with 16 B of AAD, ring's time over
    /// ours, full width against half width): 1 KiB 0.90x -> 1.11x, 1420 B 1.10x -> 1.31x,
    /// 2 KiB 1.05x -> 1.17x, 3 KiB 1.10x -> 1.21x, 4 KiB 1.16x -> 1.18x, 6 KiB 1.17x ->
    /// 1.14x; and in groups, 192 B 1.09x -> 1.51x, 256 B 0.97x -> 1.41x, 400 B 0.93x ->
    /// 1.28x, 511 B 1.08x -> 1.63x (where groups end: `kernel::grouped_below`). Intel's
    /// 512-bit engine (schoolbook shape) takes the same bounds, not measured there.
    const GCM_HALF_BELOW: usize = 0;

    /// Below this many bytes of text (and with a short enough AAD, `kernel::groups_aad`),
    /// AES-GCM on a key's kept powers runs in groups of eight blocks (`kernel::crypt_grouped`),
    /// a job of its own: `kernel::grouped_below` of the engine's blocks per register on the
    /// x86 engines, none elsewhere.
    const GCM_GROUPED_BELOW: usize = 0;

    /// The token, if this CPU runs the engine.
    fn detect() -> Option<Self>;

    /// FIPS-197 key expansion with the engine's AES instructions; `None` for a key length
    /// that is not AES's.
    fn expand(self, aes_key: &[u8]) -> Option<RoundKeys>;

    /// [`Isa::expand`] into `out` in place (AES-GCM-SIV's schedule per message, which then
    /// never moves); `false`, `out` unchanged, for a key length that is not AES's.
    #[inline]
    fn expand_into(self, aes_key: &[u8], out: &mut RoundKeys) -> bool {
        match self.expand(aes_key) {
            Some(rk) => {
                *out = rk;
                true
            }
            None => false,
        }
    }

    /// [`Isa::expand_into`], then `E_K(0^128)` (AES-GCM's hash key block) under the new
    /// schedule; `None`, `out` unchanged, for a key length that is not AES's. An engine may
    /// run the block's rounds as the schedule makes their keys (x86).
    #[inline]
    fn expand_e0(self, aes_key: &[u8], out: &mut RoundKeys) -> Option<[u8; 16]> {
        expand_then_e0(self, aes_key, out)
    }

    /// AES-GCM-SIV's message keys under the key-generating key `kgk` for `nonce`, in one call
    /// that keeps them in registers (the authentication key to `mac`, the encryption key's
    /// schedule to `out`); `false`, nothing written, where the engine has no such path (the
    /// caller then derives block by block and expands).
    #[inline]
    fn siv_message_keys(
        self,
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        mac: &mut [u8; 16],
        out: &mut RoundKeys,
    ) -> bool {
        let _ = (kgk, nonce, mac, out);
        false
    }

    /// AES-GCM-SIV encryption of a short message in one call, from the key-generating key
    /// `kgk` and `nonce` to the tag of `aad` and the input of `buffer`, the ciphertext written
    /// to its output; `None`, nothing written, where the engine has no such path or does not
    /// take this message (the caller then takes the general one).
    #[inline]
    fn siv_seal_short(
        self,
        kgk: &RoundKeys,
        nonce: &[u8; 12],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> Option<[u8; 16]> {
        let _ = (kgk, nonce, aad, buffer);
        None
    }

    /// Runs `job` with the engine's features and registers.
    ///
    /// # Safety
    /// The job's obligations hold (the features are the token's).
    unsafe fn run<J: Job>(self, job: J) -> J::Output;
}

#[cfg(not(any(
    target_arch = "x86",
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_endian = "little")
)))]
// SAFETY: no value of `Infallible` exists, so none of these methods ever runs (the token of
// targets without a fused engine, where `Token::detect` returns `None` for every engine).
unsafe impl Isa for core::convert::Infallible {
    fn engine(self) -> Engine {
        match self {}
    }

    fn detect() -> Option<Self> {
        None
    }

    fn expand(self, _: &[u8]) -> Option<RoundKeys> {
        match self {}
    }

    unsafe fn run<J: Job>(self, _: J) -> J::Output {
        match self {}
    }
}

/// One message's key material, AAD, buffers and what to hash: what [`Gcm`] and [`Crypt`] run.
/// Obligation: `len` bytes readable at `inp` and writable at `out`, which are equal or
/// disjoint.
pub(crate) struct Message<'a> {
    pub(crate) rk: &'a RoundKeys,
    pub(crate) powers: Powers<'a>,
    pub(crate) aad: &'a [u8],
    pub(crate) inp: *const u8,
    pub(crate) out: *mut u8,
    pub(crate) len: usize,
    pub(crate) hashing: Hashing,
}

impl<'a> Message<'a> {
    /// The message of `len` bytes at `inp` (input) and `out` (output).
    pub(crate) fn new(
        rk: &'a RoundKeys,
        powers: Powers<'a>,
        aad: &'a [u8],
        (inp, out, len): (*const u8, *mut u8, usize),
        hashing: Hashing,
    ) -> Self {
        Message {
            rk,
            powers,
            aad,
            inp,
            out,
            len,
            hashing,
        }
    }

    /// [`kernel::crypt`] on this message with the round keys in `ks`.
    ///
    /// # Safety
    /// As [`Job::run`], with the message's obligation.
    #[inline(always)]
    unsafe fn crypt<L: AesLanes, C: Counter, D: Domain, const N: usize, const KARATSUBA: bool>(
        &self,
        ks: &AesKeys<L>,
        ctr: Counter0<'_>,
        lengths: &[u8; 16],
    ) -> [u8; 16] {
        let m = self;
        // SAFETY: forwarded from the caller.
        unsafe {
            kernel::crypt::<L, C, D, N, KARATSUBA>(
                ks, m.powers, ctr, m.aad, m.inp, m.out, m.len, m.hashing, lengths,
            )
        }
    }
}

/// GCM: the keystream from `inc32(J0)` over the message, and (hashing) the full tag
/// `GHASH(A, C) ^ E(J0)`, `C` the input or the output; with `SHORT` a short message on the
/// key's kept powers ([`kernel::crypt_short`], a job of its own); with `HALF` iterations of half
/// the engine's width ([`Isa::GCM_HALF_BELOW`]), or with `GROUPED` as well groups of eight
/// blocks on the key's kept powers ([`Isa::GCM_GROUPED_BELOW`]). Obligation: the message's.
struct Gcm<'a, const SHORT: bool, const HALF: bool = false, const GROUPED: bool = false> {
    msg: Message<'a>,
    j0: &'a J0,
    /// GCM's length block of the message, made outside the kernel's function (its saturating
    /// arithmetic has a cold path that the disassembly check of `cargo xtask ct` would enter
    /// from the panic before it).
    lengths: [u8; 16],
    /// Whether the counter is public ([`J0::from_nonce`]), as a word: the disassembly check
    /// tells public values from data by their load width, and a `bool` is a byte.
    public: usize,
}

impl<'a, const SHORT: bool, const HALF: bool, const GROUPED: bool> Gcm<'a, SHORT, HALF, GROUPED> {
    fn new(msg: Message<'a>, j0: &'a J0) -> Self {
        let lengths = crate::length_block(msg.aad.len(), msg.len);
        let public = usize::from(j0.from_nonce());
        Gcm {
            msg,
            j0,
            lengths,
            public,
        }
    }

    /// The text's first counter block, `inc32(J0)`, and whether the counter is public.
    fn ctr(&self) -> Counter0<'a> {
        Counter0 {
            block: self.j0.block(),
            skip: 1,
            public: self.public != 0,
        }
    }
}

impl<const SHORT: bool, const HALF: bool, const GROUPED: bool> Job
    for Gcm<'_, SHORT, HALF, GROUPED>
{
    type Output = [u8; 16];
    const SHAPED: bool = true;

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> [u8; 16] {
        // SAFETY: the features and the buffers are the caller's obligations.
        unsafe {
            let ks = AesKeys::<L>::new(self.msg.rk);
            // The tag's mask E(J0) first, held across the message by the fence: its rounds,
            // which nothing waits for, run beside the message's instead of after its hash.
            // (Written out here and in `GcmTag`: as one shared function it changed the 512-bit
            // engine's code into a form the disassembly check of `cargo xtask ct` reports.)
            let mut ej0 = L::zero();
            if self.msg.hashing != Hashing::Off {
                ej0 = ks.encrypt([L::broadcast(self.j0.block())], &[L::zero()])[0];
                crate::lanes::fence(&mut ej0);
            }
            // The text's keystream starts at inc32(J0).
            let m = &self.msg;
            // The jobs on a key's kept powers: `run_gcm` takes them only for such a key and
            // a message the kernel function takes.
            macro_rules! on_kept {
                ($kernel:ident) => {
                    kernel::$kernel::<L, Inc32, GhashDomain, KARATSUBA>(
                        &ks,
                        m.powers
                            .kept()
                            .expect("a short or grouped job on kept powers"),
                        self.ctr(),
                        m.aad,
                        m.inp,
                        m.out,
                        m.len,
                        m.hashing,
                        &self.lengths,
                    )
                };
            }
            let s = if SHORT {
                on_kept!(crypt_short)
            } else if GROUPED {
                on_kept!(crypt_grouped)
            } else if HALF {
                // The 256-bit and 512-bit engines: stitched iterations of four registers.
                m.crypt::<L, Inc32, GhashDomain, 4, KARATSUBA>(&ks, self.ctr(), &self.lengths)
            } else {
                m.crypt::<L, Inc32, GhashDomain, N, KARATSUBA>(&ks, self.ctr(), &self.lengths)
            };
            if self.msg.hashing == Hashing::Off {
                return s;
            }
            mask(s, &L::lane0(ej0))
        }
    }
}

/// GCM's full tag of `(aad, ct)` without decrypting. No obligation of its own.
struct GcmTag<'a> {
    rk: &'a RoundKeys,
    kept: &'a KeptPowers,
    j0: &'a J0,
    aad: &'a [u8],
    ct: &'a [u8],
    /// The length block, made outside the kernel's function (see [`Gcm::lengths`]).
    lengths: [u8; 16],
}

impl Job for GcmTag<'_> {
    type Output = [u8; 16];

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> [u8; 16] {
        // SAFETY: the features are the caller's obligation.
        unsafe {
            // The mask first, as in `Gcm`: its rounds run beside the hash.
            let ks = AesKeys::<L>::new(self.rk);
            let mut ej0 = ks.encrypt([L::broadcast(self.j0.block())], &[L::zero()])[0];
            crate::lanes::fence(&mut ej0);
            let s = kernel::hash_message::<L, GhashDomain, N, KARATSUBA>(
                Powers::of_kept(self.kept),
                self.aad,
                self.ct,
                &self.lengths,
            );
            mask(s, &L::lane0(ej0))
        }
    }
}

/// `s ^ m`.
#[inline(always)]
fn mask(mut s: [u8; 16], m: &[u8; 16]) -> [u8; 16] {
    for (a, b) in s.iter_mut().zip(m) {
        *a ^= b;
    }
    s
}

/// AES-ECB of a few blocks, in place ([`kernel::encrypt_blocks`]). No obligation of its own.
pub(crate) struct EncryptBlocks<'a> {
    pub(crate) rk: &'a RoundKeys,
    pub(crate) blocks: &'a mut [[u8; 16]],
}

impl Job for EncryptBlocks<'_> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) {
        // SAFETY: the features are the caller's obligation.
        unsafe { kernel::encrypt_blocks(&AesKeys::<L>::new(self.rk), self.blocks) }
    }
}

/// [`kernel::crypt`] with any counter flavour `C` and hash domain `D`, from counter block
/// `ctr0`, ending the hash with the block `lengths` (AES-GCM-SIV's building block).
/// Obligation: the message's.
pub(crate) struct Crypt<'a, C, D> {
    pub(crate) msg: Message<'a>,
    pub(crate) ctr0: &'a [u8; 16],
    pub(crate) lengths: &'a [u8; 16],
    pub(crate) flavour: core::marker::PhantomData<(C, D)>,
}

impl<C: Counter, D: Domain> Job for Crypt<'_, C, D> {
    type Output = [u8; 16];
    const SHAPED: bool = true;

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> [u8; 16] {
        // SAFETY: the features and the buffers are the caller's obligations.
        unsafe {
            let ks = AesKeys::<L>::new(self.msg.rk);
            self.msg.crypt::<L, C, D, N, KARATSUBA>(
                &ks,
                Counter0 {
                    block: self.ctr0,
                    skip: 0,
                    public: true,
                },
                self.lengths,
            )
        }
    }
}

/// [`kernel::hash_message`] in domain `D` (AES-GCM-SIV's POLYVAL of the plaintext). No
/// obligation of its own.
pub(crate) struct Hash<'a, D> {
    pub(crate) powers: Powers<'a>,
    pub(crate) aad: &'a [u8],
    pub(crate) data: &'a [u8],
    pub(crate) lengths: &'a [u8; 16],
    pub(crate) domain: core::marker::PhantomData<D>,
}

impl<D: Domain> Job for Hash<'_, D> {
    type Output = [u8; 16];

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> [u8; 16] {
        // SAFETY: the features are the caller's obligation.
        unsafe {
            kernel::hash_message::<L, D, N, KARATSUBA>(
                self.powers,
                self.aad,
                self.data,
                self.lengths,
            )
        }
    }
}

/// AES encryption of one block.
pub(crate) fn encrypt_block<I: Isa>(isa: I, rk: &RoundKeys, block: &[u8; 16]) -> [u8; 16] {
    let mut b = [*block];
    // SAFETY: `EncryptBlocks` has no obligation of its own; `isa` proves the features.
    unsafe { isa.run(EncryptBlocks { rk, blocks: &mut b }) };
    b[0]
}

/// Encrypts `buffer` with the keystream from `inc32(J0)`; returns the full tag.
#[inline]
pub(crate) fn seal<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    kept: &KeptPowers,
    j0: &J0,
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
) -> [u8; 16] {
    let len = buffer.len();
    let (inp, out) = buffer.into_raw();
    let msg = Message::new(
        rk,
        Powers::of_kept(kept),
        aad,
        (inp, out, len),
        Hashing::Output,
    );
    // SAFETY: `InOutBuf` guarantees `len` valid bytes at `inp` and `out`, equal or disjoint.
    unsafe { run_gcm(isa, msg, j0) }
}

/// [`Gcm`] on `msg`: the short job for a short message ([`kernel::is_short`]), the wide one
/// otherwise.
///
/// # Safety
/// The message's obligation.
#[inline(always)]
unsafe fn run_gcm<I: Isa>(isa: I, msg: Message<'_>, j0: &J0) -> [u8; 16] {
    // SAFETY: forwarded from the caller.
    unsafe {
        let kept = msg.powers.kept().is_some();
        if kept && kernel::is_short(msg.aad.len(), msg.len) {
            isa.run(Gcm::<true>::new(msg, j0))
        } else if kept && msg.len < I::GCM_GROUPED_BELOW && kernel::groups_aad(msg.aad.len()) {
            // A job of its own, as the next: a mid-sized message's code is one function's,
            // not spread through the stitched loop's (fewer lines of code to fetch when the
            // caches are cold).
            isa.run(Gcm::<false, true, true>::new(msg, j0))
        } else if msg.len < I::GCM_HALF_BELOW {
            // A job of its own (its own instantiation of the engine's entry point), not a
            // branch inside the wide one: the two loops' registers are allocated apart.
            isa.run(Gcm::<false, true>::new(msg, j0))
        } else {
            isa.run(Gcm::<false>::new(msg, j0))
        }
    }
}

/// Decrypts `buffer` in place in one pass; returns the expected full tag.
#[inline]
pub(crate) fn open_in_place<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    kept: &KeptPowers,
    j0: &J0,
    aad: &[u8],
    buffer: &mut [u8],
) -> [u8; 16] {
    let (p, len) = (buffer.as_mut_ptr(), buffer.len());
    let msg = Message::new(rk, Powers::of_kept(kept), aad, (p, p, len), Hashing::Input);
    // SAFETY: one buffer of `len` bytes, read and written in place.
    unsafe { run_gcm(isa, msg, j0) }
}

/// The keystream from `inc32(J0)` XORed over the input, written to the output.
#[inline]
pub(crate) fn ctr<I: Isa>(isa: I, rk: &RoundKeys, j0: &J0, buffer: InOutBuf<'_, '_, u8>) {
    let len = buffer.len();
    let (inp, out) = buffer.into_raw();
    let msg = Message::new(
        rk,
        Powers::of_table(&EMPTY),
        &[],
        (inp, out, len),
        Hashing::Off,
    );
    // SAFETY: as in `seal`.
    unsafe { isa.run(Gcm::<false>::new(msg, j0)) };
}

/// GCM's full tag of `(aad, ct)` without decrypting.
#[inline]
pub(crate) fn tag<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    kept: &KeptPowers,
    j0: &J0,
    aad: &[u8],
    ct: &[u8],
) -> [u8; 16] {
    let lengths = crate::length_block(aad.len(), ct.len());
    let job = GcmTag {
        rk,
        kept,
        j0,
        aad,
        ct,
        lengths,
    };
    // SAFETY: `GcmTag` has no obligation of its own.
    unsafe { isa.run(job) }
}

/// GCM's J0 of a nonce of any length but 12 bytes: `GHASH_H(nonce || 0-pad || 0^64 ||
/// [bits(nonce)]_64)` under `tbl`'s key, on the engine's wide loop ([`struct@Hash`] in GHASH's
/// domain).
#[inline]
pub(crate) fn gcm_j0<I: Isa>(isa: I, kept: &KeptPowers, nonce: &[u8]) -> [u8; 16] {
    let job = Hash::<GhashDomain> {
        powers: Powers::of_kept(kept),
        aad: &[],
        data: nonce,
        lengths: &crate::length_block(0, nonce.len()),
        domain: core::marker::PhantomData,
    };
    // SAFETY: `Hash` has no obligation of its own; `isa` proves the features.
    unsafe { isa.run(job) }
}

/// [`Isa::expand_into`], then `E_K(0^128)` under the new schedule ([`Isa::expand_e0`] in two
/// steps); `None`, `out` unchanged, for a key length that is not AES's.
#[inline]
pub(crate) fn expand_then_e0<I: Isa>(
    isa: I,
    aes_key: &[u8],
    out: &mut RoundKeys,
) -> Option<[u8; 16]> {
    if !isa.expand_into(aes_key, out) {
        return None;
    }
    Some(encrypt_block(isa, out, &[0; 16]))
}

/// AES-ECB of `blocks` in place (AES-GCM-SIV's key derivation and tag).
#[inline]
pub(crate) fn encrypt_blocks<I: Isa>(isa: I, rk: &RoundKeys, blocks: &mut [[u8; 16]]) {
    // SAFETY: `EncryptBlocks` has no obligation of its own; `isa` proves the features.
    unsafe { isa.run(EncryptBlocks { rk, blocks }) }
}

/// AES-GCM-SIV's CTR ([`kernel::Le32`]) over `buffer` from the counter block `ctr0`, and, as
/// `hashing` says, POLYVAL ([`kernel::PolyvalDomain`]) with `powers` (the message's key, or
/// [`EMPTY`] with [`Hashing::Off`]) of `aad`, the output and the
/// length block in the same pass; returns that hash (meaningless with [`Hashing::Off`]).
#[inline]
pub(crate) fn siv_crypt<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    powers: Powers<'_>,
    ctr0: &[u8; 16],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
    hashing: Hashing,
) -> [u8; 16] {
    let len = buffer.len();
    let (inp, out) = buffer.into_raw();
    let job = Crypt::<kernel::Le32, kernel::PolyvalDomain> {
        msg: Message::new(rk, powers, aad, (inp, out, len), hashing),
        ctr0,
        lengths: &crate::siv_length_block(aad.len(), len),
        flavour: core::marker::PhantomData,
    };
    // SAFETY: `InOutBuf` guarantees `len` valid bytes at `inp` and `out`, equal or disjoint.
    unsafe { isa.run(job) }
}

/// POLYVAL with `powers` (the message's key: the call computes the powers its loop
/// multiplies by) of `aad`, `data` (each zero-padded) and AES-GCM-SIV's length block, on the
/// engine's wide loop.
#[inline]
pub(crate) fn polyval<I: Isa>(isa: I, powers: Powers<'_>, aad: &[u8], data: &[u8]) -> [u8; 16] {
    let job = Hash::<kernel::PolyvalDomain> {
        powers,
        aad,
        data,
        lengths: &crate::siv_length_block(aad.len(), data.len()),
        domain: core::marker::PhantomData,
    };
    // SAFETY: `Hash` has no obligation of its own; `isa` proves the features.
    unsafe { isa.run(job) }
}

/// AES-GCM-SIV's end of an encryption in one call: the tag block encrypted in place, then CTR
/// ([`kernel::Le32`]) from the tag with the top bit of byte 15 set over the message (which
/// hashes nothing). Obligation: the message's.
struct SivTagCtr<'a> {
    msg: Message<'a>,
    block: &'a mut [u8; 16],
}

impl Job for SivTagCtr<'_> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) {
        // SAFETY: the features and the buffers are the caller's obligations.
        unsafe {
            let ks = AesKeys::<L>::new(self.msg.rk);
            let tag = ks.encrypt_block(self.block);
            *self.block = tag;
            // `siv::counter_block` with vector operations: `(tag & !TOP) ^ TOP` sets the top
            // bit (as a byte operation it is compiled to an extract and insert through a
            // general-purpose register, where the disassembly check wants no data).
            const TOP: [u8; 16] = (1u128 << 127).to_le_bytes();
            const REST: [u8; 16] = (!(1u128 << 127)).to_le_bytes();
            let t = L::from_lane0(&tag);
            let top = L::from_lane0(&TOP);
            let ctr0 = L::lane0(L::xor(L::and(t, L::from_lane0(&REST)), top));
            // The counter starts at the tag, which is public (the ciphertext's last block).
            let start = Counter0 {
                block: &ctr0,
                skip: 0,
                public: true,
            };
            // CTR alone, as a constant: the stitched loop's hashing is compiled out of this
            // job (about 4 KB of machine code an engine).
            let m = &self.msg;
            kernel::crypt::<L, kernel::Le32, kernel::PolyvalDomain, N, KARATSUBA>(
                &ks,
                m.powers,
                start,
                &[],
                m.inp,
                m.out,
                m.len,
                Hashing::Off,
                &[0; 16],
            );
        }
    }
}

/// [`SivTagCtr`]: encrypts `block` in place (the tag), then AES-GCM-SIV's CTR from it over
/// `buffer`.
#[inline]
pub(crate) fn siv_tag_ctr<I: Isa>(
    isa: I,
    rk: &RoundKeys,
    block: &mut [u8; 16],
    buffer: InOutBuf<'_, '_, u8>,
) {
    let len = buffer.len();
    let (inp, out) = buffer.into_raw();
    let job = SivTagCtr {
        msg: Message::new(
            rk,
            Powers::of_table(&EMPTY),
            &[],
            (inp, out, len),
            Hashing::Off,
        ),
        block,
    };
    // SAFETY: `InOutBuf` guarantees `len` valid bytes at `inp` and `out`, equal or disjoint.
    unsafe { isa.run(job) }
}

/// [`clmul_core::wide::polyval_horner`]: POLYVAL of a short message without a table. No
/// obligation of its own.
struct PolyvalShort<'a> {
    h: &'a [u8; 16],
    aad: &'a [u8],
    data: &'a [u8],
    lengths: [u8; 16],
}

impl Job for PolyvalShort<'_> {
    type Output = [u8; 16];

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> [u8; 16] {
        // SAFETY: the features are the caller's obligation.
        unsafe { clmul_core::wide::polyval_horner::<L>(self.h, self.aad, self.data, &self.lengths) }
    }
}

/// POLYVAL under the key `h` of `aad`, `data` and AES-GCM-SIV's length block, block by block
/// (Horner's rule; for short messages, whose key is new each time).
#[inline]
pub(crate) fn polyval_short<I: Isa>(isa: I, h: &[u8; 16], aad: &[u8], data: &[u8]) -> [u8; 16] {
    let lengths = crate::siv_length_block(aad.len(), data.len());
    // SAFETY: `PolyvalShort` has no obligation of its own; `isa` proves the features.
    unsafe {
        isa.run(PolyvalShort {
            h,
            aad,
            data,
            lengths,
        })
    }
}

/// [`kernel::kept_powers`]: an AES-GCM key's H^1..H^KEPT. No obligation of its own.
struct KeptJob<'a> {
    h: &'a [u8; 16],
    out: &'a mut KeptPowers,
}

impl Job for KeptJob<'_> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) {
        // SAFETY: the features are the caller's obligation.
        unsafe { kernel::kept_powers::<L>(self.h, self.out) }
    }
}

/// Fills `out` with the powers H^1..H^KEPT of the POLYVAL-domain hash key `h` (AES-GCM's key
/// setup), with the engine's multiplies.
#[inline]
pub(crate) fn kept_powers<I: Isa>(isa: I, h: &[u8; 16], out: &mut KeptPowers) {
    // SAFETY: `KeptJob` has no obligation of its own; `isa` proves the features.
    unsafe { isa.run(KeptJob { h, out }) }
}
