//! Which spans a converted record carries, and which original record they go onto.
//!
//! The spans are the gold, or the source `--source` names. A Label Studio task converted to
//! another format has a gold only once spanreview wrote one (the annotation `completed_by:
//! "spanreview"`); until then its one annotator's latest annotation stands, and with no
//! annotation the prediction `gold` (the record's own spans, as `--to label-studio` wrote them).
//! Several annotators and no `--source` is a problem to settle by name, never a guess. A task
//! or JSON_MIN row nobody annotated (and with no `gold` prediction) has nothing to take: its
//! original record is left as it was. JSON_MIN holds one annotation a row, so `--source
//! annotator_<id>` keeps that annotator's rows.

use serde_json::Value;

use crate::formats::labelstudio;
use crate::formats::spans::id_text;
use crate::formats::Format;
use crate::model::{Record, SourceRole, Span};

/// The source Label Studio's reader names the prediction `gold` (`model_version: "gold"`).
const PREDICTED_GOLD: &str = "prediction_gold";

/// The spans `rec` (read as `from`) carries into `to`; `None` when nobody annotated it.
///
/// # Errors
/// The named source is not in the record, or several annotators and no name.
pub fn spans(
    rec: &Record,
    from: Format,
    to: Format,
    source: Option<&str>,
) -> Result<Option<Vec<Span>>, String> {
    if from == Format::LabelStudioMin {
        return Ok(row_spans(rec, source));
    }
    if let Some(name) = source {
        return rec
            .source(name)
            .map(|s| Some(s.spans.clone()))
            .ok_or_else(|| {
                let names: Vec<&str> = rec.sources.iter().map(|s| s.name.as_str()).collect();
                format!(
                    "record {}: no source {name:?} (it has {})",
                    rec.id,
                    names.join(", ")
                )
            });
    }
    if from != Format::LabelStudio
        || to == Format::LabelStudio
        || labelstudio::review_annotation(&rec.raw).is_some()
    {
        return Ok(Some(rec.gold_spans().to_vec()));
    }
    let annotators: Vec<_> = rec
        .sources
        .iter()
        .filter(|s| s.role == SourceRole::Annotator)
        .collect();
    match annotators.as_slice() {
        [one] => Ok(Some(one.spans.clone())),
        [] => Ok(rec.source(PREDICTED_GOLD).map(|s| s.spans.clone())),
        many => {
            let names: Vec<&str> = many.iter().map(|s| s.name.as_str()).collect();
            Err(format!(
                "record {}: annotations of {} annotators ({}); pass --source NAME",
                rec.id,
                many.len(),
                names.join(", ")
            ))
        }
    }
}

/// A JSON_MIN row's regions: `None` for a row with no annotation, or one of an annotator
/// other than `source` (`annotator_<id>`, as the full export names them), when given.
fn row_spans(rec: &Record, source: Option<&str>) -> Option<Vec<Span>> {
    let annotator = rec.raw.get("annotator").and_then(id_text)?;
    if rec.raw.get("annotation_id").is_none_or(Value::is_null) {
        return None;
    }
    match source {
        Some(name) if name != format!("annotator_{annotator}") => None,
        _ => Some(rec.gold_spans().to_vec()),
    }
}

/// `spans` as the spans to write onto a record whose own gold is `original`: a span at the
/// same place with the same label is the original's (its object kept, extra keys and all);
/// any other is new (no object of another format carried over).
#[must_use]
pub fn carry(original: &[Span], spans: &[Span]) -> Vec<Span> {
    let mut used = vec![false; original.len()];
    spans
        .iter()
        .map(|s| {
            let same = |(k, o): &(usize, &Span)| {
                !used[*k] && o.start == s.start && o.end == s.end && o.label == s.label
            };
            if let Some((k, o)) = original.iter().enumerate().find(same) {
                used[k] = true;
                return o.clone();
            }
            let mut fresh = s.clone();
            fresh.raw.clear();
            fresh
        })
        .collect()
}

