//! The kernel's flavours on every engine this CPU runs, against references written from the
//! definitions: AES from the `aes` crate, counters block by block (GCM's `inc32`, AES-GCM-SIV's
//! little-endian first word, RFC 8452 section 4), POLYVAL by Horner's rule with the portable
//! field product, GHASH through `clmul_core`'s portable backend. Engines the CPU lacks are
//! skipped with a message. (The AES-GCM engines as a whole are tested through both `aes-gcm`
//! APIs, in `crates/gcm/tests/suite`.)

extern crate std;

use std::vec::Vec;
use std::{eprintln, format, vec};

use aes::cipher::{BlockCipherEncrypt, KeyInit};

use super::{
    Counter, Domain, GhashDomain as Ghash, Hashing, Inc32, Le32, PolyvalDomain as Polyval, Powers,
};
use crate::engine::{Crypt, EncryptBlocks, Hash, Isa, Job, Message};
use crate::lanes::AesLanes;
use clmul_core::wide::{EMPTY, KEPT, KeptPowers, PowerTable, TOP};

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn block(&mut self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b.copy_from_slice(&self.bytes(16));
        b
    }
}

/// AES-ECB with the `aes` crate.
fn aes_ref(key: &[u8], block: &[u8; 16]) -> [u8; 16] {
    let mut b = (*block).into();
    match key.len() {
        16 => aes::Aes128::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut b),
        24 => aes::Aes192::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut b),
        _ => aes::Aes256::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut b),
    }
    b.into()
}

/// A counter flavour's reference: block `i` after `first`.
trait CounterRef: Counter {
    fn nth(first: &[u8; 16], i: u32) -> [u8; 16];
}

impl CounterRef for Inc32 {
    fn nth(first: &[u8; 16], i: u32) -> [u8; 16] {
        let mut b = *first;
        let c = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(i);
        b[12..].copy_from_slice(&c.to_be_bytes());
        b
    }
}

impl CounterRef for Le32 {
    fn nth(first: &[u8; 16], i: u32) -> [u8; 16] {
        let mut b = *first;
        let c = u32::from_le_bytes([b[0], b[1], b[2], b[3]]).wrapping_add(i);
        b[..4].copy_from_slice(&c.to_le_bytes());
        b
    }
}

/// A hash domain's reference: the hash of whole zero-padded inputs.
trait DomainRef: Domain {
    fn table(h: &[u8; 16]) -> PowerTable;
    /// The key in POLYVAL's domain, whose powers the kernel multiplies by.
    fn polyval_key(h: &[u8; 16]) -> [u8; 16];
    fn hash(h: &[u8; 16], inputs: &[&[u8]]) -> [u8; 16];
}

impl DomainRef for Polyval {
    fn table(h: &[u8; 16]) -> PowerTable {
        PowerTable::polyval(h)
    }

    fn polyval_key(h: &[u8; 16]) -> [u8; 16] {
        *h
    }

    /// RFC 8452 section 3: `S_j = (S_(j-1) + X_j) * H * x^-128`, from `S_0 = 0`.
    fn hash(h: &[u8; 16], inputs: &[&[u8]]) -> [u8; 16] {
        let h = u128::from_le_bytes(*h);
        let mut s = 0u128;
        for data in inputs {
            for chunk in data.chunks(16) {
                let mut b = [0u8; 16];
                b[..chunk.len()].copy_from_slice(chunk);
                s = clmul_core::soft::dot(s ^ u128::from_le_bytes(b), h);
            }
        }
        s.to_le_bytes()
    }
}

impl DomainRef for Ghash {
    fn table(h: &[u8; 16]) -> PowerTable {
        PowerTable::ghash(h)
    }

    /// `mulX_POLYVAL(ByteReverse(H))` (RFC 8452, Appendix A).
    fn polyval_key(h: &[u8; 16]) -> [u8; 16] {
        clmul_core::soft::mulx(u128::from_be_bytes(*h)).to_le_bytes()
    }

