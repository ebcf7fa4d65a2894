//! `validate`'s checks of a LettuceDetect sample, on borrowed views of the checked fields.

use crate::formats::validate::check::{parse, Checker, Facts, ListSpec, Out};
use crate::formats::validate::shape::{view, Blob, List, Scalar, SpanItem};

/// Check one record line (the format's [`crate::formats::FormatSpec::check`]).
pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Option<Facts> {
    let rec = parse::<Lettuce<'_>>(&mut c.sink, bytes)?;
    let s = &mut c.sink;
    let id = s.opt_str(&rec.id, "id", "/id");
    s.blob(rec.prompt, "prompt", false);
    let output = s.req_str(&rec.answer, "answer", "/answer");
    let out = output.map(|o| Out::new(o, "answer"));
    let spec = ListSpec::gold("labels", "/labels", false, true);
    c.list(&rec.labels, spec, out.as_ref(), true);
    Some(c.facts(id, None))
}

view! {
    /// A LettuceDetect sample.
    Lettuce<'a> {
        id: Scalar<'a>, prompt: Blob<'a>, answer: Scalar<'a>, labels: List<SpanItem<'a>>,
    }
}
