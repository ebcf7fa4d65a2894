//! Reading a record line for the checks: UTF-8 once, then the plain borrowed parse (a format
//! may instead skim the line and parse the checked members only, as RAGTruth's does).

use super::super::shape::{self, Obj, Scalar};
use super::super::skim;
use super::super::Kind;
use super::Sink;

/// The line as text, or `None` after reporting that it is not UTF-8.
pub(crate) fn utf8<'a>(sink: &mut Sink<'_>, bytes: &'a [u8]) -> Option<&'a str> {
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
pub(crate) fn parse<'a, T: serde::Deserialize<'a>>(
    sink: &mut Sink<'_>,
    bytes: &'a [u8],
) -> Option<T> {
    let text = utf8(sink, bytes)?;
    parse_text(sink, text)
}

pub(crate) fn parse_text<'a, T: serde::Deserialize<'a>>(
    sink: &mut Sink<'_>,
    text: &'a str,
) -> Option<T> {
    if too_deep(sink, text) || refused(sink, text) {
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
            sink.invalid_json(&e);
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

/// True, after reporting it in the record readers' words, when the line is not JSON they
/// read: the borrowed parse steps over unchecked members without reading them, so a number
/// beyond f64 (`1e400`) or a lone surrogate (`"\ud800"`) there would pass it.
fn refused(sink: &mut Sink<'_>, text: &str) -> bool {
    let Err(e) = skim::top(text, "") else {
        return false;
    };
    match serde_json::from_str::<serde_json::Value>(text) {
        Err(e) => sink.invalid_json(&e),
        Ok(_) => sink.push(Kind::InvalidJson, format!("invalid JSON: {}", e.what)),
    }
    true
}

/// A member's value as a [`Scalar`]: lists and objects by their first byte (the skimmer has
/// checked them), scalars parsed.
pub(crate) fn scalar(v: &str) -> Result<Scalar<'_>, serde_json::Error> {
    match v.as_bytes().first() {
        Some(b'[') => Ok(Scalar::List),
        Some(b'{') => Ok(Scalar::Object),
        _ => serde_json::from_str(v),
    }
}
