//! Constant-time validation of `polyval`, `ghash`, `aes-gcm` (0.11, and 0.10 of the aead 0.5
//! generation) and `aes-gcm-siv` with a taint checker.
//!
//! The technique is Adam Langley's `ctgrind`, which BoringSSL calls constant-time validation:
//! the secret inputs (keys, H, plaintext, associated data, ciphertext, tags) are marked as
//! *uninitialised* memory ([`taint::secret`]); the checker propagates that marking through
//! every computation and reports each conditional branch and each memory address computed
//! from a marked value: exactly the two channels a cache or branch timing attack reads.
//! Outputs that are public by design (ciphertext, tag, hash output, the decryption verdict)
//! are declassified ([`taint::public`]) before the harness compares them with a reference.
//!
//! Two checkers run the same operations:
//!
//! - **Valgrind memcheck** (the default build, run under `valgrind`): the machine code as
//!   shipped, but only the instructions Valgrind decodes, on the CPU features its synthetic
//!   CPUID reports (no AVX-512, no 256-bit VAES or VPCLMULQDQ).
//! - **MemorySanitizer** (`--cfg ct_taint`, nightly `-Zsanitizer=memory -Zbuild-std`): the
//!   compiler instruments the LLVM IR, so every kernel this CPU has runs natively, AVX-512
//!   and VAES included. MSan models a few instructions strictly (they would report, and then
//!   drop the marking), so the `ct_taint` build swaps them for equivalent code (see
//!   `clmul_core::__private::declassify` and the `ct_taint` cfgs in the kernels); after each
//!   operation the harness checks that its outputs still carry the marking
//!   ([`taint::expect_secret`]), so a marking lost on the way would be noticed.
//!
//! One target per invocation (`ct-check <target>`), so that reports count per backend and
//! engine; `ct-check --list` prints the targets this CPU (as the checker presents it) runs.
//! Each operation prints `op <target> <operation> <reports> <unmarked>` on stdout, with the
//! reports Valgrind counted during it (`-` under MSan, whose reports `cargo xtask ct` counts
//! between the `ct-op-begin`/`ct-op-end` lines this prints on stderr) and the number of output
//! bytes found without the secret marking (`-` under Valgrind, which cannot be asked).
//!
//! `--quick` runs a subset of the operations, and of the AES-GCM-SIV and aes-gcm 0.10 targets
//! (`ct-check --quick --list`): what `cargo xtask test` runs.
//!
//! `ct-check --selftest` runs seeded leaks through the same machinery: `leak-*` operations
//! must be reported, `clean-*` must not, and `lost-*` (MSan) must show unmarked bytes; any
//! other outcome means the checker is blind, and `cargo xtask ct` fails.

mod gen010;
#[cfg(ct_taint)]
mod msan;
mod selftest;
mod siv;
mod taint;
#[cfg(not(ct_taint))]
mod vg;

use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInOut, KeyInit, inout::InOutBuf};
use aes_gcm::{__Engine as Engine, AesGcm, Nonce, Tag};
use clmul_core::Backend;
use polyval::universal_hash::UniversalHash;
use std::process::ExitCode;

/// What each target runs: the full list, or the quick subset (`--quick`) that `cargo xtask
/// test` uses.
pub struct Plan {
    /// Block counts for the hash kernels.
    uhf_blocks: &'static [usize],
    /// Message lengths for AES-GCM.
    aead_lens: &'static [usize],
    /// Associated data lengths.
    aad_lens: &'static [usize],
    /// Message lengths for AES-GCM-SIV.
    siv_lens: &'static [usize],
    /// Its associated data lengths.
    siv_aad_lens: &'static [usize],
    /// Message lengths for aes-gcm 0.10 (whose kernels are the ones above: its own layer is
    /// what these check).
    gen010_lens: &'static [usize],
    /// Its associated data lengths.
    gen010_aad_lens: &'static [usize],
}

