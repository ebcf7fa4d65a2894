//! Resolutions: the spans that settle a cluster and whom they uphold or dismiss.

use serde::{Deserialize, Serialize};

use super::clustering::{compare, Text};
use super::{Disagreement, JudgeSays, Range};
use crate::model::{Source, Span};
use crate::review::ranges::{clamp, intersect, merge};

/// How to settle a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Take this source's spans (an index into the sources slice).
    Take(usize),
    /// One span over every character any source covers.
    Union,
    /// The characters every source that covers something here covers (sources with no span in
    /// the cluster do not empty it: that is [`Resolution::DropAll`]).
    Intersection,
    /// No span: nothing here is a hallucination.
    DropAll,
}

/// The result of a resolution, for a `resolve` decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The spans that replace the cluster, by start (text filled from the answer). Empty when
    /// everything is dropped.
    pub spans: Vec<Span>,
    /// Sources (and judges) the result upholds: it keeps a hallucination overlapping theirs
    /// with its label, whatever the boundaries ([`settle`]).
    pub upheld: Vec<String>,
    /// Sources (and judges) it dismisses: it keeps nothing there, or another label.
    pub dismissed: Vec<String>,
}

/// Which gold span a result span settles: adjust it, drop it, or add a new one.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Index of the gold span (`None`: the result is a new span).
    pub gold: Option<usize>,
    /// The span it becomes (`None`: the gold span is dropped).
    pub after: Option<Span>,
}

impl Outcome {
    /// Pair result spans with the gold spans of the cluster (indices into the gold source): each
    /// result takes the untaken gold span it overlaps most; gold spans left over are dropped,
    /// results left over are added.
    #[must_use]
    pub fn assign(&self, gold: &[Span], in_cluster: &[usize]) -> Vec<Assignment> {
        let mut taken = vec![false; in_cluster.len()];
        let mut out = Vec::new();
        for s in &self.spans {
            let best = in_cluster
                .iter()
                .enumerate()
                .filter(|&(k, _)| !taken[k])
                .filter_map(|(k, &g)| {
                    let gs = gold.get(g)?;
                    let overlap = s.end.min(gs.end).saturating_sub(s.start.max(gs.start));
                    (overlap > 0).then_some((overlap, std::cmp::Reverse(k)))
                })
                .max();
            if let Some((_, std::cmp::Reverse(k))) = best {
                taken[k] = true;
                out.push(Assignment {
                    gold: Some(in_cluster[k]),
                    after: Some(s.clone()),
                });
            } else {
                out.push(Assignment {
                    gold: None,
                    after: Some(s.clone()),
                });
            }
        }
        for (k, &g) in in_cluster.iter().enumerate() {
            if !taken[k] {
                out.push(Assignment {
                    gold: Some(g),
                    after: None,
                });
            }
        }
        out
    }
}

/// Settle cluster `cluster` of `d` (computed from `output` and `sources`) the way `how` says,
/// and say whom that upholds (see [`settle`]). Result labels: `Take` keeps the source's labels
/// (an empty one becomes the cluster's label); `Union` and `Intersection` take the cluster's
/// label: the first non-empty label of the gold spans in it, else of any source in it.
/// `None` when the cluster does not exist or `Take` names a source that does not participate.
#[must_use]
pub fn resolve(
    output: &str,
    sources: &[Source],
    d: &Disagreement,
    cluster: usize,
    how: Resolution,
) -> Option<Outcome> {
    let c = d.clusters.get(cluster)?;
    let label_span = c
        .sources
        .iter()
        .filter(|p| Some(p.source) == d.gold)
        .chain(&c.sources)
        .flat_map(|p| p.spans.iter().map(|&i| &sources[p.source].spans[i]))
        .find(|s| !s.label.is_empty());
    let result: Vec<(Range, Option<&Span>)> = match how {
        Resolution::Take(s) => {
            let p = c.source(s)?;
            let mut v: Vec<(Range, Option<&Span>)> = p
                .spans
                .iter()
                .map(|&i| &sources[s].spans[i])
                .map(|sp| {
                    let from = if sp.label.is_empty() {
                        label_span
                    } else {
                        Some(sp)
                    };
                    ((sp.start, sp.end.min(d.output_chars)), from)
                })
                .collect();
            v.dedup_by(|x, y| x.0 == y.0 && x.1.map(|s| &s.label) == y.1.map(|s| &s.label));
            v
        }
        Resolution::Union => vec![((c.start, c.end), label_span)],
        Resolution::Intersection => {
            let mut covering = c.sources.iter().filter(|p| !p.coverage.is_empty());
            let first = covering
                .next()
                .map(|p| p.coverage.clone())
                .unwrap_or_default();
            covering
                .fold(first, |acc, p| intersect(&acc, &p.coverage))
                .into_iter()
                .map(|r| (r, label_span))
                .collect()
        }
        Resolution::DropAll => Vec::new(),
    };
    let spans: Vec<Span> = result
        .iter()
        .map(|&((a, b), from)| {
            let mut s = Span::new(output, a, b, from.map_or("", |f| f.label.as_str()));
            if let Some(f) = from {
                s.category.clone_from(&f.category);
                s.subcategory.clone_from(&f.subcategory);
            }
            s
        })
        .collect();
    settle(output, sources, d, cluster, spans)
}

