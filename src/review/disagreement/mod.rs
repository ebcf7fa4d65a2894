//! Where annotation sources disagree on a record, how much, and what resolving it would do.
//!
//! Pure: takes an answer and its sources' spans, returns data. The arbitration screen, the
//! disputed queue and `stats` build on it.
//!
//! **Clusters.** Every usable span of every participating source is sorted by start and swept
//! once (`O(spans log spans)` per record); spans that share at least one code point join the same
//! cluster, transitively, whatever source they come from. Adjacent spans (`[0, 3)` and `[3, 5)`)
//! share no character and stay apart. A cluster lists, for each participating source (also the
//! ones with no span in it: they say "no"), its spans, the characters they cover and their labels.
//! Sources with role `Judge` do not take part: a judge's spans are the judged gold spans, not
//! claims; judges enter through [`JudgeVerdict`]s instead ([`cluster_judged`]).
//!
//! **Disputed.** Every pair of sources is compared character by character over the cluster. The
//! characters one covers and the other does not form runs; a run is ignored when
//! - with `ignore_edge_punct`, nothing is left of it once whitespace and punctuation
//!   ([`is_edge_punct`]) are trimmed from both of its ends (a detector's leading space, a final
//!   full stop), or
//! - what is left is at most `tolerance` code points and the run touches a character both cover
//!   (a boundary difference; a span only one source has is never a boundary difference).
//!
//! The pair agrees on coverage when every run is ignored. With `compare_labels`, two sources that
//! both cover something in the cluster also have to state the same set of non-empty labels (an
//! empty label — a detector without types — agrees with any). A cluster is disputed when some
//! pair disagrees.
//!
//! **Judges** are not sources that say "no" everywhere they are silent: a verdict speaks only
//! about the gold span it judged and the text it claims. Each becomes a [`JudgeMark`] swept with
//! the spans, so a claim joins the cluster it overlaps or forms its own. A cluster is also
//! disputed when a judge says its gold span is wrong (`label_correct == "false"`) or claims text
//! the gold labels do not cover (within the same tolerance rules). Claims that could not be
//! located are listed apart as [`Unplaced`].
//!
//! **Defective spans** never panic; each is reported in [`Disagreement::problems`]: empty spans
//! and reversed spans are skipped (there is no intent to recover); a span reaching past the end of
//! the answer is clamped to it (skipped when nothing is left); a span whose boundary falls inside
//! a grapheme cluster (a Hindi consonant cut from its vowel sign) is used as it is and reported.
//!
//! **Score** ([`score`]): the share of the answer's code points in dispute — characters some
//! but not all sources cover in a disputed cluster (the whole cluster when labels conflict),
//! gold spans a judge calls wrong, claimed text outside the gold, plus the length of unplaced
//! claims — over all code points of the answer (not over the covered ones: a one-word boundary
//! nit in a long answer should not rank with a disputed sentence). [`disputed_queue`] orders
//! records by it; [`RecordScore::is_unanimous`] picks the records safe to accept unseen.
//!
//! **Resolutions** ([`resolve`], [`settle`]): the spans that replace a cluster (one source's
//! version, union, intersection, none, or the reviewer's own) and which sources and judges that
//! upholds or dismisses, for a `resolve` decision; [`Outcome::assign`] maps the result onto the
//! gold spans it adjusts, drops or adds to.

mod among;
mod clustering;
mod judges;
mod resolution;
mod scoring;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use among::{cluster_among, Among};
pub use clustering::{cluster, cluster_judged, cluster_record, is_edge_punct};
pub use judges::{Claim, JudgeVerdict};
pub use resolution::{resolve, settle, Assignment, Outcome, Resolution};
pub use scoring::{disputed_queue, score, unanimous, RecordScore};

pub use super::ranges::Range;

/// How strictly sources must agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// Boundary differences of up to this many code points are not disputes (`--tolerance`).
    pub tolerance: usize,
    /// Differences made only of whitespace and punctuation at the edges are not disputes
    /// (`--ignore-edge-punct`).
    pub ignore_edge_punct: bool,
    /// Sources that cover the same characters under different non-empty labels disagree.
    pub compare_labels: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tolerance: 0,
            ignore_edge_punct: false,
            compare_labels: true,
        }
    }
}

/// What is wrong with a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// `start == end`: covers nothing; skipped.
    Empty,
    /// `start > end`; skipped.
    Reversed,
    /// `end` is past the end of the answer; clamped, or skipped when `start` is too.
    PastEnd,
    /// A boundary falls inside a user-perceived character (a letter cut from its combining mark
    /// or vowel sign, a split emoji sequence); used as it is.
    SplitsCharacter,
}

/// A defective span met while clustering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Index of the source in the slice given.
    pub source: usize,
    /// Name of the source.
    pub source_name: String,
    /// Index of the span in the source.
    pub span: usize,
    /// The span's offsets as given.
    pub start: usize,
    /// The span's end as given.
    pub end: usize,
    /// What is wrong.
    pub kind: ProblemKind,
    /// The range clustering used instead (`None`: skipped).
    pub used: Option<Range>,
    /// Code points in the answer.
    pub output_chars: usize,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, i, s, e) = (&self.source_name, self.span, self.start, self.end);
        write!(f, "{name} span {i} [{s}, {e}): ")?;
        match self.kind {
            ProblemKind::Empty => write!(f, "empty span, skipped"),
            ProblemKind::Reversed => write!(f, "start is after end, skipped"),
            ProblemKind::PastEnd => {
                write!(f, "ends past the answer ({} characters)", self.output_chars)?;
                match self.used {
                    Some((a, b)) => write!(f, ", clamped to [{a}, {b})"),
                    None => write!(f, ", skipped"),
                }
            }
            ProblemKind::SplitsCharacter => {
                write!(f, "a boundary splits a character from its combining mark")
            }
        }
    }
}

