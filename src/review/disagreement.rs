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

use std::fmt;

use serde::{Deserialize, Serialize};
use unicode_segmentation::GraphemeCursor;

use super::locate::{self, Located};
use crate::model::offsets::{self, CharMap};
use crate::model::{Record, Source, SourceRole, Span, GOLD};

/// A half-open `[start, end)` range of code points.
pub type Range = (usize, usize);

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

/// Cluster the sources of `record` over its output.
#[must_use]
pub fn cluster_record(record: &Record, options: &Options) -> Disagreement {
    cluster(&record.output, &record.sources, options)
}

/// Cluster the spans of `sources` over `output` (see the module docs).
#[must_use]
pub fn cluster(output: &str, sources: &[Source], options: &Options) -> Disagreement {
    cluster_judged(output, sources, &[], options)
}

/// Cluster the spans of `sources` and the judges' `verdicts` over `output` (see the module
/// docs).
#[must_use]
pub fn cluster_judged(
    output: &str,
    sources: &[Source],
    verdicts: &[JudgeVerdict],
    options: &Options,
) -> Disagreement {
    let participants: Vec<usize> = (0..sources.len())
        .filter(|&i| sources[i].role != SourceRole::Judge)
        .collect();
    let gold = sources
        .iter()
        .position(|s| s.name == GOLD)
        .or_else(|| sources.iter().position(|s| s.role == SourceRole::Gold));
    let any_span =
        !verdicts.is_empty() || participants.iter().any(|&i| !sources[i].spans.is_empty());
    let text = Text::new(output, any_span);
    let mut out = Disagreement {
        options: *options,
        output_chars: text.len,
        participants,
        gold,
        clusters: Vec::new(),
        problems: Vec::new(),
        judges: Vec::new(),
        judge_disputes: 0,
        unplaced: Vec::new(),
    };
    let mut items = usable_spans(sources, &out.participants, &text, &mut out.problems);
    let marks = judge_marks(verdicts, &mut out);
    let first_mark = out.participants.len();
    items.extend(marks.iter().enumerate().map(|(k, m)| Item {
        start: m.range.0,
        end: m.range.1,
        part: first_mark + k,
        span: k,
    }));
    items.sort_unstable();
    let mut i0 = 0;
    while i0 < items.len() {
        let mut end = items[i0].end;
        let mut i1 = i0 + 1;
        while i1 < items.len() && items[i1].start < end {
            end = end.max(items[i1].end);
            i1 += 1;
        }
        let part = ClusterInput {
            items: &items[i0..i1],
            sources,
            participants: &out.participants,
            gold: out.gold,
            marks: &marks,
        };
        out.clusters.push(build_cluster(&part, &text, options));
        i0 = i1;
    }
    out
}

/// Judge marks of `verdicts` (not yet knowing whether they dispute); judge names, dispute
/// counts and unplaced claims recorded in `out`.
fn judge_marks(verdicts: &[JudgeVerdict], out: &mut Disagreement) -> Vec<JudgeMark> {
    let n = out.output_chars;
    let mut marks = Vec::new();
    for (k, v) in verdicts.iter().enumerate() {
        if !out.judges.contains(&v.source) {
            out.judges.push(v.source.clone());
        }
        let mark = |range, says| JudgeMark {
            verdict: k,
            judge: v.source.clone(),
            range,
            says,
            disputes: says == JudgeSays::LabelWrong,
        };
        let says = match v.label_correct {
            Some(true) => JudgeSays::LabelCorrect,
            Some(false) => JudgeSays::LabelWrong,
            None => JudgeSays::Unknown,
        };
        if says == JudgeSays::LabelWrong {
            out.judge_disputes += 1;
        }
        if let Some(g) = v.gold_range(n) {
            marks.push(mark(g, says));
        }
        if let Some(claim) = &v.extra {
            match claim.range(n) {
                Some(r) => marks.push(mark(r, JudgeSays::Claim)),
                None => out.unplaced.push(Unplaced {
                    verdict: k,
                    judge: v.source.clone(),
                    text: claim.text.clone(),
                }),
            }
        }
    }
    marks
}

