//! `validate`'s checks of a Mu-SHROOM line, on borrowed views of the checked fields.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

use crate::formats::validate::check::{parse, Checker, Facts, ListSpec, Out};
use crate::formats::validate::shape::{view, Blob, List, Obj, Scalar, SpanItem};
use crate::formats::validate::Kind;

/// Check one record line (the format's [`crate::formats::FormatSpec::check`]).
pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Option<Facts> {
    let rec = parse::<Mushroom<'_>>(&mut c.sink, bytes)?;
    let s = &mut c.sink;
    let id = s.req_str(&rec.id, "id", "/id");
    s.blob(rec.model_input, "model_input", false);
    let output = s.req_str(
        &rec.model_output_text,
        "model_output_text",
        "/model_output_text",
    );
    let out = output.map(|o| Out::new(o, "model_output_text"));
    let hard = ListSpec::gold("hard_labels", "/hard_labels", false, false).pairs();
    c.list(&rec.hard_labels, hard, out.as_ref(), true);
    let soft = ListSpec::source("soft_labels", "/soft_labels");
    c.list(&rec.soft_labels, soft, out.as_ref(), false);
    match &rec.annotations {
        Obj::Ok(anns) => {
            for (name, list) in &anns.0 {
                let key = format!("annotations.{name}");
                let ptr = format!(
                    "/annotations/{}",
                    name.replace('~', "~0").replace('/', "~1")
                );
                let spec = ListSpec::source(&key, &ptr).pairs();
                c.list(list, spec, out.as_ref(), true);
            }
        }
        Obj::Missing => {}
        Obj::Other(o) => {
            let q = c.sink.quote("/annotations", o);
            c.sink.push(
                Kind::WrongType,
                format!("field \"annotations\" is not an object: {q}"),
            );
        }
    }
    Some(c.facts(id, None))
}

/// Mu-SHROOM's per-annotator spans, in file order.
#[derive(Debug, Default)]
pub(crate) struct Annotations<'a>(pub Vec<(Cow<'a, str>, List<SpanItem<'a>>)>);

struct AnnotationsVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for AnnotationsVisitor<'a> {
    type Value = Annotations<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of span lists")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<Scalar<'a>>()? {
            let k = match k {
                Scalar::Str(k) => k,
                _ => Cow::Borrowed(""),
            };
            out.push((k, map.next_value::<List<SpanItem<'a>>>()?));
        }
        Ok(Annotations(out))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Annotations<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(AnnotationsVisitor(std::marker::PhantomData))
    }
}

view! {
    /// A Mu-SHROOM line.
    Mushroom<'a> {
        id: Scalar<'a>, model_input: Blob<'a>, model_output_text: Scalar<'a>,
        hard_labels: List<SpanItem<'a>>, soft_labels: List<SpanItem<'a>>,
        annotations: Obj<Annotations<'a>>,
    }
}
