//! The ARMv8 floor: the fewest cycles the CPU models allow an AES-GCM encryption loop built
//! from AESE/AESMC and PMULL, eight blocks an iteration, as our engine and aws-lc's `unroll8`
//! are: how far ours is from what any such loop could do, and how far the peer's.
//!
//! The loops are throughput-bound on the Neoverse models, and the models' pipes bound the
//! cycles of an iteration from below by its count of vector operations: on V1 and V2 (LLVM 19's
//! scheduling tables) four vector pipes take AESE, AESMC, PMULL and the other vector operations
//! alike, and only V0 takes EOR3; on N1 two vector pipes take them, and only V0 takes AESE,
//! AESMC and PMULL. A Q register's store takes one vector operation on V1, two on V2 and N1
//! (loads take the load pipes only). The floor is the larger of (operations / vector pipes)
//! and (operations that one pipe alone takes), from the fewest operations each step needs with
//! the techniques known, for `R` AES rounds and eight blocks of 16 bytes:
//!
//! - AES with the first round cached (counter-mode caching, see `aead-engines`'
//!   `kernel::Round1`: a four-byte load a block, no counter addition): `R - 2` AESE + AESMC
//!   pairs and one AESE a block (the cores fuse the pair, the models do not); the last round
//!   key and the text: one EOR3 a block (two EORs without FEAT_SHA3); four STP of the output;
//! - GHASH of the eight blocks with one reduction (Karatsuba, the form with the fewest PMULLs):
//!   one REV64 a block (GHASH's byte order), one operation a block for the input of its middle
//!   product (`hi ^ lo`; the known ways take 1.5: TRN1/TRN2/EOR a pair, or EXT + EOR each),
//!   three PMULLs a block, the 24 products, the Karatsuba correction and the running hash
//!   summed in one EOR and 12 EOR3 (the high products' sum left in two terms for the middle's),
//!   and the reduction (2 PMULL, 2 EXT, 2 EOR3); 27 EORs in all without FEAT_SHA3.
//!
//! Each count is at or below what the known kernels do (the middle inputs' below), so a loop
//! of these techniques cannot model faster than the floor; one that hashes sixteen blocks a
//! reduction, or finds a cheaper step, could. The same operations as a loop (no dependency
//! between them beyond each block's AES rounds: every other operand is a register no
//! instruction of the loop writes) also go through llvm-mca, as a check that the floor is
//! within reach of its scheduler.

use super::*;

/// The floor's operations for `rounds` AES rounds (10 or 14), `sha3`: with EOR3.
pub(super) struct Floor {
    /// The operations as a loop body for llvm-mca.
    pub(super) text: String,
    /// Vector operations an iteration (128 bytes).
    pub(super) ops: usize,
    /// Of them AESE, AESMC and PMULL.
    pub(super) crypto: usize,
    /// Of them EOR3.
    pub(super) eor3: usize,
    /// Of them Q register stores (STP), counted once each in `ops`.
    pub(super) stores: usize,
}

impl Floor {
    /// The floor's cycles per 64 bytes on `model` (see the module docs for the pipes).
    pub(super) fn per64(&self, model: &str) -> f64 {
        // A store pair's vector operations: one on V1, two on V2 and N1.
        let ops = if model == "neoverse-v1" {
            self.ops
        } else {
            self.ops + self.stores
        };
        let per_iter = if model == "neoverse-n1" {
            (ops as f64 / 2.0).max(self.crypto as f64)
        } else {
            (ops as f64 / 4.0).max(self.eor3 as f64)
        };
        per_iter / 2.0
    }
}

/// The floor's operations for `rounds` AES rounds (10 or 14); `sha3`: with EOR3.
pub(super) fn arm_floor_loop(rounds: usize, sha3: bool) -> Floor {
    const BLOCKS: usize = 8;
    // v0-v7: the blocks; v8-v15: GHASH's results; v16-v30: round keys and stand-ins for the
    // powers of H (loaded in a real loop); v31: the counter.
    let key = |r: usize| 16 + r.min(14);
    let temp = |i: usize| 8 + i % 8;
    let mut aes = Vec::new();
    // The first round from the table: a four-byte load a block.
    for b in 0..BLOCKS {
        aes.push(format!("ldr s{b}, [x1, #{}]", 4 * b));
    }
    for r in 1..rounds - 1 {
        for b in 0..BLOCKS {
            aes.push(format!("aese v{b}.16b, v{}.16b", key(r)));
            aes.push(format!("aesmc v{b}.16b, v{b}.16b"));
        }
    }
    for b in 0..BLOCKS {
        aes.push(format!("aese v{b}.16b, v{}.16b", key(rounds - 1)));
    }
    for b in 0..BLOCKS {
        if sha3 {
            aes.push(format!(
                "eor3 v{b}.16b, v{b}.16b, v{}.16b, v{}.16b",
                key(rounds),
                temp(b)
            ));
        } else {
            aes.push(format!("eor v{b}.16b, v{b}.16b, v{}.16b", key(rounds)));
            aes.push(format!("eor v{b}.16b, v{b}.16b, v{}.16b", temp(b)));
        }
    }
    for b in (0..BLOCKS).step_by(2) {
        aes.push(format!("stp q{b}, q{}, [x0, #{}]", b + 1, 16 * b));
    }

    // GHASH's operations read round-key registers (no chain between them), except REV64,
    // which reads a block.
    let mut hash = Vec::new();
    let mut t = 0;
    let mut next = || {
        t += 1;
        temp(t)
    };
    for b in 0..BLOCKS {
        hash.push(format!("rev64 v{}.16b, v{b}.16b", next()));
    }
    let eor2 = |d: usize| format!("eor v{d}.16b, v17.16b, v18.16b");
    let eor3 = |d: usize| format!("eor3 v{d}.16b, v17.16b, v18.16b, v19.16b");
    hash.push(eor2(next()));
    for _ in 0..BLOCKS {
        hash.push(eor2(next()));
    }
    for i in 0..3 * BLOCKS + 2 {
        let d = next();
        hash.push(if i % 2 == 0 {
            format!("pmull v{d}.1q, v20.1d, v21.1d")
        } else {
            format!("pmull2 v{d}.1q, v22.2d, v23.2d")
        });
    }
    for _ in 0..2 {
        let d = next();
        hash.push(format!("ext v{d}.16b, v24.16b, v24.16b, #8"));
    }
    // The sums, the correction and the reduction's: 12 + 2 EOR3 beside the one EOR above, or
    // 26 EORs more.
    if sha3 {
        for _ in 0..14 {
            hash.push(eor3(next()));
        }
    } else {
        for _ in 0..26 {
            hash.push(eor2(next()));
        }
    }

    // GHASH's operations spread through the AES rounds, as a stitched loop has them.
    let mut lines = Vec::new();
    let every = aes.len().div_ceil(hash.len()).max(1);
    let mut h = hash.into_iter();
    for (i, a) in aes.into_iter().enumerate() {
        lines.push(a);
        if i % every == every - 1 {
            lines.extend(h.next());
        }
    }
    lines.extend(h);
    let count = |m: &[&str]| {
        lines
            .iter()
            .filter(|l| m.iter().any(|m| l.starts_with(m)))
            .count()
    };
    Floor {
        ops: lines.len() - count(&["ldr "]),
        stores: count(&["stp "]),
        crypto: count(&["aese ", "aesmc ", "pmull"]),
        eor3: count(&["eor3 "]),
        text: lines.join("\n") + "\n",
    }
}