/// One source's part of a cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterSource {
    /// Index of the source in the slice given.
    pub source: usize,
    /// Indices of its spans in the cluster, by start.
    pub spans: Vec<usize>,
    /// Characters they cover: sorted, disjoint, clamped to the answer.
    pub coverage: Vec<Range>,
    /// Their distinct non-empty labels, sorted.
    pub labels: Vec<String>,
}

/// How two sources compare over a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PairDiff {
    /// Index of the first source.
    pub a: usize,
    /// Index of the second source.
    pub b: usize,
    /// Characters exactly one of them covers (before tolerance).
    pub differing: usize,
    /// Same coverage within the options.
    pub coverage_agrees: bool,
    /// No conflicting labels.
    pub labels_agree: bool,
}

/// Overlapping spans of the sources, with whether they agree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cluster {
    /// First code point any source covers.
    pub start: usize,
    /// One past the last.
    pub end: usize,
    /// One entry per participating source, in the order given, also for sources with no span
    /// here.
    pub sources: Vec<ClusterSource>,
    /// Every pair of participating sources.
    pub pairs: Vec<PairDiff>,
    /// Some pair disagrees on coverage.
    pub coverage_disputed: bool,
    /// Some pair disagrees on labels.
    pub label_disputed: bool,
    /// What judges say about this cluster, by start.
    pub judges: Vec<JudgeMark>,
    /// A judge disputes a gold span here or claims text the gold does not cover.
    pub judge_disputed: bool,
    /// Characters in dispute: those some but not all sources cover (or the whole cluster when
    /// labels conflict), judge-disputed gold spans and claimed text outside the gold. Empty when
    /// the cluster is not disputed.
    pub disputed_ranges: Vec<Range>,
}

impl Cluster {
    /// Coverage or labels are disputed, or a judge disputes the gold here.
    #[must_use]
    pub fn is_disputed(&self) -> bool {
        self.coverage_disputed || self.label_disputed || self.judge_disputed
    }

    /// This cluster's part of source `source` (an index into the slice given).
    #[must_use]
    pub fn source(&self, source: usize) -> Option<&ClusterSource> {
        self.sources.iter().find(|s| s.source == source)
    }

    /// Code points from the first to the last covered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Never true: a cluster holds at least one non-empty span or judge mark.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// What a judge says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeSays {
    /// The judged gold span is right (`label_correct == "true"`).
    LabelCorrect,
    /// The judged gold span is wrong (`label_correct == "false"`): a dispute.
    LabelWrong,
    /// The judge could not tell (`unknown`); shown, never a dispute.
    Unknown,
    /// This text is a hallucination the labels missed (`extra_text`, located).
    Claim,
}

/// A judge's verdict placed in the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeMark {
    /// Index of the verdict in the slice given.
    pub verdict: usize,
    /// Name of the judge.
    pub judge: String,
    /// The judged gold span, or the claimed text (clamped to the answer).
    pub range: Range,
    /// What the judge says about it.
    pub says: JudgeSays,
    /// It disputes the gold: the label is wrong, or the claim is not covered by the gold
    /// within the options.
    pub disputes: bool,
}

/// A judge's claim whose text could not be found in the answer: to place by hand or dismiss.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unplaced {
    /// Index of the verdict in the slice given.
    pub verdict: usize,
    /// Name of the judge.
    pub judge: String,
    /// The text it quoted.
    pub text: String,
}

/// The clusters of one record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    /// The options they were computed with.
    pub options: Options,
    /// Code points in the answer.
    pub output_chars: usize,
    /// Indices of the sources that took part (every source not a judge).
    pub participants: Vec<usize>,
    /// Index of the labels under review (`gold`, else the first `Gold` source), if any.
    pub gold: Option<usize>,
    /// Clusters by start.
    pub clusters: Vec<Cluster>,
    /// Defective spans, by source and span.
    pub problems: Vec<Problem>,
    /// Names of the judges whose verdicts were given, in order of first appearance.
    pub judges: Vec<String>,
    /// Verdicts saying a gold label is wrong (also those about a record without labels, which
    /// have no mark).
    pub judge_disputes: usize,
    /// Claims that could not be located.
    pub unplaced: Vec<Unplaced>,
}

impl Disagreement {
    /// Clusters in dispute, with their indices.
    pub fn disputed(&self) -> impl Iterator<Item = (usize, &Cluster)> {
        self.clusters
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_disputed())
    }

    /// The units a reviewer settles: the clusters in dispute and the unplaced judge claims.
    #[must_use]
    pub fn units(&self) -> usize {
        self.disputed().count() + self.unplaced.len()
    }

    /// Some cluster is in dispute.
    #[must_use]
    pub fn is_disputed(&self) -> bool {
        self.clusters.iter().any(Cluster::is_disputed)
    }

    /// Characters covered by any participating source or judge mark.
    #[must_use]
    pub fn covered_chars(&self) -> usize {
        self.clusters.iter().map(Cluster::len).sum()
    }

    /// Characters the labels under review cover.
    #[must_use]
    pub fn gold_coverage(&self) -> Vec<Range> {
        let Some(g) = self.gold else {
            return Vec::new();
        };
        self.clusters
            .iter()
            .filter_map(|c| c.source(g))
            .flat_map(|s| s.coverage.iter().copied())
            .collect()
    }
}

#[cfg(test)]
mod tests;