/// A span as clustering uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Item {
    start: usize,
    end: usize,
    /// Position in `participants`; from `participants.len()` on, judge mark `part − len`.
    part: usize,
    /// Index of the span in its source (of the mark, for marks).
    span: usize,
}

/// The usable spans of the participants (unsorted); defects reported in `problems`.
fn usable_spans(
    sources: &[Source],
    participants: &[usize],
    text: &Text,
    problems: &mut Vec<Problem>,
) -> Vec<Item> {
    let n = text.len;
    let mut items = Vec::new();
    for (part, &si) in participants.iter().enumerate() {
        for (span, s) in sources[si].spans.iter().enumerate() {
            let problem = |kind, used| Problem {
                source: si,
                source_name: sources[si].name.clone(),
                span,
                start: s.start,
                end: s.end,
                kind,
                used,
                output_chars: n,
            };
            let used = match s.start.cmp(&s.end) {
                std::cmp::Ordering::Equal => {
                    problems.push(problem(ProblemKind::Empty, None));
                    continue;
                }
                std::cmp::Ordering::Greater => {
                    problems.push(problem(ProblemKind::Reversed, None));
                    continue;
                }
                std::cmp::Ordering::Less if s.end <= n => (s.start, s.end),
                std::cmp::Ordering::Less => {
                    let used = (s.start < n).then_some((s.start, n));
                    problems.push(problem(ProblemKind::PastEnd, used));
                    match used {
                        Some(u) => u,
                        None => continue,
                    }
                }
            };
            if text.splits_character(used.0) || text.splits_character(used.1) {
                problems.push(problem(ProblemKind::SplitsCharacter, Some(used)));
            }
            items.push(Item {
                start: used.0,
                end: used.1,
                part,
                span,
            });
        }
    }
    items
}

/// One cluster's spans and marks, with what is needed to read them.
struct ClusterInput<'s> {
    items: &'s [Item],
    sources: &'s [Source],
    participants: &'s [usize],
    gold: Option<usize>,
    marks: &'s [JudgeMark],
}

fn build_cluster(input: &ClusterInput, text: &Text, options: &Options) -> Cluster {
    let mut parts: Vec<ClusterSource> = input
        .participants
        .iter()
        .map(|&source| ClusterSource {
            source,
            spans: Vec::new(),
            coverage: Vec::new(),
            labels: Vec::new(),
        })
        .collect();
    let mut judges = Vec::new();
    for it in input.items {
        let Some(p) = parts.get_mut(it.part) else {
            judges.extend(input.marks.get(it.span).cloned());
            continue;
        };
        p.spans.push(it.span);
        push_merged(&mut p.coverage, (it.start, it.end));
        let label = &input.sources[p.source].spans[it.span].label;
        if !label.is_empty() && !p.labels.contains(label) {
            p.labels.push(label.clone());
        }
    }
    for p in &mut parts {
        p.labels.sort_unstable();
    }
    let mut pairs = Vec::with_capacity(parts.len() * parts.len().saturating_sub(1) / 2);
    for (i, a) in parts.iter().enumerate() {
        for b in &parts[i + 1..] {
            let (differing, coverage_agrees) = compare(&a.coverage, &b.coverage, text, options);
            let labels_agree = !options.compare_labels
                || a.labels.is_empty()
                || b.labels.is_empty()
                || a.labels == b.labels;
            pairs.push(PairDiff {
                a: a.source,
                b: b.source,
                differing,
                coverage_agrees,
                labels_agree,
            });
        }
    }
    let start = input.items.iter().map(|i| i.start).min().unwrap_or(0);
    let end = input.items.iter().map(|i| i.end).max().unwrap_or(start);
    let gold: &[Range] = input
        .gold
        .and_then(|g| parts.iter().find(|p| p.source == g))
        .map_or(&[], |p| p.coverage.as_slice());
    let mut judged = Vec::new();
    for m in &mut judges {
        match m.says {
            JudgeSays::LabelWrong => judged.push(m.range),
            JudgeSays::Claim => {
                m.disputes = !covers(gold, m.range, text, options);
                if m.disputes {
                    judged.extend(subtract(m.range, gold));
                }
            }
            JudgeSays::LabelCorrect | JudgeSays::Unknown => {}
        }
    }
    let coverage_disputed = pairs.iter().any(|p| !p.coverage_agrees);
    let label_disputed = pairs.iter().any(|p| !p.labels_agree);
    let judge_disputed = judges.iter().any(|m| m.disputes);
    let disputed_ranges = if label_disputed {
        vec![(start, end)]
    } else {
        let mut v = if coverage_disputed {
            not_unanimous(&parts)
        } else {
            Vec::new()
        };
        v.extend(judged);
        merge(v)
    };
    Cluster {
        start,
        end,
        sources: parts,
        pairs,
        coverage_disputed,
        label_disputed,
        judges,
        judge_disputed,
        disputed_ranges,
    }
}

