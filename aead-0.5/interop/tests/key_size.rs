//! Memory per key, the aead 0.5 generation: the shared test of `crates/interop`.

#[path = "../../../crates/interop/tests/key_size.rs"]
mod key_size;