    /// GHASH on the portable backend.
    fn hash(h: &[u8; 16], inputs: &[&[u8]]) -> [u8; 16] {
        let g = clmul_core::Ghash::with_backend(h, clmul_core::Backend::Portable).unwrap();
        let mut acc = [0u8; 16];
        for data in inputs {
            g.update_detached_padded(&mut acc, data);
        }
        acc
    }
}

/// Runs the generic check `$check::<I: Isa>(isa)` on every engine this CPU runs (the 512-bit
/// one in both shapes), naming those it lacks.
macro_rules! on_every_engine {
    ($check:ident) => {{
        let mut ran = 0;
        let mut skip = |what: &str| eprintln!("note: this CPU lacks the {what} engine; skipped");
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        match crate::x86::AesNi::detect() {
            Some(t) => {
                $check(t);
                ran += 1;
            }
            None => skip("AES-NI"),
        }
        #[cfg(target_arch = "x86_64")]
        match crate::x86::Vaes256::detect() {
            Some(t) => {
                $check(t);
                ran += 1;
            }
            None => skip("VAES-256"),
        }
        #[cfg(target_arch = "x86_64")]
        match crate::x86::Vaes512::detect() {
            Some(t) => {
                $check(t.karatsuba(true));
                $check(t.karatsuba(false));
                ran += 2;
            }
            None => skip("VAES-512"),
        }
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        match crate::aarch64::Armv8::detect() {
            Some(t) => {
                $check(t);
                ran += 1;
            }
            None => skip("ARMv8"),
        }
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        match crate::aarch64::Armv8::detect_eor3() {
            Some(t) => {
                $check(t);
                ran += 1;
            }
            None => skip("ARMv8 EOR3"),
        }
        let _ = &mut skip;
        ran
    }};
}

/// An AES-GCM key's kept powers of the POLYVAL key `h`, made by the engine.
fn kept<I: Isa>(isa: I, h: &[u8; 16]) -> KeptPowers {
    let mut k = KeptPowers::zero();
    crate::engine::kept_powers(isa, h, &mut k);
    k
}

/// The message lengths: every one up to three 128-byte iterations, then around the 16- and
/// 32-block iterations of the wide engines (with their `LAG` iterations hashed afterwards),
/// and a few long ones.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=400).collect();
    for it in [256usize, 512] {
        for k in 1..=5 {
            for d in [-17isize, -16, -1, 0, 1, 15, 16, 33] {
                v.push((it * k).wrapping_add_signed(d));
            }
        }
    }
    v.extend([4096 + 7, 16384, 16384 + 100, 40000 + 3]);
    v
}

/// Bytes placed `off` bytes past a 64-byte boundary of their own allocation (a cache line on
/// x86, and the 512-bit engine's register), whose heap buffer does not move with the
/// value, so pointers into it stay valid.
struct Placed {
    v: Vec<u8>,
    at: usize,
    len: usize,
}

