//! The test cases of the GCM specification: McGrew and Viega, "The Galois/Counter Mode of
//! Operation (GCM)", Appendix B, Test Cases 1-18 (AES-128: 1-6, AES-192: 7-12, AES-256: 13-18).
//!
//! They cover the empty message, one block of zeros, a whole number of blocks, a partial final
//! block with associated data, and the two non-96-bit nonces: 64 bits (Test Cases 5, 11, 17),
//! and 480 bits (Test Cases 6, 12, 18), where J0 comes from GHASH. Each vector is checked in
//! both directions, through the detached in-place API (no `alloc` needed), on every engine
//! and GHASH backend.

use super::{Generation, ours_all};
use hex_literal::hex;

/// One test case: key, nonce, plaintext, associated data, ciphertext, tag.
struct Case {
    name: &'static str,
    key: &'static [u8],
    iv: &'static [u8],
    pt: &'static [u8],
    aad: &'static [u8],
    ct: &'static [u8],
    tag: [u8; 16],
}

const K_ZERO_128: [u8; 16] = [0; 16];
const K_ZERO_192: [u8; 24] = [0; 24];
const K_ZERO_256: [u8; 32] = [0; 32];
const K_128: [u8; 16] = hex!("feffe9928665731c6d6a8f9467308308");
const K_192: [u8; 24] = hex!("feffe9928665731c6d6a8f9467308308feffe9928665731c");
const K_256: [u8; 32] = hex!("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");

const IV_ZERO: [u8; 12] = [0; 12];
const IV_96: [u8; 12] = hex!("cafebabefacedbaddecaf888");
const IV_64: [u8; 8] = hex!("cafebabefacedbad");
const IV_480: [u8; 60] = hex!(
    "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
    "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b"
);

const P_ZERO: [u8; 16] = [0; 16];
/// 64 bytes (Test Cases 3, 9, 15).
const P_64: [u8; 64] = hex!(
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
);
/// The first 60 bytes of `P_64` (all the other non-trivial cases).
const P_60: &[u8] = P_64.split_at(60).0;
const AAD_20: [u8; 20] = hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2");

const AES128: &[Case] = &[
    Case {
        name: "Test Case 1",
        key: &K_ZERO_128,
        iv: &IV_ZERO,
        pt: &[],
        aad: &[],
        ct: &[],
        tag: hex!("58e2fccefa7e3061367f1d57a4e7455a"),
    },
    Case {
        name: "Test Case 2",
        key: &K_ZERO_128,
        iv: &IV_ZERO,
        pt: &P_ZERO,
        aad: &[],
        ct: &hex!("0388dace60b6a392f328c2b971b2fe78"),
        tag: hex!("ab6e47d42cec13bdf53a67b21257bddf"),
    },
    Case {
        name: "Test Case 3",
        key: &K_128,
        iv: &IV_96,
        pt: &P_64,
        aad: &[],
        ct: &hex!(
            "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
            "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985"
        ),
        tag: hex!("4d5c2af327cd64a62cf35abd2ba6fab4"),
    },
    Case {
        name: "Test Case 4",
        key: &K_128,
        iv: &IV_96,
        pt: P_60,
        aad: &AAD_20,
        ct: &hex!(
            "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
            "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
        ),
        tag: hex!("5bc94fbc3221a5db94fae95ae7121a47"),
    },
];

const AES128_IV64: &[Case] = &[Case {
    name: "Test Case 5",
    key: &K_128,
    iv: &IV_64,
    pt: P_60,
    aad: &AAD_20,
    ct: &hex!(
        "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c7423"
        "73806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598"
    ),
    tag: hex!("3612d2e79e3b0785561be14aaca2fccb"),
}];

const AES128_IV480: &[Case] = &[Case {
    name: "Test Case 6",
    key: &K_128,
    iv: &IV_480,
    pt: P_60,
    aad: &AAD_20,
    ct: &hex!(
        "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
        "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5"
    ),
    tag: hex!("619cc5aefffe0bfa462af43c1699d050"),
}];

const AES192: &[Case] = &[
    Case {
        name: "Test Case 7",
        key: &K_ZERO_192,
        iv: &IV_ZERO,
        pt: &[],
        aad: &[],
        ct: &[],
        tag: hex!("cd33b28ac773f74ba00ed1f312572435"),
    },
    Case {
        name: "Test Case 8",
        key: &K_ZERO_192,
        iv: &IV_ZERO,
        pt: &P_ZERO,
        aad: &[],
        ct: &hex!("98e7247c07f0fe411c267e4384b0f600"),
        tag: hex!("2ff58d80033927ab8ef4d4587514f0fb"),
    },
    Case {
        name: "Test Case 9",
        key: &K_192,
        iv: &IV_96,
        pt: &P_64,
        aad: &[],
        ct: &hex!(
            "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
            "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256"
        ),
        tag: hex!("9924a7c8587336bfb118024db8674a14"),
    },
    Case {
        name: "Test Case 10",
        key: &K_192,
        iv: &IV_96,
        pt: P_60,
        aad: &AAD_20,
        ct: &hex!(
            "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
            "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710"
        ),
        tag: hex!("2519498e80f1478f37ba55bd6d27618c"),
    },
];

