//! Hostile safetensors files: each kind of malformed file is refused with a clear error, and
//! 100,000 mutated files decode without a panic. Parsing only (host memory, no GPU), so the loop
//! is cheap; `docs/checkpoints.md` has its time.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use borch_nn::serialization::codec::{FileContents, FileData, FileEntry, decode, encode};
use borch_tensor::HostData;

fn entry(name: &str, shape: &[usize], data: FileData) -> FileEntry {
    FileEntry {
        name: name.into(),
        shape: shape.to_vec(),
        data,
    }
}

fn valid() -> Vec<u8> {
    let mut metadata = BTreeMap::new();
    metadata.insert("format".into(), "borch.checkpoint.v1".into());
    metadata.insert("epoch".into(), "3".into());
    encode(&FileContents {
        entries: vec![
            entry(
                "w",
                &[2, 3],
                FileData::Tensor(HostData::F32(vec![1.0, -2.0, 3.5, 0.0, 1e-3, 7.0])),
            ),
            entry("n", &[], FileData::Tensor(HostData::I64(vec![42]))),
            entry(
                "b",
                &[3],
                FileData::Tensor(HostData::Bool(vec![true, false, true])),
            ),
            entry("rng_state", &[4], FileData::Bytes(vec![1, 2, 3, 4])),
        ],
        metadata,
    })
    .unwrap()
}

/// A file with header text `header` and `data` after it.
fn with_header(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn refused(bytes: &[u8], needle: &str) {
    match decode(bytes) {
        Ok(c) => panic!("accepted a hostile file ({needle}): {c:?}"),
        Err(e) => assert!(
            e.to_string().contains(needle),
            "error {e:?} does not say '{needle}'"
        ),
    }
}

#[test]
fn valid_file_round_trips() {
    let c = decode(&valid()).unwrap();
    let names: Vec<&str> = c.entries.iter().map(|e| e.name.as_str()).collect();
    // The crate orders by dtype alignment then name: I64, F32, U8, BOOL.
    assert_eq!(names, ["n", "w", "rng_state", "b"]);
    assert_eq!(c.metadata["epoch"], "3");
    assert_eq!(decode(&encode(&c).unwrap()).unwrap(), c);
}

#[test]
fn each_kind_of_hostile_file_is_refused() {
    let good = valid();
    refused(&good[..5], "header too small");
    refused(&good[..good.len() - 1], "incomplete metadata");
    let mut long = good.clone();
    long[..8].copy_from_slice(&(good.len() as u64).to_le_bytes());
    refused(&long, "invalid header length");
    let mut huge = good.clone();
    huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    refused(&huge, "header too large");
    let data = [0u8; 16];
    refused(
        &with_header(
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#,
            &data[..12],
        ),
        "invalid offset",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
            &data[..4],
        ),
        "incomplete metadata",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
            &data[..12],
        ),
        "incomplete metadata",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}}"#,
            &data[..8],
        ),
        "unknown variant `F33`",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}"#,
            &data[..4],
        ),
        "dtype F16, which borch does not have",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
            &data[..8],
        ),
        "invalid shape, data type, or offset",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}"#,
            &data[..8],
        ),
        "overflow",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
            &data[..4],
        ),
        "duplicate key 'a'",
    );
    let mut bad_utf8 = with_header(
        r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
        &data[..4],
    );
    bad_utf8[10] = 0xff;
    refused(&bad_utf8, "invalid UTF-8");
    refused(
        &with_header(
            r#"{"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}"#,
            &(1i64 << 40).to_le_bytes(),
        ),
        "outside the int32 range",
    );
    refused(
        &with_header(
            r#"{"a":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}}"#,
            &[2],
        ),
        "holds the byte 2",
    );
    refused(
        &with_header(r#"{"__metadata__":{"k":1}}"#, &[]),
        "invalid JSON",
    );
    refused(&with_header(&"[".repeat(1000), &[]), "invalid JSON");
}

/// xorshift64*: a fixed stream of mutations, so a failure is reproducible from its index.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "0",
    "1",
    "8",
    "-1",
    "4294967296",
    "18446744073709551615",
    "1e400",
    "null",
    "\"F16\"",
    "\"BOOL\"",
    "\"I64\"",
    "\"U8\"",
    "\"X\"",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"w\"",
    "\"dtype\"",
    "\"shape\"",
    "\"data_offsets\"",
    "\"__metadata__\"",
    "[0,0]",
    "[]",
    "\u{ff}",
];

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
        match rng.below(8) {
            0 => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(b.len());
                b[i] = rng.next() as u8;
            }
            2 => b.truncate(rng.below(b.len() + 1)),
            3 => {
                let len = [
                    0,
                    1,
                    b.len() as u64,
                    u64::MAX,
                    100_000_001,
                    rng.next() % 4096,
                ][rng.below(6)];
                if b.len() >= 8 {
                    b[..8].copy_from_slice(&len.to_le_bytes());
                }
            }
            4 | 5 => {
                // Splice a JSON token into the header, then fix the length so it is parsed.
                let n = b
                    .get(..8)
                    .map_or(0, |h| u64::from_le_bytes(h.try_into().unwrap()))
                    as usize;
                if n.checked_add(8).is_some_and(|end| end <= b.len()) && n > 2 {
                    let at = 8 + 1 + rng.below(n - 2);
                    let cut = rng.below(4).min(8 + n - at);
                    let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                    b.splice(at..at + cut, token.iter().copied());
                    let n = n - cut + token.len();
                    b[..8].copy_from_slice(&(n as u64).to_le_bytes());
                }
            }
            6 => {
                let extra = rng.below(16);
                b.extend((0..extra).map(|_| rng.next() as u8));
            }
            _ => {
                let i = rng.below(b.len());
                let j = rng.below(b.len());
                b.swap(i, j);
            }
        }
        if b.is_empty() {
            break;
        }
    }
    b
}

#[test]
fn hundred_thousand_mutated_files_never_panic() {
    let seeds = [
        valid(),
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/checkpoints/fixtures/mlp.safetensors"
        ))
        .unwrap(),
    ];
    let mut rng = Rng(0x5eed_cafe);
    let (mut accepted, mut panics) = (0, Vec::new());
    let start = std::time::Instant::now();
    for i in 0..100_000 {
        let bytes = mutate(&seeds[i % seeds.len()], &mut rng);
        match catch_unwind(AssertUnwindSafe(|| decode(&bytes))) {
            Ok(Ok(_)) => accepted += 1,
            Ok(Err(_)) => {}
            Err(_) => panics.push(i),
        }
    }
    eprintln!(
        "100000 mutated files in {:.2} s: {accepted} accepted, {} panics",
        start.elapsed().as_secs_f64(),
        panics.len()
    );
    assert!(panics.is_empty(), "decode panicked on mutations {panics:?}");
    // The mutations must mostly produce files the decoder refuses, or the loop tests little.
    assert!(
        accepted < 50_000,
        "{accepted} of 100000 mutations were still valid files"
    );
}
