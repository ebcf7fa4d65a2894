//! The `--contested` file against the oracle and the report: one line per cluster the report
//! counts as resolved, its resolution's rows the resolutions in force (the superseded ones
//! listed apart, naming what replaced them), its votes the report's per-source counts, and its
//! cluster text the answer sliced by code points.

use std::collections::BTreeMap;

use serde_json::Value;
use spanreview::model::Record;

use super::{report_count, Run};

fn list(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or_default()
}

fn len_sum(run: &Run, f: impl Fn(&Value) -> usize) -> u64 {
    run.contested.iter().map(&f).sum::<usize>() as u64
}

/// Where the contested file disagrees with the oracle, the report or the records.
pub fn mismatches(
    run: &Run,
    records: &BTreeMap<String, Record>,
    out: &mut Vec<(&'static str, String)>,
) {
    let e = &run.expected["counts"];
    let counts = [
        (
            "clusters_resolved",
            "Disputed clusters (and judge claims) resolved",
            len_sum(run, |_| 1),
        ),
        (
            "disputes",
            "Disputed spans resolved",
            len_sum(run, |l| list(&l["resolution"]["decisions"]).len()),
        ),
        (
            "disputes_upheld",
            "Disputed spans upheld",
            len_sum(run, |l| list(&l["resolution"]["spans"]).len()),
        ),
    ];
    for (key, row, got) in counts {
        let (want, report) = (e[key].as_u64(), report_count(&run.report, row));
        if Some(got) != want || Some(got) != report {
            out.push((
                "contested",
                format!("{key}: contested file {got}, oracle {want:?}, report {report:?}"),
            ));
        }
    }
    votes(run, out);
    rows(run, out);
    for l in &run.contested {
        let id = l["id"].as_str().unwrap_or("");
        let (Some(a), Some(b)) = (l["start"].as_u64(), l["end"].as_u64()) else {
            continue;
        };
        let want: Option<String> = records.get(id).map(|r| {
            r.output
                .chars()
                .skip(a as usize)
                .take((b - a) as usize)
                .collect()
        });
        if l["text"].as_str() != want.as_deref() {
            out.push((
                "contested",
                format!("{id} [{a}, {b}): text {}, answer {want:?}", l["text"]),
            ));
        }
    }
}

/// Per source, clusters upheld and dismissed by the lines' resolutions in force.
fn votes(run: &Run, out: &mut Vec<(&'static str, String)>) {
    let mut got: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    for l in &run.contested {
        for (k, key) in ["upheld", "dismissed"].iter().enumerate() {
            for n in list(&l["resolution"][key]).iter().filter_map(Value::as_str) {
                got.entry(n.to_owned()).or_default()[k] += 1;
            }
        }
    }
    let mut want = super::oracle_votes(run);
    want.retain(|_, c| c != &[0, 0]);
    if got != want {
        out.push((
            "contested",
            format!("votes per source {got:?}, oracle {want:?}"),
        ));
    }
}

/// Every resolution row is in exactly one place: a line's resolution when the oracle has it in
/// force, a superseded resolution naming one of the oracle's replacements otherwise.
fn rows(run: &Run, out: &mut Vec<(&'static str, String)>) {
    // Row id -> where it is listed (`None`: in force; `Some(by)`: superseded by `by`).
    let mut at: BTreeMap<String, Vec<Option<Value>>> = BTreeMap::new();
    for l in &run.contested {
        let settled = std::iter::once((&l["resolution"], false))
            .chain(list(&l["superseded"]).iter().map(|s| (s, true)));
        for (s, old) in settled {
            for d in list(&s["decisions"]) {
                let by = old.then(|| s["superseded_by"].clone());
                at.entry(d.to_string()).or_default().push(by);
            }
        }
    }
    for (id, want) in run.expected["rows"].as_object().expect("rows") {
        let got = at.remove(id).unwrap_or_default();
        let ok = match (want["superseded_by"].as_array(), got.as_slice()) {
            (None, [None]) => true,
            (Some(ids), [Some(by)]) => ids.contains(by),
            _ => false,
        };
        if !ok {
            let w = &want["superseded_by"];
            out.push((
                "contested",
                format!("resolution #{id}: listed as {got:?} (None: in force), oracle superseded_by {w}"),
            ));
        }
    }
    for id in at.keys() {
        out.push((
            "contested",
            format!("resolution #{id}: listed, not in the oracle's rows"),
        ));
    }
}

/// A superseded resolution shown as the one in force, and a line written twice, are caught.
#[test]
fn the_contested_comparison_catches_a_superseded_resolution_counted_in_force() {
    let Some(mut run) = super::run(1, None) else {
        return;
    };
    let records: BTreeMap<String, Record> =
        super::super::common::records(&super::data("toolace/test_records_reconstructed.jsonl"))
            .into_iter()
            .map(|r| (r.id.clone(), r))
            .collect();
    let mut clean = Vec::new();
    mismatches(&run, &records, &mut clean);
    assert!(clean.is_empty(), "{clean:#?}");
    let line = run
        .contested
        .iter_mut()
        .find(|l| !list(&l["superseded"]).is_empty())
        .expect("seed 1 re-resolves a cluster");
    let old = line["superseded"][0].clone();
    let standing = std::mem::replace(&mut line["resolution"], old);
    line["superseded"][0] = standing;
    let id = line["resolution"]["decisions"][0].to_string();
    let twice = run.contested[0].clone();
    run.contested.push(twice);
    let mut found = Vec::new();
    mismatches(&run, &records, &mut found);
    let has = |text: &str| found.iter().any(|(_, w)| w.contains(text));
    assert!(has(&format!("resolution #{id}: listed as")), "{found:#?}");
    assert!(has("clusters_resolved: contested file"), "{found:#?}");
}
