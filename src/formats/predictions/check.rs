//! `validate`'s checks of a prediction line, on borrowed views of the checked fields.

use crate::formats::validate::check::{boxed, parse, Checker, Facts, ListSpec, Out};
use crate::formats::validate::shape::{List, Scalar, SpanItem};

pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Facts {
    let Some(rec) = parse::<Predictions<'_>>(&mut c.sink, bytes) else {
        return Facts::default();
    };
    let s = &mut c.sink;
    let id = s.req_str(&rec.id, "id", "/id");
    let output = s.req_text(&rec.output, "output", "/output");
    c.corruption_type = s
        .req_str(&rec.corruption_type, "corruption_type", "/corruption_type")
        .map(str::to_owned);
    let out = output.map(|o| Out::new(o, "output"));
    let gold = ListSpec {
        key: "gold_spans",
        ptr: "/gold_spans",
        pairs: false,
        need_text: true,
        need_label: true,
        gold: true,
    };
    let n = c.list(&rec.gold_spans, gold, out.as_ref(), true);
    let pred = ListSpec {
        key: "pred_spans",
        ptr: "/pred_spans",
        need_text: false,
        need_label: false,
        gold: false,
        ..gold
    };
    c.list(&rec.pred_spans, pred, out.as_ref(), true);
    c.check_type("corruption_type", n);
    Facts {
        key: boxed(id),
        base_id: None,
        corruption_type: c.corruption_type.as_deref().map(Box::from),
    }
}

/// A prediction line.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Predictions<'a> {
    #[serde(default, borrow)]
    pub id: Scalar<'a>,
    #[serde(default, borrow)]
    pub output: Scalar<'a>,
    #[serde(default, borrow)]
    pub corruption_type: Scalar<'a>,
    #[serde(default, borrow)]
    pub gold_spans: List<SpanItem<'a>>,
    #[serde(default, borrow)]
    pub pred_spans: List<SpanItem<'a>>,
}
