//! Borrowed views of record lines for `validate`: only the fields that are checked are kept,
//! strings are borrowed from the line when they hold no escape, and everything else is skipped
//! with `IgnoredAny`. A field of the wrong type does not fail the parse: it is kept as its kind
//! (`a list`, `a number`, ...) so the checker can report it and go on.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::formats::quote_str;

/// A JSON value: scalars kept, lists and objects only noted.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Scalar<'a> {
    /// The key was absent.
    #[default]
    Missing,
    /// `null`.
    Null,
    /// A string.
    Str(Cow<'a, str>),
    /// A non-negative integer.
    UInt(u64),
    /// A negative integer.
    Int(i64),
    /// A number with a fraction or exponent.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A list (contents skipped).
    List,
    /// An object (contents skipped).
    Object,
}

impl Scalar<'_> {
    /// The kind, for messages.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::Null => "null",
            Self::Str(_) => "a string",
            Self::UInt(_) | Self::Int(_) | Self::Float(_) => "a number",
            Self::Bool(_) => "a boolean",
            Self::List => "a list",
            Self::Object => "an object",
        }
    }

    /// The string, when this is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }

    /// True when the key was absent.
    #[must_use]
    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Missing)
    }

    /// The value as JSON text when it is a scalar (`None` for lists and objects).
    #[must_use]
    pub fn quote(&self) -> Option<String> {
        Some(match self {
            Self::Missing => return None,
            Self::Null => "null".to_owned(),
            Self::Str(s) => quote_str(s),
            Self::UInt(n) => n.to_string(),
            Self::Int(n) => n.to_string(),
            Self::Float(f) => serde_json::Value::from(*f).to_string(),
            Self::Bool(b) => b.to_string(),
            Self::List | Self::Object => return None,
        })
    }
}

struct ScalarVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ScalarVisitor<'a> {
    type Value = Scalar<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::UInt(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(u64::try_from(v).map_or(Scalar::Int(v), Scalar::UInt))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Float(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::List)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Object)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor(std::marker::PhantomData))
    }
}

/// A field kept as its raw JSON text, skipped without unescaping (long strings such as
/// `context`, whose content is not checked).
#[derive(Debug, Default, Clone, Copy)]
pub struct Blob<'a>(pub Option<&'a str>);

impl<'de: 'a, 'a> Deserialize<'de> for Blob<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a serde_json::value::RawValue>::deserialize(d).map(|r| Blob(Some(r.get())))
    }
}

/// An object field read as `T`, or the kind of value found instead.
#[derive(Debug, Default)]
pub enum Obj<T> {
    /// The key was absent.
    #[default]
    Missing,
    /// An object, read.
    Ok(T),
    /// Something else (`null`, a list, ...).
    Other(Scalar<'static>),
}

struct ObjVisitor<T>(std::marker::PhantomData<T>);

/// `s` with its string (if any) owned.
#[must_use]
pub fn owned(s: Scalar<'_>) -> Scalar<'static> {
    other::<serde::de::value::Error>(s).unwrap_or(Scalar::Missing)
}

fn other<'a, E: de::Error>(s: Scalar<'_>) -> Result<Scalar<'a>, E> {
    Ok(match s {
        Scalar::Str(c) => Scalar::Str(Cow::Owned(c.into_owned())),
        Scalar::Missing => Scalar::Missing,
        Scalar::Null => Scalar::Null,
        Scalar::UInt(n) => Scalar::UInt(n),
        Scalar::Int(n) => Scalar::Int(n),
        Scalar::Float(n) => Scalar::Float(n),
        Scalar::Bool(b) => Scalar::Bool(b),
        Scalar::List => Scalar::List,
        Scalar::Object => Scalar::Object,
    })
}

macro_rules! forward_scalars {
    ($wrap:expr) => {
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            other(Scalar::Str(Cow::Borrowed(v))).map($wrap)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            other(Scalar::Str(Cow::Borrowed(v))).map($wrap)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok($wrap(Scalar::UInt(v)))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok($wrap(Scalar::Int(v)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok($wrap(Scalar::Float(v)))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok($wrap(Scalar::Bool(v)))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($wrap(Scalar::Null))
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($wrap(Scalar::Null))
        }
    };
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = Obj<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    forward_scalars!(Obj::Other);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Obj::Other(Scalar::List))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Obj::Ok)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjVisitor(std::marker::PhantomData))
    }
}