/// `cover` (sorted, disjoint) covers `r` within the options.
fn covers(cover: &[Range], r: Range, text: &Text, options: &Options) -> bool {
    compare(&intersect(cover, &[r]), &[r], text, options).1
}

/// Append `r` to sorted intervals, merging when it overlaps or touches the last one.
fn push_merged(v: &mut Vec<Range>, r: Range) {
    match v.last_mut() {
        Some(last) if r.0 <= last.1 => last.1 = last.1.max(r.1),
        _ => v.push(r),
    }
}

/// Sort and merge ranges (dropping empty ones).
fn merge(mut v: Vec<Range>) -> Vec<Range> {
    v.retain(|r| r.0 < r.1);
    v.sort_unstable();
    let mut out = Vec::with_capacity(v.len());
    for r in v {
        push_merged(&mut out, r);
    }
    out
}

fn total(v: &[Range]) -> usize {
    v.iter().map(|r| r.1 - r.0).sum()
}

/// Characters some but not all of `parts` cover.
fn not_unanimous(parts: &[ClusterSource]) -> Vec<Range> {
    let mut events: Vec<(usize, isize)> = parts
        .iter()
        .flat_map(|p| p.coverage.iter().flat_map(|&(a, b)| [(a, 1), (b, -1)]))
        .collect();
    events.sort_unstable();
    let all = isize::try_from(parts.len()).unwrap_or(isize::MAX);
    let (mut depth, mut out) = (0isize, Vec::new());
    for w in 0..events.len() {
        depth += events[w].1;
        if let Some(&(next, _)) = events.get(w + 1) {
            if depth > 0 && depth < all && events[w].0 < next {
                push_merged(&mut out, (events[w].0, next));
            }
        }
    }
    out
}

/// Compare two coverages over one cluster: characters exactly one covers, and whether they agree
/// within the options (see the module docs).
fn compare(a: &[Range], b: &[Range], text: &Text, options: &Options) -> (usize, bool) {
    if a == b {
        return (0, true);
    }
    let mut points: Vec<usize> = a.iter().chain(b).flat_map(|&(s, e)| [s, e]).collect();
    points.sort_unstable();
    points.dedup();
    // Segments between consecutive points: (start, end, in a, in b). Both lists are sorted, so
    // one cursor each walks them once.
    let (mut ia, mut ib) = (0, 0);
    let covers = |v: &[Range], i: &mut usize, x: usize| {
        while *i < v.len() && v[*i].1 <= x {
            *i += 1;
        }
        *i < v.len() && v[*i].0 <= x
    };
    let segs: Vec<(usize, usize, bool, bool)> = points
        .windows(2)
        .map(|w| {
            (
                w[0],
                w[1],
                covers(a, &mut ia, w[0]),
                covers(b, &mut ib, w[0]),
            )
        })
        .collect();
    let (mut differing, mut agrees) = (0, true);
    let mut k = 0;
    while k < segs.len() {
        if segs[k].2 == segs[k].3 {
            k += 1;
            continue;
        }
        let first = k;
        while k < segs.len() && segs[k].2 != segs[k].3 {
            k += 1;
        }
        let (rs, re) = (segs[first].0, segs[k - 1].1);
        differing += re - rs;
        let both = |s: Option<&(usize, usize, bool, bool)>| s.is_some_and(|s| s.2 && s.3);
        let touches = both(first.checked_sub(1).and_then(|i| segs.get(i))) || both(segs.get(k));
        let left = if options.ignore_edge_punct {
            text.trim_edge_punct(rs, re)
        } else {
            re - rs
        };
        if left > 0 && !(touches && left <= options.tolerance) {
            agrees = false;
        }
    }
    (differing, agrees)
}

