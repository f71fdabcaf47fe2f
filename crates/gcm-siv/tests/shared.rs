//! The shared AES-GCM-SIV suite (`tests/suite`, also run through our `aes-gcm-siv` 0.11) on our
//! `aes-gcm-siv` 0.12.
#![cfg(all(feature = "aes", feature = "alloc"))]

#[macro_use]
mod suite;
mod generation;

use generation::Ours;

siv_suite_tests!(Ours);