/// A list field read as `Vec<T>`, or the kind of value found instead.
#[derive(Debug, Default)]
pub enum List<T> {
    /// The key was absent.
    #[default]
    Missing,
    /// A list, read.
    Ok(Vec<T>),
    /// Something else.
    Other(Scalar<'static>),
}

struct ListVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = List<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    forward_scalars!(List::Other);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Vec::<T>::deserialize(SeqAccessDeserializer::new(seq)).map(List::Ok)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(List::Other(Scalar::Object))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ListVisitor(std::marker::PhantomData))
    }
}

/// Borrowed views of a record line (or of its objects), one struct each: the fields that are
/// checked, each absent-tolerant (`default`) and borrowed from the line.
macro_rules! view {
    ($($(#[$doc:meta])* $name:ident<$lt:lifetime> { $($field:ident: $ty:ty),* $(,)? })*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Default, serde::Deserialize)]
            pub(crate) struct $name<$lt> {
                $(#[serde(default, borrow)] pub $field: $ty,)*
            }
        )*
    };
}
pub(crate) use view;

view! {
    /// The fields of a span object that are checked.
    SpanObj<'a> {
        start: Scalar<'a>, end: Scalar<'a>, text: Scalar<'a>, label: Scalar<'a>,
        category: Scalar<'a>, subcategory: Scalar<'a>,
    }
}

/// One element of a span list: an object, a `[start, end]` pair (Mu-SHROOM), or neither.
#[derive(Debug)]
pub enum SpanItem<'a> {
    /// `{start, end, ...}`.
    Obj(SpanObj<'a>),
    /// `[a, b, ...]`.
    Pair(Vec<Scalar<'a>>),
    /// Anything else.
    Other(Scalar<'static>),
}

struct SpanItemVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for SpanItemVisitor<'a> {
    type Value = SpanItem<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    forward_scalars!(SpanItem::Other);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Vec::<Scalar<'a>>::deserialize(SeqAccessDeserializer::new(seq)).map(SpanItem::Pair)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        SpanObj::deserialize(MapAccessDeserializer::new(map)).map(SpanItem::Obj)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for SpanItem<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SpanItemVisitor(std::marker::PhantomData))
    }
}

/// A field that is a single span object or `null` (`labeled_span`).
#[derive(Debug, Default)]
pub enum OneSpan<'a> {
    /// The key was absent.
    #[default]
    Missing,
    /// `null`.
    Null,
    /// A value.
    Item(SpanItem<'a>),
}

impl<'de: 'a, 'a> Deserialize<'de> for OneSpan<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match SpanItem::deserialize(d)? {
            SpanItem::Other(Scalar::Null) => Ok(Self::Null),
            item => Ok(Self::Item(item)),
        }
    }
}

/// Read a record line as `T`, or the kind of value the line holds instead of an object.
///
/// # Errors
/// The JSON error (invalid JSON, or a duplicate key).
pub fn read<'a, T: Deserialize<'a>>(text: &'a str) -> Result<Obj<T>, serde_json::Error> {
    serde_json::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ragtruth::check::Ragtruth;

    #[test]
    fn reads_checked_fields_and_kinds() {
        let line = r#"{"id":"a","output":"x\u00b0y","hallucination_labels":[{"start":1,"end":2.5,"text":"\u00b0","extra":[1]},[1,2],7],"meta":[1],"query":5}"#;
        let Obj::Ok(r) = read::<Ragtruth<'_>>(line).expect("json") else {
            panic!("object");
        };
        assert_eq!(r.output.as_str(), Some("x°y"));
        assert_eq!(r.query.0, Some("5"));
        assert!(r.context.0.is_none());
        assert!(matches!(r.meta, Obj::Other(Scalar::List)));
        let List::Ok(items) = r.hallucination_labels else {
            panic!("list");
        };
        assert!(matches!(&items[0], SpanItem::Obj(o) if o.end == Scalar::Float(2.5)));
        assert!(matches!(&items[1], SpanItem::Pair(p) if p.len() == 2));
        assert!(matches!(&items[2], SpanItem::Other(Scalar::UInt(7))));
    }

    #[test]
    fn non_object_line_is_noted() {
        assert!(matches!(
            read::<Ragtruth<'_>>("[1, 2]").expect("json"),
            Obj::Other(Scalar::List)
        ));
        assert!(read::<Ragtruth<'_>>("{\"id\": ").is_err());
    }
}