/// Whitespace or punctuation that `--ignore-edge-punct` discounts at span edges: ASCII
/// punctuation, Latin-1 punctuation, the General Punctuation block (’ “ ” – — …), CJK and
/// full-width punctuation (、。「」，：), Arabic and Devanagari sentence marks. All ASCII
/// punctuation counts (`$`, `%` and `*` included); non-ASCII symbols such as `°` or `€` do not.
#[must_use]
pub fn is_edge_punct(c: char) -> bool {
    c.is_whitespace()
        || c.is_ascii_punctuation()
        || matches!(
            c,
            '¡' | '§' | '«' | '¶' | '·' | '»' | '¿'
                | '\u{2010}'..='\u{2027}'
                | '\u{2030}'..='\u{205E}'
                | '\u{3001}'..='\u{3003}'
                | '\u{3008}'..='\u{3011}'
                | '\u{3014}'..='\u{301F}'
                | '\u{FF01}'..='\u{FF0F}'
                | '\u{FF1A}'..='\u{FF20}'
                | '\u{FF3B}'..='\u{FF40}'
                | '\u{FF5B}'..='\u{FF65}'
                | '\u{060C}' | '\u{061B}' | '\u{061F}' | '\u{06D4}'
                | '\u{0964}' | '\u{0965}'
        )
}

/// The answer with a code-point index, for character lookups.
struct Text<'a> {
    s: &'a str,
    map: Option<CharMap>,
    len: usize,
}

impl<'a> Text<'a> {
    /// `indexed`: build the code-point table (only needed when there are spans).
    fn new(s: &'a str, indexed: bool) -> Self {
        if indexed {
            let map = CharMap::new(s);
            let len = map.len_chars();
            Self {
                s,
                map: Some(map),
                len,
            }
        } else {
            Self {
                s,
                map: None,
                len: offsets::char_len(s),
            }
        }
    }

    fn byte(&self, cp: usize) -> Option<usize> {
        match &self.map {
            Some(m) => m.byte_of(cp),
            None => offsets::byte_of(self.s, cp),
        }
    }

    fn char_at(&self, cp: usize) -> Option<char> {
        self.s.get(self.byte(cp)?..)?.chars().next()
    }

    /// Code point `cp` is inside an extended grapheme cluster (not a boundary).
    fn splits_character(&self, cp: usize) -> bool {
        let Some(byte) = self.byte(cp) else {
            return false;
        };
        if byte == 0 || byte >= self.s.len() {
            return false;
        }
        let bytes = self.s.as_bytes();
        let (before, at) = (bytes[byte - 1], bytes[byte]);
        if before.is_ascii() && at.is_ascii() {
            return before == b'\r' && at == b'\n';
        }
        let mut cursor = GraphemeCursor::new(byte, self.s.len(), true);
        cursor.is_boundary(self.s, 0).is_ok_and(|b| !b)
    }

    /// Length of `[start, end)` once whitespace and punctuation are trimmed from both ends.
    fn trim_edge_punct(&self, mut start: usize, mut end: usize) -> usize {
        let punct = |cp| self.char_at(cp).is_some_and(is_edge_punct);
        while start < end && punct(start) {
            start += 1;
        }
        while end > start && punct(end - 1) {
            end -= 1;
        }
        end - start
    }
}