/// Every stride of the hash kernels (1, 4, 8, 16, 32 blocks) and the tails around it, so that
/// each kernel's wide loop, partial groups and single-block path run, and the 512-bit
/// backend's switch to strides of 32 (256 blocks); AES-GCM messages that are empty, partial
/// blocks, the 8-, 16- and 32-block iterations with their tails, and long enough (> 3 x 512
/// bytes) for the VAES-512 engine's lagged hashing to reach its steady state.
/// AES-GCM-SIV switches paths on the sum of the associated data and message lengths
/// (`aead_engines::siv`): POLYVAL block by block up to `HORNER_UPTO` (112), on the keyed state
/// below `WIDE_FROM` (1024), from there on the engine's wide loop with a table made for the
/// message; CTR on the narrowest engine below `NARROW_BELOW` (256), and decryption in place
/// stitched from `STITCH_FROM` (256). Its lengths straddle each of those, and the longest
/// (4113: 257 blocks and a byte) runs the wide loops for several iterations with a tail.
const FULL: Plan = Plan {
    uhf_blocks: &[
        1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 300,
    ],
    aead_lens: &[
        0, 1, 15, 16, 17, 63, 127, 128, 129, 255, 256, 257, 300, 525, 1601, 2100,
    ],
    aad_lens: &[0, 13, 16, 70, 200],
    siv_lens: &[
        0, 1, 16, 17, 48, 63, 64, 65, 111, 112, 113, 200, 255, 256, 257, 700, 1023, 1024, 1025,
        4113,
    ],
    siv_aad_lens: &[0, 13, 64, 70, 1030],
    gen010_lens: &[0, 1, 17, 300, 2100],
    gen010_aad_lens: &[0, 13],
};

/// The subset: still every kernel's wide loop, a tail, and the steady state of each engine.
const QUICK: Plan = Plan {
    uhf_blocks: &[1, 3, 8, 17, 33, 65, 257],
    aead_lens: &[0, 17, 129, 300, 2100],
    aad_lens: &[0, 70, 200],
    // Empty, block by block, keyed state (with the AAD), wide CTR and stitched decryption,
    // the wide POLYVAL with its table.
    siv_lens: &[0, 17, 300, 4113],
    siv_aad_lens: &[0, 70],
    gen010_lens: &[0, 300],
    gen010_aad_lens: &[13],
};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    args.retain(|a| a != "--quick");
    let plan = if quick { &QUICK } else { &FULL };
    println!("checker {}", taint::CHECKER);
    match args.first().map(String::as_str) {
        Some("--list") => {
            for t in targets(quick) {
                println!("{t}");
            }
            ExitCode::SUCCESS
        }
        Some("--selftest") => {
            selftest::run();
            ExitCode::SUCCESS
        }
        Some("--all") => {
            for t in targets(quick) {
                run(&t, plan);
            }
            ExitCode::SUCCESS
        }
        Some(_) if args.iter().all(|t| !t.starts_with('-')) => {
            for t in &args {
                if !run(t, plan) {
                    println!("unavailable {t}");
                    return ExitCode::from(3);
                }
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "usage: ct-check [--quick] <target>... | --list | --all | --selftest\n\
                 targets: uhf-<backend>, gcm-generic-<backend>, gcm-<engine>, gcm-keyinit,\n\
                 siv-generic-<backend>, siv-<engine>, gcm010-generic-<backend>,\n\
                 gcm010-<engine> (see --list)"
            );
            ExitCode::from(2)
        }
    }
}

