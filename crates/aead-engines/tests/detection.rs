//! Which engine and POLYVAL backend detection picks on the CPU models `cargo xtask cross-test`
//! runs the tests under: the model's name arrives in `CLMUL_EXPECT_CPU` (QEMU's `-cpu`, or
//! the x86 ladder's `QEMU_CPU`), and each model has one right answer. Elsewhere (a native run)
//! there is nothing to expect, and the test only reports what it found.

use aead_engines::Engine;
use clmul_core::Backend;

/// The engine and backend (by name) detection must pick on the model, if it is one we know.
fn expected(model: &str) -> Option<(Engine, &'static str)> {
    match model {
        // x86: no AES-NI or PCLMULQDQ at all.
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        "qemu64" => Some((Engine::Generic, "portable")),
        // AES-NI and PCLMULQDQ on 128 bits: SandyBridge adds AVX, Haswell AVX2, neither has
        // VAES or VPCLMULQDQ; QEMU 7.2's TCG (Debian 12's) implements neither VPCLMULQDQ nor
        // AVX-512 and clears them from Icelake-Server's CPUID, so the wide engines and
        // backends must not be picked there either.
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        "Westmere" | "SandyBridge" | "Haswell" | "Icelake-Server" => {
            Some((Engine::AesNi, "pclmul"))
        }
        // aarch64: `max` has SHA3 (the EOR3 engine and POLYVAL backend), Cortex-A72 has AES
        // and PMULL only.
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        "max" => Some((Engine::Armv8Eor3, "pmull-eor3")),
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        "cortex-a72" | "neoverse-n1" => Some((Engine::Armv8, "pmull")),
        _ => None,
    }
}

#[test]
fn detection_matches_the_cpu_model() {
    let (engine, backend) = (Engine::detect(), Backend::detect());
    let Ok(model) = std::env::var("CLMUL_EXPECT_CPU") else {
        eprintln!("no CLMUL_EXPECT_CPU: detected {engine:?} and {backend}");
        return;
    };
    if cfg!(polyval_backend = "soft") {
        assert_eq!((engine, backend), (Engine::Generic, Backend::Portable));
        return;
    }
    match expected(&model) {
        Some((e, b)) => {
            assert_eq!(engine, e, "engine detected on {model}");
            assert_eq!(backend.name(), b, "backend detected on {model}");
            assert!(
                Engine::available().any(|x| x == e),
                "{e:?} detected but not listed as available"
            );
        }
        None => eprintln!("{model}: detected {engine:?} and {backend} (no expectation)"),
    }
}
