//! The properties every reader keeps on a file with one mutated record: no panic; every
//! problem names the file and the line the record starts on; the other records read exactly as
//! in the clean file; reading is deterministic; `validate` (the skimming checker), the full
//! reader, the id reader and the span reader agree on which records are bad and on ids; and
//! span texts are compared with the answer in code points.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Case, Mutation, Shape};
use crate::formats::index::{FileIndex, Lazy};
use crate::formats::judges::SpanReader;
use crate::formats::validate::{validate, Input, Kind, Options, Report};
use crate::formats::{DataFile, Dataset, Format};
use crate::model::{offsets, Record};

/// What a record is, for comparisons: id, answer, type and every source's spans.
type Seen = Result<String, String>;

/// Each record's line and what the reader made of it.
type Read = Vec<(u32, Result<Record, String>)>;

fn seen(rec: &Record) -> String {
    format!(
        "{:?} {:?} {:?} {:?}",
        rec.id, rec.output, rec.corruption_type, rec.sources
    )
}

/// Every record of the file at `path` read by the full reader: `(line, record or error)`, and
/// the file's format.
fn read(path: &Path) -> Result<(Format, Read), String> {
    let file = DataFile::open(path, None, None).map_err(|e| e.to_string())?;
    let all = (0..file.len())
        .map(|i| {
            let rec = file.record(i).map_err(|e| e.to_string());
            if let Ok(r) = &rec {
                // The id reader (the fast path every queue and join uses) reads the same id.
                assert_eq!(
                    file.id(i).map_err(|e| e.to_string()),
                    Ok(r.id.clone()),
                    "id of line {}",
                    file.line(i)
                );
            }
            (file.line(i), rec)
        })
        .collect();
    Ok((file.format, all))
}

fn validated(path: &Path) -> Result<Report, String> {
    let input = Input::open(path, None).map_err(|e| e.to_string())?;
    Ok(validate(&[input], &Options::default()).expect("validate"))
}

/// Problems by line, without the ones about other lines (a repeated id, split leakage).
fn by_line(report: &Report) -> BTreeMap<u32, Vec<(Kind, String)>> {
    let mut m: BTreeMap<u32, Vec<(Kind, String)>> = BTreeMap::new();
    for p in &report.problems {
        if !matches!(p.kind, Kind::DuplicateId | Kind::SplitLeakage) {
            m.entry(p.line)
                .or_default()
                .push((p.kind, p.message.clone()));
        }
    }
    m
}

