use ghash::{
    GHash,
    universal_hash::{KeyInit, UniversalHash},
};
use hex_literal::hex;

// Test vectors from RFC 8452 Appendix A
// <https://tools.ietf.org/html/rfc8452#appendix-A>
const H: [u8; 16] = hex!("25629347589242761d31f826ba4b757b");
const X_1: [u8; 16] = hex!("4f4f95668c83dfb6401762bb2d01a262");
const X_2: [u8; 16] = hex!("d1a24ddd2721d006bbe45f20d3c9f362");

/// GHASH(H, X_1, X_2)
const GHASH_RESULT: [u8; 16] = hex!("bd9b3997046731fb96251b91f9c99d7a");

#[test]
fn ghash_test_vector() {
    let mut ghash = GHash::new(&H.into());
    ghash.update(&[X_1.into(), X_2.into()]);
    let result = ghash.finalize();
    assert_eq!(&GHASH_RESULT[..], result.as_slice());
}

/// NIST GCM spec (McGrew & Viega, "The Galois/Counter Mode of Operation", test case 2):
/// H = AES_0(0), C = 0388dace60b6a392f328c2b971b2fe78, len block, GHASH = f38cbb1ad69223dcc3457ae5b6b0f885
#[test]
fn gcm_spec_test_case_2() {
    let h = hex!("66e94bd4ef8a2c3b884cfa59ca342b2e");
    let c = hex!("0388dace60b6a392f328c2b971b2fe78");
    let len = hex!("00000000000000000000000000000080");
    let mut g = <GHash as KeyInit>::new(&h.into());
    g.update(&[c.into(), len.into()]);
    assert_eq!(
        g.finalize().as_slice(),
        hex!("f38cbb1ad69223dcc3457ae5b6b0f885")
    );
}

#[test]
fn debug_and_padding() {
    let g = GHash::new(&H.into());
    assert_eq!(format!("{g:?}"), "GHash(..)");
    let mut a = g.clone();
    a.update_padded(&X_1[..5]);
    let mut pad = [0u8; 16];
    pad[..5].copy_from_slice(&X_1[..5]);
    let mut b = g;
    b.update(&[pad.into()]);
    assert_eq!(a.finalize(), b.finalize());
}
