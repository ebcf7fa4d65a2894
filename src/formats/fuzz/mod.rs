//! Property (fuzz) tests of every format's readers: real records (`tests/fixtures/fuzz`, the
//! format fixtures, Mu-SHROOM in place) written as JSONL or as one JSON array, one record
//! mutated (cut, a byte flipped, hostile bytes inserted, a value swapped for a hostile one, a
//! key repeated, non-ASCII put into the answer), the file's shape varied (BOM, CRLF, blank
//! lines, no final newline); then the readers must agree with themselves and each other
//! (`props`).

mod join;
mod positions;
mod props;
mod regressions;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;

use super::Format;

/// Real records of one format, one JSON text each, and where its answer text is.
#[derive(Debug, Clone)]
pub(super) struct Case {
    pub format: Format,
    pub records: Vec<String>,
    /// JSON pointer of the answer text in a record (`None` when the format has none).
    pub answer: Option<&'static str>,
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The records of a fixture: a JSONL file's lines, or a JSON array's elements (compact).
fn records(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("fixture");
    if text.trim_start().starts_with('[') {
        let all: Vec<Value> = serde_json::from_str(&text).expect("fixture array");
        return all.iter().map(Value::to_string).collect();
    }
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// The test records of `format`; `None` when they are not at hand (Mu-SHROOM, read from
/// `../shared/data` in place: it declares no licence, so it is not copied).
pub(super) fn case(format: Format) -> Option<Case> {
    let (rel, answer) = match format {
        Format::Ragtruth => ("tests/fixtures/fuzz/ragtruth.jsonl", Some("/output")),
        Format::Predictions => ("tests/fixtures/fuzz/predictions.jsonl", Some("/output")),
        Format::Prodigy => ("tests/fixtures/fuzz/prodigy.jsonl", Some("/text")),
        Format::Lettuce => ("tests/fixtures/fuzz/lettuce.jsonl", Some("/answer")),
        Format::Decisions => ("tests/fixtures/formats/decisions.jsonl", None),
        Format::LabelStudio => (
            "tests/fixtures/formats/labelstudio/export_sample.json",
            Some("/data/output"),
        ),
        Format::LabelStudioMin => (
            "tests/fixtures/formats/labelstudio/json_min_sample.json",
            Some("/output"),
        ),
        Format::Mushroom => {
            let p = fixture(
                "../shared/data/multilingual/mushroom/val_v2/mushroom.hi-val.v2.extra.jsonl",
            );
            let Ok(text) = std::fs::read_to_string(&p) else {
                eprintln!("skipped: Mu-SHROOM not found at {}", p.display());
                return None;
            };
            // Four of the shorter Hindi records (combining vowel signs in the answers).
            let lines: Vec<&str> = text.lines().collect();
            let records = [1, 2, 8, 9]
                .iter()
                .filter_map(|&i| lines.get(i).map(|l| (*l).to_owned()))
                .collect();
            return Some(Case {
                format,
                records,
                answer: Some("/model_output_text"),
            });
        }
    };
    Some(Case {
        format,
        records: records(&fixture(rel)),
        answer,
    })
}

/// Bytes put into a record: invalid UTF-8, NUL, a BOM, a CR, JSON structure, escapes of a lone
/// surrogate, non-ASCII, a combining mark, a ZWJ emoji, a huge number.
const INSERTS: &[&[u8]] = &[
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\0",
    b"\xef\xbb\xbf",
    b"\r",
    b"\"",
    b"{",
    b"]",
    b",",
    b"\\",
    b"\\ud800",
    b"\\udc00\\ud800",
    "°’東👋".as_bytes(),
    "e\u{301}".as_bytes(),
    "👩\u{200d}💻".as_bytes(),
    b"99999999999999999999999",
];

/// JSON texts put in place of a value: zero, small and large offsets (reversed, empty and
/// past-the-end spans), negative, float, string and huge offsets, wrong types, lone
/// surrogates, non-ASCII strings.
const VALUES: &[&str] = &[
    "0",
    "2",
    "100000",
    "-7",
    "-0",
    "1.5",
    "3.0",
    "1e3",
    "1e400",
    "18446744073709551616",
    "4294967296",
    "9007199254740993",
    "\"12\"",
    "\"\\ud800\"",
    "\"\\udc00x\"",
    "\"°’東👋e\u{301}\"",
    "\"\"",
    "null",
    "true",
    "[]",
    "[1, 2]",
    "{}",
    "{\"start\": 1}",
    "[[0, 1], [\"x\", 2]]",
];

/// Text put into the answer (its spans not moved): what code-point offsets must count as one.
const ANSWER_TEXT: &[&str] = &[
    "°",
    "’",
    "東京",
    "👋",
    "e\u{301}",
    "👩\u{200d}💻",
    "\u{1F1EB}\u{1F1F7}",
];

/// One change to one record.
#[derive(Debug, Clone)]
pub(super) enum Mutation {
    /// Cut the record at a byte.
    Truncate(Index),
    /// XOR a byte with a non-zero value (never making a line break).
    Flip(Index, u8),
    /// Insert hostile bytes at a byte.
    Insert(Index, &'static [u8]),
    /// Replace a value (one of the integers when `ints`, else any) with a hostile JSON text.
    Value {
        node: Index,
        ints: bool,
        raw: &'static str,
    },
    /// Put a second copy of a top-level key, with a hostile value, before the first or after the
    /// last member.
    DupKey {
        key: Index,
        raw: &'static str,
        first: bool,
    },
    /// Insert text into the answer at a code point, its spans left where they were.
    Answer { at: Index, text: &'static str },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), 1u8..=255).prop_map(|(i, x)| Mutation::Flip(i, x)),
        (any::<Index>(), proptest::sample::select(INSERTS))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        (
            any::<Index>(),
            any::<bool>(),
            proptest::sample::select(VALUES)
        )
            .prop_map(|(node, ints, raw)| Mutation::Value { node, ints, raw }),
        (
            any::<Index>(),
            proptest::sample::select(VALUES),
            any::<bool>()
        )
            .prop_map(|(key, raw, first)| Mutation::DupKey { key, raw, first }),
        (any::<Index>(), proptest::sample::select(ANSWER_TEXT))
            .prop_map(|(at, text)| Mutation::Answer { at, text }),
    ]
}

/// Every value of `v` by JSON pointer, in document order (integers only when `ints`).
fn pointers(v: &Value, at: &str, ints: bool, out: &mut Vec<String>) {
    if !ints || v.is_i64() || v.is_u64() {
        out.push(at.to_owned());
    }
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, &format!("{at}/{i}"), ints, out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let k = k.replace('~', "~0").replace('/', "~1");
                pointers(x, &format!("{at}/{k}"), ints, out);
            }
        }
        _ => {}
    }
}