/// One judge's verdict on a record, ready for scoring: the decisions reader turns
/// `label_correct`, `extra_hallucination` and `extra_text` into this, locating the text with
/// [`Claim::locate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeVerdict {
    /// Name of the judge.
    pub source: String,
    /// The gold span it judged, in code points (`None`: the record had no label).
    pub gold_span: Option<Range>,
    /// `label_correct`: `Some(false)` disputes the gold span; `None` is "unknown".
    pub label_correct: Option<bool>,
    /// A hallucination the judge says the labels missed.
    pub extra: Option<Claim>,
    /// The judge's reasoning, shown to the reviewer.
    pub reasoning: String,
}

/// A judge's claim of a missed hallucination.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// The text the judge quoted.
    pub text: String,
    /// Where it is in the answer; `None`: an unplaced claim, to place by hand or dismiss.
    pub located: Option<Located>,
}

impl Claim {
    /// Locate `text` in `output` at the default similarity threshold.
    #[must_use]
    pub fn locate(output: &str, text: &str) -> Self {
        Self {
            text: text.to_owned(),
            located: locate::locate(output, text, locate::DEFAULT_THRESHOLD),
        }
    }

    /// The located range, clamped to `output_chars` (`None` when unplaced or empty).
    fn range(&self, output_chars: usize) -> Option<Range> {
        let l = self.located?;
        let (a, b) = (l.start.min(output_chars), l.end.min(output_chars));
        (a < b).then_some((a, b))
    }
}

impl JudgeVerdict {
    /// The judged gold span, clamped to the answer.
    fn gold_range(&self, output_chars: usize) -> Option<Range> {
        let (a, b) = self.gold_span?;
        let (a, b) = (a.min(output_chars), b.min(output_chars));
        (a < b).then_some((a, b))
    }
}

/// How disputed a record is; orders the arbitration queue.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RecordScore {
    /// Code points in the answer.
    pub output_chars: usize,
    /// Characters any participating source covers.
    pub covered_chars: usize,
    /// Characters in dispute: the union of the disputed clusters' disputed characters (which
    /// include judge-disputed gold spans and claimed text outside the gold), plus the length of
    /// unplaced claims' text.
    pub disputed_chars: usize,
    /// Clusters.
    pub clusters: usize,
    /// Disputed clusters.
    pub disputed_clusters: usize,
    /// Judge verdicts with `label_correct == false`.
    pub judge_disputes: usize,
    /// Judge claims of missed hallucinations the gold does not cover (placed or not).
    pub judge_claims: usize,
    /// Of those, claims that could not be located.
    pub unplaced_claims: usize,
    /// Defective spans.
    pub problems: usize,
    /// Opinions on the record: participating sources plus distinct judges.
    pub opinions: usize,
    /// `disputed_chars / output_chars`, at most 1 (0 for an empty answer).
    pub share: f64,
}

impl RecordScore {
    /// Something is in dispute: a cluster, a judge's verdict or claim.
    #[must_use]
    pub fn is_disputed(&self) -> bool {
        self.disputed_clusters + self.judge_disputes + self.judge_claims > 0
    }

    /// At least two opinions, nothing in dispute and no defective span: safe to accept
    /// without a look (`--auto-accept-unanimous`). A record with a single opinion is never
    /// unanimous.
    #[must_use]
    pub fn is_unanimous(&self) -> bool {
        self.opinions >= 2 && !self.is_disputed() && self.problems == 0
    }

    /// Queue order: larger share first, then more disputed items, then more disputed characters.
    #[must_use]
    pub fn queue_cmp(&self, other: &Self) -> std::cmp::Ordering {
        let items = |s: &Self| s.disputed_clusters + s.judge_disputes + s.judge_claims;
        other
            .share
            .total_cmp(&self.share)
            .then_with(|| items(other).cmp(&items(self)))
            .then_with(|| other.disputed_chars.cmp(&self.disputed_chars))
    }
}

