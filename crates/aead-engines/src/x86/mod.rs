//! x86/x86_64 kernels: AES key expansion with AES-NI and the fused AES-CTR+GHASH loops.
//!
//! The x86 `unsafe` code of the crate lives here, next to the intrinsics.
#![allow(unsafe_code)]

pub(crate) mod aesni;
pub(crate) mod aesni_gcm;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vaes256;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vaes512;
