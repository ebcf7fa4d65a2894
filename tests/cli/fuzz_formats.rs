//! The binary on mutated real records of every format (the library's campaign is
//! `src/formats/fuzz`; this one is smaller, a process a run): `validate`, `validate --json`,
//! `export` with an empty database and `convert` never panic, name the file and the line of
//! every problem, and keep the other records.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;
use spanreview::formats::DataFile;
use spanreview::store::Store;

use crate::common::{bin, fixture, shared};

/// A format's fixture (JSONL or one JSON array), as its records.
fn records(format: &str) -> Option<Vec<String>> {
    let path = match format {
        "ragtruth" => fixture("fuzz/ragtruth.jsonl"),
        "predictions" => fixture("fuzz/predictions.jsonl"),
        "prodigy" => fixture("fuzz/prodigy.jsonl"),
        "lettuce" => fixture("fuzz/lettuce.jsonl"),
        "decisions" => fixture("formats/decisions.jsonl"),
        "label-studio" => fixture("formats/labelstudio/export_sample.json"),
        "label-studio-min" => fixture("formats/labelstudio/json_min_sample.json"),
        _ => shared("multilingual/mushroom/val_v2/mushroom.sv-val.v2.extra.jsonl")?,
    };
    let text = std::fs::read_to_string(path).expect("fixture");
    if text.starts_with('[') {
        let all: Vec<Value> = serde_json::from_str(&text).expect("array");
        return Some(all.iter().map(Value::to_string).collect());
    }
    Some(text.lines().take(4).map(str::to_owned).collect())
}

const FORMATS: &[&str] = &[
    "ragtruth",
    "predictions",
    "prodigy",
    "lettuce",
    "decisions",
    "label-studio",
    "label-studio-min",
    "mushroom",
];

/// Hostile bytes and values: invalid UTF-8, NUL, BOM, a lone surrogate escape, JSON
/// structure, non-ASCII with a combining mark and a ZWJ emoji, numbers beyond f64.
const INSERTS: &[&[u8]] = &[
    b"\xff",
    b"\0",
    b"\xef\xbb\xbf",
    b"\\ud800",
    b"\"",
    b"}",
    "°’東👋e\u{301}👩\u{200d}💻".as_bytes(),
];
const VALUES: &[&str] = &["-7", "1.5", "\"3\"", "1e400", "100000", "null", "[]", "{}"];

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(Index),
    Insert(Index, &'static [u8]),
    /// Replace the `Index`th value of the record (document order) with a JSON text.
    Value(Index, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), proptest::sample::select(INSERTS))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<Index>(), proptest::sample::select(VALUES)).prop_map(|(i, v)| Mutation::Value(i, v)),
    ]
}

