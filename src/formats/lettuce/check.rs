//! `validate`'s checks of a LettuceDetect sample, on borrowed views of the checked fields.

use crate::formats::validate::check::{boxed, parse, Checker, Facts, ListSpec, Out};
use crate::formats::validate::shape::{Blob, List, Scalar, SpanItem};

pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Facts {
    let Some(rec) = parse::<Lettuce<'_>>(&mut c.sink, bytes) else {
        return Facts::default();
    };
    let s = &mut c.sink;
    let id = s.opt_str(&rec.id, "id", "/id");
    s.blob(rec.prompt, "prompt", false);
    let output = s.req_str(&rec.answer, "answer", "/answer");
    let out = output.map(|o| Out::new(o, "answer"));
    let spec = ListSpec {
        key: "labels",
        ptr: "/labels",
        pairs: false,
        need_text: false,
        need_label: true,
        gold: true,
    };
    c.list(&rec.labels, spec, out.as_ref(), true);
    Facts {
        key: boxed(id),
        base_id: None,
        corruption_type: None,
    }
}

/// A LettuceDetect sample.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Lettuce<'a> {
    #[serde(default, borrow)]
    pub id: Scalar<'a>,
    #[serde(default, borrow)]
    pub prompt: Blob<'a>,
    #[serde(default, borrow)]
    pub answer: Scalar<'a>,
    #[serde(default, borrow)]
    pub labels: List<SpanItem<'a>>,
}
