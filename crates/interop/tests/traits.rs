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
    let has = |tr: &str| ours.iter().any(|&(n, yes)| n == tr && yes);
    assert!(
        has("Send") && has("Sync") && has("Clone"),
        "{name}: {ours:?}"
    );
}

/// [`same`] for each `name: ours, published;`.
macro_rules! compare {
    ($($name:literal: $ours:ty, $theirs:ty;)*) => {
        $(same($name, traits!($ours), traits!($theirs));)*
    };
}

#[test]
fn public_types_have_the_published_traits() {
    compare! {
        "Aes128Gcm": aes_gcm::Aes128Gcm, upstream_aes_gcm::Aes128Gcm;
        "Aes256Gcm": aes_gcm::Aes256Gcm, upstream_aes_gcm::Aes256Gcm;
        "Aes128GcmSiv": aes_gcm_siv::Aes128GcmSiv, upstream_aes_gcm_siv::Aes128GcmSiv;
        "Aes256GcmSiv": aes_gcm_siv::Aes256GcmSiv, upstream_aes_gcm_siv::Aes256GcmSiv;
        "Polyval": polyval::Polyval, upstream_polyval::Polyval;
        "GHash": ghash::GHash, upstream_ghash::GHash;
    }
}