/// Check every property on `case` with record `at` changed by `m`, the file laid out by `shape`.
pub(super) fn check(case: &Case, at: usize, m: &Mutation, shape: &Shape) {
    let dir = tempfile::tempdir().expect("dir");
    let name = if shape.array { "x.json" } else { "x.jsonl" };
    let clean: Vec<Vec<u8>> = case.records.iter().map(|r| r.as_bytes().to_vec()).collect();
    let mut records = clean.clone();
    records[at] = m.apply(&case.records[at], case.answer);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).expect("dir");
    std::fs::create_dir_all(&b).expect("dir");
    let (clean_path, path) = (a.join(name), b.join(name));
    let built = shape.build(&records);
    std::fs::write(&clean_path, shape.build(&clean).bytes).expect("write");
    std::fs::write(&path, &built.bytes).expect("write");
    let shown = path.display().to_string();
    let bad_line = built.lines[at];
    // The records whose reading the mutation may not change: all others in JSONL; in an array
    // those before it, or all others when it keeps the record well formed.
    let untouched = |k: usize| k != at && (!shape.array || k < at || m.keeps_structure());

    let (format, base) = read(&clean_path).expect("the clean file reads");
    assert_eq!(format, case.format, "the clean file's format");
    assert!(base.iter().all(|(_, r)| r.is_ok()), "clean: {base:?}");
    let opened = read(&path);
    assert_eq!(
        format!("{opened:?}"),
        format!("{:?}", read(&path)),
        "reading is deterministic"
    );
    let (format, got) = match opened {
        Ok(o) => o,
        Err(e) => {
            // Only an array broken in its structure may be refused whole, and it says where.
            assert!(shape.array && !m.keeps_structure(), "refused: {e}");
            assert!(
                e.starts_with(&format!("{shown}: ")) && e.contains("(line "),
                "{e}"
            );
            assert_eq!(
                Err(e),
                validated(&path).map(|_| ()),
                "validate refuses it alike"
            );
            return;
        }
    };
    assert_eq!(
        format, case.format,
        "the format is told by the other records"
    );
    let lines: Vec<u32> = got.iter().map(|(l, _)| *l).collect();
    if !shape.array || m.keeps_structure() {
        assert_eq!(lines, built.lines, "one record per record line");
    }
    for (line, r) in &got {
        assert!(built.lines.contains(line), "line {line} is no record's");
        if let Err(e) = r {
            let want = format!("{shown}:{line}: ");
            assert!(e.starts_with(&want), "names file and line: {e}");
        }
    }
    for (k, &line) in built.lines.iter().enumerate() {
        if !untouched(k) {
            continue;
        }
        let here = got.iter().find(|(l, _)| *l == line);
        let want = base[k].1.as_ref().map(seen).map_err(Clone::clone);
        let have: Option<Seen> = here.map(|(_, r)| r.as_ref().map(seen).map_err(Clone::clone));
        assert_eq!(have, Some(want), "record {k} (line {line}) reads as before");
    }

    lazy_index_agrees(&path);
    let report = validated(&path).expect("validate opens what the reader opens");
    assert_eq!(
        format!("{:?}", validated(&path).map(|r| r.problems)),
        format!("{:?}", Ok::<_, String>(&report.problems)),
        "validate is deterministic"
    );
    assert_eq!(
        report.records(),
        got.len(),
        "validate counts the records the reader indexes: {:?}",
        report.problems
    );
    let problems = by_line(&report);
    let clean_problems = by_line(&validated(&clean_path).expect("clean"));
    for p in &report.problems {
        let ok = built.lines.contains(&p.line) || matches!(p.kind, Kind::Truncated | Kind::Empty);
        assert!(ok, "a problem on no record's line: {p:?}");
    }
    for (k, &line) in built.lines.iter().enumerate() {
        if untouched(k) {
            assert_eq!(
                problems.get(&line),
                clean_problems.get(&line),
                "record {k} (line {line}): the same problems as before"
            );
        }
    }
    let told = problems.get(&bad_line).cloned().unwrap_or_default();
    if let Some(raw) = m.number_replaced() {
        let before = clean_problems.get(&bad_line).cloned().unwrap_or_default();
        let new: Vec<&String> = told
            .iter()
            .filter(|p| !before.contains(p) && quotes_its_value(p.0))
            .map(|(_, msg)| msg)
            .collect();
        assert!(
            new.is_empty() || new.iter().any(|msg| names(msg, raw)),
            "no new problem quotes {raw}: {new:?}"
        );
    }
    let mine = got.iter().find(|(l, _)| *l == bad_line).map(|(_, r)| r);
    match mine {
        Some(Err(e)) => {
            assert!(!told.is_empty(), "validate tells the reader's error: {e}");
            if let Some(raw) = m.number_replaced() {
                let plain = ["invalid JSON", "missing field", "no id"]
                    .iter()
                    .any(|p| e.contains(p));
                assert!(
                    plain || names(e, raw),
                    "the reader's error quotes {raw}: {e}"
                );
            }
        }
        Some(Ok(rec)) => {
            // A key given twice: the reader takes the last value (as serde_json and Python
            // do), validate names the repeated field.
            let fatal = told.iter().find(|(k, msg)| {
                matches!(k, Kind::InvalidJson | Kind::NotObject) && !msg.contains("duplicate field")
            });
            assert!(
                fatal.is_none(),
                "the reader read what validate refused: {fatal:?}"
            );
            if !rec.warnings.is_empty() {
                assert!(
                    !told.is_empty(),
                    "validate tells the warnings {:?}",
                    rec.warnings
                );
            }
            if format.has_output() {
                code_points(rec, &told);
            }
        }
        None => {}
    }
    if format.spec().skimmable {
        skim_agrees(&path, &got);
    }
}

