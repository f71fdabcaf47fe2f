//! When a key on the 512-bit engine runs a message on the 256-bit one instead: Intel's cores
//! power their 512-bit units down after some 100 µs without a 512-bit instruction, and the
//! first microseconds of 512-bit work after that run at a fraction of their speed.
//!
//! Measured on an Intel Xeon with AVX-512 in a VM (its CPUID reports family 6 model 0xa7; the
//! host is of the Sapphire/Emerald Rapids class; TSC at 2 GHz): after 150 µs or more of scalar work, eight independent chains of ten
//! 512-bit `VAESENC` each took some 370 TSC ticks a call for the first nine calls (about 3,300
//! ticks, 1.6 µs) and 125 from then on; the same calls on 256-bit registers ran at their
//! steady speed from the first. AES-128-GCM with 16 B of AAD, one message after each 200 µs of
//! scalar work (median ns, the 512-bit engine / the 256-bit one): 640 B 614 / 346, 1420 B
//! 1018 / 620, 2048 B 1154 / 623, 16 KiB 2973 / 3405; back to back: 640 B 185 / 234, 1420 B
//! 377 / 477, 16 KiB 2040 / 4373. (The transition is Intel's AVX-512 power-up, documented by
//! Travis Downs' measurements of Skylake-X, "Gathering Intel on Intel AVX-512 Transitions",
//! 2020: the wide units come up over some microseconds, during which the core runs 512-bit
//! instructions at reduced throughput.)
//!
//! So a key that [`Engine::detect`](crate::Engine::detect) put on the 512-bit engine of an
//! Intel CPU runs a message of [`SHORTEST`] bytes up to, not including, [`LONGEST`] (AAD and
//! text) on the 256-bit engine when the thread's messages have been coming more than [`REST`]
//! TSC ticks apart, and goes back to the 512-bit engine after [`WIDEN_AFTER`] messages in a
//! row closer than that (so that a short burst after a rest does not pay the warm-up on its
//! second message). Shorter messages keep the 512-bit engine (their slowdown after a pause is
//! some 50-90 ns), longer ones too (the warm-up is paid once and the full width wins it back).
//!
//! Reading the clock (`RDTSC`) costs 30-45 ns a message here, a quarter of a 400-byte one, so
//! a thread whose messages come close together reads it on about one message in [`SAMPLE`]:
//! those whose nonce's twelve bytes, XORed together, are [`SAMPLED`] modulo [`SAMPLE`] and
//! differ from the last sampled one. A counter nonce (TLS 1.3, QUIC and ESP number theirs) hits
//! that every [`SAMPLE`] messages and a random one about as often; a fixed nonce (which a
//! protocol may not reuse with one key, but a benchmark may) never does, nor does a nonce of
//! another length than 96 bits (whose J0 is a hash-key value, not to decide anything): those
//! keep the thread's choice while it is wide. A reading compares the time since the previous
//! one with [`REST`] times [`SAMPLE`]; after a narrow message, which reads the clock every
//! time, with [`REST`].
//!
//! Measured on the same CPU, AES-128-GCM with 16 B of AAD and counter nonces, a `KeyInit` key
//! against one made on the 512-bit engine, alternating in one process (before
//! [`WIDEN_AFTER`] existed, and with the window then reaching 12 KiB): back to back (fastest
//! of 15 batches) 400 B 89.8 / 93.1 ns, 1420 B 272.6 / 274.4 (a fixed nonce: 89.8 / 90.5); one
//! message after each 200 µs of scalar work (median of 1,000, ring's beside): 400 B 479 / 377
//! (ring 357), 1420 B 935 / 529 (630), 4096 B 1755 / 822 (856), 8 KiB 2319 / 1483 (1504; with
//! its AAD that message now lies past [`LONGEST`]). In runs where the VM's other tenants kept
//! the units up the slowdown did not come and the 256-bit engine lost instead: 1420 B 715 /
//! 866, 4096 B 880 / 1270, 8 KiB 1636 / 2064; hence [`LONGEST`].
//!
//! The first such message measures the clock: where back-to-back readings come [`TRAPPED`]
//! ticks apart or more (a hypervisor emulating `RDTSC`), keys never read it and stay wide.
//!
//! The state is a thread's, as far as the crate can tell without `std`: one slot of
//! [`SLOTS`] (two cache lines each), picked by the address of the caller's stack (threads'
//! stacks lie megabytes apart). Threads that share a slot share a choice, and its lines, which
//! a wide thread writes only at a clock reading. Nothing secret decides anything here: the
//! lengths and nonces are public and the clock is the caller's timing; either engine computes
//! the same bytes. (A process that forbids `RDTSC` with `prctl(PR_SET_TSC, PR_TSC_SIGSEGV)`
//! gets its signal here, as it would from the C library's clocks.)
//!
//! Only keys made by `KeyInit` are paced; a key on an engine named by the hidden
//! `with_engine` runs that engine for every message.

