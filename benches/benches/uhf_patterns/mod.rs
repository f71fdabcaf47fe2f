//! The message patterns of the POLYVAL/GHASH benches (`uhf.rs`, criterion; `uhf_paired.rs`,
//! interleaved), over one generation's `universal-hash` traits: the same code for both
//! generations and both benches.

/// Piece lengths of the `pieces` patterns, in blocks (repeating).
pub const PIECES: [usize; 7] = [1, 2, 3, 5, 7, 11, 13];

/// The message patterns over one generation's `universal-hash` traits (`$uh`): the same code
/// for both generations.
macro_rules! patterns {
    ($m:ident, $uh:path) => {
        pub mod $m {
            use super::PIECES;
            use std::hint::black_box;
            use $uh::{KeyInit, Reset, UniversalHash, consts::U16};

            /// `new` + `update_padded` + `finalize`.
            pub fn new_message<U: UniversalHash<BlockSize = U16> + KeyInit<KeySize = U16>>(
                key: &mut [u8; 16],
                data: &[u8],
            ) -> [u8; 16] {
                let mut s = U::new(&(*black_box(&*key)).into());
                s.update_padded(data);
                s.finalize().into()
            }

            /// `clone` of the keyed state + `update_padded` + `finalize`.
            pub fn clone_message<U: UniversalHash<BlockSize = U16> + Clone>(
                keyed: &mut U,
                data: &[u8],
            ) -> [u8; 16] {
                let mut s = black_box(&*keyed).clone();
                s.update_padded(data);
                s.finalize().into()
            }

            /// `update_padded` + `finalize_reset` on a kept state.
            pub fn kept_message<U: UniversalHash<BlockSize = U16> + Reset + Clone>(
                s: &mut U,
                data: &[u8],
            ) -> [u8; 16] {
                s.update_padded(data);
                s.finalize_reset().into()
            }

            /// `update` in uneven pieces of whole blocks, into `s`.
            fn absorb_pieces<U: UniversalHash<BlockSize = U16>>(s: &mut U, data: &[u8]) {
                let blocks: Vec<_> = data
                    .chunks_exact(16)
                    .map(|b| {
                        let b: [u8; 16] = b.try_into().expect("16 bytes");
                        b.into()
                    })
                    .collect();
                let mut rest = &blocks[..];
                for &n in PIECES.iter().cycle() {
                    if rest.is_empty() {
                        break;
                    }
                    let (piece, tail) = rest.split_at(n.min(rest.len()));
                    s.update(piece);
                    rest = tail;
                }
            }

            /// Pieces into a kept state, then `finalize_reset`.
            pub fn kept_pieces<U: UniversalHash<BlockSize = U16> + Reset + Clone>(
                s: &mut U,
                data: &[u8],
            ) -> [u8; 16] {
                absorb_pieces(s, data);
                s.finalize_reset().into()
            }

            /// Pieces into a clone of the keyed state, then `finalize`.
            pub fn clone_pieces<U: UniversalHash<BlockSize = U16> + Clone>(
                keyed: &mut U,
                data: &[u8],
            ) -> [u8; 16] {
                let mut s = black_box(&*keyed).clone();
                absorb_pieces(&mut s, data);
                s.finalize().into()
            }
        }
    };
}

patterns!(uh06, polyval::universal_hash);
patterns!(uh05, polyval_06::universal_hash);