impl Placed {
    fn new(bytes: &[u8], off: usize) -> Self {
        let mut v = vec![0xa5; bytes.len() + 128];
        let at = (64 - v.as_ptr() as usize % 64) % 64 + off % 64;
        v[at..at + bytes.len()].copy_from_slice(bytes);
        Placed {
            v,
            at,
            len: bytes.len(),
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.v[self.at..self.at + self.len]
    }

    fn ptr(&mut self) -> *mut u8 {
        self.v[self.at..].as_mut_ptr()
    }
}

/// The output buffer of a job over `input` (`off` bytes past a 64-byte boundary), and the
/// input pointer to give it: in place, a copy of `input` and its own pointer; out of place, a
/// filled buffer and a copy of `input` at another offset, which the caller keeps alive.
fn buffers(input: &[u8], in_place: bool, off: usize) -> (Placed, Option<Placed>, *const u8) {
    let mut out = Placed::new(input, off);
    if in_place {
        let p = out.ptr().cast_const();
        (out, None, p)
    } else {
        out.v.fill(0xa5);
        let mut inp = Placed::new(input, off + 24);
        let p = inp.ptr().cast_const();
        (out, Some(inp), p)
    }
}

/// Output offsets past a 64-byte boundary: aligned to the 512-bit engine's register, a whole
/// number of blocks off it (every register of the output then crosses a cache line, on
/// 256-bit registers every other one), and no whole number (every wide access crosses one).
const OFFSETS: [usize; 5] = [0, 16, 32, 48, 7];

/// [`Crypt`] with counter `C` and domain `D`, every [`Hashing`], in place and out of place,
/// against the references: the keystream block by block, and the hash of the AAD, the hashed
/// side of the text and the length block.
fn check_crypt<I: Isa, C: CounterRef, D: DomainRef>(isa: I, rng: &mut Rng, ctr0: &[u8; 16]) {
    check_crypt_lengths::<I, C, D>(isa, rng, ctr0, &lengths(), &[128, 256]);
}

/// [`check_crypt`] over the message lengths `lens` and the key sizes `key_bits`.
fn check_crypt_lengths<I: Isa, C: CounterRef, D: DomainRef>(
    isa: I,
    rng: &mut Rng,
    ctr0: &[u8; 16],
    lens: &[usize],
    key_bits: &[usize],
) {
    for &bits in key_bits {
        let key = rng.bytes(bits / 8);
        let h = rng.block();
        let rk = isa.expand(&key).unwrap();
        let tbl = D::table(&h);
        let pk = D::polyval_key(&h);
        let kept = kept(isa, &pk);
        for &len in lens {
            let aad = rng.bytes([0, 1, 16, 17, 100, 600][len % 6]);
            let input = rng.bytes(len);
            let lengths = rng.block();
            let mut expected = input.clone();
            for (i, chunk) in expected.chunks_mut(16).enumerate() {
                let ks = aes_ref(&key, &C::nth(ctr0, i as u32));
                for (b, k) in chunk.iter_mut().zip(ks) {
                    *b ^= k;
                }
            }
            for (hashing, powers) in [
                (Hashing::Off, Powers::of_table(&EMPTY)),
                (Hashing::Input, Powers::of_table(&tbl)),
                (Hashing::Output, Powers::of_table(&tbl)),
                (Hashing::Input, Powers::of_kept(&kept)),
                (Hashing::Output, Powers::of_kept(&kept)),
                (Hashing::Input, Powers::of_key(&pk)),
                (Hashing::Output, Powers::of_key(&pk)),
            ] {
                let source = match (powers.kept, powers.key) {
                    (Some(_), _) => "kept powers",
                    (_, Some(_)) => "the key",
                    _ => "whole table",
                };
                // Every output offset for the longest messages (4 KiB and more), one of them
                // in turn for the others.
                let offsets = if len >= 4096 {
                    &OFFSETS[..]
                } else {
                    &OFFSETS[len % 5..len % 5 + 1]
                };
                let cases = [true, false]
                    .into_iter()
                    .flat_map(|in_place| offsets.iter().map(move |&off| (in_place, off)));
                for (in_place, off) in cases {
                    let (mut out, _keep, inp) = buffers(&input, in_place, off);
                    let msg = Message::new(&rk, powers, &aad, (inp, out.ptr(), len), hashing);
                    let job = Crypt::<C, D> {
                        msg,
                        ctr0,
                        lengths: &lengths,
                        flavour: core::marker::PhantomData,
                    };
                    // SAFETY: `inp` and `out` each have `len` bytes, equal (in place) or
                    // disjoint (two vectors).
                    let s = unsafe { isa.run(job) };
                    let what = format!(
                        "{:?} AES-{bits} len {len} aad {}, {source}, output offset {off}",
                        isa.engine(),
                        aad.len()
                    );
                    assert_eq!(
                        out.bytes(),
                        expected,
                        "{what}: text, {:?}, in place {in_place}",
                        hashing as u8
                    );
                    let hashed = match hashing {
                        Hashing::Off => continue,
                        Hashing::Input => &input,
                        Hashing::Output => &expected,
                    };
                    let want = D::hash(&h, &[&aad, hashed, &lengths]);
                    assert_eq!(
                        s,
                        want,
                        "{what}: hash of the {}",
                        if hashing == Hashing::Input {
                            "input"
                        } else {
                            "output"
                        }
                    );
                }
            }
        }
    }
}

/// AES-GCM-SIV's counter (the first word, little-endian, wrapping) and POLYVAL.
fn siv_flavours<I: Isa>(isa: I) {
    let mut rng = Rng(0x5157_0000_0000_0001);
    // The counter's first word 2^32 - 37: the messages above wrap it to zero, the other
    // twelve bytes must stay.
    let mut ctr0 = rng.block();
    ctr0[..4].copy_from_slice(&(u32::MAX - 36).to_le_bytes());
    check_crypt::<I, Le32, Polyval>(isa, &mut rng, &ctr0);
}

/// GCM's counter through the same job, started where the low byte and the whole 32-bit word
/// are about to wrap (the shuffle-free step is taken only while the low byte does not).
fn gcm_flavours<I: Isa>(isa: I) {
    let mut rng = Rng(0x6c3d_0000_0000_0002);
    let mut ctr0 = rng.block();
    ctr0[12..].copy_from_slice(&(u32::MAX - 200).to_be_bytes());
    check_crypt::<I, Inc32, Ghash>(isa, &mut rng, &ctr0);
}

/// GCM's counter started at every position of its last byte against the stitched loop's
/// iterations and the wrap of that byte, with carries into the bytes above it (the counter
/// word `0x00fe_ffxx` and `0xffff_ffxx`): the engines that take an iteration's first round
/// from a table ([`crate::kernel::Round1`]) switch between the table and the counter blocks
/// at each wrap, and key each run of the last byte anew. Messages of a kilobyte and more
/// (where the table is built), with three wraps in the longest.
fn gcm_cached_runs<I: Isa>(isa: I) {
    let mut rng = Rng(0x6c3d_0000_0000_0003);
    let lens = [1024 + 256 + 16, 2048 + 5, 4096 + 7, 9000];
    for high in [0x00fe_ff00u32, 0xffff_ff00] {
        for low in [0u32, 1, 2, 7, 8, 9, 200, 246, 247, 248, 249, 250, 254, 255] {
            let mut ctr0 = rng.block();
            ctr0[12..].copy_from_slice(&(high | low).to_be_bytes());
            check_crypt_lengths::<I, Inc32, Ghash>(isa, &mut rng, &ctr0, &lens, &[128, 192, 256]);
        }
    }
}

/// The hash-only job in both domains.
fn hash_only<I: Isa>(isa: I) {
    fn one<I: Isa, D: DomainRef>(isa: I, rng: &mut Rng) {
        let h = rng.block();
        let tbl = D::table(&h);
        let pk = D::polyval_key(&h);
        let kept = kept(isa, &pk);
        for len in lengths().into_iter().step_by(3) {
            let (aad, data, lengths) = (rng.bytes(len % 301), rng.bytes(len), rng.block());
            let sources = [
                Powers::of_table(&tbl),
                Powers::of_kept(&kept),
                Powers::of_key(&pk),
            ];
            for powers in sources {
                let job = Hash::<D> {
                    powers,
                    aad: &aad,
                    data: &data,
                    lengths: &lengths,
                    domain: core::marker::PhantomData,
                };
                // SAFETY: `Hash` has no obligation of its own.
                let got = unsafe { isa.run(job) };
                assert_eq!(
                    got,
                    D::hash(&h, &[&aad, &data, &lengths]),
                    "{:?}: len {len}, aad {}, kept {}, key {}",
                    isa.engine(),
                    aad.len(),
                    powers.kept.is_some(),
                    powers.key.is_some()
                );
            }
        }
    }
    let mut rng = Rng(0x4a54_0000_0000_0003);
    one::<I, Polyval>(isa, &mut rng);
    one::<I, Ghash>(isa, &mut rng);
}

/// AES-ECB of one to eight blocks (AES-GCM-SIV derives its per-nonce keys from four to six).
fn ecb<I: Isa>(isa: I) {
    let mut rng = Rng(0xecb0_0000_0000_0004);
    for bits in [128, 192, 256] {
        let key = rng.bytes(bits / 8);
        let rk = isa.expand(&key).unwrap();
        for n in 0..=8 {
            let mut blocks: Vec<[u8; 16]> = (0..n).map(|_| rng.block()).collect();
            let want: Vec<[u8; 16]> = blocks.iter().map(|b| aes_ref(&key, b)).collect();
            // SAFETY: `EncryptBlocks` has no obligation of its own.
            unsafe {
                isa.run(EncryptBlocks {
                    rk: &rk,
                    blocks: &mut blocks,
                })
            };
            assert_eq!(blocks, want, "{:?}: AES-{bits}, {n} blocks", isa.engine());
        }
    }
}

/// A copy of `data` in `arena` that ends on a 4 KiB boundary (`end`) or starts on one: the
/// partial registers at its ends then sit where a 64-byte masked access would cross into the
/// next or the previous page, which the 512-bit registers avoid (their fallback through the
/// stack runs; the copy's neighbours are mapped here, so either way is correct, and the
/// result must be the same as elsewhere).
fn at_page<'a>(arena: &'a mut [u8], data: &[u8], end: bool) -> &'a mut [u8] {
    const PAGE: usize = 4096;
    let base = arena.as_ptr() as usize;
    let first = (base + 2 * PAGE).next_multiple_of(PAGE) - base;
    let at = if end { first - data.len() } else { first };
    let out = &mut arena[at..at + data.len()];
    out.copy_from_slice(data);
    out
}