/// Settle cluster `cluster` of `d` with `spans` — a resolution's result, or the reviewer's own
/// edit — and say whom that upholds. One rule, whatever the boundaries: a source with spans in
/// the cluster is **upheld** when the result keeps a span overlapping one of them with its label
/// (a source without a hallucination type, an empty label, and a result span without one agree
/// with any label), and **dismissed** when the result keeps nothing there or only other labels;
/// a source with no span in the cluster (it says "nothing here") is upheld only when the result
/// keeps nothing there either. A judge with marks in the cluster is upheld when every one of
/// them holds — a correct label: the result keeps an overlapping span with that label; a wrong
/// label: it keeps none overlapping the judged span; a claim: it keeps one overlapping the
/// claimed text — and dismissed otherwise (`unknown` verdicts count for neither). `None` when
/// the cluster does not exist.
#[must_use]
pub fn settle(
    output: &str,
    sources: &[Source],
    d: &Disagreement,
    cluster: usize,
    mut spans: Vec<Span>,
) -> Option<Outcome> {
    let c = d.clusters.get(cluster)?;
    let text = Text::new(output, true);
    spans.sort_by_key(|s| (s.start, s.end));
    let kept: Vec<(Range, &str)> = spans
        .iter()
        .filter_map(|s| Some((clamp((s.start, s.end), d.output_chars)?, s.label.as_str())))
        .collect();
    let coverage = merge(kept.iter().map(|&(r, _)| r).collect());
    // The result keeps a span overlapping `r` with label `label` ("": any label).
    let keeps = |r: Range, label: &str| {
        kept.iter().any(|&((a, b), l)| {
            a < r.1 && r.0 < b && (label.is_empty() || l.is_empty() || l == label)
        })
    };
    let (mut upheld, mut dismissed) = (Vec::new(), Vec::new());
    for p in &c.sources {
        let own: Vec<&Span> = p
            .spans
            .iter()
            .map(|&i| &sources[p.source].spans[i])
            .collect();
        let agrees = if own.is_empty() {
            compare(&p.coverage, &coverage, &text, &d.options).1
        } else {
            own.iter().any(|s| {
                clamp((s.start, s.end), d.output_chars).is_some_and(|r| keeps(r, &s.label))
            })
        };
        let name = sources[p.source].name.clone();
        if agrees {
            upheld.push(name);
        } else {
            dismissed.push(name);
        }
    }
    // The label a judge's verdict is about: the judged gold span's.
    let judged = |r: Range| {
        d.gold
            .and_then(|g| c.source(g).map(|p| (g, p)))
            .and_then(|(g, p)| {
                p.spans
                    .iter()
                    .map(|&i| &sources[g].spans[i])
                    .find(|s| clamp((s.start, s.end), d.output_chars) == Some(r))
            })
            .map_or("", |s| s.label.as_str())
    };
    let mut judges: Vec<(&str, bool)> = Vec::new();
    for m in &c.judges {
        let ok = match m.says {
            JudgeSays::LabelCorrect => keeps(m.range, judged(m.range)),
            JudgeSays::LabelWrong => !keeps(m.range, ""),
            JudgeSays::Claim => keeps(m.range, ""),
            JudgeSays::Unknown => continue,
        };
        match judges.iter_mut().find(|(name, _)| *name == m.judge) {
            Some(entry) => entry.1 &= ok,
            None => judges.push((&m.judge, ok)),
        }
    }
    for (name, ok) in judges {
        let list = if ok { &mut upheld } else { &mut dismissed };
        if !list.iter().any(|n| n == name) {
            list.push(name.to_owned());
        }
    }
    Some(Outcome {
        spans,
        upheld,
        dismissed,
    })
}
