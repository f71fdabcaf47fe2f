//! Memory per key: each of our keyed AEAD types is no larger than the RustCrypto type it
//! replaces, built from the same `aes` crate (a server holding a million sessions holds a
//! million of these). Shared by both generations (`aead-0.5/interop` includes this file): the
//! crate names are the same in both.

use core::mem::size_of;

/// `(ours, RustCrypto's, name)` for the AES-GCM aliases.
fn gcm_sizes() -> [(usize, usize, &'static str); 2] {
    [
        (
            size_of::<aes_gcm::Aes128Gcm>(),
            size_of::<upstream_aes_gcm::Aes128Gcm>(),
            "Aes128Gcm",
        ),
        (
            size_of::<aes_gcm::Aes256Gcm>(),
            size_of::<upstream_aes_gcm::Aes256Gcm>(),
            "Aes256Gcm",
        ),
    ]
}

/// `(ours, RustCrypto's, name)` for the AES-GCM-SIV aliases.
fn siv_sizes() -> [(usize, usize, &'static str); 2] {
    [
        (
            size_of::<aes_gcm_siv::Aes128GcmSiv>(),
            size_of::<upstream_aes_gcm_siv::Aes128GcmSiv>(),
            "Aes128GcmSiv",
        ),
        (
            size_of::<aes_gcm_siv::Aes256GcmSiv>(),
            size_of::<upstream_aes_gcm_siv::Aes256GcmSiv>(),
            "Aes256GcmSiv",
        ),
    ]
}

fn check(sizes: &[(usize, usize, &'static str)], slack: usize) {
    let mut too_big = Vec::new();
    for &(ours, theirs, name) in sizes {
        println!("{name}: ours {ours} bytes, RustCrypto {theirs} bytes");
        if ours > theirs + slack {
            too_big.push(format!("{name}: {ours} > {theirs} + {slack} bytes"));
        }
    }
    assert!(too_big.is_empty(), "{too_big:?}");
}

/// AES-GCM: ours holds our round keys and H^1..H^12 (a message builds the rest of the powers
/// it multiplies by for itself), or (the generic path) the cipher and `H`, in a box with the
/// `alloc` feature on x86 and little-endian aarch64 outside the forced-portable build (as
/// AES-GCM-SIV's generic key): there both key sizes are the fused state's (496 bytes on
/// x86_64; RustCrypto's `aes-gcm` 0.10.3, whose `aes` 0.8 ciphers keep a software schedule
/// beside AES-NI's, 736 and 992).
///
/// In a build with `--cfg polyval_backend="soft"` RustCrypto's GHASH keeps only its portable
/// backend's 32 bytes (its `Aes128Gcm` is 384 bytes there, 496 otherwise), while ours keeps
/// the fused engines compiled (`KeyInit` does not pick them in that build, but the suites run
/// them through `with_engine`): there ours may be up to 64 bytes larger, no more.
#[test]
fn gcm_keys_are_no_larger_than_rustcrypto() {
    let slack = if cfg!(polyval_backend = "soft") {
        64
    } else {
        0
    };
    check(&gcm_sizes(), slack);
}

/// AES-GCM-SIV: ours holds our round keys of the key-generating key, or (the generic path)
/// a box holding the cipher and the POLYVAL backend: with the `alloc` feature (a default one,
/// on here) every key is the fused variant's size, whatever the cipher's, on x86 and
/// little-endian aarch64. Where the generic variant holds the cipher inline (without `alloc`;
/// in a build with `--cfg polyval_backend="soft"`, whose keys are all generic and so allocate
/// nothing; on architectures without a fused engine, where every key is generic), the POLYVAL
/// backend beside it (and on x86 the enum's tag) makes a key up to 16 bytes larger than
/// RustCrypto's (whose cipher's bytes leave no invalid value to tell variants apart).
#[test]
fn siv_keys_are_no_larger_than_rustcrypto() {
    let generic_inline = cfg!(any(
        polyval_backend = "soft",
        not(any(
            target_arch = "x86",
            target_arch = "x86_64",
            all(target_arch = "aarch64", target_endian = "little")
        ))
    ));
    let slack = if generic_inline { 16 } else { 0 };
    check(&siv_sizes(), slack);
}
