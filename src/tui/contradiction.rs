//! Evidence for a contradiction in the context pane: the span's term hits with the context
//! values it may contradict ([`evidence::rank`]) merged in, and the order `e` visits them.

use super::evidence::{first_best, terms, Folded, Hit, Weight};
use crate::model::offsets::CharMap;
use crate::review::evidence::{self, Reason};

/// Context hits ranked as what a contradiction span contradicts, visited best first by `e`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranked {
    /// Indices into the context hits, best first, with why each is a candidate.
    pub order: Vec<(usize, Reason)>,
    /// Position in `order` of the hit shown, while `e` walks the ranking.
    pub pos: Option<usize>,
}

impl Ranked {
    /// Step to the next ranked candidate: its context hit index and reason, `None` past the
    /// last (the walk then goes on in reading order).
    pub fn step(&mut self) -> Option<(usize, &Reason)> {
        let p = self.pos.map_or(0, |p| p + 1);
        self.pos = (p < self.order.len()).then_some(p);
        self.order.get(p).map(|(i, r)| (*i, r))
    }
}

/// Evidence for a span: the context's hits in text order, the ranked candidates among them and
/// the hit to show first.
#[derive(Debug, Clone, Default)]
pub struct SpanEvidence {
    /// Context hits in text order, never overlapping (as the context pane draws them).
    pub hits: Vec<Hit>,
    /// The candidates for a contradiction, best first.
    pub ranked: Ranked,
    /// The hit shown first.
    pub first: Option<usize>,
}

impl SpanEvidence {
    /// The first `n` context hits `e` shows, in order: the ranked candidates, then on in
    /// reading order from the last one shown (the query's hits, which `e` also visits after
    /// the context's last, left out).
    #[must_use]
    pub fn first_visits(&self, n: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self.ranked.order.iter().map(|o| o.0).take(n).collect();
        let mut next = out.last().map_or(self.first, |&i| Some(i + 1));
        while out.len() < n {
            match next {
                Some(i) if i < self.hits.len() => {
                    if !out.contains(&i) {
                        out.push(i);
                    }
                    next = Some(i + 1);
                }
                _ => break,
            }
        }
        out
    }
}

/// Whether a span's label says it contradicts the context (`contradiction`, RAGTruth's
/// `Evident Conflict`, …).
#[must_use]
pub fn is_contradiction(label: &str) -> bool {
    let l = label.to_lowercase();
    l.contains("contradict") || l.contains("conflict")
}

/// Evidence for the answer's span `[start, end)` (code points) in the pretty-printed
/// `context` (`folded` is it folded): the hits of the span's terms; for a contradiction
/// whose text, numbers and identifiers are not there, the context values it may contradict
/// ([`evidence::rank`]) are added and shown first, best first, in place of the term hits they
/// overlap.
#[must_use]
pub fn for_span(
    (answer, map): (&str, &CharMap),
    (start, end): (usize, usize),
    contradiction: bool,
    context: &str,
    folded: &Folded,
) -> SpanEvidence {
    let text = map.slice(answer, start, end).unwrap_or("");
    let mut hits = folded.find(&terms(text));
    if !contradiction || text.trim().is_empty() || hits.iter().any(|h| h.weight < Weight::Word) {
        let first = first_best(&hits);
        return SpanEvidence {
            hits,
            ranked: Ranked::default(),
            first,
        };
    }
    let cands = match (map.byte_of(start), map.byte_of(end)) {
        (Some(s), Some(e)) => evidence::rank_bytes(answer, s, e, context),
        _ => Vec::new(),
    };
    hits.retain(|h| !cands.iter().any(|c| h.start < c.end && c.start < h.end));
    hits.extend(cands.iter().map(|c| Hit {
        start: c.start,
        end: c.end,
        weight: Weight::Value,
    }));
    hits.sort_by_key(|h| (h.start, h.end));
    let order: Vec<(usize, Reason)> = cands
        .iter()
        .filter_map(|c| {
            let i = hits
                .iter()
                .position(|h| h.start == c.start && h.end == c.end)?;
            Some((i, c.reason.clone()))
        })
        .collect();
    let first = order.first().map(|o| o.0).or_else(|| first_best(&hits));
    SpanEvidence {
        hits,
        ranked: Ranked {
            pos: (!order.is_empty()).then_some(0),
            order,
        },
        first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::evidence::pretty_context;

    #[test]
    fn a_contradiction_absent_from_the_context_shows_its_ranked_candidates_first() {
        let ctx = pretty_context(
            "{\"content\": {\"city\": \"東京\", \"temperature\": \"15°C\", \"note\": \"e\u{301}t\u{e9} 👋\"}}",
        );
        let folded = Folded::new(&ctx);
        let answer = "東京 👋: the temperature is 25°C’s peak";
        let map = CharMap::new(answer);
        let (s, e) = (25, 29);
        assert_eq!(map.slice(answer, s, e), Some("25°C"));
        let ev = for_span((answer, &map), (s, e), true, &ctx, &folded);
        let first = ev.first.expect("a candidate");
        assert_eq!(&ctx[ev.hits[first].start..ev.hits[first].end], "15°C");
        assert_eq!(ev.ranked.order[0].0, first);
        assert!(
            ev.hits.windows(2).all(|w| w[0].end <= w[1].start),
            "text order, disjoint"
        );
        assert_eq!(ev.first_visits(3)[0], first);
        // Not a contradiction, or its text is there: the span's own hits only.
        let plain = for_span((answer, &map), (s, e), false, &ctx, &folded);
        assert!(plain.ranked.order.is_empty() && plain.hits.is_empty());
        let found = for_span((answer, &map), (0, 2), true, &ctx, &folded);
        assert!(found.ranked.order.is_empty());
        assert_eq!(&ctx[found.hits[0].start..found.hits[0].end], "東京");
    }

    #[test]
    fn ranked_steps_best_first_then_stops() {
        let mut r = Ranked {
            order: vec![(4, Reason::Date), (1, Reason::Magnitude)],
            pos: Some(0),
        };
        assert_eq!(r.step(), Some((1, &Reason::Magnitude)));
        assert_eq!(r.step(), None);
        assert_eq!(r.pos, None);
        assert_eq!(
            r.step(),
            Some((4, &Reason::Date)),
            "a new walk starts at the best"
        );
    }
}
