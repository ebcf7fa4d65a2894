//! `validate`'s checks of a Mu-SHROOM line, on borrowed views of the checked fields.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

use crate::formats::validate::check::{boxed, parse, Checker, Facts, ListSpec, Out};
use crate::formats::validate::shape::{Blob, List, Obj, Scalar, SpanItem};
use crate::formats::validate::Kind;

pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Facts {
    let Some(rec) = parse::<Mushroom<'_>>(&mut c.sink, bytes) else {
        return Facts::default();
    };
    let s = &mut c.sink;
    let id = s.req_str(&rec.id, "id", "/id");
    s.blob(rec.model_input, "model_input", false);
    let output = s.req_str(
        &rec.model_output_text,
        "model_output_text",
        "/model_output_text",
    );
    let out = output.map(|o| Out::new(o, "model_output_text"));
    let hard = ListSpec {
        key: "hard_labels",
        ptr: "/hard_labels",
        pairs: true,
        need_text: false,
        need_label: false,
        gold: true,
    };
    c.list(&rec.hard_labels, hard, out.as_ref(), true);
    let soft = ListSpec {
        key: "soft_labels",
        ptr: "/soft_labels",
        pairs: false,
        gold: false,
        ..hard
    };
    c.list(&rec.soft_labels, soft, out.as_ref(), false);
    match &rec.annotations {
        Obj::Ok(anns) => {
            for (name, list) in &anns.0 {
                let key = format!("annotations.{name}");
                let ptr = format!(
                    "/annotations/{}",
                    name.replace('~', "~0").replace('/', "~1")
                );
                let spec = ListSpec {
                    key: &key,
                    ptr: &ptr,
                    pairs: true,
                    gold: false,
                    ..hard
                };
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
    Facts {
        key: boxed(id),
        base_id: None,
        corruption_type: None,
    }
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

/// A Mu-SHROOM line.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Mushroom<'a> {
    #[serde(default, borrow)]
    pub id: Scalar<'a>,
    #[serde(default, borrow)]
    pub model_input: Blob<'a>,
    #[serde(default, borrow)]
    pub model_output_text: Scalar<'a>,
    #[serde(default, borrow)]
    pub hard_labels: List<SpanItem<'a>>,
    #[serde(default, borrow)]
    pub soft_labels: List<SpanItem<'a>>,
    #[serde(default, borrow)]
    pub annotations: Obj<Annotations<'a>>,
}
