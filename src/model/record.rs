//! A record under review: request, evidence, answer and its annotation sources.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::span::Span;

/// What kind of opinion an annotation source holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceRole {
    /// The labels under review (the dataset's own spans).
    Gold,
    /// A detector's predictions.
    Detector,
    /// A human annotator (Mu-SHROOM) or another reviewer.
    Annotator,
    /// An LLM judge's audit.
    Judge,
}

/// Named spans over a record's output: `gold`, a detector, an annotator.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Source name, unique within a record (`gold`, `ensemble`, `annotator_1fbf…`).
    pub name: String,
    /// What this source is.
    pub role: SourceRole,
    /// Its spans, in file order.
    pub spans: Vec<Span>,
}

/// Where a source's spans on one record were read, and the answer text they were made on (by
/// [`answer_hash`]): spans made on another answer text sit at the wrong offsets, so a source
/// whose mark differs from the record's answer is not attached to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerMark {
    /// [`answer_hash`] of the answer text the spans were made on.
    pub hash: String,
    /// The line (1-based) of the file the source's record was read from.
    pub line: usize,
}

/// SHA-256 of an answer text, the first 12 bytes as 24 hex digits (stable: it is stored).
#[must_use]
pub fn answer_hash(output: &str) -> String {
    hex(&Sha256::digest(output.as_bytes())[..12])
}

/// `bytes` as lower-case hex digits, two a byte: how every digest and hash of the crate is
/// spelled (stored hashes, cache file names, content ids).
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        // Writing to a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

impl Source {
    /// A source with the given spans.
    #[must_use]
    pub fn new(name: impl Into<String>, role: SourceRole, spans: Vec<Span>) -> Self {
        Self {
            name: name.into(),
            role,
            spans,
        }
    }
}

/// Name of the source that holds the labels under review.
pub const GOLD: &str = "gold";

/// The type (`corruption_type`) of a record without hallucination: it has no labels.
pub const CLEAN: &str = "clean";

/// Which of `sources` holds the labels under review: the one named [`GOLD`], else the first
/// with role `Gold`. The one rule for the records, the clusters and the arbitration's
/// reviewed gold.
#[must_use]
pub fn gold_index(sources: &[Source]) -> Option<usize> {
    sources
        .iter()
        .position(|s| s.name == GOLD)
        .or_else(|| sources.iter().position(|s| s.role == SourceRole::Gold))
}

/// One record: a user request, the evidence, an answer, and annotation sources over the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Record id (`toolace_train_00212__contradiction`, `val-en-34`).
    pub id: String,
    /// The user request (may be empty when the format has none).
    pub query: String,
    /// The evidence: tool responses, retrieved documents, source code (raw string).
    pub context: String,
    /// The answer the spans index into.
    pub output: String,
    /// `meta.corruption_type` / `corruption_type`, when the format has one.
    pub corruption_type: Option<String>,
    /// Annotation sources; the first with role `Gold` is the one under review.
    pub sources: Vec<Source>,
    /// The record as read from its primary file, for pass-through on export.
    pub raw: Value,
    /// Problems the reader met and worked around (a span with unusable offsets was skipped, say),
    /// each a message quoting the value.
    pub warnings: Vec<String>,
}

impl Record {
    /// A record as a format reads it from the line `raw`: its answer `output`, the gold spans
    /// (the first source, named [`GOLD`]) and then the file's `other` sources; no request,
    /// evidence, type or warnings yet (a format sets those it has by struct update).
    #[must_use]
    pub fn new(
        id: String,
        output: String,
        gold: Vec<Span>,
        other: Vec<Source>,
        raw: Value,
    ) -> Self {
        let mut sources = vec![Source::new(GOLD, SourceRole::Gold, gold)];
        sources.extend(other);
        Self {
            id,
            query: String::new(),
            context: String::new(),
            output,
            corruption_type: None,
            sources,
            raw,
            warnings: Vec::new(),
        }
    }

