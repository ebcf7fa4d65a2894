use super::*;

/// The code of each region, with its kind and language.
fn shown(text: &str) -> Vec<(Kind, Option<String>, &str)> {
    regions(text)
        .into_iter()
        .map(|r| (r.kind, r.lang, &text[r.start..r.end]))
        .collect()
}

#[test]
fn a_file_section_is_code_in_the_language_of_its_extension() {
    let t = "File: units/convert.py\n```\ndef to_celsius(f):\n\t\"\"\"°F → °C (東京).\"\"\"\n```\n\nReferenced definitions\n```python\ndef round_to(x): ...\n```\n";
    assert_eq!(
        shown(t),
        vec![
            (
                Kind::Code,
                Some("py".to_owned()),
                "def to_celsius(f):\n\t\"\"\"°F → °C (東京).\"\"\"\n"
            ),
            (
                Kind::Code,
                Some("python".to_owned()),
                "def round_to(x): ...\n"
            ),
        ]
    );
}

#[test]
fn an_edit_answer_has_an_old_block_and_a_new_block_of_its_file() {
    let t = "In file units/convert.py, replace:\n```\n\treturn (f - 32) * 5 / 9  # ’°’\n```\nwith:\n```\n\treturn (f - 33) * 5 / 9  # 🙂\n```\n";
    assert_eq!(
        shown(t),
        vec![
            (
                Kind::Old,
                Some("py".to_owned()),
                "\treturn (f - 32) * 5 / 9  # ’°’\n"
            ),
            (
                Kind::New,
                Some("py".to_owned()),
                "\treturn (f - 33) * 5 / 9  # 🙂\n"
            ),
        ]
    );
}

#[test]
fn unified_diffs_are_found_fenced_or_not() {
    let t = "Fix:\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,2 +1,2 @@\n fn f() {\n-    1\n+    2 // °\n}\nThat is all.\n```diff\n@@ -3 +3 @@\n-a\n+b\n```\n";
    let got = shown(t);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, Kind::Diff);
    assert_eq!(got[0].1.as_deref(), Some("rs"));
    // `}` does not go on with a diff: the unfenced one ends before it.
    assert_eq!(
        got[0].2,
        "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,2 +1,2 @@\n fn f() {\n-    1\n+    2 // °\n"
    );
    assert_eq!(got[1], (Kind::Diff, None, "@@ -3 +3 @@\n-a\n+b\n"));
    assert_eq!(diff_line("@@ -3 +3 @@"), DiffLine::Hunk);
    assert_eq!(diff_line("+++ b/x"), DiffLine::Header);
    assert_eq!(diff_line("+b"), DiffLine::Added);
    assert_eq!(diff_line("-a"), DiffLine::Removed);
    assert_eq!(diff_line(" a"), DiffLine::Context);
}

#[test]
fn prose_and_an_unclosed_fence_are_read_as_they_stand() {
    assert!(regions("No code here — 東京 at 25°C.\n--- a rule, not a diff\n").is_empty());
    // An unclosed fence runs to the end (a truncated sample).
    let t = "```js\nconst a = 1;\n";
    assert_eq!(
        shown(t),
        vec![(Kind::Code, Some("js".to_owned()), "const a = 1;\n")]
    );
    // An empty block is no region.
    assert!(regions("```\n```\n").is_empty());
}

#[test]
fn regions_are_found_by_byte() {
    let t = "a\n```\nx\n```\nb\n```\ny\n```\n";
    let r = regions(t);
    assert_eq!(region_at(&r, 0), None);
    assert_eq!(region_at(&r, t.find('x').unwrap_or(0)), Some(0));
    assert_eq!(region_at(&r, t.find('b').unwrap_or(0)), None);
    assert_eq!(region_at(&r, t.find('y').unwrap_or(0)), Some(1));
}

#[test]
fn a_language_is_guessed_from_the_code() {
    assert_eq!(guess("def f(x):\n    return x\n"), Some("py"));
    assert_eq!(guess("pub fn f() -> u8 { 1 }"), Some("rs"));
    assert_eq!(guess("Il fait 25°C à 東京."), None);
}

#[test]
fn a_bare_function_answering_a_code_sample_is_code_in_the_files_language() {
    let a = "def to_kelvin(f):\n\treturn to_kelvin_fast(f) + 273.15  # °K’\n";
    let r = answer_regions(a, Some("py"));
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].start, r[0].end, r[0].kind), (0, a.len(), Kind::Code));
    assert_eq!(r[0].lang.as_deref(), Some("py"));
    // Prose is not made code; an answer's own blocks are kept.
    assert!(answer_regions("Il fait 25°C à 東京.", Some("py")).is_empty());
    let fenced = "Here:\n```rust\nfn f() {}\n```\n";
    assert_eq!(
        answer_regions(fenced, Some("py"))[0].lang.as_deref(),
        Some("rust")
    );
}
