//! The `id` of a line that cannot be read, found leniently, to tell which record it was.

use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};

/// The `id` of a line that cannot be read (invalid JSON: cut short, say), read leniently from
/// its first bytes: the string value of the top-level object's first `id` member, when
/// everything before it is valid JSON. Only for telling which record an unreadable line was
/// (its decisions are then listed as not applied); everything else reads ids strictly, as the
/// format does ([`crate::formats::DataFile::id_of`]).
pub fn lenient_id(bytes: &[u8]) -> Option<String> {
    /// Visits the top-level object's members up to `id`, keeping its value.
    struct FindId<'a>(&'a mut Option<String>);

    impl<'de> Visitor<'de> for FindId<'_> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" {
                    *self.0 = map.next_value::<String>().ok();
                    return Ok(());
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let mut id = None;
    // The rest of the line is not read: the error its end gives is expected.
    let _ = serde_json::Deserializer::from_slice(bytes).deserialize_map(FindId(&mut id));
    id
}

#[cfg(test)]
mod tests {
    use super::lenient_id;

    #[test]
    fn lenient_id_reads_the_id_of_a_line_cut_short() {
        let cases: [(&str, Option<&str>); 7] = [
            (
                r#"{"id": "u02__contradiction", "output": "25°C à 東"#,
                Some("u02__contradiction"),
            ),
            (
                r#"{"meta": {"a": [1, "’"]}, "id": "b\u00e9", "x"#,
                Some("bé"),
            ),
            (r#"{"output": "cut 東京"#, None),
            (r#"{"id": 5, "output": "#, None),
            (r#"{"id": "f0"#, None),
            (r#"[{"id": "x"}]"#, None),
            (r#"{not json"#, None),
        ];
        for (line, want) in cases {
            assert_eq!(lenient_id(line.as_bytes()).as_deref(), want, "{line}");
        }
    }
}
