//! aarch64 backends.

pub mod pmull;