use core::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};

/// The shortest message (AAD and text, bytes) that may leave the 512-bit engine.
pub const SHORTEST: usize = 384;

/// The message length (AAD and text, bytes) from which the 512-bit engine runs whatever the
/// pacing: after a rest, 8 KiB took 1.3-1.6x longer on it than on the 256-bit engine, without
/// the slowdown (the CPU's other hyperthread may keep the units up) 1.26x less, and at 16 KiB
/// it was ahead either way; the bound keeps the loss where the slowdown does not come small.
pub const LONGEST: usize = 8 * 1024;

/// TSC ticks between messages above which they run on the 256-bit engine: 65 µs at 2 GHz
/// (the CPUs with AVX-512 count at 1.5 to 4 GHz, so 33 to 87 µs), under the 100-150 µs after
/// which the units were seen to power down.
pub const REST: u64 = 1 << 17;

/// While a thread's messages run wide, one in about this many reads the clock.
pub const SAMPLE: u8 = 16;

/// The residue modulo [`SAMPLE`] of the nonces that read it: not 0, which every nonce of
/// twelve equal bytes folds to.
pub const SAMPLED: u8 = 5;

/// The number of per-thread slots.
pub const SLOTS: usize = 64;

/// Close readings in a row after which a narrow thread widens: a short burst after a rest
/// (a response of a few records) stays on the 256-bit engine instead of paying the 512-bit
/// units' warm-up on its second message.
pub const WIDEN_AFTER: u8 = 4;

/// One thread's (or a few threads') pacing: the last clock reading that moved it, the choice,
/// the fold of the last nonce that read the clock while wide, and the close readings in a row
/// while narrow. Two cache lines to itself (Intel's adjacent-line prefetcher pairs lines).
#[repr(align(128))]
struct Slot {
    last: AtomicU64,
    wide: AtomicBool,
    fold: AtomicU8,
    close: AtomicU8,
}

impl Slot {
    const fn new(last: u64, wide: bool) -> Self {
        Slot {
            last: AtomicU64::new(last),
            wide: AtomicBool::new(wide),
            fold: AtomicU8::new(0),
            close: AtomicU8::new(0),
        }
    }
}

static SLOT: [Slot; SLOTS] = [const { Slot::new(0, false) }; SLOTS];

/// How paced keys decide ([`Mode`]), [`UNSET`] until the first paced message of the window's
/// lengths measures the clock ([`calibrate`]) or a test sets it ([`set_mode`]).
static MODE: AtomicU8 = AtomicU8::new(UNSET);

/// [`MODE`] before the clock's cost is known.
const UNSET: u8 = 3;

/// TSC ticks between two back-to-back readings from which the clock is taken to trap: a
/// hypervisor that emulates `RDTSC` takes a microsecond or more a reading (natively some 20-60
/// ticks), which a message cannot pay; paced keys then stay on the 512-bit engine.
pub const TRAPPED: u64 = 1000;

/// How a paced key picks the engine of a message: by the clock, or (tests) always one way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// By the clock, as described in the module's docs.
    Clock = 0,
    /// Every message of [`SHORTEST`] to [`LONGEST`] bytes on the 256-bit engine.
    Narrow = 1,
    /// Every message on the 512-bit engine.
    Wide = 2,
}

/// Sets how paced keys pick their engines, for the whole process (tests: either way runs a correct
/// engine, so other threads' messages stay correct).
pub fn set_mode(mode: Mode) {
    MODE.store(mode as u8, Relaxed);
}

