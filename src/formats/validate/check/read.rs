//! Reading a record line for the checks: UTF-8 once, then either the plain borrowed parse or,
//! for RAGTruth-compatible records, the skimmer and a parse of the checked members only.

use super::super::shape::{self, Obj, Scalar};
use super::super::skim;
use super::super::Kind;
use super::Sink;

/// The line as text, or `None` after reporting that it is not UTF-8.
pub(super) fn utf8<'a>(sink: &mut Sink<'_>, bytes: &'a [u8]) -> Option<&'a str> {
    // simdutf8 checks a whole line many times faster than `std::str::from_utf8` on text with
    // many non-ASCII characters; the standard one words the rare error.
    match simdutf8::basic::from_utf8(bytes).map_err(|_| std::str::from_utf8(bytes)) {
        Ok(t) | Err(Ok(t)) => Some(t),
        Err(Err(e)) => {
            sink.push(
                Kind::InvalidJson,
                format!(
                    "invalid JSON: not UTF-8 at byte {} of the record",
                    e.valid_up_to()
                ),
            );
            None
        }
    }
}

/// The line as `T`, or `None` after reporting why not.
pub(super) fn parse<'a, T: serde::Deserialize<'a>>(
    sink: &mut Sink<'_>,
    bytes: &'a [u8],
) -> Option<T> {
    let text = utf8(sink, bytes)?;
    parse_text(sink, text)
}

pub(super) fn parse_text<'a, T: serde::Deserialize<'a>>(
    sink: &mut Sink<'_>,
    text: &'a str,
) -> Option<T> {
    if too_deep(sink, text) {
        return None;
    }
    match shape::read::<T>(text) {
        Ok(Obj::Ok(t)) => Some(t),
        Ok(Obj::Other(s)) => {
            let q = sink.quote("", &s);
            sink.push(Kind::NotObject, format!("record is not a JSON object: {q}"));
            None
        }
        Ok(Obj::Missing) => {
            sink.push(Kind::NotObject, "record is not a JSON object".to_owned());
            None
        }
        Err(e) => {
            sink.push(Kind::InvalidJson, format!("invalid JSON: {e}"));
            None
        }
    }
}

/// True, after reporting it, when the line nests lists and objects deeper than the record
/// readers (`serde_json`) accept: the checks skip the members they do not need without looking
/// at their depth, so such a line would pass here and fail everywhere else. Lines with fewer
/// than that many `[` and `{` are not looked at again.
fn too_deep(sink: &mut Sink<'_>, text: &str) -> bool {
    let opens = memchr::memchr2_iter(b'[', b'{', text.as_bytes()).count();
    if opens < skim::MAX_DEPTH {
        return false;
    }
    match skim::top(text, "") {
        Err(e) if e.what == skim::TOO_DEEP => {
            sink.push(
                Kind::InvalidJson,
                format!(
                    "invalid JSON: {} (lists and objects nested {} deep or more, the record \
                     included) at byte {} of the record: the record readers cannot read it",
                    skim::TOO_DEEP,
                    skim::MAX_DEPTH,
                    e.at
                ),
            );
            true
        }
        _ => false,
    }
}

/// A member's value as a [`Scalar`]: lists and objects by their first byte (the skimmer has
/// checked them), scalars parsed.
fn scalar(v: &str) -> Result<Scalar<'_>, serde_json::Error> {
    match v.as_bytes().first() {
        Some(b'[') => Ok(Scalar::List),
        Some(b'{') => Ok(Scalar::Object),
        _ => serde_json::from_str(v),
    }
}

/// A RAGTruth-compatible record read with the skimmer: the whole line is checked once, long
/// strings (`context`, `query`) and `meta.tools` are never parsed, and the members a check needs
/// are parsed from their own slices. Anything unusual (invalid JSON, not an object, a duplicate
/// key) falls back to the plain parse, which words the problem.
pub(super) fn parse_ragtruth<'a>(
    sink: &mut Sink<'_>,
    bytes: &'a [u8],
) -> Option<shape::Ragtruth<'a>> {
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
) -> Option<shape::Ragtruth<'a>> {
    let mut rec = shape::Ragtruth::default();
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

fn meta_of<'a>(members: &[(&'a str, &'a str)]) -> Option<shape::Meta<'a>> {
    let mut m = shape::Meta::default();
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