/// GCM's job and the hash-only job on buffers (text and AAD) that end or start on a page
/// boundary, in place and out of place, against the same jobs on ordinary buffers (which
/// `check_crypt` and `hash_only` check against the references).
fn page_ends<I: Isa>(isa: I) {
    let mut rng = Rng(0x9a9e_0000_0000_0005);
    let key = rng.bytes(16);
    let rk = isa.expand(&key).unwrap();
    let h = rng.block();
    let kept = kept(isa, &Ghash::polyval_key(&h));
    let ctr0 = rng.block();
    let lengths = rng.block();
    let mut arenas = [
        vec![0u8; 5 * 4096],
        vec![0u8; 5 * 4096],
        vec![0u8; 5 * 4096],
    ];
    let lens = (1..=300).chain([511, 512, 513, 1000, 1420, 2049]);
    for len in lens {
        let (input, aad) = (rng.bytes(len), rng.bytes(len % 97));
        let run = |inp: *const u8, out: *mut u8, aad: &[u8], hashing: Hashing| {
            let msg = Message::new(&rk, Powers::of_kept(&kept), aad, (inp, out, len), hashing);
            let job = Crypt::<Inc32, Ghash> {
                msg,
                ctr0: &ctr0,
                lengths: &lengths,
                flavour: core::marker::PhantomData,
            };
            // SAFETY: `inp` and `out` each have `len` bytes, equal or disjoint.
            unsafe { isa.run(job) }
        };
        let hash = |aad: &[u8], data: &[u8]| {
            let job = Hash::<Ghash> {
                powers: Powers::of_kept(&kept),
                aad,
                data,
                lengths: &lengths,
                domain: core::marker::PhantomData,
            };
            // SAFETY: `Hash` has no obligation of its own.
            unsafe { isa.run(job) }
        };
        for hashing in [Hashing::Input, Hashing::Output] {
            let mut want = vec![0u8; len];
            let want_tag = run(input.as_ptr(), want.as_mut_ptr(), &aad, hashing);
            for end in [true, false] {
                let [a, b, c] = &mut arenas;
                let what = format!("{:?}: len {len}, page end {end}", isa.engine());
                // Out of place: the input, the output and the AAD each at a page boundary.
                let inp = at_page(a, &input, end);
                let out = at_page(b, &vec![0u8; len], end);
                let ad = at_page(c, &aad, end);
                let tag = run(inp.as_ptr(), out.as_mut_ptr(), ad, hashing);
                assert_eq!((&*out, tag), (&want[..], want_tag), "{what}, out of place");
                // In place.
                let buf = at_page(a, &input, end);
                let tag = run(buf.as_ptr(), buf.as_mut_ptr(), ad, hashing);
                assert_eq!((&*buf, tag), (&want[..], want_tag), "{what}, in place");
            }
        }
        let want = hash(&aad, &input);
        for end in [true, false] {
            let [a, _, c] = &mut arenas;
            let (data, ad) = (at_page(a, &input, end), at_page(c, &aad, end));
            assert_eq!(hash(ad, data), want, "{:?}: hash, len {len}", isa.engine());
        }
    }
}

