//! `validate`'s checks of a RAGTruth-compatible record: the line is skimmed once and only the
//! checked members are parsed, into borrowed views (`context`, `query`, `meta.tools` never are).

use crate::formats::validate::check::{Checker, Facts, ListSpec, Out};
use crate::formats::validate::shape::{view, self, Blob, List, Obj, Scalar, SpanItem};
use crate::formats::quote_str;
use crate::formats::validate::Kind;
use crate::formats::validate::check::{parse_text, scalar, utf8, Sink};
use crate::formats::validate::skim;

/// Check one record line (the format's [`crate::formats::FormatSpec::check`]).
pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Option<Facts> {
    let rec = parse_ragtruth(&mut c.sink, bytes)?;
    let s = &mut c.sink;
    let id = s.req_str(&rec.id, "id", "/id");
    s.blob(rec.query, "query", true);
    s.blob(rec.context, "context", true);
    let output = s.req_text(&rec.output, "output", "/output");
    let mut base_id = None;
    match &rec.meta {
        Obj::Ok(m) => {
            s.req_str(&m.source, "meta.source", "/meta/source");
            base_id = s.req_str(&m.base_id, "meta.base_id", "/meta/base_id");
            c.corruption_type = s
                .req_str(
                    &m.corruption_type,
                    "meta.corruption_type",
                    "/meta/corruption_type",
                )
                .map(str::to_owned);
            match &m.tools {
                Scalar::List => {}
                Scalar::Missing => s.present(&m.tools, "meta.tools"),
                other => {
                    let q = s.quote("/meta/tools", other);
                    s.push(
                        Kind::WrongType,
                        format!("field \"meta.tools\" is not a list: {q}"),
                    );
                }
            }
            s.present(&m.tool_call, "meta.tool_call");
        }
        Obj::Missing => s.push(Kind::MissingField, "missing field \"meta\"".to_owned()),
        Obj::Other(o) => {
            let q = s.quote("/meta", o);
            s.push(
                Kind::WrongType,
                format!("field \"meta\" is not an object: {q}"),
            );
        }
    }
    if let (Some(id), Some(base)) = (id, base_id) {
        let belongs = id
            .strip_prefix(base)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("__"));
        if !belongs {
            s.push(
                Kind::IdBaseMismatch,
                format!(
                    "id {} does not belong to meta.base_id {} (ids are <base_id>__<variant>)",
                    quote_str(id),
                    quote_str(base)
                ),
            );
        }
    }
    let out = output.map(|o| Out::new(o, "output"));
    let spec = ListSpec::gold("hallucination_labels", "/hallucination_labels", true, true);
    let n = c.list(&rec.hallucination_labels, spec, out.as_ref(), true);
    c.check_type("meta.corruption_type", n);
    Some(c.facts(id, base_id))
}

view! {
    /// `meta` of a RAGTruth-compatible record.
    Meta<'a> {
        source: Scalar<'a>, base_id: Scalar<'a>, corruption_type: Scalar<'a>, tools: Scalar<'a>,
        tool_call: Scalar<'a>,
    }

    /// A RAGTruth-compatible record.
    Ragtruth<'a> {
        id: Scalar<'a>, query: Blob<'a>, context: Blob<'a>, output: Scalar<'a>,
        hallucination_labels: List<SpanItem<'a>>, meta: Obj<Meta<'a>>,
    }
}

/// A RAGTruth-compatible record read with the skimmer: the whole line is checked once, long
/// strings (`context`, `query`) and `meta.tools` are never parsed, and the members a check needs
/// are parsed from their own slices. Anything unusual (invalid JSON, not an object, a duplicate
/// key) falls back to the plain parse, which words the problem.
fn parse_ragtruth<'a>(
    sink: &mut Sink<'_>,
    bytes: &'a [u8],
) -> Option<Ragtruth<'a>> {
    let text = utf8(sink, bytes)?;
    if let Ok(skim::Top::Object(members, meta)) = skim::top(text, "meta") {
        if let Some(rec) = ragtruth_of(&members, meta.as_deref()) {
            return Some(rec);
        }
    }
    parse_text(sink, text)
}

/// Sets each slot once; `None` on a duplicate key or a member that does not parse.
fn ragtruth_of<'a>(
    members: &[(&'a str, &'a str)],
    meta: Option<&[(&'a str, &'a str)]>,
) -> Option<Ragtruth<'a>> {
    let mut rec = Ragtruth::default();
    let mut seen = 0u8;
    let mut once = |bit: u8| {
        let fresh = seen & bit == 0;
        seen |= bit;
        fresh.then_some(())
    };
    for &(k, v) in members {
        match k {
            "id" => {
                once(1)?;
                rec.id = scalar(v).ok()?;
            }
            "query" => {
                once(2)?;
                rec.query = shape::Blob(Some(v));
            }
            "context" => {
                once(4)?;
                rec.context = shape::Blob(Some(v));
            }
            "output" => {
                once(8)?;
                rec.output = scalar(v).ok()?;
            }
            "hallucination_labels" => {
                once(16)?;
                rec.hallucination_labels = serde_json::from_str(v).ok()?;
            }
            "meta" => {
                once(32)?;
                rec.meta = match meta {
                    Some(m) => Obj::Ok(meta_of(m)?),
                    None => Obj::Other(shape::owned(scalar(v).ok()?)),
                };
            }
            _ => {}
        }
    }
    Some(rec)
}

fn meta_of<'a>(members: &[(&'a str, &'a str)]) -> Option<Meta<'a>> {
    let mut m = Meta::default();
    let mut seen = 0u8;
    for &(k, v) in members {
        let (bit, slot) = match k {
            "source" => (1, &mut m.source),
            "base_id" => (2, &mut m.base_id),
            "corruption_type" => (4, &mut m.corruption_type),
            "tools" => (8, &mut m.tools),
            "tool_call" => (16, &mut m.tool_call),
            _ => continue,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        *slot = scalar(v).ok()?;
    }
    Some(m)
}
