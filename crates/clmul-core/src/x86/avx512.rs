//! 512-bit VPCLMULQDQ backend (placeholder: runs the 128-bit kernel until the wide one lands).
use crate::state::Key;
pub(crate) const STRIDE: usize = 8;
crate::target_tier! {
    detect cpuid = ["pclmulqdq", "sse2", "ssse3", "avx", "avx2", "vpclmulqdq", "avx512f", "avx512bw", "avx512vl"];
    pub(crate) fn update<const GHASH: bool>(key: &Key, acc: &mut u128, blocks: &[[u8; 16]]) {
        super::pclmul::update::<GHASH>(key, acc, blocks)
    }
}