/// Score one record's disagreement (judges included when it was made by [`cluster_judged`]).
#[must_use]
pub fn score(d: &Disagreement) -> RecordScore {
    let n = d.output_chars;
    let ranges: Vec<Range> = d
        .disputed()
        .flat_map(|(_, c)| c.disputed_ranges.iter().copied())
        .collect();
    let placed_claims = d
        .clusters
        .iter()
        .flat_map(|c| &c.judges)
        .filter(|m| m.says == JudgeSays::Claim && m.disputes)
        .count();
    let unplaced_chars: usize = d.unplaced.iter().map(|u| offsets::char_len(&u.text)).sum();
    let disputed_chars = total(&merge(ranges)) + unplaced_chars;
    #[allow(clippy::cast_precision_loss)] // answer lengths are far below 2^52
    let share = if n == 0 {
        0.0
    } else {
        (disputed_chars as f64 / n as f64).min(1.0)
    };
    RecordScore {
        output_chars: n,
        covered_chars: d.covered_chars(),
        disputed_chars,
        clusters: d.clusters.len(),
        disputed_clusters: d.disputed().count(),
        judge_disputes: d.judge_disputes,
        judge_claims: placed_claims + d.unplaced.len(),
        unplaced_claims: d.unplaced.len(),
        problems: d.problems.len(),
        opinions: d.participants.len() + d.judges.len(),
        share,
    }
}

/// `r` minus the sorted, disjoint `cover`.
fn subtract(r: Range, cover: &[Range]) -> Vec<Range> {
    let (mut at, mut out) = (r.0, Vec::new());
    for &(a, b) in cover {
        if b <= at || a >= r.1 {
            continue;
        }
        if a > at {
            out.push((at, a));
        }
        at = at.max(b);
    }
    if at < r.1 {
        out.push((at, r.1));
    }
    out
}

/// Indices of the disputed records, most disputed first (`--queue disputed`); ties keep
/// their order.
#[must_use]
pub fn disputed_queue(scores: &[RecordScore]) -> Vec<usize> {
    let mut q: Vec<usize> = (0..scores.len())
        .filter(|&i| scores[i].is_disputed())
        .collect();
    q.sort_by(|&a, &b| scores[a].queue_cmp(&scores[b]));
    q
}

/// Indices of the unanimous records (`--auto-accept-unanimous`).
#[must_use]
pub fn unanimous(scores: &[RecordScore]) -> Vec<usize> {
    (0..scores.len())
        .filter(|&i| scores[i].is_unanimous())
        .collect()
}

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
    /// Sources (and judges) whose opinion on the cluster equals the result within tolerance.
    pub upheld: Vec<String>,
    /// Sources (and judges) whose opinion the result contradicts.
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
/// edit — and say whom that upholds. Participating sources are upheld when their coverage of
/// the cluster equals the result within `d.options`, dismissed otherwise (a source with no span
/// in the cluster is upheld only when the result is empty there too). A judge with marks in the
/// cluster is upheld when the result agrees with every one of them — a correct label still
/// covered, a wrong label no longer covered, a claim covered — and dismissed otherwise
/// (`unknown` verdicts count for neither). `None` when the cluster does not exist.
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
    let coverage = merge(
        spans
            .iter()
            .map(|s| (s.start, s.end.min(d.output_chars)))
            .collect(),
    );
    let (mut upheld, mut dismissed) = (Vec::new(), Vec::new());
    for p in &c.sources {
        let agrees = compare(&p.coverage, &coverage, &text, &d.options).1;
        let name = sources[p.source].name.clone();
        if agrees {
            upheld.push(name);
        } else {
            dismissed.push(name);
        }
    }
    let mut judges: Vec<(&str, bool)> = Vec::new();
    for m in &c.judges {
        let covered = || covers(&coverage, m.range, &text, &d.options);
        let ok = match m.says {
            JudgeSays::LabelCorrect | JudgeSays::Claim => covered(),
            JudgeSays::LabelWrong => !covered(),
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

/// Intersection of two sorted, disjoint range lists.
fn intersect(a: &[Range], b: &[Range]) -> Vec<Range> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            out.push((lo, hi));
        }
        if a[i].1 <= b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests;
