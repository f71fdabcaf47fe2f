//! x86 and x86_64 backends.

pub mod pclmul;
pub mod ymm;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