/// Every target this CPU can run: the hash backends, the generic AES-GCM path on each GHASH
/// backend, the fused engines, the key `KeyInit` makes (`gcm-keyinit`: the detected engine,
/// paced on Intel's 512-bit one), and the same for AES-GCM-SIV (POLYVAL backends) and aes-gcm
/// 0.10. With `quick`, AES-GCM-SIV and aes-gcm 0.10 on one backend and one engine only
/// ([`quick_choice`]).
fn targets(quick: bool) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for b in Backend::available() {
        v.push(format!("uhf-{}", b.name()));
    }
    v.extend(Backend::available().map(|b| format!("gcm-generic-{}", b.name())));
    v.extend(
        Engine::available()
            .filter(|&e| e != Engine::Generic)
            .map(|e| format!("gcm-{}", engine_name(e))),
    );
    v.push("gcm-keyinit".to_owned());
    let (backends, engines): (Vec<Backend>, Vec<Engine>) = if quick {
        let (b, e) = quick_choice();
        (vec![b], e.into_iter().collect())
    } else {
        (Backend::available().collect(), fused_engines().collect())
    };
    for prefix in ["siv", "gcm010"] {
        v.extend(
            backends
                .iter()
                .map(|b| format!("{prefix}-generic-{}", b.name())),
        );
        v.extend(
            engines
                .iter()
                .map(|&e| format!("{prefix}-{}", engine_name(e))),
        );
    }
    v
}

/// The fused engines this CPU runs.
fn fused_engines() -> impl Iterator<Item = Engine> {
    Engine::available().filter(|&e| e != Engine::Generic)
}

/// The backend and engine of the quick AES-GCM-SIV and aes-gcm 0.10 targets: the narrowest
/// hardware POLYVAL/GHASH backend (portable where there is none) and the narrowest fused
/// engine, which every wider engine also runs for a message's key derivation, its tag and
/// short messages. Both run under Valgrind as well as under MSan.
fn quick_choice() -> (Backend, Option<Engine>) {
    let backend = Backend::available()
        .find(|&b| b != Backend::Portable)
        .unwrap_or(Backend::Portable);
    (backend, fused_engines().next())
}

pub fn engine_name(e: Engine) -> String {
    format!("{e:?}").to_lowercase()
}

fn backend_named(name: &str) -> Option<Backend> {
    Backend::available().find(|b| b.name() == name)
}

/// Runs one target; `false` if this CPU cannot run it.
fn run(target: &str, plan: &Plan) -> bool {
    if let Some(rest) = target.strip_prefix("siv-") {
        let Some(mode) = mode_named(rest) else {
            return false;
        };
        siv::run(target, mode, plan);
        return true;
    }
    if let Some(rest) = target.strip_prefix("gcm010-") {
        let Some(mode) = mode_named(rest) else {
            return false;
        };
        gen010::run(target, mode, plan);
        return true;
    }
    let mode = if let Some(b) = target.strip_prefix("uhf-") {
        let Some(b) = backend_named(b) else {
            return false;
        };
        uhf(target, b, plan);
        return true;
    } else if let Some(b) = target.strip_prefix("gcm-generic-") {
        match backend_named(b) {
            Some(b) => Mode::Generic(b),
            None => return false,
        }
    } else if target == "gcm-keyinit" {
        Mode::KeyInit
    } else if let Some(e) = target.strip_prefix("gcm-") {
        match Engine::available().find(|&x| engine_name(x) == e) {
            Some(e) => Mode::Fused(e),
            None => return false,
        }
    } else {
        return false;
    };
    aead::<aes::Aes128>(target, "aes128", mode, plan);
    aead::<aes::Aes256>(target, "aes256", mode, plan);
    true
}

/// The mode `generic-<backend>` or `<engine>` names, if this CPU runs it.
fn mode_named(name: &str) -> Option<Mode> {
    match name.strip_prefix("generic-") {
        Some(b) => backend_named(b).map(Mode::Generic),
        None => fused_engines()
            .find(|&e| engine_name(e) == name)
            .map(Mode::Fused),
    }
}

/// Runs `f` as one operation: prints the reports the checker made while it ran and the output
/// bytes it found without their secret marking (see the crate docs for the format).
pub fn op(target: &str, name: &str, f: impl FnOnce()) {
    eprintln!("ct-op-begin {target} {name}");
    let before = taint::errors();
    taint::take_lost();
    f();
    let errors = taint::errors()
        .zip(before)
        .map_or("-".to_owned(), |(a, b)| (a - b).to_string());
    let lost = taint::take_lost().map_or("-".to_owned(), |n| n.to_string());
    eprintln!("ct-op-end {target} {name}");
    println!("op {target} {name} {errors} {lost}");
}

