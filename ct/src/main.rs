//! Constant-time validation of `polyval`, `ghash` and `aes-gcm` under Valgrind memcheck.
//!
//! The technique is BoringSSL's "constant-time validation" (Adam Langley's `ctgrind`): the
//! secret inputs (keys, H, plaintext, tags) are marked *undefined* with memcheck client
//! requests ([`vg::secret`]). Memcheck propagates undefinedness through every computation and
//! reports each conditional branch ("Conditional jump or move depends on uninitialised
//! value(s)") and each memory address ("Use of uninitialised value of size N") computed from
//! them: exactly the two channels a cache/branch timing attack reads. Outputs that are public
//! by design (ciphertext, tag, hash output) are declassified with [`vg::public`] before they
//! are compared.
//!
//! One target per invocation (`ct-check <target>`), so the Valgrind error count is per backend;
//! `ct-check --list` prints the targets this CPU (as Valgrind's synthetic CPUID presents it)
//! can run. Each operation prints `op <target> <operation> <errors>` with the number of errors
//! Valgrind reported during it (`VG_USERREQ__COUNT_ERRORS`, 0 natively); `cargo xtask ct`
//! parses these lines.
//!
//! `ct-check --leak-selftest` runs two deliberately leaky functions on a secret (a branch on a
//! secret bit, a table lookup at a secret index) through the same machinery; Valgrind must
//! report both, or the check itself is broken.

mod vg;

use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInOut, KeyInit, inout::InOutBuf};
use aes_gcm::{__Engine as Engine, AesGcm, Nonce, Tag};
use clmul_core::Backend;
use polyval::universal_hash::UniversalHash;
use std::hint::black_box;
use std::process::ExitCode;

/// Block counts for the hash kernels: every stride (1, 4, 8, 16, 32 blocks) and the tails
/// around it, so that each kernel's wide loop, partial groups and single-block path run.
const UHF_BLOCKS: &[usize] = &[
    1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100,
];
/// Message lengths for AES-GCM: empty, partial blocks, the 8- and 16-block strides and tails.
const AEAD_LENS: &[usize] = &[0, 1, 15, 16, 17, 63, 127, 128, 129, 255, 256, 257, 300, 525];
/// Associated data lengths.
const AAD_LENS: &[usize] = &[0, 13, 16, 70];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("valgrind {}", vg::running_on_valgrind());
    match args.first().map(String::as_str) {
        Some("--list") => {
            for t in targets() {
                println!("{t}");
            }
            ExitCode::SUCCESS
        }
        Some("--leak-selftest") => {
            leak_selftest();
            ExitCode::SUCCESS
        }
        Some("--all") => {
            for t in targets() {
                run(&t);
            }
            ExitCode::SUCCESS
        }
        Some(t) if !t.starts_with('-') => {
            if run(t) {
                ExitCode::SUCCESS
            } else {
                println!("unavailable {t}");
                ExitCode::from(3)
            }
        }
        _ => {
            eprintln!(
                "usage: ct-check <target> | --list | --all | --leak-selftest\n\
                 targets: uhf-<backend>, gcm-generic-<backend>, gcm-aesni, gcm-vaes512"
            );
            ExitCode::from(2)
        }
    }
}

/// Every target this CPU can run: the hash backends, the generic AES-GCM path on each GHASH
/// backend, and the fused engines.
fn targets() -> Vec<String> {
    let mut v: Vec<String> = Backend::available()
        .map(|b| format!("uhf-{}", b.name()))
        .collect();
    v.extend(Backend::available().map(|b| format!("gcm-generic-{}", b.name())));
    v.extend(
        Engine::available()
            .filter(|&e| e != Engine::Generic)
            .map(|e| format!("gcm-{}", engine_name(e))),
    );
    v
}

fn engine_name(e: Engine) -> String {
    format!("{e:?}").to_lowercase()
}

fn backend_named(name: &str) -> Option<Backend> {
    Backend::available().find(|b| b.name() == name)
}

/// Runs one target; `false` if this CPU cannot run it.
fn run(target: &str) -> bool {
    if let Some(b) = target.strip_prefix("uhf-") {
        let Some(b) = backend_named(b) else {
            return false;
        };
        uhf(target, b);
    } else if let Some(b) = target.strip_prefix("gcm-generic-") {
        let Some(b) = backend_named(b) else {
            return false;
        };
        aead::<aes::Aes128>(target, "aes128", Mode::Generic(b));
        aead::<aes::Aes256>(target, "aes256", Mode::Generic(b));
    } else if let Some(e) = target.strip_prefix("gcm-") {
        let Some(e) = Engine::available().find(|&x| engine_name(x) == e) else {
            return false;
        };
        aead::<aes::Aes128>(target, "aes128", Mode::Fused(e));
        aead::<aes::Aes256>(target, "aes256", Mode::Fused(e));
    } else {
        return false;
    }
    true
}

