//! `validate`'s checks of a judge decision line, on borrowed views of the checked fields.

use crate::formats::validate::check::{parse, Checker, Facts, ListSpec};
use crate::formats::validate::shape::{Blob, Obj, OneSpan, Scalar, SpanItem};
use crate::formats::validate::Kind;

pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Facts {
    let Some(rec) = parse::<Decision<'_>>(&mut c.sink, bytes) else {
        return Facts::default();
    };
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
    let spec = ListSpec {
        key: "labeled_span",
        ptr: "/labeled_span",
        pairs: false,
        need_text: true,
        need_label: true,
        gold: true,
    };
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
    Facts {
        key: id.map(|i| format!("{i}{span_key}").into_boxed_str()),
        base_id: None,
        corruption_type: c.corruption_type.as_deref().map(Box::from),
    }
}

/// `judge` of a decision line.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Judge<'a> {
    #[serde(default, borrow)]
    pub label_correct: Scalar<'a>,
    #[serde(default, borrow)]
    pub extra_hallucination: Scalar<'a>,
    #[serde(default, borrow)]
    pub extra_text: Scalar<'a>,
    #[serde(default, borrow)]
    pub reasoning: Scalar<'a>,
    #[serde(default, borrow)]
    pub parse_error: Scalar<'a>,
}

/// A judge decision line.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Decision<'a> {
    #[serde(default, borrow)]
    pub id: Scalar<'a>,
    #[serde(default, borrow)]
    pub corruption_type: Scalar<'a>,
    #[serde(default, borrow)]
    pub labeled_span: OneSpan<'a>,
    #[serde(default, borrow)]
    pub judge: Obj<Judge<'a>>,
    #[serde(default, borrow)]
    pub judge_raw: Blob<'a>,
}