/// Whether a paced key runs a message of `len` bytes (AAD and text) on the 512-bit engine;
/// `fold` is its 96-bit nonce's `nonce_fold` (public), `None` for a GCM J0 hashed from a nonce
/// of another length.
#[inline]
pub(crate) fn wide(len: usize, fold: Option<u8>) -> bool {
    if !(SHORTEST..LONGEST).contains(&len) {
        return true;
    }
    let mut mode = MODE.load(Relaxed);
    if mode == UNSET {
        mode = calibrate();
    }
    match mode {
        m if m == Mode::Narrow as u8 => false,
        m if m == Mode::Wide as u8 => true,
        _ => {
            let slot = this_thread();
            let wide = slot.wide.load(Relaxed);
            if wide && !sampled(slot, fold) {
                return true;
            }
            decide(slot, wide, now())
        }
    }
}

/// Sets [`MODE`] from the clock's cost, the least of three back-to-back pairs of readings
/// (unless a test set it meanwhile), and returns it.
#[cold]
fn calibrate() -> u8 {
    let gap = (0..3)
        .map(|_| {
            let a = now();
            now().wrapping_sub(a)
        })
        .min()
        .unwrap_or(0);
    let _ = MODE.compare_exchange(UNSET, mode_for(gap) as u8, Relaxed, Relaxed);
    MODE.load(Relaxed)
}

/// The mode for a clock whose back-to-back readings are `gap` ticks apart.
fn mode_for(gap: u64) -> Mode {
    if gap < TRAPPED {
        Mode::Clock
    } else {
        Mode::Wide
    }
}

/// Whether a message of a thread whose messages run wide reads the clock (see the module
/// docs); notes its nonce's fold in `slot` if so.
#[inline]
fn sampled(slot: &Slot, fold: Option<u8>) -> bool {
    let Some(f) = fold else {
        return false;
    };
    if f % SAMPLE != SAMPLED || f == slot.fold.load(Relaxed) {
        return false;
    }
    slot.fold.store(f, Relaxed);
    true
}

/// The slot of the calling thread: the address of a local, in units of 2 MiB (a thread's
/// default stack in Rust's `std`), folded.
#[inline]
fn this_thread() -> &'static Slot {
    let here = 0u8;
    let at = core::ptr::addr_of!(here) as usize;
    &SLOT[((at >> 21) ^ (at >> 27)) % SLOTS]
}

/// A clock reading `now` on `slot`, whose choice is `wide`: the new choice. While wide, it
/// stays wide if the previous reading is less than [`REST`] times [`SAMPLE`] ago (readings
/// come about every [`SAMPLE`] messages); while narrow, it widens at the [`WIDEN_AFTER`]th
/// reading in a row less than [`REST`] after the stamp. Stamps `now` if the stamp is
/// `REST / 8` old. A clock behind the stamp (another core's TSC, a migrated VM) reads as a
/// long rest: the 256-bit engine, which is always correct.
#[inline]
fn decide(slot: &Slot, wide: bool, now: u64) -> bool {
    let since = now.wrapping_sub(slot.last.load(Relaxed));
    if since >= REST / 8 {
        slot.last.store(now, Relaxed);
    }
    let next = if wide {
        since < REST * SAMPLE as u64
    } else {
        let close = if since < REST {
            slot.close.load(Relaxed).saturating_add(1)
        } else {
            0
        };
        let widen = close >= WIDEN_AFTER;
        slot.close.store(if widen { 0 } else { close }, Relaxed);
        widen
    };
    if next != wide {
        slot.wide.store(next, Relaxed);
    }
    next
}

/// The choice a paced key would make now for a message of `len` bytes, without reading the
/// clock or moving the thread's state (the engine `Fused::engine_for` reports).
pub(crate) fn peek(len: usize) -> bool {
    if !(SHORTEST..LONGEST).contains(&len) {
        return true;
    }
    match MODE.load(Relaxed) {
        m if m == Mode::Narrow as u8 => false,
        m if m == Mode::Wide as u8 => true,
        _ => this_thread().wide.load(Relaxed),
    }
}

/// The time-stamp counter.
#[cfg(not(miri))]
#[inline]
fn now() -> u64 {
    // SAFETY: `RDTSC` exists on every x86_64 CPU and has no operands.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
}

