//! Clustering: the sweep that groups overlapping spans and judge marks, and the pairwise
//! comparison that says whether a cluster is disputed.

use unicode_segmentation::GraphemeCursor;

use super::judges::judge_marks;
use super::{
    Cluster, ClusterSource, Disagreement, JudgeMark, JudgeSays, JudgeVerdict, Options, PairDiff,
    Problem, ProblemKind, Range,
};
use crate::model::offsets::{self, CharMap};
use crate::model::span::{range_problem_in, RangeProblem};
use crate::model::{gold_index, Record, Source, SourceRole};
use crate::review::ranges::{clamp, intersect, merge, push_merged, subtract};

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
    let gold = gold_index(sources);
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
            let used = match range_problem_in(s.start, s.end, n) {
                None => (s.start, s.end),
                Some(RangeProblem::Empty) => {
                    problems.push(problem(ProblemKind::Empty, None));
                    continue;
                }
                Some(RangeProblem::Reversed) => {
                    problems.push(problem(ProblemKind::Reversed, None));
                    continue;
                }
                Some(RangeProblem::PastEnd { .. }) => {
                    let used = clamp((s.start, s.end), n);
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
pub(super) fn covers(cover: &[Range], r: Range, text: &Text, options: &Options) -> bool {
    compare(&intersect(cover, &[r]), &[r], text, options).1
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
pub(super) fn compare(a: &[Range], b: &[Range], text: &Text, options: &Options) -> (usize, bool) {
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
pub(super) struct Text<'a> {
    s: &'a str,
    map: Option<CharMap>,
    len: usize,
}

impl<'a> Text<'a> {
    /// `indexed`: build the code-point table (only needed when there are spans).
    pub(super) fn new(s: &'a str, indexed: bool) -> Self {
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
