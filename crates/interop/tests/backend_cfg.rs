//! The backend our crates pick: the detected one, or the portable one when the build sets
//! `--cfg polyval_backend="soft"` (as upstream's does). CI runs this file in both builds.

use clmul_core::Backend;

#[test]
fn default_constructor_backend() {
    let g = ghash::GHash::new(&[3u8; 16].into());
    if cfg!(polyval_backend = "soft") {
        assert_eq!(
            g.__backend(),
            Backend::Portable,
            "the soft cfg must force the portable backend"
        );
    } else {
        assert_eq!(g.__backend(), Backend::detect());
    }
    eprintln!("ghash/polyval backend in this build: {}", g.__backend());
}