/// Deterministic filler (xorshift64*), so runs are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            *b = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
    }
    pub fn block(&mut self) -> [u8; 16] {
        let mut b = [0u8; 16];
        self.fill(&mut b);
        b
    }
}

/// POLYVAL and GHASH on one backend: key setup, whole-block updates of every stride and tail,
/// padded updates of every partial length, and finalisation, with key and data secret. Each
/// output must carry the secret marking; it is then declassified and checked against the
/// portable backend on the same (unmarked) inputs, so a kernel that silently did nothing
/// would be caught too.
fn uhf(target: &str, backend: Backend, plan: &Plan) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let h = rng.block();
    let mut data = vec![[0u8; 16]; 300];
    for blk in &mut data {
        rng.fill(blk);
    }
    let flat: Vec<u8> = data.iter().flatten().copied().collect();

    macro_rules! hasher {
        ($ty:ty, $name:literal, $new:expr) => {{
            // The key alone is secret: the hash of public data must still carry the marking
            // (through the powers of H and every reduction).
            op(target, concat!($name, "-keysetup"), || {
                let mut k = h;
                taint::secret(&mut k);
                let mut s: $ty = ($new)(&k).expect("available");
                s.update(&data[..40]);
                let mut out = s.finalize();
                taint::expect_secret(&out);
                taint::public(&mut out);
            });
            for &n in plan.uhf_blocks {
                let name = format!("{}-update-{n}blocks", $name);
                op(target, &name, || {
                    let mut k = h;
                    let mut msg = data[..n].to_vec();
                    taint::secret(&mut k);
                    taint::secret(msg.as_mut_slice());
                    let mut s: $ty = ($new)(&k).expect("available");
                    s.update(&msg);
                    let mut out = s.finalize();
                    taint::expect_secret(&out);
                    taint::public(&mut out);
                    let mut r = <$ty>::with_backend(&h, Backend::Portable).expect("portable");
                    r.update(&data[..n]);
                    assert_eq!(out, r.finalize(), "{target} {name}");
                });
            }
            op(target, concat!($name, "-update_padded-0..=80"), || {
                for len in 0..=80 {
                    let mut k = h;
                    let mut msg = flat[..len].to_vec();
                    taint::secret(&mut k);
                    taint::secret(msg.as_mut_slice());
                    let mut s: $ty = ($new)(&k).expect("available");
                    s.update_padded(&msg);
                    let mut out = s.finalize();
                    // (The hash of nothing is zero, whatever the key.)
                    if len > 0 {
                        taint::expect_secret(&out);
                    }
                    taint::public(&mut out);
                    let mut r = <$ty>::with_backend(&h, Backend::Portable).expect("portable");
                    r.update_padded(&flat[..len]);
                    assert_eq!(out, r.finalize(), "{target} update_padded {len}");
                }
            });
        }};
    }
    hasher!(clmul_core::Polyval, "polyval", |k: &[u8; 16]| {
        clmul_core::Polyval::with_backend(k, backend)
    });
    hasher!(clmul_core::Ghash, "ghash", |k: &[u8; 16]| {
        clmul_core::Ghash::with_backend(k, backend)
    });

    // The public `ghash` API on this backend (`UniversalHash::update_padded` / `finalize`).
    op(target, "ghash-crate-update_padded", || {
        for len in [0, 1, 16, 17, 64, 200, 513] {
            let mut k = ghash::Key::from(h);
            let mut msg = flat.iter().cycle().take(len).copied().collect::<Vec<u8>>();
            taint::secret(&mut k);
            taint::secret(msg.as_mut_slice());
            let mut s = ghash::GHash::__with_backend(&k, backend).expect("available");
            s.update_padded(&msg);
            let mut out = s.finalize();
            if len > 0 {
                taint::expect_secret(&out);
            }
            taint::public(&mut out);
        }
    });
}