#[test]
fn page_ends_on_every_engine() {
    on_every_engine!(page_ends);
}

#[test]
fn siv_counter_and_polyval_on_every_engine() {
    let ran = on_every_engine!(siv_flavours);
    eprintln!("{ran} engines checked");
}

#[test]
fn gcm_counter_near_wrap_on_every_engine() {
    on_every_engine!(gcm_flavours);
}

#[test]
fn gcm_cached_runs_on_every_engine() {
    on_every_engine!(gcm_cached_runs);
}

#[test]
fn hash_only_on_every_engine() {
    on_every_engine!(hash_only);
}

#[test]
fn ecb_on_every_engine() {
    on_every_engine!(ecb);
}

/// Key setup's schedule and `E_K(0)` in one call (`Isa::expand_e0`) against the schedule
/// alone (`Isa::expand`) and the `aes` crate's encryption of the zero block, for every key
/// size; other lengths get `None` and leave the output as it was.
fn expand_e0<I: Isa>(isa: I) {
    let mut rng = Rng(0x6530_0000_0000_0007);
    for len in [16, 24, 32] {
        for _ in 0..32 {
            let key = rng.bytes(len);
            let mut out = crate::tables::RoundKeys::zero();
            let e0 = isa.expand_e0(&key, &mut out);
            let want = isa.expand(&key).unwrap();
            assert_eq!(
                out.rounds(),
                want.rounds(),
                "{:?}: {len}-byte key",
                isa.engine()
            );
            for r in 0..=want.rounds() {
                assert_eq!(
                    out.key(r),
                    want.key(r),
                    "{:?}: {len}-byte key, round key {r}",
                    isa.engine()
                );
            }
            assert_eq!(
                e0,
                Some(aes_ref(&key, &[0; 16])),
                "{:?}: {len}-byte key",
                isa.engine()
            );
        }
    }
    for len in [0, 8, 15, 17, 23, 31, 33, 48] {
        let mut out = crate::tables::RoundKeys::zero();
        assert_eq!(
            isa.expand_e0(&rng.bytes(len), &mut out),
            None,
            "{len}-byte key"
        );
        assert_eq!(out.rounds(), 10);
        assert!(
            (0..15).all(|r| out.key(r) == &[0; 16]),
            "{len}-byte key: output written"
        );
    }
}