/// Runs `f` and prints how many errors Valgrind reported while it ran.
fn op(target: &str, name: &str, f: impl FnOnce()) {
    let before = vg::error_count();
    f();
    let after = vg::error_count();
    println!("op {target} {name} {}", after - before);
}

/// Deterministic filler (xorshift64*), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            *b = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
    }
    fn block(&mut self) -> [u8; 16] {
        let mut b = [0u8; 16];
        self.fill(&mut b);
        b
    }
}

/// POLYVAL and GHASH on one backend: key setup, whole-block updates of every stride and tail,
/// padded updates of every partial length, and finalisation, with key and data secret. Each
/// output is declassified and checked against the portable backend on the same (defined)
/// inputs, so a kernel that silently did nothing would be caught too.
fn uhf(target: &str, backend: Backend) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let h = rng.block();
    let mut data = vec![[0u8; 16]; 100];
    for blk in &mut data {
        rng.fill(blk);
    }
    let flat: Vec<u8> = data.iter().flatten().copied().collect();

    macro_rules! hasher {
        ($ty:ty, $name:literal) => {{
            op(target, concat!($name, "-keysetup"), || {
                let k = h;
                vg::secret(&k);
                let s = <$ty>::with_backend(&k, backend).expect("available");
                black_box(&s);
            });
            for &n in UHF_BLOCKS {
                let name = format!("{}-update-{n}blocks", $name);
                op(target, &name, || {
                    let k = h;
                    let msg = data[..n].to_vec();
                    vg::secret(&k);
                    vg::secret(msg.as_slice());
                    let mut s = <$ty>::with_backend(&k, backend).expect("available");
                    s.update(&msg);
                    let out = s.finalize();
                    vg::public(&out);
                    let mut r = <$ty>::with_backend(&h, Backend::Portable).expect("portable");
                    r.update(&data[..n]);
                    assert_eq!(out, r.finalize(), "{target} {name}");
                });
            }
            op(target, concat!($name, "-update_padded-0..=80"), || {
                for len in 0..=80 {
                    let k = h;
                    let msg = flat[..len].to_vec();
                    vg::secret(&k);
                    vg::secret(msg.as_slice());
                    let mut s = <$ty>::with_backend(&k, backend).expect("available");
                    s.update_padded(&msg);
                    let out = s.finalize();
                    vg::public(&out);
                    let mut r = <$ty>::with_backend(&h, Backend::Portable).expect("portable");
                    r.update_padded(&flat[..len]);
                    assert_eq!(out, r.finalize(), "{target} update_padded {len}");
                }
            });
        }};
    }
    hasher!(clmul_core::Polyval, "polyval");
    hasher!(clmul_core::Ghash, "ghash");

    // The public `ghash` API on this backend (`UniversalHash::update_padded` / `finalize`).
    op(target, "ghash-crate-update_padded", || {
        for len in [0, 1, 16, 17, 64, 200, 513] {
            let k = ghash::Key::from(h);
            let msg = flat.iter().cycle().take(len).copied().collect::<Vec<u8>>();
            vg::secret(&k);
            vg::secret(msg.as_slice());
            let mut s = ghash::GHash::__with_backend(&k, backend).expect("available");
            s.update_padded(&msg);
            let out = s.finalize();
            vg::public(&out);
            black_box(out);
        }
    });
}

/// How the AES-GCM instance is built.
#[derive(Clone, Copy)]
enum Mode {
    /// The generic two-pass path (the `aes` crate's AES) with GHASH on this backend.
    Generic(Backend),
    /// A fused AES-CTR+GHASH engine.
    Fused(Engine),
}

fn build<A>(key: &aes_gcm::Key<A>, mode: Mode) -> AesGcm<A, U12>
where
    A: aes::cipher::BlockCipherEncrypt + aes::cipher::BlockSizeUser<BlockSize = U16> + KeyInit,
{
    match mode {
        Mode::Generic(b) => AesGcm::__with_ghash_backend(A::new(key), b).expect("available"),
        Mode::Fused(e) => {
            let g = AesGcm::<A, U12>::with_engine(key, e).expect("available");
            assert_eq!(g.__engine(), e);
            g
        }
    }
}