fn values(v: &Value, at: &str, out: &mut Vec<String>) {
    out.push(at.to_owned());
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                values(x, &format!("{at}/{i}"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let k = k.replace('~', "~0").replace('/', "~1");
                values(x, &format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

fn apply(m: &Mutation, record: &str) -> Vec<u8> {
    let mut b = record.as_bytes().to_vec();
    match m {
        Mutation::Truncate(i) => b.truncate(i.index(b.len())),
        Mutation::Insert(i, bytes) => {
            let i = i.index(b.len() + 1);
            b.splice(i..i, bytes.iter().copied());
        }
        Mutation::Value(i, raw) => {
            let mut v: Value = serde_json::from_str(record).expect("record");
            let mut all = Vec::new();
            values(&v, "", &mut all);
            let at = all[i.index(all.len())].clone();
            let mark = "\u{E000}mark";
            if let Some(x) = v.pointer_mut(&at) {
                *x = Value::from(mark);
            }
            return v
                .to_string()
                .replace(&format!("\"{mark}\""), raw)
                .into_bytes();
        }
    }
    b
}

/// The file: JSONL, or one JSON array with a record a line; the lines records start on.
fn build(records: &[Vec<u8>], array: bool) -> (Vec<u8>, Vec<u32>) {
    let mut bytes = Vec::new();
    let mut lines = Vec::new();
    let first = u32::from(array) + 1;
    if array {
        bytes.extend_from_slice(b"[\n");
    }
    for (k, r) in records.iter().enumerate() {
        lines.push(first + u32::try_from(k).expect("few"));
        bytes.extend_from_slice(r);
        if array && k + 1 < records.len() {
            bytes.push(b',');
        }
        bytes.push(b'\n');
    }
    if array {
        bytes.extend_from_slice(b"]\n");
    }
    (bytes, lines)
}

/// The run ended without a panic (Rust's exit code 101, or its message).
fn no_panic(what: &str, out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(out.status.code(), Some(101), "{what} panicked: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(out.status.code().is_some(), "{what} was killed: {err}");
    err
}

/// Every `PATH:LINE: ` a text gives names a line a record starts on.
fn lines_named(what: &str, text: &str, path: &Path, lines: &[u32]) {
    let prefix = format!("{}:", path.display());
    for l in text.lines() {
        let Some(rest) = l.strip_prefix(&prefix) else {
            continue;
        };
        // `LINE: ` or, in an array, `LINE (element N): `.
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let n: Option<u32> = digits.parse().ok();
        assert!(
            n.is_some_and(|n| lines.contains(&n)),
            "{what}: names no record's line: {l}"
        );
    }
}

fn run(format: &str, which: Index, m: &Mutation, array: bool) {
    let Some(clean) = records(format) else {
        return;
    };
    let at = which.index(clean.len());
    let mut recs: Vec<Vec<u8>> = clean.iter().map(|r| r.as_bytes().to_vec()).collect();
    recs[at] = apply(m, &clean[at]);
    let (bytes, mut lines) = build(&recs, array);
    if array {
        // A record broken in its brackets breaks the array there: the problem may name any
        // line of the file (where the array ends, where text after it starts).
        let last = lines.last().copied().unwrap_or(0) + 1;
        lines = (1..=last).collect();
    }
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join(if array { "in.json" } else { "in.jsonl" });
    std::fs::write(&path, bytes).expect("write");

    let out = bin().arg("validate").arg(&path).output().expect("run");
    let err = no_panic("validate", &out);
    lines_named(
        "validate",
        &String::from_utf8_lossy(&out.stdout),
        &path,
        &lines,
    );
    lines_named("validate", &err, &path, &lines);

    let out = bin()
        .args(["validate", "--json"])
        .arg(&path)
        .output()
        .expect("run");
    no_panic("validate --json", &out);
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        if let Some(line) = v.get("line") {
            let n = line.as_u64().and_then(|n| u32::try_from(n).ok());
            assert!(
                n.is_some_and(|n| lines.contains(&n)),
                "names no record's line: {l}"
            );
            assert!(v["message"].is_string() && v["kind"].is_string(), "{l}");
        }
    }

    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let exported = dir.path().join("out.jsonl");
    let out = bin()
        .arg("export")
        .arg(&path)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&exported)
        .output()
        .expect("run");
    let err = no_panic("export", &out);
    lines_named("export", &err, &path, &lines);
    // With no decision nothing is lost: every record is written, a line that cannot be read
    // passed through as it is.
    if let (Some(0 | 1), Ok(input)) = (out.status.code(), DataFile::open(&path, None, None)) {
        let written = DataFile::open(&exported, None, None).map(|f| f.len());
        assert_eq!(written.ok(), Some(input.len()), "export: {err}");
    }

    // Spans put back onto the records they came from (Prodigy's are these records).
    if ["prodigy", "label-studio", "label-studio-min"].contains(&format) {
        let back = dir.path().join("back.jsonl");
        let out = bin()
            .arg("convert")
            .arg(&path)
            .args(["--to", "ragtruth", "--records"])
            .arg(fixture("fuzz/ragtruth.jsonl"))
            .arg("--out")
            .arg(&back)
            .output()
            .expect("run");
        let err = no_panic("convert --records", &out);
        lines_named("convert --records", &err, &path, &lines);
    }
    for to in ["prodigy", "label-studio"] {
        let converted: PathBuf = dir.path().join(format!("to-{to}.json"));
        let out = bin()
            .arg("convert")
            .arg(&path)
            .args(["--to", to, "--out"])
            .arg(&converted)
            .output()
            .expect("run");
        let err = no_panic("convert", &out);
        lines_named("convert", &err, &path, &lines);
    }
}

/// A case runs the binary five or six times (some 0.25 s in a debug build): few cases, unless
/// `PROPTEST_CASES` asks for more.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn the_binary_survives_a_mutated_record_of_any_format(
        format in proptest::sample::select(FORMATS),
        which in any::<Index>(),
        m in mutation(),
        array in any::<bool>(),
    ) {
        run(format, which, &m, array);
    }
}
