//! The per-reason tables of the report and the card against the oracle's own count of the
//! decisions in force by action and reason code (`expected.reasons`).

use std::collections::BTreeMap;

use super::Run;

/// (action, code) → decisions, from a Markdown per-reason table that follows `heading` in
/// `text` (code `""` for the decisions whose reason has none).
fn table(text: &str, heading: &str) -> BTreeMap<(String, String), u64> {
    let Some(at) = text.find(heading) else {
        return BTreeMap::new();
    };
    text[at..]
        .lines()
        .skip_while(|l| !l.starts_with("| Action |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            let code = cells.get(1)?.trim_matches('`').trim();
            let code = if code == "–" { "" } else { code };
            Some((
                (cells[0].to_owned(), code.to_owned()),
                cells.get(3)?.parse().ok()?,
            ))
        })
        .collect()
}

/// Where the report's or the card's per-reason table differs from the oracle's, tagged
/// `reasons`.
pub(super) fn check(run: &Run, out: &mut Vec<(&'static str, String)>) {
    let mut want = BTreeMap::new();
    if let Some(by) = run.expected["reasons"].as_object() {
        for (action, codes) in by {
            for (code, n) in codes.as_object().into_iter().flatten() {
                want.insert(
                    (action.clone(), code.clone()),
                    n.as_u64().unwrap_or(u64::MAX),
                );
            }
        }
    }
    if want.is_empty() {
        out.push((
            "reasons",
            "the oracle counted no decision with a reason".to_owned(),
        ));
    }
    // The run's rubric describes the codes it has, in both tables.
    if want.contains_key(&("remove".to_owned(), "incoherent".to_owned())) {
        for (what, text) in [("report", &run.report), ("card", &run.card)] {
            if !text.contains("| remove | `incoherent` | the answer is incoherent ’ |") {
                out.push((
                    "reasons",
                    format!("{what}: the rubric's description is not shown"),
                ));
            }
        }
    }
    for (what, got) in [
        ("report", table(&run.report, "## Decisions per reason")),
        ("card", table(&run.card, "### Decisions per reason")),
    ] {
        if got != want {
            out.push((
                "reasons",
                format!("{what} per reason {got:?}, oracle {want:?}"),
            ));
        }
    }
}
