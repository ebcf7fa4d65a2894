//! `validate`'s checks of a judge decision line, on borrowed views of the checked fields.

use crate::formats::validate::check::{parse, Checker, Facts, ListSpec};
use crate::formats::validate::shape::{view, Blob, Obj, OneSpan, Scalar, SpanItem};
use crate::formats::validate::Kind;

/// Check one record line (the format's [`crate::formats::FormatSpec::check`]).
pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Option<Facts> {
    let rec = parse::<Decision<'_>>(&mut c.sink, bytes)?;
    let s = &mut c.sink;
    let id = s.req_str(&rec.id, "id", "/id");
    c.corruption_type = s
        .opt_str(&rec.corruption_type, "corruption_type", "/corruption_type")
        .map(str::to_owned);
    s.blob(rec.judge_raw, "judge_raw", false);
    match &rec.judge {
        Obj::Ok(j) => {
            match &j.label_correct {
                Scalar::Str(v) if matches!(v.as_ref(), "true" | "false" | "unknown") => {}
                Scalar::Missing => s.present(&j.label_correct, "judge.label_correct"),
                other => {
                    let q = s.quote("/judge/label_correct", other);
                    s.push(
                        Kind::BadValue,
                        format!("judge.label_correct is not \"true\", \"false\" or \"unknown\": {q}"),
                    );
                }
            }
            match &j.extra_hallucination {
                Scalar::Bool(_) => {}
                Scalar::Missing => {
                    s.present(&j.extra_hallucination, "judge.extra_hallucination");
                }
                other => {
                    let q = s.quote("/judge/extra_hallucination", other);
                    s.push(
                        Kind::WrongType,
                        format!("field \"judge.extra_hallucination\" is not a boolean: {q}"),
                    );
                }
            }
            s.req_str(&j.extra_text, "judge.extra_text", "/judge/extra_text");
            s.req_str(&j.reasoning, "judge.reasoning", "/judge/reasoning");
            s.opt_str(&j.parse_error, "judge.parse_error", "/judge/parse_error");
        }
        Obj::Missing => s.push(Kind::MissingField, "missing field \"judge\"".to_owned()),
        Obj::Other(o) => {
            let q = s.quote("/judge", o);
            s.push(
                Kind::WrongType,
                format!("field \"judge\" is not an object: {q}"),
            );
        }
    }
    let spec = ListSpec::gold("labeled_span", "/labeled_span", true, true);
    let mut span_key = String::new();
    let n = match &rec.labeled_span {
        OneSpan::Missing => {
            c.sink.push(
                Kind::MissingField,
                "missing field \"labeled_span\"".to_owned(),
            );
            None
        }
        OneSpan::Null => Some(0),
        OneSpan::Item(item) => {
            if let SpanItem::Obj(o) = item {
                span_key = format!(
                    " [{}, {})",
                    o.start.quote().unwrap_or_default(),
                    o.end.quote().unwrap_or_default()
                );
            }
            c.item(item, None, spec, None);
            Some(1)
        }
    };
    c.check_type("corruption_type", n);
    let key = id.map(|i| format!("{i}{span_key}"));
    Some(c.facts(key.as_deref(), None))
}

view! {
    /// `judge` of a decision line.
    Judge<'a> {
        label_correct: Scalar<'a>, extra_hallucination: Scalar<'a>, extra_text: Scalar<'a>,
        reasoning: Scalar<'a>, parse_error: Scalar<'a>,
    }

    /// A judge decision line.
    Decision<'a> {
        id: Scalar<'a>, corruption_type: Scalar<'a>, labeled_span: OneSpan<'a>,
        judge: Obj<Judge<'a>>, judge_raw: Blob<'a>,
    }
}