#[test]
fn expand_e0_on_every_engine() {
    on_every_engine!(expand_e0);
}

/// H^33 (past `clmul_core`'s 32) and the zeros after H^1, which a register load of powers
/// reads past the last one.
#[test]
fn power_table_ends() {
    let h = [0x42u8; 16];
    let t = PowerTable::polyval(&h);
    let hh = u128::from_le_bytes(h);
    assert_eq!(t.get(1), hh);
    assert_eq!(t.get(TOP), clmul_core::soft::dot(t.get(TOP - 1), hh));
    assert_eq!(t.after_h1(), [0; 3]);
}

/// A call's table built from `powers` (kept powers, or the key alone) for `need` powers (with
/// middles, or without for schoolbook multiplies; half-swapped, or not), copied out.
struct Expand<'a> {
    powers: Powers<'a>,
    need: usize,
    middles: bool,
    swapped: bool,
}

impl Job for Expand<'_> {
    type Output = PowerTable;

    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> PowerTable {
        let mut local = PowerTable::new();
        let p = self.powers;
        // SAFETY: the features are the caller's obligation.
        unsafe {
            if self.middles {
                p.table::<L, true>(self.need, self.swapped, &mut local)
                    .clone()
            } else {
                p.table::<L, false>(self.need, self.swapped, &mut local)
                    .clone()
            }
        }
    }
}

