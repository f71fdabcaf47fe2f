//! The engines' AES-GCM entry points, instantiated where `cargo xtask mca` can read them.
//!
//! `Fused::seal` and `Fused::open` inline into their callers (the API crates), so the
//! engines' jobs (`run::<Gcm<..>>` of each engine module) are compiled in the crate that calls
//! them, not in `aead-engines`' own library. This example calls both, as the API crates do, and
//! is built as a static library: an archive of objects that needs no linker for its target,
//! so the same build serves x86_64 and aarch64 (`cargo build --release --example mca
//! --target ...`).

use aead_engines::{Fused, J0, TagMismatch};

/// Seals `buf` in place: what `aes-gcm`'s `encrypt_inout_detached` compiles to.
#[unsafe(no_mangle)]
pub fn mca_seal(fused: &Fused, j0: &J0, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    fused.seal(j0, aad, buf.into())
}

/// Opens `buf` in place: what `aes-gcm`'s `decrypt_inout_detached` compiles to.
#[unsafe(no_mangle)]
pub fn mca_open(
    fused: &Fused,
    j0: &J0,
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> Result<(), TagMismatch> {
    fused.open(j0, aad, buf.into(), tag)
}
