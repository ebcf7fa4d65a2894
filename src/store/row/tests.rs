//! The decision row across schema versions: migration 0004 reads the old text prefixes into
//! columns once, and every reader then gives the answers it gave before.

use std::collections::BTreeMap;

use rusqlite::{params, Connection};

use super::super::{Store, MIGRATIONS, SCHEMA_VERSION};
use crate::model::{Record, Source, SourceRole, Span, GOLD};
use crate::review::decision::{replay, ActionKind, Decision, SpanValue, Unit};
use crate::review::outcome::votes;

const OUTPUT: &str = "Il fait 25°C à 東京 👋 aujourd’hui, dit 北京.";

fn record() -> Record {
    Record {
        id: "r°1".into(),
        query: String::new(),
        context: String::new(),
        output: OUTPUT.into(),
        corruption_type: Some("clean".into()),
        sources: vec![Source::new(
            GOLD,
            SourceRole::Gold,
            vec![
                Span::new(OUTPUT, 8, 12, "contradiction"),
                Span::new(OUTPUT, 15, 17, "contradiction"),
            ],
        )],
        raw: serde_json::Value::Null,
        warnings: Vec::new(),
    }
}

/// One row as the old screen wrote it: meaning in `reason` and `note` only.
struct Old {
    action: &'static str,
    span_key: Option<&'static str>,
    after: Option<(usize, usize)>,
    reason: Option<&'static str>,
    note: Option<&'static str>,
    target: Option<i64>,
    upheld: &'static str,
    dismissed: &'static str,
}

const fn old(action: &'static str) -> Old {
    Old {
        action,
        span_key: None,
        after: None,
        reason: None,
        note: None,
        target: None,
        upheld: "[]",
        dismissed: "[]",
    }
}

/// One of the two rows of the first resolution of cluster 8-17: `two` upheld over `one`.
const fn took_two(span_key: &'static str, after: (usize, usize)) -> Old {
    Old {
        span_key: Some(span_key),
        after: Some(after),
        reason: Some("cluster 8-17: take two"),
        note: Some("resolution t1"),
        upheld: r#"["two"]"#,
        dismissed: r#"["one"]"#,
        ..old("resolve")
    }
}

/// The old log: a cluster resolved into two rows, then re-resolved; a claim dismissed; a flag
/// put on and taken off; a drop whose reason merely looks like a tag; an undo of the second
/// resolution's row; an automatic accept-all and a reviewer's.
fn old_log() -> Vec<Old> {
    vec![
        took_two("gold:0", (8, 12)),
        took_two("gold:1", (15, 17)),
        Old {
            span_key: Some("gold:1"),
            reason: Some("cluster 8-17: drop all"),
            note: Some("resolution t2"),
            upheld: r#"["one"]"#,
            dismissed: r#"["two"]"#,
            ..old("resolve")
        },
        Old {
            reason: Some("claim 3: dismissed"),
            note: Some("resolution t3"),
            dismissed: r#"["judge"]"#,
            ..old("resolve")
        },
        old("flag"),
        Old {
            reason: Some("off"),
            ..old("flag")
        },
        old("flag"),
        Old {
            span_key: Some("gold:0"),
            reason: Some("cluster 1-2: not a tag on a drop"),
            note: Some("resolution zz"),
            ..old("drop")
        },
        Old {
            target: Some(3),
            span_key: Some("gold:1"),
            ..old("undo")
        },
        Old {
            reason: Some("off"),
            ..old("flag")
        },
        Old {
            reason: Some("auto: unanimous"),
            ..old("accept_all")
        },
        Old {
            reason: Some("auto: unanimous, said the reviewer"),
            ..old("accept_all")
        },
    ]
}

