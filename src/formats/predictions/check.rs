//! `validate`'s checks of a prediction line, on borrowed views of the checked fields.

use crate::formats::validate::check::{parse, Checker, Facts, ListSpec, Out};
use crate::formats::validate::shape::{view, List, Scalar, SpanItem};

/// Check one record line (the format's [`crate::formats::FormatSpec::check`]).
pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Option<Facts> {
    let rec = parse::<Predictions<'_>>(&mut c.sink, bytes)?;
    let s = &mut c.sink;
    let id = s.req_str(&rec.id, "id", "/id");
    let output = s.req_text(&rec.output, "output", "/output");
    c.corruption_type = s
        .req_str(&rec.corruption_type, "corruption_type", "/corruption_type")
        .map(str::to_owned);
    let out = output.map(|o| Out::new(o, "output"));
    let gold = ListSpec::gold("gold_spans", "/gold_spans", true, true);
    let n = c.list(&rec.gold_spans, gold, out.as_ref(), true);
    let pred = ListSpec::source("pred_spans", "/pred_spans");
    c.list(&rec.pred_spans, pred, out.as_ref(), true);
    c.check_type("corruption_type", n);
    Some(c.facts(id, None))
}

view! {
    /// A prediction line.
    Predictions<'a> {
        id: Scalar<'a>, output: Scalar<'a>, corruption_type: Scalar<'a>,
        gold_spans: List<SpanItem<'a>>, pred_spans: List<SpanItem<'a>>,
    }
}
