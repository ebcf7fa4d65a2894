use super::*;

/// The class of the first byte of `needle` in `text`, after colouring all of it.
fn class_of(code: &Code, text: &str, needle: &str) -> Class {
    code.prepare(text, 0, text.len());
    let b = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} in the text"));
    code.class_at(b)
}

const PY: &str = "File: units/convert.py\n```\ndef to_celsius(f):\n\t\"\"\"Fahrenheit → °C.\"\"\"\n\tunit = \"°F (東京 office’s 🙂)\"\n\treturn (f - 32) * 5 / 9  # é\n```\nDone.\n";

#[test]
fn python_is_coloured_by_its_grammar() {
    let code = Code::new(PY);
    assert_eq!(class_of(&code, PY, "def"), Class::Keyword);
    assert_eq!(class_of(&code, PY, "to_celsius"), Class::Name);
    assert_eq!(class_of(&code, PY, "°F"), Class::Str);
    // A docstring is documentation.
    assert_eq!(class_of(&code, PY, "Fahrenheit"), Class::Comment);
    assert_eq!(class_of(&code, PY, "32"), Class::Number);
    assert_eq!(class_of(&code, PY, "# é"), Class::Comment);
    assert_eq!(class_of(&code, PY, "return"), Class::Keyword);
    // Prose around the block is not code.
    assert_eq!(class_of(&code, PY, "File"), Class::Plain);
    assert_eq!(class_of(&code, PY, "Done"), Class::Plain);
    assert_eq!(code.tab(), TAB);
}

#[test]
fn prose_has_no_gutter_and_keeps_its_tabs_escaped() {
    let code = Code::new("Il fait 25°C à 東京.\tVraiment.");
    assert_eq!((code.gutter(), code.tab()), (0, 0));
    assert_eq!(code.class_at(3), Class::Plain);
}

#[test]
fn a_diff_is_coloured_by_its_lines() {
    let t = "```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = '°'\n+a = '’'\n ctx\n```\n";
    let code = Code::new(t);
    assert_eq!(class_of(&code, t, "--- a"), Class::Header);
    assert_eq!(class_of(&code, t, "@@"), Class::Hunk);
    assert_eq!(class_of(&code, t, "-a"), Class::Removed);
    assert_eq!(class_of(&code, t, "+a"), Class::Added);
    assert_eq!(class_of(&code, t, " ctx"), Class::Plain);
    // A diff's lines carry no number.
    assert_eq!(
        code.gutter_at(t.find("@@").unwrap_or(0)),
        Some((Kind::Diff, None))
    );
}

#[test]
fn the_gutter_numbers_lines_and_marks_an_edits_blocks() {
    let t = "In file a.py, replace:\n```\nx = 1\ny = 2\n```\nwith:\n```\nx = 3\n```\n";
    let code = Code::new(t);
    assert_eq!(code.gutter(), 3, "a mark, one digit, a space");
    let at = |s: &str| code.gutter_at(t.find(s).unwrap_or(0));
    assert_eq!(at("x = 1"), Some((Kind::Old, Some(1))));
    assert_eq!(at("y = 2"), Some((Kind::Old, Some(2))));
    assert_eq!(at("x = 3"), Some((Kind::New, Some(1))));
    assert_eq!(at("with:"), None);
    // A row continuing a wrapped line shows no number.
    assert_eq!(
        code.gutter_at(t.find("= 2").unwrap_or(0)),
        Some((Kind::Old, None))
    );
}

/// A Python file of about `kb` KB in one fenced block.
pub(crate) fn big_python(kb: usize) -> String {
    let mut t = String::from("File: pkg/big.py\n```python\n");
    let mut i = 0;
    while t.len() < kb * 1024 {
        t.push_str(&format!(
            "def f{i}(x):\n\t\"\"\"Return x at {i}°C in 東京.\"\"\"\n\treturn x * {i}  # ’\n\n"
        ));
        i += 1;
    }
    t.push_str("```\n");
    t
}

#[test]
fn only_the_lines_drawn_are_coloured_and_a_jump_reads_a_few_lines_above() {
    let t = big_python(100);
    let code = Code::new(&t);
    let lines = t.lines().count();
    code.prepare(&t, 0, 500);
    let first = code.coloured_lines();
    assert!(
        first > 0 && first < 50,
        "{first} lines coloured for a screenful"
    );
    // Drawing the same rows again colours nothing more.
    code.prepare(&t, 0, 500);
    assert_eq!(code.coloured_lines(), first);
    // A screen in the middle colours its own lines and at most RESTART above it.
    let mid = t.len() / 2;
    code.prepare(&t, mid, mid + 500);
    let on_screen = t[mid..mid + 500].matches('\n').count() + 1;
    let more = code.coloured_lines() - first;
    assert!(
        more >= on_screen && more <= on_screen + RESTART + 1,
        "{more} of {lines} lines"
    );
    // Scrolling down a row from there reads on: one line more.
    let next = mid + 500 + t[mid + 500..].find('\n').unwrap_or(0) + 1;
    code.prepare(&t, mid, next + 1);
    assert_eq!(code.coloured_lines() - first, more + 1);
}

#[test]
fn a_jump_colours_as_reading_the_whole_file_does() {
    let t = big_python(30);
    let whole = Code::new(&t);
    whole.prepare(&t, 0, t.len());
    let jumped = Code::new(&t);
    let (a, b) = (t.len() * 3 / 4, t.len() * 3 / 4 + 800);
    jumped.prepare(&t, a, b);
    assert!(jumped.coloured_lines() < whole.coloured_lines() / 2);
    for i in a..b {
        assert_eq!(jumped.class_at(i), whole.class_at(i), "byte {i}");
    }
    let b = t[a..].find("def ").map_or(0, |i| a + i);
    assert_eq!(jumped.class_at(b), Class::Keyword);
}

#[test]
fn colouring_out_of_time_gets_on_a_line_a_call_and_ends_as_colouring_at_once() {
    let t = big_python(40);
    let whole = Code::new(&t);
    assert!(whole.prepare_until(&t, 0, t.len(), None));
    let (a, b) = (t.len() / 2, t.len() / 2 + 1500);
    let once = Code::new(&t);
    once.prepare(&t, a, b);
    // A time already past: each call colours one line more, then says it is done.
    let late = Code::new(&t);
    let past = Some(Instant::now());
    let mut calls = 0;
    let mut before = 0;
    while !late.prepare_until(&t, a, b, past) {
        calls += 1;
        assert!(
            late.coloured_lines() > before,
            "call {calls} coloured nothing"
        );
        before = late.coloured_lines();
        assert!(calls < 1000, "never done");
    }
    assert!(calls >= 5, "{calls} calls for a 1,500-byte screen");
    assert_eq!(late.coloured_lines(), once.coloured_lines());
    for i in a..b {
        assert_eq!(late.class_at(i), once.class_at(i), "byte {i}");
        assert_eq!(late.class_at(i), whole.class_at(i), "byte {i}");
    }
    // Nothing left to colour: done at once, whatever the time.
    assert!(late.prepare_until(&t, a, b, past));
}
