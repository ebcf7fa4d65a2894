//! How often arbitration upheld each source: one vote per source per settled cluster, the one
//! count `stats`, the stats screen and the export report all give (and, labelled as such, the
//! count per span).
//!
//! A resolution is saved as one `resolve` decision per span it settles, so a source whose
//! two-span version was taken would count twice per span. Its **unit** is what it settles: the
//! cluster (or judge claim) in its [`Decision::unit`], which every row of a resolution shares
//! (also a later resolution of the same cluster); without one, its [`Decision::group`] (the rows
//! of one resolution share it); without either, the decision alone. In each unit of a record the
//! latest resolution in log order stands (a change of mind, or a resolution made after a
//! `merge-db` over a reviewer's), and each source it names gets one vote: upheld or dismissed.
//! The resolutions it replaced are **superseded** ([`superseded`]): still in the log and in the
//! verdicts (marked with the resolution that replaced them), counted nowhere, per span neither.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::super::decision::{ActionKind, Decision};

/// A source's resolutions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct JudgeCounts {
    /// Disputed clusters (and judge claims) whose resolution upheld it.
    pub upheld: usize,
    /// Disputed clusters (and judge claims) whose resolution dismissed it.
    pub dismissed: usize,
    /// Per span: `resolve` decisions (one per span a resolution settles) that upheld it.
    pub upheld_spans: usize,
    /// Per span: `resolve` decisions that dismissed it.
    pub dismissed_spans: usize,
}

impl JudgeCounts {
    /// `upheld / (upheld + dismissed)` per cluster, `None` when it was never named.
    #[must_use]
    pub fn rate(&self) -> Option<f64> {
        let n = self.upheld + self.dismissed;
        #[allow(clippy::cast_precision_loss)]
        (n > 0).then(|| self.upheld as f64 / n as f64)
    }

    /// Clusters whose resolution named it.
    #[must_use]
    pub fn named(&self) -> usize {
        self.upheld + self.dismissed
    }
}

/// The resolution that stands for one unit (cluster or claim) of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vote {
    /// Record id.
    pub record_id: String,
    /// The unit ([`unit`]).
    pub unit: String,
    /// Sources upheld.
    pub upheld: Vec<String>,
    /// Sources dismissed (never also upheld).
    pub dismissed: Vec<String>,
}

/// What a `resolve` decision settles (see the module doc), named: `cluster S-E`, `claim N`,
/// `resolution GROUP`, or `decision ID`.
#[must_use]
pub fn unit(d: &Decision) -> String {
    match (&d.unit, &d.group) {
        (Some(u), _) => u.to_string(),
        (None, Some(g)) => format!("resolution {g}"),
        (None, None) => format!("decision {}", d.id),
    }
}

/// The standing resolution of each unit among `decisions` (other actions are ignored; pass
/// the decisions in force), in order of first appearance.
#[must_use]
pub fn votes<'a>(decisions: impl IntoIterator<Item = &'a Decision>) -> Vec<Vote> {
    let mut out: Vec<(i64, Vote)> = Vec::new();
    let mut at: BTreeMap<(String, String), usize> = BTreeMap::new();
    for d in decisions {
        if d.action != ActionKind::Resolve {
            continue;
        }
        let mut upheld = d.upheld.clone();
        upheld.sort();
        upheld.dedup();
        let mut dismissed: Vec<String> = d
            .dismissed
            .iter()
            .filter(|n| !upheld.contains(n))
            .cloned()
            .collect();
        dismissed.sort();
        dismissed.dedup();
        let vote = Vote {
            record_id: d.record_id.clone(),
            unit: unit(d),
            upheld,
            dismissed,
        };
        match at.get(&(vote.record_id.clone(), vote.unit.clone())) {
            // Later in the log stands (ids are log order; equal ids: the later given).
            Some(&i) if out[i].0 <= d.id => out[i] = (d.id, vote),
            Some(_) => {}
            None => {
                at.insert((vote.record_id.clone(), vote.unit.clone()), out.len());
                out.push((d.id, vote));
            }
        }
    }
    out.into_iter().map(|(_, v)| v).collect()
}