/// The key a record is matched by: for Label Studio, the task's `data` field `id_field`, by
/// default the first of `id`, `rid`, `record_id` there (JSON_MIN rows: `id_field`, by default
/// the reader's id, since the converter puts the task id in `id`); else the record's id.
#[must_use]
pub fn key(rec: &Record, format: Format, id_field: Option<&str>) -> Option<String> {
    match (format, id_field) {
        (Format::LabelStudio, field) => {
            let data = rec.raw.get("data")?;
            match field {
                Some(f) => data.get(f).and_then(id_text),
                None => ["id", "rid", "record_id"]
                    .iter()
                    .find_map(|k| data.get(*k).and_then(id_text))
                    .or_else(|| Some(rec.id.clone())),
            }
        }
        (Format::LabelStudioMin, Some(f)) => rec.raw.get(f).and_then(id_text),
        _ => Some(rec.id.clone()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn task(annotations: Value) -> Record {
        let t = json!({"id": 4, "data": {"rid": "r1", "id": "d1", "output": "été 東京"},
            "annotations": annotations,
            "predictions": [{"model_version": "gold", "result": [{"type": "labels",
                "value": {"start": 0, "end": 3, "text": "été", "labels": ["contradiction"]}}]}]});
        Format::LabelStudio.parse(t, "x").expect("task")
    }

    fn region(start: usize, end: usize) -> Value {
        json!({"type": "labels", "value": {"start": start, "end": end, "labels": ["overgeneration"]}})
    }

    #[test]
    fn a_label_studio_tasks_spans_are_the_reviewer_then_one_annotator_then_the_gold_prediction() {
        let (ls, rt) = (Format::LabelStudio, Format::Ragtruth);
        let texts = |v: Result<Option<Vec<Span>>, String>| -> Vec<String> {
            let v = v.expect("spans").expect("some");
            v.iter().map(|s| s.text.clone()).collect()
        };
        assert_eq!(texts(spans(&task(json!([])), ls, rt, None)), ["été"]);
        let one = task(json!([{"completed_by": 3, "result": [region(4, 6)]}]));
        assert_eq!(texts(spans(&one, ls, rt, None)), ["東京"]);
        // Label Studio to Label Studio: the gold, which is none yet.
        assert!(texts(spans(&one, ls, ls, None)).is_empty());
        let two = task(json!([{"completed_by": 3, "result": [region(4, 6)]},
                              {"completed_by": 5, "result": []}]));
        let e = spans(&two, ls, rt, None).expect_err("two");
        assert!(
            e.contains("annotations of 2 annotators (annotator_3, annotator_5)"),
            "{e}"
        );
        assert!(texts(spans(&two, ls, rt, Some("annotator_5"))).is_empty());
        let reviewed = task(json!([{"completed_by": 3, "result": [region(4, 6)]},
                                   {"completed_by": "spanreview", "result": []}]));
        assert!(
            texts(spans(&reviewed, ls, rt, None)).is_empty(),
            "dropped all"
        );
        let e = spans(&reviewed, ls, rt, Some("nobody")).expect_err("unknown");
        assert!(e.contains("no source \"nobody\""), "{e}");
        // Nobody annotated and no gold prediction: nothing to take.
        let mut bare = task(json!([])).raw;
        bare["predictions"] = json!([]);
        let bare = Format::LabelStudio.parse(bare, "x").expect("task");
        assert_eq!(spans(&bare, ls, rt, None), Ok(None));
        let min = Format::LabelStudioMin;
        let row =
            json!({"rid": "r", "output": "x", "id": 1, "annotator": null, "annotation_id": null});
        let row = min.parse(row, "x").expect("row");
        assert_eq!(spans(&row, min, rt, None), Ok(None));
        // A JSON_MIN row is one annotator's: --source keeps that annotator's rows.
        let row = json!({"rid": "r", "output": "été", "id": 1, "annotator": "a@b.c", "annotation_id": 4,
                         "label": [{"start": 0, "end": 3, "text": "été", "labels": ["x"]}]});
        let row = min.parse(row, "x").expect("row");
        assert_eq!(texts(spans(&row, min, rt, None)), ["été"]);
        assert_eq!(
            texts(spans(&row, min, rt, Some("annotator_a@b.c"))),
            ["été"]
        );
        assert_eq!(spans(&row, min, rt, Some("annotator_7")), Ok(None));
    }

    /// A cancelled annotation of spanreview's is no gold (the reader leaves it out): the one
    /// annotator's spans stand, as before spanreview wrote any.
    #[test]
    fn a_cancelled_review_is_no_gold() {
        let t = task(
            json!([{"completed_by": "spanreview", "was_cancelled": true, "result": []},
                            {"completed_by": 3, "result": [region(4, 6)]}]),
        );
        let got = spans(&t, Format::LabelStudio, Format::Ragtruth, None).expect("spans");
        let texts: Vec<String> = got.into_iter().flatten().map(|s| s.text).collect();
        assert_eq!(texts, ["東京"]);
    }

    #[test]
    fn keys_follow_the_id_field_in_label_studio_data() {
        let t = task(json!([]));
        assert_eq!(key(&t, Format::LabelStudio, None).as_deref(), Some("d1"));
        assert_eq!(
            key(&t, Format::LabelStudio, Some("rid")).as_deref(),
            Some("r1")
        );
        assert_eq!(key(&t, Format::LabelStudio, Some("nope")), None);
    }

    #[test]
    fn carried_spans_keep_the_originals_objects_and_new_ones_carry_none() {
        let out = "25°C 東京";
        let mut orig = Span::new(out, 0, 4, "contradiction");
        orig.raw = json!({"start": 0, "end": 4, "text": "25°C", "label": "contradiction", "category": "x"})
            .as_object()
            .cloned()
            .expect("obj");
        let mut foreign = Span::new(out, 5, 7, "contradiction");
        foreign.raw.insert("token_start".to_owned(), json!(1));
        let got = carry(
            &[orig.clone()],
            &[Span::new(out, 0, 4, "contradiction"), foreign],
        );
        assert_eq!(got[0].raw, orig.raw);
        assert!(got[1].raw.is_empty());
    }
}