/// How the AES-GCM (or AES-GCM-SIV) instance is built.
#[derive(Clone, Copy)]
pub enum Mode {
    /// The generic path (the `aes` crate's AES) with GHASH (POLYVAL) on this backend.
    Generic(Backend),
    /// A fused engine.
    Fused(Engine),
    /// The key `KeyInit` makes: the detected engine, which on Intel's 512-bit engine picks
    /// the engine of each message by the clock (`aead_engines::pace`).
    KeyInit,
}

/// An AES-GCM instance for `mode`, with any nonce size.
pub fn build<A, N>(key: &aes_gcm::Key<A>, mode: Mode) -> AesGcm<A, N>
where
    A: aes::cipher::BlockCipherEncrypt + aes::cipher::BlockSizeUser<BlockSize = U16> + KeyInit,
    N: aes_gcm::aead::array::ArraySize,
{
    match mode {
        Mode::Generic(b) => AesGcm::__with_ghash_backend(A::new(key), b).expect("available"),
        Mode::Fused(e) => {
            let g = AesGcm::<A, N>::with_engine(key, e).expect("available");
            assert_eq!(g.__engine(), e);
            g
        }
        Mode::KeyInit => AesGcm::<A, N>::new(key),
    }
}

/// AES-GCM on one engine: key setup, encryption, decryption with a good tag, a bad tag and a
/// modified ciphertext, in place and out of place, and a non-96-bit nonce; key, plaintext,
/// associated data and tag secret. Every output that depends on a secret must carry the
/// marking (MSan): the ciphertext and tag of an encryption, the plaintext of a decryption,
/// the restored buffer of a refused one; and, with the key alone secret, the ciphertext and
/// tag of public data (the keystream and the tag mask come from the key schedule).
fn aead<A>(target: &str, cipher: &str, mode: Mode, plan: &Plan)
where
    A: aes::cipher::BlockCipherEncrypt
        + aes::cipher::BlockSizeUser<BlockSize = U16>
        + KeyInit
        + aes::cipher::KeySizeUser,
{
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut key = aes_gcm::Key::<A>::default();
    rng.fill(&mut key);
    let nonce = Nonce::<U12>::from(*b"unique nonce");
    let max_aad = plan.aad_lens.iter().copied().max().unwrap_or(0);
    let max_pt = plan.aead_lens.iter().copied().max().unwrap_or(0);
    let mut aad_all = vec![0u8; max_aad];
    rng.fill(&mut aad_all);
    let mut pt_all = vec![0u8; max_pt];
    rng.fill(&mut pt_all);
    let reference =
        AesGcm::<A, U12>::__with_ghash_backend(A::new(&key), Backend::Portable).expect("portable");

    op(target, &format!("{cipher}-keysetup"), || {
        let mut k = key.clone();
        taint::secret(k.as_mut_slice());
        let g = build::<A, U12>(&k, mode);
        let mut buf = pt_all[..max_pt.min(600)].to_vec();
        let mut tag = g
            .encrypt_inout_detached(&nonce, &aad_all, buf.as_mut_slice().into())
            .expect("encrypt");
        taint::expect_secret(&buf);
        taint::expect_secret(&tag);
        taint::public(buf.as_mut_slice());
        taint::public(&mut tag);
    });

    let mut k = key.clone();
    taint::secret(k.as_mut_slice());
    let gcm = build::<A, U12>(&k, mode);

    for &alen in plan.aad_lens {
        let aad = &aad_all[..alen];
        for &plen in plan.aead_lens {
            let pt = &pt_all[..plen];
            // Reference, on unmarked inputs.
            let mut want = pt.to_vec();
            let want_tag = reference
                .encrypt_inout_detached(&nonce, aad, want.as_mut_slice().into())
                .expect("encrypt");

            let mut ct = pt.to_vec();
            let mut tag = Tag::<U16>::default();
            op(target, &format!("{cipher}-encrypt-a{alen}-p{plen}"), || {
                let mut a = aad.to_vec();
                taint::secret(ct.as_mut_slice());
                taint::secret(a.as_mut_slice());
                tag = gcm
                    .encrypt_inout_detached(&nonce, &a, ct.as_mut_slice().into())
                    .expect("encrypt");
                taint::expect_secret(&ct);
                taint::expect_secret(&tag);
                taint::public(ct.as_mut_slice());
                taint::public(&mut tag);
            });
            assert_eq!((&ct, &tag), (&want, &want_tag), "{target} encrypt");
            decryptions(target, cipher, &gcm, &nonce, aad, pt, &ct, &tag);
        }
    }

    // A non-96-bit nonce: J0 comes from GHASH over the nonce.
    op(target, &format!("{cipher}-encrypt-nonce16"), || {
        let mut k = key.clone();
        taint::secret(k.as_mut_slice());
        let g = build::<A, U16>(&k, mode);
        let mut buf = pt_all[..100.min(max_pt)].to_vec();
        taint::secret(buf.as_mut_slice());
        let mut t = g
            .encrypt_inout_detached(
                &Nonce::<U16>::from([7u8; 16]),
                &[],
                buf.as_mut_slice().into(),
            )
            .expect("encrypt");
        taint::expect_secret(&t);
        taint::expect_secret(&buf);
        taint::public(&mut t);
        taint::public(buf.as_mut_slice());
    });
}