/// AES-GCM on one engine: key setup, encryption, decryption with a good tag, a bad tag and a
/// modified ciphertext, in place and out of place, and a non-96-bit nonce; key, plaintext,
/// associated data and tag secret.
fn aead<A>(target: &str, cipher: &str, mode: Mode)
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
    let mut aad_all = vec![0u8; 70];
    rng.fill(&mut aad_all);
    let mut pt_all = vec![0u8; 525];
    rng.fill(&mut pt_all);
    let reference =
        AesGcm::<A, U12>::__with_ghash_backend(A::new(&key), Backend::Portable).expect("portable");

    op(target, &format!("{cipher}-keysetup"), || {
        let k = key.clone();
        vg::secret(k.as_slice());
        black_box(build::<A>(&k, mode));
    });

    let k = key.clone();
    vg::secret(k.as_slice());
    let gcm = build::<A>(&k, mode);

    for &alen in AAD_LENS {
        let aad = &aad_all[..alen];
        for &plen in AEAD_LENS {
            let pt = &pt_all[..plen];
            // Reference, on defined inputs.
            let mut want = pt.to_vec();
            let want_tag = reference
                .encrypt_inout_detached(&nonce, aad, want.as_mut_slice().into())
                .expect("encrypt");

            let mut ct = pt.to_vec();
            let mut tag = Tag::<U16>::default();
            op(target, &format!("{cipher}-encrypt-a{alen}-p{plen}"), || {
                let a = aad.to_vec();
                vg::secret(ct.as_slice());
                vg::secret(a.as_slice());
                tag = gcm
                    .encrypt_inout_detached(&nonce, &a, ct.as_mut_slice().into())
                    .expect("encrypt");
                vg::public(ct.as_slice());
                vg::public(&tag);
            });
            assert_eq!((&ct, &tag), (&want, &want_tag), "{target} encrypt");

            // Decryption: (description, in place?, flip a ciphertext byte?, flip a tag byte?)
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
                let mut c = ct.clone();
                let mut t = tag;
                if bad_ct {
                    c[plen / 2] ^= 0x80;
                }
                if bad_tag {
                    t[15] ^= 1;
                }
                let original = c.clone();
                let mut out = vec![0u8; plen];
                let mut ok = false;
                op(target, &format!("{cipher}-{name}-a{alen}-p{plen}"), || {
                    let a = aad.to_vec();
                    vg::secret(c.as_slice());
                    vg::secret(a.as_slice());
                    vg::secret(&t);
                    let r = if in_place {
                        gcm.decrypt_inout_detached(&nonce, &a, c.as_mut_slice().into(), &t)
                    } else {
                        let buf = InOutBuf::new(&c, &mut out).expect("same length");
                        gcm.decrypt_inout_detached(&nonce, &a, buf, &t)
                    };
                    // The verdict is public (it is returned to the caller).
                    ok = r.is_ok();
                    vg::public(&ok);
                    vg::public(c.as_slice());
                    vg::public(out.as_slice());
                });
                let expect_ok = !bad_ct && !bad_tag;
                assert_eq!(ok, expect_ok, "{target} {name} a{alen} p{plen}");
                let got = if in_place { &c } else { &out };
                if expect_ok {
                    assert_eq!(got.as_slice(), pt, "{target} {name}");
                } else {
                    assert_eq!(c, original, "{target} {name}: buffer changed");
                }
            }
        }
    }

    // A non-96-bit nonce: J0 comes from GHASH over the nonce.
    op(target, &format!("{cipher}-encrypt-nonce16"), || {
        let k = key.clone();
        vg::secret(k.as_slice());
        let g: AesGcm<A, U16> = match mode {
            Mode::Generic(b) => AesGcm::__with_ghash_backend(A::new(&k), b).expect("available"),
            Mode::Fused(e) => AesGcm::with_engine(&k, e).expect("available"),
        };
        let mut buf = pt_all[..100].to_vec();
        vg::secret(buf.as_slice());
        let t = g
            .encrypt_inout_detached(
                &Nonce::<U16>::from([7u8; 16]),
                &[],
                buf.as_mut_slice().into(),
            )
            .expect("encrypt");
        vg::public(&t);
        vg::public(buf.as_slice());
        black_box((t, buf));
    });
}

/// A function that branches on a secret bit: the check must report it.
#[inline(never)]
fn leaky_branch(secret: &[u8; 16]) -> u32 {
    if black_box(secret[0]) & 1 == 1 {
        black_box(17)
    } else {
        black_box(42)
    }
}

/// A function that reads a table at a secret index (a cache-timing leak, like a table-based
/// AES S-box): the check must report it.
#[inline(never)]
fn leaky_lookup(secret: &[u8; 16]) -> u8 {
    static TABLE: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u8).wrapping_mul(7);
            i += 1;
        }
        t
    };
    TABLE[usize::from(black_box(secret[3]))]
}

/// Runs the deliberately leaky functions on a secret; each must produce a report.
fn leak_selftest() {
    let mut s = Rng(1).block();
    vg::secret(&s);
    op("selftest", "leaky-branch", || {
        let r = leaky_branch(&s);
        vg::public(&r);
        black_box(r);
    });
    op("selftest", "leaky-lookup", || {
        let r = leaky_lookup(&s);
        vg::public(&r);
        black_box(r);
    });
    // And a constant-time function on the same secret must not.
    op("selftest", "constant-time-select", || {
        let m = 0u8.wrapping_sub(black_box(s[0]) & 1);
        let r = (m & 17) | (!m & 42);
        vg::public(&r);
        black_box(r);
    });
    s[0] = 0;
    black_box(&s);
}