/// The superseded `resolve` rows among `decisions` (pass the decisions in force, in log
/// order), each with the resolution that replaced it: per record and unit ([`unit`]), the
/// resolutions (the rows sharing a [`Decision::group`], else one row) in the order of their
/// latest row; the last stands, and every earlier one is superseded by it, named by the id of
/// its first row. Rows of the standing resolutions are not listed.
#[must_use]
pub fn superseded<'a>(decisions: impl IntoIterator<Item = &'a Decision>) -> HashMap<i64, i64> {
    // (record, unit) -> resolutions, each (group, row ids), in order of first appearance.
    type Resolutions = Vec<(String, Vec<i64>)>;
    let mut units: BTreeMap<(String, String), Resolutions> = BTreeMap::new();
    for d in decisions {
        if d.action != ActionKind::Resolve {
            continue;
        }
        let group = d.group.clone().unwrap_or_else(|| format!("#{}", d.id));
        let list = units.entry((d.record_id.clone(), unit(d))).or_default();
        match list.iter_mut().find(|(g, _)| *g == group) {
            Some((_, ids)) => ids.push(d.id),
            None => list.push((group, vec![d.id])),
        }
    }
    let mut out = HashMap::new();
    for mut list in units.into_values() {
        list.sort_by_key(|(_, ids)| ids.iter().copied().max());
        let Some((_, last)) = list.pop() else {
            continue;
        };
        let by = last.iter().copied().min().unwrap_or_default();
        for (_, ids) in list {
            for id in ids {
                out.insert(id, by);
            }
        }
    }
    out
}

/// The `resolve` rows of the resolutions in force among `decisions` (none superseded), in the
/// order given.
#[must_use]
pub fn standing<'a>(
    decisions: impl IntoIterator<Item = &'a Decision> + Clone,
) -> Vec<&'a Decision> {
    let gone = superseded(decisions.clone());
    decisions
        .into_iter()
        .filter(|d| d.action == ActionKind::Resolve && !gone.contains_key(&d.id))
        .collect()
}

/// Per source name, its votes over `decisions` (see [`votes`]) and, per span, the `resolve`
/// rows of the resolutions in force ([`standing`]). The one count of upheld sources: `stats`,
/// the stats screen and the report call it.
#[must_use]
pub fn count<'a>(
    decisions: impl IntoIterator<Item = &'a Decision>,
) -> BTreeMap<String, JudgeCounts> {
    let all: Vec<&Decision> = decisions.into_iter().collect();
    let resolutions = standing(all.iter().copied());
    let mut counts: BTreeMap<String, JudgeCounts> = BTreeMap::new();
    for d in &resolutions {
        for n in &d.upheld {
            counts.entry(n.clone()).or_default().upheld_spans += 1;
        }
        for n in d.dismissed.iter().filter(|n| !d.upheld.contains(n)) {
            counts.entry(n.clone()).or_default().dismissed_spans += 1;
        }
    }
    for v in votes(resolutions.iter().copied()) {
        for n in v.upheld {
            counts.entry(n).or_default().upheld += 1;
        }
        for n in v.dismissed {
            counts.entry(n).or_default().dismissed += 1;
        }
    }
    counts
}

/// Add `more` into `into`, source by source.
pub fn add_counts(into: &mut BTreeMap<String, JudgeCounts>, more: BTreeMap<String, JudgeCounts>) {
    for (n, c) in more {
        let e = into.entry(n).or_default();
        e.upheld += c.upheld;
        e.dismissed += c.dismissed;
        e.upheld_spans += c.upheld_spans;
        e.dismissed_spans += c.dismissed_spans;
    }
}
