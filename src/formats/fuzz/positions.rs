//! Fuzz: a JSON error placed at any member line of a real pretty-printed Label Studio export is
//! told at that line of the file and at its column in code points, whichever task holds it.

use proptest::prelude::*;
use proptest::sample::Index;

use crate::formats::dataset::DataFile;

/// The real export: four tasks, one member a line, emoji on some.
fn export() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/formats/labelstudio/export_sample.json"
    );
    std::fs::read_to_string(path).expect("fixture")
}

/// Put `@` before the `,` ending line `at` (0-based), a string member's line, and check the
/// error names the file's line and the code-point column of the `@`.
fn check(text: &str, at: usize) {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let line = lines[at].clone();
    let column = line.chars().count();
    lines[at] = format!("{}@,", &line[..line.len() - 1]);
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("export.json");
    std::fs::write(&path, lines.join("\n")).expect("write");
    let file = DataFile::open(&path, None, None).expect("open");
    let bad = u32::try_from(at + 1).expect("line");
    let i = (0..file.len())
        .rev()
        .find(|&i| file.line(i) <= bad)
        .expect("a task holds the line");
    let start = file.line(i);
    let e = file.record(i).expect_err("broken").to_string();
    let place = if start == bad {
        format!(" at column {column}")
    } else {
        format!(" at line {bad} column {column}")
    };
    let head = format!("{}:{start}: invalid JSON: ", path.display());
    assert!(
        e.starts_with(&head) && e.ends_with(&place),
        "line {bad} {line:?}: {e}"
    );
    for k in (0..file.len()).filter(|&k| k != i) {
        file.record(k).expect("the other tasks read");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: super::cases(), ..ProptestConfig::default() })]

    #[test]
    fn an_error_on_any_member_line_is_told_at_its_file_line(which in any::<Index>()) {
        let text = export();
        let members: Vec<usize> = text
            .split('\n')
            .enumerate()
            .filter(|(_, l)| l.ends_with("\","))
            .map(|(i, _)| i)
            .collect();
        check(&text, *which.get(&members));
    }
}

#[test]
fn the_emoji_lines_are_among_them() {
    // The lines with emoji before the `,` (task 3's text and output): columns differ from bytes.
    let text = export();
    let emoji: Vec<usize> = text
        .split('\n')
        .enumerate()
        .filter(|(_, l)| l.ends_with("\",") && l.len() != l.chars().count())
        .map(|(i, _)| i)
        .collect();
    assert!(emoji.len() >= 2, "{emoji:?}");
    for at in emoji {
        check(&text, at);
    }
}
