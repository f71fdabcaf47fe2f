//! The public length constants are the published crates' (`aes-gcm`'s `A_MAX` and `P_MAX`,
//! `aes-gcm-siv`'s `A_MAX`, `P_MAX` and `C_MAX`): a caller that sizes its buffers or checks its
//! input by them sees the same numbers after patching us in. Shared by both generations
//! (`aead-0.5/interop` includes this file): the crate names are the same in both; the
//! generations' values differ (`aes-gcm` 0.11 took SP 800-38D's limits, 0.10 RFC-style
//! powers of two), which is why each is compared with its own published crate.

#[test]
fn aes_gcm_constants_are_upstreams() {
    assert_eq!(
        (aes_gcm::A_MAX, aes_gcm::P_MAX),
        (upstream_aes_gcm::A_MAX, upstream_aes_gcm::P_MAX)
    );
}

#[test]
fn aes_gcm_siv_constants_are_upstreams() {
    assert_eq!(
        (aes_gcm_siv::A_MAX, aes_gcm_siv::P_MAX, aes_gcm_siv::C_MAX),
        (
            upstream_aes_gcm_siv::A_MAX,
            upstream_aes_gcm_siv::P_MAX,
            upstream_aes_gcm_siv::C_MAX
        )
    );
}
