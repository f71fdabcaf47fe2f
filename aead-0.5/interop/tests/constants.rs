//! The public length constants, the aead 0.5 generation: the shared test of `crates/interop`.

#[path = "../../../crates/interop/tests/constants.rs"]
mod constants;
