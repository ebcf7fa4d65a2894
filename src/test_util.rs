//! Test helpers shared across modules' tests (compiled for tests only).

use crate::model::{Record, Span};

/// A record of answer `output` with `gold` as its gold spans: no request, no evidence, read from
/// no file, no warnings.
pub(crate) fn gold_record(
    id: &str,
    output: &str,
    corruption_type: Option<&str>,
    gold: Vec<Span>,
) -> Record {
    Record {
        corruption_type: corruption_type.map(str::to_owned),
        ..Record::new(
            id.into(),
            output.into(),
            gold,
            Vec::new(),
            serde_json::Value::Null,
        )
    }
}