/// Under Miri (which runs no x86 engine): no clock (every reading 0, so back to back).
#[cfg(miri)]
fn now() -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_outside_the_window_stay_wide() {
        for len in [0, 1, SHORTEST - 1, LONGEST, LONGEST + 1, usize::MAX] {
            for fold in [None, Some(0), Some(SAMPLED)] {
                assert!(wide(len, fold), "{len}");
            }
        }
    }

    fn slot(last: u64, wide: bool) -> Slot {
        Slot::new(last, wide)
    }

    #[test]
    fn a_rest_narrows_and_close_messages_widen() {
        // Any starting point: the counter's value, near zero and near wrapping.
        for start in [now(), 0, u64::MAX - REST / 2] {
            // Narrow: `WIDEN_AFTER` readings in a row within `REST` of the stamp widen.
            let s = slot(start, false);
            for i in 1..WIDEN_AFTER {
                assert!(
                    !decide(&s, false, start.wrapping_add(i as u64)),
                    "reading {i}"
                );
            }
            assert!(decide(&s, false, start.wrapping_add(REST - 1)));
            assert!(s.wide.load(Relaxed));
            assert_eq!(s.close.load(Relaxed), 0);
            assert_eq!(s.last.load(Relaxed), start.wrapping_add(REST - 1));
            // A rest in between starts the count again.
            let s = slot(start, false);
            for _ in 1..WIDEN_AFTER {
                assert!(!decide(&s, false, start.wrapping_add(1)));
            }
            assert!(!decide(&s, false, start.wrapping_add(REST)));
            assert_eq!(s.close.load(Relaxed), 0);
            assert!(!s.wide.load(Relaxed));
            // Wide: readings come every `SAMPLE` messages or so; `REST * SAMPLE` apart narrows.
            let s = slot(start, true);
            assert!(decide(
                &s,
                true,
                start.wrapping_add(REST * SAMPLE as u64 - 1)
            ));
            let s = slot(start, true);
            assert!(!decide(&s, true, start.wrapping_add(REST * SAMPLE as u64)));
            assert!(!s.wide.load(Relaxed));
            // The stamp moves only once it is `REST / 8` old.
            let s = slot(start, true);
            assert!(decide(&s, true, start.wrapping_add(REST / 8 - 1)));
            assert_eq!(s.last.load(Relaxed), start);
            assert!(decide(&s, true, start.wrapping_add(REST / 8)));
            assert_eq!(s.last.load(Relaxed), start.wrapping_add(REST / 8));
            // A clock behind the stamp is a rest.
            let s = slot(start, true);
            assert!(!decide(&s, true, start.wrapping_sub(1)));
            let s = slot(start, false);
            assert!(!decide(&s, false, start.wrapping_sub(1)));
        }
    }

    #[test]
    fn a_trapping_clock_keeps_the_wide_engine() {
        assert_eq!(mode_for(0), Mode::Clock);
        assert_eq!(mode_for(60), Mode::Clock);
        assert_eq!(mode_for(TRAPPED - 1), Mode::Clock);
        assert_eq!(mode_for(TRAPPED), Mode::Wide);
        assert_eq!(mode_for(u64::MAX), Mode::Wide);
    }

    #[test]
    fn counter_nonces_read_the_clock_every_sample() {
        // A counter in any position of the nonce (big- or little-endian, XORed with a fixed
        // IV as TLS 1.3 and QUIC do): one message in `SAMPLE` reads the clock.
        let iv = *b"\x13\x57\x9b\xdf\x02\x46\x8a\xce\x11\x22\x33\x44";
        for at in 0..12 {
            let s = slot(0, true);
            let mut hits = 0;
            for seq in 0u32..256 {
                let mut nonce = iv;
                nonce[at] ^= seq as u8;
                if sampled(&s, Some(crate::nonce_fold(&nonce))) {
                    hits += 1;
                }
            }
            assert_eq!(hits, 256 / SAMPLE as usize, "counter at byte {at}");
        }
        // A fixed nonce reads it at most once; twelve equal bytes never; no public 96-bit
        // nonce (a J0 hashed from another length) never.
        let s = slot(0, true);
        let mut fixed = iv;
        fixed[0] ^= crate::nonce_fold(&iv) ^ SAMPLED;
        let f = crate::nonce_fold(&fixed);
        assert_eq!(f, SAMPLED);
        assert!(sampled(&s, Some(f)));
        assert!((0..100).all(|_| !sampled(&s, Some(f))));
        for b in [0, 1, 0x5a, 0xff] {
            assert_eq!(crate::nonce_fold(&[b; 12]), 0);
        }
        assert!(!sampled(&s, None));
        // The fold is every byte's: each byte moves it.
        for at in 0..12 {
            let mut n = [0u8; 12];
            n[at] = 0x80;
            assert_eq!(crate::nonce_fold(&n), 0x80, "byte {at}");
        }
    }
}
