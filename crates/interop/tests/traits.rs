//! The traits a caller leans on without naming them: each public keyed type of ours
//! implements the auto traits (`Send`, `Sync`, `Unpin`, `UnwindSafe`, `RefUnwindSafe`) and the
//! common ones (`Clone`, `Debug`, `Copy`, `Default`) exactly where the published crate's type
//! does. A key held in an `Arc` across threads, moved into a `catch_unwind` closure, kept in a
//! struct that derives `Debug` or `Clone`: each compiles against the published crate, so each
//! must compile with ours patched in (and a trait the published type lacks is not added, so
//! that nothing written against ours fails to build once it is unpatched). Shared by both
//! generations (`aead-0.5/interop` includes this file): the crate names are the same in both.

use std::panic::{RefUnwindSafe, UnwindSafe};

/// Whether `$t` implements `$tr`, as a `bool`: the inherent method exists only where the
/// bound holds, and method resolution prefers it to the trait's, which answers `false`.
macro_rules! has {
    ($t:ty, $tr:path) => {{
        struct Probe<T>(core::marker::PhantomData<T>);
        #[allow(dead_code)]
        trait Lacks {
            fn has(&self) -> bool {
                false
            }
        }
        impl<T> Lacks for Probe<T> {}
        #[allow(dead_code)]
        impl<T: $tr> Probe<T> {
            fn has(&self) -> bool {
                true
            }
        }
        Probe::<$t>(core::marker::PhantomData).has()
    }};
}

/// `(trait, implemented)` for each trait this file compares, for `$t`.
macro_rules! traits {
    ($t:ty) => {
        [
            ("Send", has!($t, Send)),
            ("Sync", has!($t, Sync)),
            ("Unpin", has!($t, Unpin)),
            ("UnwindSafe", has!($t, UnwindSafe)),
            ("RefUnwindSafe", has!($t, RefUnwindSafe)),
            ("Clone", has!($t, Clone)),
            ("Debug", has!($t, core::fmt::Debug)),
            ("Copy", has!($t, Copy)),
            ("Default", has!($t, Default)),
        ]
    };
}

/// Fails naming every trait on which `ours` and `theirs` (of the type `name`) differ.
fn same(name: &str, ours: [(&str, bool); 9], theirs: [(&str, bool); 9]) {
    let differ: Vec<String> = ours
        .iter()
        .zip(&theirs)
        .filter(|(o, t)| o.1 != t.1)
        .map(|(o, t)| format!("{}: ours {}, published {}", o.0, o.1, t.1))
        .collect();
    assert!(differ.is_empty(), "{name}: {differ:?}");
    // Not vacuous: every such type is at least `Send`, `Sync` and `Clone`.
    assert!(ours[0].1 && ours[1].1 && ours[5].1, "{name}: {ours:?}");
}

#[test]
fn aes_gcm_types_have_the_published_traits() {
    same(
        "Aes128Gcm",
        traits!(aes_gcm::Aes128Gcm),
        traits!(upstream_aes_gcm::Aes128Gcm),
    );
    same(
        "Aes256Gcm",
        traits!(aes_gcm::Aes256Gcm),
        traits!(upstream_aes_gcm::Aes256Gcm),
    );
}

#[test]
fn aes_gcm_siv_types_have_the_published_traits() {
    same(
        "Aes128GcmSiv",
        traits!(aes_gcm_siv::Aes128GcmSiv),
        traits!(upstream_aes_gcm_siv::Aes128GcmSiv),
    );
    same(
        "Aes256GcmSiv",
        traits!(aes_gcm_siv::Aes256GcmSiv),
        traits!(upstream_aes_gcm_siv::Aes256GcmSiv),
    );
}

#[test]
fn universal_hash_types_have_the_published_traits() {
    same(
        "Polyval",
        traits!(polyval::Polyval),
        traits!(upstream_polyval::Polyval),
    );
    same(
        "GHash",
        traits!(ghash::GHash),
        traits!(upstream_ghash::GHash),
    );
}