/// The problems that quote a value of the record (the others are about what is missing,
/// follow from other values (a type, a label count, an id), or say where the JSON breaks).
fn quotes_its_value(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::InvalidJson
            | Kind::MissingField
            | Kind::Unlabeled
            | Kind::CleanWithLabels
            | Kind::UnknownType
            | Kind::LabelTypeMismatch
            | Kind::IdBaseMismatch
            | Kind::DuplicateId
            | Kind::Empty
    )
}

/// True when `msg` quotes the JSON text `raw`: as written, or as the readers quote a value.
fn names(msg: &str, raw: &str) -> bool {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(raw) else {
        return msg.contains(raw);
    };
    msg.contains(raw) || msg.contains(&crate::formats::quote(&v))
}

/// A span whose own text is not the answer's code points `[start, end)` is a text mismatch
/// `validate` names (with the offsets in code points), and a record whose spans all match has
/// none.
fn code_points(rec: &Record, told: &[(Kind, String)]) {
    let (mut bad, mut unknown) = (Vec::new(), false);
    for s in rec.sources.iter().flat_map(|s| &s.spans) {
        // The span's own text (Label Studio's is in its region's `value`).
        let own = s
            .raw
            .get("text")
            .or_else(|| s.raw.get("value")?.get("text"));
        let Some(text) = own.and_then(|t| t.as_str()) else {
            // Not kept on the span (Label Studio checks it as it reads).
            unknown = true;
            continue;
        };
        match offsets::slice(&rec.output, s.start, s.end) {
            Some(slice) if slice != text => bad.push(format!("[{}:{}]", s.start, s.end)),
            Some(_) => {}
            // Past the end, or no answer to compare with (judge decisions).
            None => unknown = true,
        }
    }
    let mismatches: Vec<&String> = told
        .iter()
        .filter(|(k, _)| *k == Kind::TextMismatch)
        .map(|(_, m)| m)
        .collect();
    for b in &bad {
        assert!(
            mismatches.iter().any(|m| m.contains(b.as_str())),
            "span {b} of {:?} does not match in code points: {told:?}",
            rec.id
        );
    }
    if bad.is_empty() && !unknown {
        assert!(mismatches.is_empty(), "no span mismatches: {mismatches:?}");
    }
}

/// The review screen's lazy index (a head at once, the rest in small batches on a thread)
/// finds the records the full index finds.
fn lazy_index_agrees(path: &Path) {
    let full = FileIndex::open(path).expect("index");
    let lazy = Lazy {
        min_size: 0,
        head: 64,
        batch: 256,
        gate: None,
    };
    let mut ix = FileIndex::open_lazy(path, None, lazy, Box::new(|_| {})).expect("lazy");
    ix.finish().expect("finish");
    assert_eq!(ix.entries(), full.entries(), "the lazy index's records");
    assert_eq!(ix.problems, full.problems, "the lazy index's problems");
}

/// The span reader (clustering's fast path) reads every record the full reader reads, alike,
/// and refuses the ones it refuses.
fn skim_agrees(path: &Path, got: &Read) {
    let Ok(ds) = Dataset::open(&[path.to_path_buf()], None) else {
        return;
    };
    let reader = SpanReader::new(&ds);
    for (i, (line, full)) in got.iter().enumerate() {
        let skim = reader.record(i);
        match (full, &skim) {
            (Ok(f), Ok(s)) => assert_eq!(
                (&f.id, &f.output, &f.sources),
                (&s.id, &s.output, &s.sources),
                "line {line}: the span reader reads the record alike"
            ),
            (Err(_), Err(_)) => {}
            _ => panic!("line {line}: the full reader says {full:?}, the span reader {skim:?}"),
        }
    }
}