/// A database made by migrations 0001–0003, holding `old_log()` and a record state, written
/// with the old columns only (as the old build did).
fn old_db(conn: &Connection, rec: &Record) {
    conn.execute_batch("PRAGMA foreign_keys = ON;").expect("fk");
    for sql in &MIGRATIONS[..3] {
        conn.execute_batch(sql).expect("old migration");
    }
    conn.pragma_update(None, "user_version", 3)
        .expect("version");
    for (i, o) in old_log().iter().enumerate() {
        conn.execute(
            "INSERT INTO decision (origin, reviewer, time, dataset, record_id, record_hash, \
             action, span_key, start_after, end_after, label_after, reason, note, target, \
             upheld, dismissed) VALUES (?1, 'ana', ?2, 'ds', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, \
             ?11, ?12, ?13, ?14)",
            params![
                format!("origin-{i}"),
                format!("2026-11-30T06:00:{i:02}.000Z"),
                rec.id,
                rec.content_hash(),
                o.action,
                o.span_key,
                o.after.map(|a| a.0),
                o.after.map(|a| a.1),
                o.after.map(|_| "contradiction"),
                o.reason,
                o.note,
                o.target,
                o.upheld,
                o.dismissed,
            ],
        )
        .expect("old row");
    }
    conn.execute(
        "INSERT INTO record_state VALUES ('ds', ?1, 1, 0, 'open', 0, 10)",
        [&rec.id],
    )
    .expect("old state");
}

/// The same log written by this build: the meaning in the columns (the text kept).
fn new_log(rec: &Record) -> Vec<Decision> {
    old_log()
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let action = ActionKind::from_name(o.action).expect("action");
            let mut d = Decision::new(rec, "ds", "ana", action);
            d.id = i64::try_from(i).expect("id") + 1;
            d.time = format!("2026-11-30T06:00:{i:02}.000Z");
            d.span_key = o.span_key.map(str::to_owned);
            d.after = o.after.map(|(s, e)| SpanValue::new(s, e, "contradiction"));
            d.reason = o.reason.map(str::to_owned);
            d.note = o.note.map(str::to_owned);
            d.target = o.target;
            d.upheld = serde_json::from_str(o.upheld).expect("json");
            d.dismissed = serde_json::from_str(o.dismissed).expect("json");
            if action == ActionKind::Resolve {
                d.group = o
                    .note
                    .and_then(|n| n.strip_prefix("resolution "))
                    .map(Into::into);
                d.unit = match o.reason {
                    Some(r) if r.starts_with("cluster 8-17") => {
                        Some(Unit::Cluster { start: 8, end: 17 })
                    }
                    Some(r) if r.starts_with("claim 3") => Some(Unit::Claim(3)),
                    _ => None,
                };
            }
            if action == ActionKind::Flag {
                d.flag_on = Some(o.reason != Some("off"));
            }
            d.auto = o.reason == Some("auto: unanimous");
            d
        })
        .collect()
}

/// Every reader's answer over a log: the replayed review (spans, flag, outcome), the votes per
/// source, and each decision's unit.
fn answers(rec: &Record, log: &[Decision]) -> (String, BTreeMap<String, votes::JudgeCounts>) {
    let review = replay(rec, log);
    let units: Vec<String> = log.iter().map(votes::unit).collect();
    (
        format!(
            "{:?} flagged={} outcome={:?} reviewed={} units={units:?}",
            review.spans,
            review.flagged,
            review.outcome,
            review.is_reviewed()
        ),
        votes::count(&review.applied),
    )
}