/// Decryption of `(ct, tag)` (the encryption of `pt`) by `gcm` (AES-GCM or AES-GCM-SIV): with
/// the good tag, a bad tag and a modified ciphertext, in place and out of place, everything
/// secret. The verdict is public: the library declassifies it where it returns it.
#[allow(clippy::too_many_arguments)]
pub fn decryptions<C>(
    target: &str,
    cipher: &str,
    gcm: &C,
    nonce: &Nonce<U12>,
    aad: &[u8],
    pt: &[u8],
    ct: &[u8],
    tag: &Tag<U16>,
) where
    C: AeadInOut<NonceSize = U12, TagSize = U16>,
{
    let (alen, plen) = (aad.len(), pt.len());
    // (description, in place?, flip a ciphertext byte?, flip a tag byte?)
    let cases: &[(&str, bool, bool, bool)] = &[
        ("decrypt-good", true, false, false),
        ("decrypt-badtag", true, false, true),
        ("decrypt-badct", true, true, false),
        ("decrypt-outofplace-good", false, false, false),
        ("decrypt-outofplace-badtag", false, false, true),
    ];
    for &(name, in_place, bad_ct, bad_tag) in cases {
        if bad_ct && plen == 0 {
            continue;
        }
        let mut c = ct.to_vec();
        let mut t = *tag;
        if bad_ct {
            c[plen / 2] ^= 0x80;
        }
        if bad_tag {
            t[15] ^= 1;
        }
        let original = c.clone();
        let mut out = vec![0u8; plen];
        let mut ok = false;
        let expect_ok = !bad_ct && !bad_tag;
        op(target, &format!("{cipher}-{name}-a{alen}-p{plen}"), || {
            let mut a = aad.to_vec();
            taint::secret(c.as_mut_slice());
            taint::secret(a.as_mut_slice());
            taint::secret(&mut t);
            let r = if in_place {
                gcm.decrypt_inout_detached(nonce, &a, c.as_mut_slice().into(), &t)
            } else {
                let buf = InOutBuf::new(&c, &mut out).expect("same length");
                gcm.decrypt_inout_detached(nonce, &a, buf, &t)
            };
            // The verdict is public: the caller gets it (the library declassifies it for MSan;
            // under Valgrind its branch is allowed by ct/verdict.supp).
            ok = r.is_ok();
            taint::public(&mut ok);
            // The plaintext, or the ciphertext put back; an out-of-place output that a
            // refused decryption did not write holds public zeros.
            taint::expect_secret(&c);
            if !in_place && expect_ok {
                taint::expect_secret(&out);
            }
            taint::public(c.as_mut_slice());
            taint::public(out.as_mut_slice());
        });
        assert_eq!(ok, expect_ok, "{target} {name} a{alen} p{plen}");
        let got = if in_place { &c } else { &out };
        if expect_ok {
            assert_eq!(got.as_slice(), pt, "{target} {name}");
        } else {
            assert_eq!(c, original, "{target} {name}: buffer changed");
        }
    }
}
