//! Test helpers shared across modules' tests (compiled for tests only).

use crate::model::{Record, Source, SourceRole, Span, GOLD};

/// A record of answer `output` with `gold` as its gold spans: no request, no evidence, read from
/// no file, no warnings.
pub(crate) fn gold_record(
    id: &str,
    output: &str,
    corruption_type: Option<&str>,
    gold: Vec<Span>,
) -> Record {
    Record {
        id: id.into(),
        query: String::new(),
        context: String::new(),
        output: output.into(),
        corruption_type: corruption_type.map(str::to_owned),
        sources: vec![Source::new(GOLD, SourceRole::Gold, gold)],
        raw: serde_json::Value::Null,
        warnings: Vec::new(),
    }
}
