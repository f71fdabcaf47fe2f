//! Differential tests live in `tests/`.
