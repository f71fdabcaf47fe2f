//! The traits of the public keyed types, the aead 0.5 generation: the shared test of
//! `crates/interop`.

#[path = "../../../crates/interop/tests/traits.rs"]
mod traits;