/// A marker no record holds, replaced by raw JSON text after serialising.
const MARK: &str = "\u{E000}fuzz\u{E000}";

impl Mutation {
    /// Whether the record stays one well-formed JSON text of balanced brackets (what an array
    /// file needs for the records after it to stay readable).
    pub fn keeps_structure(&self) -> bool {
        matches!(
            self,
            Self::Value { .. } | Self::DupKey { .. } | Self::Answer { .. }
        )
    }

    /// The number, string or literal put in place of a number (an offset, mostly), whose
    /// problems quote it (a list or object put in is quoted by its items' problems; other
    /// changes make problems about what follows from them: spans past a shortened answer, a
    /// missing id).
    pub fn number_replaced(&self) -> Option<&'static str> {
        match self {
            Self::Value {
                raw, ints: true, ..
            } if !raw.starts_with(['[', '{']) => Some(raw),
            _ => None,
        }
    }

    /// `record` changed.
    pub fn apply(&self, record: &str, answer: Option<&str>) -> Vec<u8> {
        let mut b = record.as_bytes().to_vec();
        match self {
            // At least a byte: an empty record is a blank line, which is no record.
            Self::Truncate(i) => b.truncate(i.index(b.len()).max(1)),
            Self::Flip(i, x) => {
                let i = i.index(b.len());
                b[i] ^= x;
                if b[i] == b'\n' {
                    b[i] = b'\t';
                }
            }
            Self::Insert(i, bytes) => {
                let i = i.index(b.len() + 1);
                b.splice(i..i, bytes.iter().copied());
            }
            Self::Value { node, ints, raw } => {
                let mut v: Value = serde_json::from_str(record).expect("a record");
                let mut all = Vec::new();
                pointers(&v, "", *ints, &mut all);
                if all.is_empty() {
                    pointers(&v, "", false, &mut all);
                }
                let at = &all[node.index(all.len())];
                if let Some(x) = v.pointer_mut(at) {
                    *x = Value::from(MARK);
                }
                return v
                    .to_string()
                    .replace(&format!("\"{MARK}\""), raw)
                    .into_bytes();
            }
            Self::DupKey { key, raw, first } => {
                let v: Value = serde_json::from_str(record).expect("a record");
                let keys: Vec<&String> = v
                    .as_object()
                    .map(|o| o.keys().collect())
                    .unwrap_or_default();
                let Some(k) = keys.get(key.index(keys.len().max(1))) else {
                    return b;
                };
                let member = format!("{}: {raw}", Value::from(k.as_str()));
                let s = record.trim_end();
                return if *first {
                    format!("{{{member}, {}", &s[1..])
                } else {
                    format!("{}, {member}}}", &s[..s.len() - 1])
                }
                .into_bytes();
            }
            Self::Answer { at, text } => {
                let mut v: Value = serde_json::from_str(record).expect("a record");
                if let Some(Value::String(s)) = answer.and_then(|p| v.pointer_mut(p)) {
                    let n = s.chars().count();
                    let byte = s
                        .char_indices()
                        .nth(at.index(n + 1))
                        .map_or(s.len(), |(i, _)| i);
                    s.insert_str(byte, text);
                }
                return v.to_string().into_bytes();
            }
        }
        b
    }
}

