//! The pacing of `KeyInit` keys (`aead_engines::pace`: on an Intel CPU's 512-bit engine, a
//! message of `SHORTEST..LONGEST` bytes, AAD and text, runs on the 256-bit engine after a
//! rest), as both crates' suites check it. The AES-GCM and AES-GCM-SIV `engines` modules
//! include this file by path, each after naming its crate's `__pace` module `pace`.

use super::{
    Engine,
    pace::{self, LONGEST, Mode, SHORTEST},
};

/// The engine each length runs on under the forced modes, for a `KeyInit` key whose own
/// engine is `own` and whose `__engine_for` is `engine_for`: on Intel's 512-bit engine (whose
/// detection picks the schoolbook shape) the 256-bit one inside the window under `Narrow`;
/// every other key (or length, or mode) its own. Leaves the mode on `Clock`.
pub fn engine_choice(own: Engine, engine_for: impl Fn(usize) -> Engine) {
    let paced = own == Engine::Vaes512Schoolbook;
    for mode in [Mode::Narrow, Mode::Wide] {
        pace::set_mode(mode);
        for len in [
            0,
            SHORTEST - 1,
            SHORTEST,
            1420,
            LONGEST - 1,
            LONGEST,
            1 << 20,
        ] {
            let moves = paced && mode == Mode::Narrow && (SHORTEST..LONGEST).contains(&len);
            let want = if moves { Engine::Vaes256 } else { own };
            assert_eq!(engine_for(len), want, "{mode:?} {len}");
        }
    }
    pace::set_mode(Mode::Clock);
}

/// Runs `each` under every mode, forced each way and then by the clock (left on `Clock`),
/// with `(text, aad)` lengths across both ends of the window, split between AAD and text;
/// then `random` once a mode, for the caller's random shapes.
pub fn across_window(mut each: impl FnMut(usize, usize), mut random: impl FnMut()) {
    for mode in [Mode::Narrow, Mode::Wide, Mode::Clock] {
        pace::set_mode(mode);
        for end in [SHORTEST, LONGEST] {
            for total in end - 17..=end + 17 {
                for aad in [0, 5, 16, 17, total] {
                    each(total - aad, aad);
                }
            }
        }
        random();
    }
    pace::set_mode(Mode::Clock);
}