/// The engine's kept powers (key setup), and the table a call builds from them or from the
/// key alone (an AES-GCM-SIV message's) for every count of powers 1..=TOP: H^1..H^n with
/// their Karatsuba middles, for at least the count asked, against `clmul_core`'s powers and
/// H^33 by the portable multiply.
fn kept_expansion<I: Isa>(isa: I) {
    let mut rng = Rng(0x6b65_0000_0000_0005);
    for _ in 0..4 {
        let h = rng.block();
        let want = PowerTable::polyval(&h);
        let k = kept(isa, &h);
        for p in 1..=KEPT {
            assert_eq!(k.get(p), want.get(p), "{:?}: kept H^{p}", isa.engine());
        }
        let shapes = [(true, false), (false, false), (true, true)];
        let sources = [Powers::of_kept(&k), Powers::of_key(&h)];
        let cases = (1..=TOP).flat_map(|n| shapes.map(|s| (n, s)));
        for (powers, (need, (middles, swapped))) in cases.flat_map(|c| sources.map(|p| (p, c))) {
            let from = if powers.kept.is_some() { "kept" } else { "key" };
            // SAFETY: `Expand` has no obligation of its own.
            let t = unsafe {
                isa.run(Expand {
                    powers,
                    need,
                    middles,
                    swapped,
                })
            };
            assert_eq!(t.is_swapped(), swapped);
            assert!(
                t.holds() >= need,
                "{:?} from {from}: {} < {need}",
                isa.engine(),
                t.holds()
            );
            for p in 1..=t.holds() {
                // A half-swapped table holds each power with its 64-bit halves exchanged.
                let w = if swapped {
                    want.get(p).rotate_left(64)
                } else {
                    want.get(p)
                };
                let e = isa.engine();
                assert_eq!(t.get(p), w, "{e:?} from {from}: need {need}, H^{p}");
                if !middles {
                    continue;
                }
                assert_eq!(
                    t.get_middle(p),
                    want.get_middle(p),
                    "{e:?} from {from}: need {need}, middle of H^{p}"
                );
            }
            // The zeros past H^1 that a register load of powers reads.
            assert_eq!(t.after_h1(), [0; 3]);
        }
    }
}

#[test]
fn kept_powers_and_their_expansion_on_every_engine() {
    on_every_engine!(kept_expansion);
}

/// [`super::crypt_short`] with counter `C` and domain `D` on the kept powers.
struct Short<'a, C, D> {
    rk: &'a crate::tables::RoundKeys,
    kept: &'a KeptPowers,
    ctr0: &'a [u8; 16],
    aad: &'a [u8],
    inp: *const u8,
    out: *mut u8,
    len: usize,
    hashing: Hashing,
    lengths: &'a [u8; 16],
    flavour: core::marker::PhantomData<(C, D)>,
}

impl<C: Counter, D: Domain> Job for Short<'_, C, D> {
    type Output = [u8; 16];

    unsafe fn run<L: AesLanes, const N: usize, const KARATSUBA: bool>(self) -> [u8; 16] {
        // SAFETY: the features and the buffers are the caller's obligations.
        unsafe {
            let ks = super::AesKeys::<L>::new(self.rk);
            let ctr0 = super::Counter0 {
                block: self.ctr0,
                skip: 0,
                public: true,
            };
            super::crypt_short::<L, C, D, KARATSUBA>(
                &ks,
                self.kept,
                ctr0,
                self.aad,
                self.inp,
                self.out,
                self.len,
                self.hashing,
                self.lengths,
            )
        }
    }
}

