//! The shared AES-GCM-SIV suite (`crates/gcm-siv/tests/suite`, also run through our
//! `aes-gcm-siv` 0.12) on our `aes-gcm-siv` 0.11.
#![cfg(all(feature = "aes", feature = "alloc"))]

#[macro_use]
#[path = "../../../crates/gcm-siv/tests/suite/mod.rs"]
mod suite;
mod generation;

use generation::Ours;

siv_suite_tests!(Ours);