#[test]
fn migration_0004_fills_the_columns_from_the_old_text_and_readers_answer_as_before() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("old.sqlite");
    let rec = record();
    old_db(&Connection::open(&path).expect("raw open"), &rec);

    let store = Store::open(&path).expect("migrates");
    let conn = store.conn.sqlite().expect("sqlite");
    assert_eq!(store.schema_version().expect("v"), SCHEMA_VERSION);
    let log = store.decisions(None).expect("log");
    let want = new_log(&rec);
    assert_eq!(
        log, want,
        "the columns are filled from the old text, ids kept"
    );

    // What the old build answered from the text: the later resolution of 8-17 (t2, undone)
    // does not stand, so t1's two rows are one vote for `two`; the claim is a vote against
    // the judge; the flag ends off; the drop's look-alike reason is no tag.
    let (review, counts) = answers(&rec, &log);
    assert_eq!((review.clone(), counts.clone()), answers(&rec, &want));
    assert!(review.contains("flagged=false"), "{review}");
    assert_eq!((counts["two"].upheld, counts["two"].dismissed), (1, 0));
    assert_eq!((counts["one"].upheld, counts["one"].dismissed), (0, 1));
    assert_eq!(counts["judge"].dismissed, 1);
    assert_eq!(votes::unit(&log[7]), "decision 8", "a drop has no unit");
    assert_eq!(
        log.iter().map(|d| d.auto).collect::<Vec<_>>(),
        (1..=12).map(|id| id == 11).collect::<Vec<_>>(),
        "only the screen's own accept-all is automatic"
    );
    let state = store.record_state("ds", &rec.id).expect("state");
    assert!(state.is_some_and(|s| s.reviewed));

    // The rebuilt table is still append-only, keeps its foreign keys, indexes and counter.
    for sql in ["UPDATE decision SET reason = 'x'", "DELETE FROM decision"] {
        let e = conn.execute(sql, []).expect_err(sql);
        assert!(e.to_string().contains("append-only"), "{e}");
    }
    let fk: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .expect("fk check");
    assert_eq!(fk, 0);
    let e = conn
        .execute(
            "INSERT INTO decision (origin, reviewer, time, dataset, record_id, record_hash, \
             action, target, flag_on) VALUES ('x', 'a', 't', 'ds', 'r', 'h', 'undo', 999, NULL)",
            [],
        )
        .expect_err("a target that is not in the log");
    assert!(e.to_string().contains("FOREIGN KEY"), "{e}");
    let indexes: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'decision' ORDER BY name")
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .expect("indexes");
    assert!(
        ["decision_group", "decision_record", "decision_reviewer"]
            .iter()
            .all(|n| indexes.iter().any(|i| i == n)),
        "{indexes:?}"
    );
    let mut retype = Decision::new(&rec, "ds", "ana", ActionKind::Retype);
    retype.record_type = Some("Fabrication".into());
    let saved = store
        .append(&retype, None)
        .expect("a retype is allowed now");
    assert_eq!(saved.id, 13, "ids go on after the old ones");
    assert_eq!(store.decision(13).expect("read"), Some(saved));
}

#[test]
fn the_schema_refuses_meaning_columns_that_contradict_the_action() {
    for store in crate::store::test_db::stores() {
        let rec = record();
        let bad = [
            {
                let mut d = Decision::new(&rec, "ds", "ana", ActionKind::Retype);
                d.record_type = None;
                d
            },
            {
                let mut d = Decision::new(&rec, "ds", "ana", ActionKind::Accept);
                d.record_type = Some("clean".into());
                d
            },
            {
                let mut d = Decision::new(&rec, "ds", "ana", ActionKind::Drop);
                d.unit = Some(Unit::Claim(0));
                d
            },
            {
                let mut d = Decision::new(&rec, "ds", "ana", ActionKind::Resolve);
                d.unit = Some(Unit::Cluster { start: 9, end: 3 });
                d
            },
            {
                // Only a resolution counts the record's units.
                let mut d = Decision::new(&rec, "ds", "ana", ActionKind::Accept);
                d.record_units = Some(2);
                d
            },
        ];
        for d in &bad {
            assert!(store.append(d, None).is_err(), "{d:?}");
        }
        assert!(store.decisions(None).expect("log").is_empty());
    }
}

#[test]
fn the_meaning_columns_round_trip() {
    for store in crate::store::test_db::stores() {
        let rec = record();
        let mut r = Decision::new(&rec, "ds", "ana", ActionKind::Resolve);
        r.unit = Some(Unit::Cluster { start: 15, end: 17 });
        r.group = Some("g東京".into());
        r.record_units = Some(3);
        let mut c = Decision::new(&rec, "ds", "ana", ActionKind::Resolve);
        c.unit = Some(Unit::Claim(4));
        c.group = Some("g2".into());
        let mut off = Decision::new(&rec, "ds", "ana", ActionKind::Flag);
        off.flag_on = Some(false);
        let mut t = Decision::new(&rec, "ds", "ana", ActionKind::Retype);
        t.record_type = Some("Fabrication’".into());
        for d in [r, c, off, t] {
            let saved = store.append(&d, None).expect("append");
            let back = store.decision(saved.id).expect("read").expect("there");
            assert_eq!(
                (back.group, back.unit, back.record_units, back.flag_on),
                (d.group, d.unit, d.record_units, d.flag_on)
            );
            assert_eq!(back.record_type, d.record_type);
        }
    }
}