/// The short path on every message it takes (fewer than `KEPT` blocks of AAD and text),
/// both flavours, both hashings, in place and out of place, against the references.
fn short_path<I: Isa>(isa: I) {
    fn one<I: Isa, C: CounterRef, D: DomainRef>(isa: I, rng: &mut Rng) {
        let key = rng.bytes(16);
        let rk = isa.expand(&key).unwrap();
        let h = rng.block();
        let kept = kept(isa, &D::polyval_key(&h));
        let ctr0 = rng.block();
        let lengths = rng.block();
        for aad_len in 0..16 * KEPT {
            for len in 0..16 * KEPT {
                if !super::is_short(aad_len, len) {
                    continue;
                }
                let aad = rng.bytes(aad_len);
                let input = rng.bytes(len);
                let mut expected = input.clone();
                for (i, chunk) in expected.chunks_mut(16).enumerate() {
                    let ks = aes_ref(&key, &C::nth(&ctr0, i as u32));
                    for (b, k) in chunk.iter_mut().zip(ks) {
                        *b ^= k;
                    }
                }
                for hashing in [Hashing::Input, Hashing::Output] {
                    for in_place in [true, false] {
                        let (mut out, _keep, inp) = buffers(&input, in_place, 16 * len);
                        let job = Short::<C, D> {
                            rk: &rk,
                            kept: &kept,
                            ctr0: &ctr0,
                            aad: &aad,
                            inp,
                            out: out.ptr(),
                            len,
                            hashing,
                            lengths: &lengths,
                            flavour: core::marker::PhantomData,
                        };
                        // SAFETY: `inp` and `out` each have `len` bytes, equal (in place) or
                        // disjoint (two vectors).
                        let s = unsafe { isa.run(job) };
                        let what = format!("{:?} aad {aad_len} len {len}", isa.engine());
                        assert_eq!(out.bytes(), expected, "{what}: text");
                        let hashed = if hashing == Hashing::Input {
                            &input
                        } else {
                            &expected
                        };
                        assert_eq!(s, D::hash(&h, &[&aad, hashed, &lengths]), "{what}: hash");
                    }
                }
            }
        }
    }
    let mut rng = Rng(0x5407_0000_0000_0006);
    one::<I, Inc32, Ghash>(isa, &mut rng);
    one::<I, Le32, Polyval>(isa, &mut rng);
}

#[test]
fn short_path_on_every_engine() {
    on_every_engine!(short_path);
}

/// The view a loop loads its powers through ([`PowerTable::held_from`]) is checked once, when
/// made: it refuses a table that does not hold every power from its base on, and a view made
/// without middles refuses to hand them out; from a full table it hands out what the table
/// holds, at the table's own indices.
#[test]
fn held_view_checks_once_and_reads_the_table() {
    let t = PowerTable::polyval(&[0x42u8; 16]);
    for base in [0, 1, TOP - 8, TOP - 1] {
        let held = t.held_from(base, true);
        for i in base..TOP {
            // SAFETY: `powers`/`middles` point at four initialized entries (the view's check).
            let (p, m) = unsafe {
                (
                    held.powers(i).cast::<u128>().read_unaligned(),
                    held.middles(i).cast::<u128>().read_unaligned(),
                )
            };
            assert_eq!(
                (p, m),
                (t.get(TOP - i), t.get_middle(TOP - i)),
                "base {base}, i {i}"
            );
        }
    }
    let panics = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    let mut short = PowerTable::new();
    short.zero_pad();
    // SAFETY: the pad is written and a table that holds no power writes no entry.
    unsafe { short.set_holds(0, false) };
    assert!(panics(&|| {
        short.held_from(PowerTable::index(1), false);
    }));
    let no_middles = t.held_from(0, false);
    assert!(panics(&|| {
        no_middles.middles(0);
    }));
    assert!(panics(&|| {
        t.held_from(0, true).powers(TOP + 1);
    }));
}
