//! A prediction line read without building its JSON tree, for passes over every record that
//! need only its answer and spans (`compare`): id, answer, type and the two span lists read
//! from the line's own slices ([`crate::formats::lite_spans`]), the gold list stepped over
//! when the file is joined (a join drops it). Any line this reader does not take exactly as
//! [`super::parse`] would gives `None`, and the caller reads it the full way.

use std::borrow::Cow;

use serde_json::Value;

use crate::formats::lite_spans::{slots, spans, string};
use crate::formats::validate::skim;
use crate::model::{Record, Source, SourceRole};

/// The record of the line `bytes` with the predictions as a `Detector` source named
/// `detector`, as [`super::parse`] reads it but with no raw value (`Value::Null`, span objects
/// empty); `joined`: no gold spans. `None` when the line needs the full reader.
#[must_use]
pub fn parse(bytes: &[u8], detector: &str, joined: bool) -> Option<Record> {
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let Ok(skim::Top::Object(members, _)) = skim::top(text, "") else {
        return None;
    };
    let [id, output, kind, gold, pred] = slots(
        &members,
        ["id", "output", "corruption_type", "gold_spans", "pred_spans"],
    )?;
    let corruption_type = match kind {
        None => None,
        Some(t) => serde_json::from_str::<Option<Cow<'_, str>>>(t)
            .ok()?
            .map(Cow::into_owned),
    };
    // Joined, the gold list is stepped over, but a value that is not a list is still the
    // full reader's error.
    let gold = match (joined, gold) {
        (true, Some(g)) if !g.starts_with('[') => return None,
        (true, _) => Vec::new(),
        (false, g) => spans(g)?,
    };
    let predicted = Source::new(detector, SourceRole::Detector, spans(pred)?);
    Some(Record {
        corruption_type,
        ..Record::new(string(id)?, string(output)?, gold, vec![predicted], Value::Null)
    })
}

#[cfg(test)]
mod tests;
