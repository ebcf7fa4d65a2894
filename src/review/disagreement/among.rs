//! Which sources count as disputing (`review --dispute-among`): the clusters are those of every
//! source (detectors stay lanes and evidence), but a cluster is disputed only where the gold and
//! the sources that count disagree among themselves, or a judge that counts disputes the gold.
//!
//! **Default** ([`Among::Default`]): the gold, the reviewers and annotators (`reviewer:NAME`,
//! another reviewer's database, Mu-SHROOM's annotators) and the judges count; detectors do not.
//! When neither the record nor the session (`humans`) has any source but detectors, every
//! source counts, as comparing detectors is then the whole point.

use super::{cluster_judged, Disagreement, JudgeVerdict, Options};
use crate::model::{Source, SourceRole};

/// The sources that count as disputing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Among {
    /// Reviewers, annotators and judges (see the module docs).
    #[default]
    Default,
    /// The gold and the sources matching one of these names; a name ending in `*` matches
    /// every name it begins (`reviewer:*`, `llm*`).
    Named(Vec<String>),
}

impl Among {
    /// Parse `--dispute-among`: a comma list of source names and `NAME*` globs (`*`: every
    /// source).
    ///
    /// # Errors
    /// An empty list or an empty name, quoted.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let names: Vec<String> = spec.split(',').map(|s| s.trim().to_owned()).collect();
        if names.iter().any(String::is_empty) {
            return Err(format!(
                "--dispute-among {spec:?}: an empty name; give source names or NAME* globs, \
                 comma-separated (reviewer:*,llm)"
            ));
        }
        Ok(Self::Named(names))
    }

    /// True when `source` counts as disputing. `humans`: the session or the record has a
    /// source that is no detector (for [`Among::Default`]).
    #[must_use]
    pub fn counts(&self, source: &Source, humans: bool) -> bool {
        if source.role == SourceRole::Gold || source.name == "gold" {
            return true;
        }
        match self {
            Self::Default => !humans || source.role != SourceRole::Detector,
            Self::Named(names) => names.iter().any(|n| matches(n, &source.name)),
        }
    }

    /// True when a judge named `judge` counts.
    #[must_use]
    pub fn counts_judge(&self, judge: &str) -> bool {
        match self {
            Self::Default => true,
            Self::Named(names) => names.iter().any(|n| matches(n, judge)),
        }
    }
}

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// Cluster every source and verdict over `output` ([`cluster_judged`]), then keep as disputed
/// only what the sources and judges `among` counts dispute (see the module docs): each
/// cluster's dispute flags and disputed characters are those of clustering the counted sources
/// alone (a cluster of theirs lies inside one of every source's), and only the counted judges'
/// claims are left to place. `session_humans`: a source of the session is no detector.
#[must_use]
pub fn cluster_among(
    output: &str,
    sources: &[Source],
    verdicts: &[JudgeVerdict],
    options: &Options,
    among: &Among,
    session_humans: bool,
) -> Disagreement {
    let mut all = cluster_judged(output, sources, verdicts, options);
    let humans = session_humans
        || sources.iter().any(|s| {
            !matches!(s.role, SourceRole::Gold | SourceRole::Detector) && s.name != "gold"
        });
    let counted: Vec<bool> = sources.iter().map(|s| among.counts(s, humans)).collect();
    let judges_counted = verdicts.iter().all(|v| among.counts_judge(&v.source));
    if counted.iter().all(|&c| c) && judges_counted {
        return all;
    }
    // The counted sources alone, at the same indices: the others take no part (as a judge's
    // spans take none).
    let only: Vec<Source> = sources
        .iter()
        .zip(&counted)
        .map(|(s, &c)| {
            if c {
                s.clone()
            } else {
                Source::new(s.name.clone(), SourceRole::Judge, Vec::new())
            }
        })
        .collect();
    let kept: Vec<JudgeVerdict> = verdicts
        .iter()
        .filter(|v| among.counts_judge(&v.source))
        .cloned()
        .collect();
    let part = cluster_judged(output, &only, &kept, options);
    for c in &mut all.clusters {
        let inside: Vec<_> = part
            .clusters
            .iter()
            .filter(|p| p.start < c.end && c.start < p.end)
            .collect();
        c.coverage_disputed = inside.iter().any(|p| p.coverage_disputed);
        c.label_disputed = inside.iter().any(|p| p.label_disputed);
        c.judge_disputed = inside.iter().any(|p| p.judge_disputed);
        c.disputed_ranges = crate::review::ranges::merge(
            inside
                .iter()
                .flat_map(|p| p.disputed_ranges.iter().copied())
                .collect(),
        );
        for m in &mut c.judges {
            m.disputes &= among.counts_judge(&m.judge);
        }
    }
    all.judge_disputes = part.judge_disputes;
    all.unplaced.retain(|u| among.counts_judge(&u.judge));
    all
}

#[cfg(test)]
mod tests;
