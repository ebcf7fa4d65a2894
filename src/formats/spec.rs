//! What an input format is: a [`FormatSpec`] table, one per format module. The generic code
//! (datasets, `validate`, `--judge` files, the span reader, export) reaches a format only through
//! it, so all a format knows lives in its own module (CONTRIBUTING.md, "Adding a format").

use std::path::Path;

use serde_json::{Map, Value};

pub use super::dataset::id_member;
use super::validate::check::{Checker, Facts};
use crate::model::{Record, SourceRole, Span};

/// One input schema: how to recognise, read, check and write it, and what it means as a source.
/// Each format module has one (`SPEC`); every field is required, so a new format cannot forget
/// one (the compiler names what is missing).
#[derive(Debug)]
pub struct FormatSpec {
    /// Name on the command line and in the store (the `Format` variant in kebab case).
    pub name: &'static str,
    /// True when a record (a JSON object) has this format's keys. Formats are tried in registry
    /// order; the first that fits wins.
    pub detect: fn(&Map<String, Value>) -> bool,
    /// The keys `detect` looks for, for the message when no format fits.
    pub detect_keys: &'static str,
    /// The id of a record line, read without building the record (the review queue,
    /// navigation, joins): [`id_member`] where the id is the line's string `id` member; a
    /// format whose id is elsewhere, or derived, reads it from the parsed line
    /// ([`id_of_object`]). `None` when the line has none (the caller words the problem).
    pub record_id: fn(&[u8]) -> Option<String>,
    /// True when records carry their own answer text (so the file can lead a join).
    pub has_output: bool,
    /// The name of the non-gold source a file at this path contributes, when none is given.
    pub default_source: fn(&Path) -> String,
    /// Parse one record; the `&str` names the non-gold source the file contributes. The error
    /// quotes the missing or mistyped field.
    pub parse: fn(Value, &str) -> Result<Record, String>,
    /// Write one record back: the record as read with its gold spans replaced and, when given
    /// and the format has one, its type set. Every other field passes through unchanged, key
    /// order included.
    pub write: fn(&Value, &[Span], Option<&str>) -> Value,
    /// The list of gold spans `parse` reads and `write` replaces, when the gold is a list (the
    /// parser skips an unreadable item with a warning starting `<key>[<i>]`; the span reader
    /// skips the list in joined files, whose gold a join drops).
    pub gold_list: Option<&'static str>,
    /// True when gold spans carry a label (`validate` requires one), so an exported span
    /// without one is worth a warning.
    pub labels_required: bool,
    /// Why span labels are not written back, when they are not (a relabel is then lost).
    pub labels_not_written: Option<&'static str>,
    /// A built-in label set (`LabelSet::builtin`) that `validate` accepts beside the given one.
    pub builtin_labels: Option<&'static str>,
    /// `validate`'s checks of one record line, on borrowed views of the line (the hot path:
    /// only the checked fields are parsed); `None` when the line could not be read (the
    /// problem is already told).
    pub(crate) check: fn(&mut Checker<'_>, &[u8]) -> Option<Facts>,
    /// The role of the source a `--judge` file of this format contributes under its own name:
    /// `Annotator` means the file's gold is its opinion (other sources become `NAME/<source>`);
    /// `Detector` and `Judge` files give their non-gold sources and drop their gold. Export
    /// also reads it: a second `Annotator` file of the records' format loses its gold in a join.
    pub judge_role: SourceRole,
    /// True when the span reader (`judges::SpanReader`) reads records as the full reader
    /// does: explicit ids, one line per id, nothing it skips needed for the id.
    pub skimmable: bool,
    /// Top-level fields the span reader steps over: what clustering does not read (evidence,
    /// request, metadata, raw judge output).
    pub skim_skips: &'static [&'static str],
    /// The span reader's borrowing reader of a line, where the format has one: the record
    /// [`FormatSpec::parse`] gives, its id, answer, type and spans, but no raw value, span
    /// objects, request or evidence (the `&str` names the source, the `bool` says the file is
    /// joined: no gold spans); `None` for a line it leaves to the full reader.
    pub lite: Option<LiteReader>,
}

/// A format's borrowing reader of a line: the line, the source it names, whether the file is
/// joined ([`FormatSpec::lite`]).
pub type LiteReader = fn(&[u8], &str, bool) -> Option<Record>;

/// The id that `read` finds in a line holding one JSON object, for a [`FormatSpec::record_id`]
/// that needs the parsed line; `None` when the line is not one or `read` finds none.
#[must_use]
pub fn id_of_object(
    bytes: &[u8],
    read: fn(&Map<String, Value>) -> Result<String, String>,
) -> Option<String> {
    let value: Value = serde_json::from_slice(bytes).ok()?;
    read(value.as_object()?).ok()
}

/// The file's stem, the source name of formats that have no better one.
#[must_use]
pub fn stem_source(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("source")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;
    use serde_json::json;

    use crate::formats::Format;
    use crate::model::Span;

    fn sample(f: Format) -> serde_json::Value {
        serde_json::from_str(f.sample()).expect("sample")
    }

    #[test]
    fn names_are_the_command_line_names() {
        for f in Format::ALL {
            let clap = f.to_possible_value().expect("value");
            assert_eq!(f.name(), clap.get_name());
        }
        assert_eq!(Format::ALL, Format::value_variants());
    }

    #[test]
    fn each_format_detects_its_own_records_first() {
        for &f in Format::ALL {
            assert_eq!(Format::detect(&sample(f)), Some(f), "{}", f.name());
        }
        // Both Mu-SHROOM's and LettuceDetect's keys: Mu-SHROOM, as before the registry.
        let both = json!({"model_output_text": "x", "answer": "x", "labels": []});
        assert_eq!(Format::detect(&both), Some(Format::Mushroom));
        assert_eq!(Format::detect(&json!({"id": "a"})), None);
        let keys: Vec<&str> = Format::ALL.iter().map(|f| f.spec().detect_keys).collect();
        assert_eq!(
            Format::undetected(),
            format!("no known field ({})", keys.join(", "))
        );
    }

    #[test]
    fn the_id_reader_reads_the_id_the_parser_gives() {
        for &f in Format::ALL {
            let rec = f.parse(sample(f), "det").expect("parse");
            let read = (f.spec().record_id)(f.sample().as_bytes());
            assert_eq!(read.as_deref(), Some(rec.id.as_str()), "{}", f.name());
        }
    }

    #[test]
    fn gold_list_names_the_list_the_parser_reads_and_the_writer_replaces() {
        for &f in Format::ALL {
            let rec = f.parse(sample(f), "det").expect("parse");
            let want = usize::from(f.spec().gold_list.is_some());
            assert_eq!(
                f.unreadable_labels(&rec),
                want,
                "{}: {:?}",
                f.name(),
                rec.warnings
            );
            let Some(list) = f.spec().gold_list else {
                continue;
            };
            let gold = [Span::new(&rec.output, 5, 7, "contradiction")];
            let written = f.write(&rec.raw, &gold, None);
            assert_eq!(
                written[list].as_array().map(Vec::len),
                Some(1),
                "{}",
                f.name()
            );
            let again = f.parse(written, "det").expect("read back");
            assert_eq!(again.gold_spans()[0].text, "東京", "{}", f.name());
        }
    }

    #[test]
    fn unlabeled_spans_count_only_where_labels_are_required() {
        let spans = [Span::new("ab", 0, 1, ""), Span::new("ab", 1, 2, "x")];
        for &f in Format::ALL {
            let want = usize::from(f.spec().labels_required);
            assert_eq!(f.unlabeled(&spans).count(), want, "{}", f.name());
        }
    }
}