/// The floor against the peer loop of each ARM model in `models` (the first peer the versus
/// table pairs with it): the model, the floor's operations an iteration, its cycles per 64
/// bytes (and its loop's in llvm-mca), the peer's, and the most that any such loop could beat
/// the peer by there (the peer's cycles / the floor's).
pub(super) fn floor_rows(
    tools: &Tools,
    models: &[(&str, Arch)],
    peers: &[PeerRow],
) -> Result<Vec<Vec<String>>, String> {
    let mut out = Vec::new();
    for (mi, &(model, arch)) in models.iter().enumerate() {
        if arch != Arch::Arm {
            continue;
        }
        let Some((p, _, cells)) = peers
            .iter()
            .find(|(p, _, _)| p.versus.iter().any(|(m, _)| *m == model))
        else {
            continue;
        };
        let Some((p128, p256)) = &cells[mi] else {
            continue;
        };
        // FEAT_SHA3 on the cores whose peer loop uses it (V1, V2), not on N1.
        let sha3 = model != "neoverse-n1";
        let (f128, f256) = (arm_floor_loop(10, sha3), arm_floor_loop(14, sha3));
        let (b128, b256) = (f128.per64(model), f256.per64(model));
        let s128 = mca_text(&tools.mca, arch, model, &f128.text, 128.0)?;
        let s256 = mca_text(&tools.mca, arch, model, &f256.text, 128.0)?;
        out.push(vec![
            model.to_string(),
            format!("{} / {}", f128.ops, f256.ops),
            format!("{b128:.1} / {b256:.1}"),
            format!("{:.1} / {:.1}", s128.per64, s256.per64),
            p.name.to_string(),
            format!("{:.1} / {:.1}", p128.per64, p256.per64),
            format!("{:.2}x / {:.2}x", p128.per64 / b128, p256.per64 / b256),
        ]);
    }
    Ok(out)
}

/// The columns of [`floor_rows`].
pub(super) const FLOOR_HEAD: [&str; 7] = [
    "model",
    "vector ops / 128 B",
    "floor: AES-128 / AES-256",
    "floor loop in llvm-mca",
    "peer",
    "peer: AES-128 / AES-256",
    "most a loop can beat it by",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts the module docs give: for AES-128 with EOR3, 8 counters + 152 AES + 8 final
    /// EOR3 + 4 stores + 60 for GHASH.
    #[test]
    fn counts() {
        let f = arm_floor_loop(10, true);
        let text = &f.text;
        let count = |s: &str, m: &str| s.lines().filter(|l| l.starts_with(m)).count();
        // 136 AES, 8 EOR3 for the last key, 4 stores, 59 for GHASH.
        assert_eq!(f.ops, 136 + 8 + 4 + 59);
        assert_eq!(text.lines().count(), f.ops + 8);
        assert_eq!(count(text, "ldr s"), 8);
        assert_eq!(count(text, "aese "), 72);
        assert_eq!(count(text, "aesmc "), 64);
        assert_eq!(count(text, "pmull"), 26);
        assert_eq!(count(text, "rev64 "), 8);
        assert_eq!((f.crypto, f.eor3, f.stores), (136 + 26, 8 + 14, 4));
        // V1: 207 operations on four pipes; V2: the stores twice.
        assert_eq!(f.per64("neoverse-v1"), 207.0 / 8.0);
        assert_eq!(f.per64("neoverse-v2"), 211.0 / 8.0);
        let g = arm_floor_loop(14, false);
        assert_eq!(g.ops, 200 + 16 + 4 + 8 + 1 + 8 + 26 + 2 + 26);
        assert_eq!(count(&g.text, "eor3 "), 0);
        // N1: AES and PMULL on V0.
        assert_eq!(g.per64("neoverse-n1"), (200.0 + 26.0) / 2.0);
    }
}