/// How the file around the records is laid out.
#[derive(Debug, Clone)]
pub(super) struct Shape {
    /// One JSON array rather than JSONL.
    pub array: bool,
    pub bom: bool,
    pub crlf: bool,
    /// A blank line before each record (the first few).
    pub blanks: Vec<bool>,
    pub final_newline: bool,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(any::<bool>(), 4),
        any::<bool>(),
    )
        .prop_map(|(array, bom, crlf, blanks, final_newline)| Shape {
            array,
            bom,
            crlf,
            blanks,
            final_newline,
        })
}

/// A file built from records: its bytes and the 1-based line each record starts on.
pub(super) struct Built {
    pub bytes: Vec<u8>,
    pub lines: Vec<u32>,
}

impl Shape {
    /// The file of `records` (already mutated where they are).
    pub fn build(&self, records: &[Vec<u8>]) -> Built {
        let eol: &[u8] = if self.crlf { b"\r\n" } else { b"\n" };
        let mut bytes = Vec::new();
        if self.bom {
            bytes.extend_from_slice(b"\xef\xbb\xbf");
        }
        let mut line = 1;
        if self.array {
            bytes.push(b'[');
            bytes.extend_from_slice(eol);
            line += 1;
        }
        let mut lines = Vec::new();
        for (k, r) in records.iter().enumerate() {
            if self.blanks.get(k).copied().unwrap_or(false) {
                bytes.extend_from_slice(eol);
                line += 1;
            }
            lines.push(line);
            bytes.extend_from_slice(r);
            if self.array && k + 1 < records.len() {
                bytes.push(b',');
            }
            if k + 1 < records.len() || self.array || self.final_newline {
                bytes.extend_from_slice(eol);
            }
            line += 1;
        }
        if self.array {
            bytes.push(b']');
            if self.final_newline {
                bytes.extend_from_slice(eol);
            }
        }
        Built { bytes, lines }
    }
}

/// Run the properties of `props` on `format`'s records: one record mutated, the file shaped.
fn run(format: Format, which: Index, m: &Mutation, shape: &Shape) {
    let Some(case) = case(format) else {
        return;
    };
    props::check(&case, which.index(case.records.len()), m, shape);
}

/// Cases per format: each reads the file several ways (some 5 ms in a debug build).
/// `PROPTEST_CASES` sets another number (a longer campaign).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32)
}

macro_rules! fuzz_formats {
    ($($name:ident => $format:ident,)*) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]
            $(
                #[test]
                fn $name(which in any::<Index>(), m in mutation(), shape in shape()) {
                    run(Format::$format, which, &m, &shape);
                }
            )*
        }
    };
}

fuzz_formats! {
    ragtruth_survives_any_mutation => Ragtruth,
    predictions_survive_any_mutation => Predictions,
    decisions_survive_any_mutation => Decisions,
    mushroom_survives_any_mutation => Mushroom,
    lettuce_survives_any_mutation => Lettuce,
    labelstudio_survives_any_mutation => LabelStudio,
    labelstudio_min_survives_any_mutation => LabelStudioMin,
    prodigy_survives_any_mutation => Prodigy,
}

/// Every registered format has test records here (a new format must add its own).
#[test]
fn every_format_is_fuzzed() {
    for &f in Format::ALL {
        if let Some(c) = case(f) {
            assert!(
                c.records.len() >= 3,
                "{}: {} records",
                f.name(),
                c.records.len()
            );
            for r in &c.records {
                let v: Value = serde_json::from_str(r).expect("a record");
                assert_eq!(Format::detect(&v), Some(f), "{}", f.name());
            }
        }
    }
}