const AES192_IV64: &[Case] = &[Case {
    name: "Test Case 11",
    key: &K_192,
    iv: &IV_64,
    pt: P_60,
    aad: &AAD_20,
    ct: &hex!(
        "0f10f599ae14a154ed24b36e25324db8c566632ef2bbb34f8347280fc4507057"
        "fddc29df9a471f75c66541d4d4dad1c9e93a19a58e8b473fa0f062f7"
    ),
    tag: hex!("65dcc57fcf623a24094fcca40d3533f8"),
}];

const AES192_IV480: &[Case] = &[Case {
    name: "Test Case 12",
    key: &K_192,
    iv: &IV_480,
    pt: P_60,
    aad: &AAD_20,
    ct: &hex!(
        "d27e88681ce3243c4830165a8fdcf9ff1de9a1d8e6b447ef6ef7b79828666e45"
        "81e79012af34ddd9e2f037589b292db3e67c036745fa22e7e9b7373b"
    ),
    tag: hex!("dcf566ff291c25bbb8568fc3d376a6d9"),
}];

const AES256: &[Case] = &[
    Case {
        name: "Test Case 13",
        key: &K_ZERO_256,
        iv: &IV_ZERO,
        pt: &[],
        aad: &[],
        ct: &[],
        tag: hex!("530f8afbc74536b9a963b4f1c4cb738b"),
    },
    Case {
        name: "Test Case 14",
        key: &K_ZERO_256,
        iv: &IV_ZERO,
        pt: &P_ZERO,
        aad: &[],
        ct: &hex!("cea7403d4d606b6e074ec5d3baf39d18"),
        tag: hex!("d0d1c8a799996bf0265b98b5d48ab919"),
    },
    Case {
        name: "Test Case 15",
        key: &K_256,
        iv: &IV_96,
        pt: &P_64,
        aad: &[],
        ct: &hex!(
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
            "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
        ),
        tag: hex!("b094dac5d93471bdec1a502270e3cc6c"),
    },
    Case {
        name: "Test Case 16",
        key: &K_256,
        iv: &IV_96,
        pt: P_60,
        aad: &AAD_20,
        ct: &hex!(
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
            "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
        ),
        tag: hex!("76fc6ece0f4e1768cddf8853bb2d551b"),
    },
];

const AES256_IV64: &[Case] = &[Case {
    name: "Test Case 17",
    key: &K_256,
    iv: &IV_64,
    pt: P_60,
    aad: &AAD_20,
    ct: &hex!(
        "c3762df1ca787d32ae47c13bf19844cbaf1ae14d0b976afac52ff7d79bba9de0"
        "feb582d33934a4f0954cc2363bc73f7862ac430e64abe499f47c9b1f"
    ),
    tag: hex!("3a337dbf46a792c45e454913fe2ea8f2"),
}];

const AES256_IV480: &[Case] = &[Case {
    name: "Test Case 18",
    key: &K_256,
    iv: &IV_480,
    pt: P_60,
    aad: &AAD_20,
    ct: &hex!(
        "5a8def2f0c9e53f1f75d7853659e2a20eeb2b22aafde6419a058ab4f6f746bf4"
        "0fc0c3b780f244452da3ebf1c5d82cdea2418997200ef82e44ae7e3f"
    ),
    tag: hex!("a44a8266ee1c8eb0c8b5d4cf5ae9f19a"),
}];

/// Encrypts and decrypts every case on every implementation of generation `G`, in place and
/// detached, and through `KeyInit::new_from_slice` (the 96-bit-nonce, 128-bit-tag cases are
/// the `Aes128Gcm` / `Aes256Gcm` aliases).
fn check<G: Generation>(bits: usize, cases: &[Case]) {
    for c in cases {
        let mut all = ours_all::<G>(c.key, c.iv.len(), 16);
        all.push((
            "KeyInit::new_from_slice".into(),
            G::new_from_slice(bits, c.key, c.iv.len(), 16)
                .expect("listed size")
                .expect("key length"),
        ));
        for (imp, cipher) in &all {
            let what = format!("{}, {imp}", c.name);
            let mut buf = c.pt.to_vec();
            let tag = cipher.seal(c.iv, c.aad, &mut buf).expect("encrypt");
            assert_eq!(buf, c.ct, "{what}: ciphertext");
            assert_eq!(tag, c.tag, "{what}: tag");
            cipher.open(c.iv, c.aad, &mut buf, &tag).expect("decrypt");
            assert_eq!(buf, c.pt, "{what}: plaintext");
        }
    }
}

/// Every test case: 96-, 64- and 480-bit nonces, AES-128, -192 and -256.
pub fn all_cases<G: Generation>() {
    for (bits, cases) in [
        (128, AES128),
        (128, AES128_IV64),
        (128, AES128_IV480),
        (192, AES192),
        (192, AES192_IV64),
        (192, AES192_IV480),
        (256, AES256),
        (256, AES256_IV64),
        (256, AES256_IV480),
    ] {
        check::<G>(bits, cases);
    }
}
