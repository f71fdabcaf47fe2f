//! aarch64 backends.

pub(crate) mod pmull;