    /// The source with this name.
    #[must_use]
    pub fn source(&self, name: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.name == name)
    }

    /// Add `source` to the record: its spans go after those of the source of that name when
    /// the record has one (a name is one source however many files or lines give it spans),
    /// else it is added last.
    pub fn add_source(&mut self, source: Source) {
        match self.sources.iter_mut().find(|s| s.name == source.name) {
            Some(existing) => existing.spans.extend(source.spans),
            None => self.sources.push(source),
        }
    }

    /// The labels under review: the `gold` source, or the first source with role `Gold`
    /// ([`gold_index`]).
    #[must_use]
    pub fn gold(&self) -> Option<&Source> {
        gold_index(&self.sources).and_then(|i| self.sources.get(i))
    }

    /// Spans under review (empty when there is no gold source).
    #[must_use]
    pub fn gold_spans(&self) -> &[Span] {
        self.gold().map_or(&[], |s| s.spans.as_slice())
    }

    /// `meta` object of the record, when present.
    #[must_use]
    pub fn meta(&self) -> Option<&Value> {
        self.raw.get("meta")
    }

    /// Hash of the content a decision is made on: id, query, context, output and the gold
    /// spans' offsets and labels. A decision whose hash differs from the record's current one is
    /// stale.
    #[must_use]
    pub fn content_hash(&self) -> String {
        let mut h = Sha256::new();
        for part in [&self.id, &self.query, &self.context, &self.output] {
            h.update(part.len().to_le_bytes());
            h.update(part.as_bytes());
        }
        for s in self.gold_spans() {
            h.update(s.start.to_le_bytes());
            h.update(s.end.to_le_bytes());
            h.update(s.label.len().to_le_bytes());
            h.update(s.label.as_bytes());
        }
        hex(&h.finalize()[..12])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::gold_record;

    fn rec(output: &str) -> Record {
        let gold = vec![Span::new(output, 0, 2, "contradiction")];
        Record {
            query: "q".into(),
            context: "c".into(),
            ..gold_record("r1", output, Some("contradiction"), gold)
        }
    }

    #[test]
    fn a_new_record_has_its_gold_first_then_the_other_sources() {
        let gold = vec![Span::new("25°C 東京", 5, 7, "contradiction")];
        let judge = Source::new("judge", SourceRole::Judge, Vec::new());
        let raw = serde_json::json!({"id": "r1"});
        let rec = Record::new(
            "r1".into(),
            "25°C 東京".into(),
            gold.clone(),
            vec![judge.clone()],
            raw.clone(),
        );
        assert_eq!(
            rec.sources,
            vec![Source::new(GOLD, SourceRole::Gold, gold), judge]
        );
        assert_eq!(rec.gold_spans()[0].text, "東京");
        assert_eq!(
            (rec.id.as_str(), rec.output.as_str(), &rec.raw),
            ("r1", "25°C 東京", &raw)
        );
        assert!(rec.query.is_empty() && rec.context.is_empty() && rec.warnings.is_empty());
        assert_eq!(rec.corruption_type, None);
    }

    #[test]
    fn the_gold_is_the_source_named_gold_else_the_first_of_role_gold() {
        let src = |name: &str, role| Source::new(name, role, Vec::new());
        let det = src("det", SourceRole::Detector);
        let mine = src("mine", SourceRole::Gold);
        assert_eq!(
            gold_index(&[det.clone(), mine.clone(), src(GOLD, SourceRole::Gold)]),
            Some(2)
        );
        assert_eq!(gold_index(&[det.clone(), mine]), Some(1));
        assert_eq!(gold_index(&[det]), None);
    }

    #[test]
    fn a_source_added_under_a_present_name_appends_its_spans() {
        let out = "25°C 東京";
        let mut r = rec(out);
        let one = Span::new(out, 5, 6, "x");
        let two = Span::new(out, 6, 7, "x");
        r.add_source(Source::new("det", SourceRole::Detector, vec![one.clone()]));
        r.add_source(Source::new("det", SourceRole::Judge, vec![two.clone()]));
        assert_eq!(r.sources.len(), 2);
        assert_eq!(
            r.sources[1],
            Source::new("det", SourceRole::Detector, vec![one, two])
        );
    }

    #[test]
    fn hex_spells_two_lower_case_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f, 0xff]), "00ab7fff");
        assert_eq!(hex(&[]), "");
        assert_eq!(answer_hash("25°C 東京").len(), 24);
    }

    #[test]
    fn hash_changes_with_output_and_spans() {
        let a = rec("hello");
        let b = rec("hellO");
        assert_ne!(a.content_hash(), b.content_hash());
        let mut c = rec("hello");
        c.sources[0].spans[0].end = 3;
        assert_ne!(a.content_hash(), c.content_hash());
        assert_eq!(a.content_hash(), rec("hello").content_hash());
    }
}
