//! The architecture CONTRIBUTING.md describes, checked on the source tree: imports point down
//! the floors only (model ← review ← formats, store ← tui ← cli), review/ and model/ stay free
//! of storage, terminal and argument crates, and no source file grows past 600 lines.

use std::path::{Path, PathBuf};

/// The floors, lowest first; `formats` and `store` share one and import neither each other.
const FLOORS: [&[&str]; 5] = [
    &["model"],
    &["review"],
    &["formats", "store"],
    &["tui", "judge"],
    &["cli"],
];

/// Crates the pure floors (model, review) must not use.
const IMPURE: [&str; 5] = ["rusqlite", "postgres", "ratatui", "crossterm", "clap"];

/// Lines a source file may hold (test files aside).
const MAX_LINES: usize = 600;

fn floor_of(module: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&module))
}

/// What `text`, the file at `rel` (relative to src/), imports against the rules, one line
/// each: `crate::` paths to a floor not below its own, and impure crates in model/ or review/.
fn wrong_imports(rel: &str, text: &str) -> Vec<String> {
    let top = rel.split('/').next().unwrap_or(rel);
    let Some(own) = floor_of(top.trim_end_matches(".rs")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        // A comment (a doc link, a note after the code) is not an import.
        let code = line.split("//").next().unwrap_or(line).trim();
        for (at, _) in code.match_indices("crate::") {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `spanreview_crate::`, not this crate
            }
            let module: String = code[at + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if module == top.trim_end_matches(".rs") {
                continue;
            }
            if floor_of(&module).is_some_and(|f| f >= own) {
                out.push(format!(
                    "{rel}:{}: imports {module}: {}",
                    n + 1,
                    code.trim()
                ));
            }
        }
        if own <= 1 {
            for name in IMPURE {
                let used =
                    code.contains(&format!("{name}::")) || code.contains(&format!("use {name}"));
                if used {
                    out.push(format!("{rel}:{}: uses {name}: {}", n + 1, code.trim()));
                }
            }
        }
    }
    out
}

/// Test files: a module's `tests.rs` or `*_tests.rs`.
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "tests.rs" || name.ends_with("_tests.rs")
}

fn too_long(rel: &str, text: &str) -> Option<String> {
    let n = text.lines().count();
    (!is_test_file(rel) && n > MAX_LINES).then(|| format!("{rel}: {n} lines"))
}

/// Every `.rs` file under `dir`, with its path relative to `root`.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path: PathBuf = entry.expect("entry").path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src");
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&path).expect("source")));
        }
    }
}

/// What `check` finds in the source tree's files (src/, paths relative to it), every line.
fn in_tree<I: IntoIterator<Item = String>>(check: impl Fn(&str, &str) -> I) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    assert!(
        files.len() > 100,
        "the source tree was not found: {}",
        files.len()
    );
    let found: Vec<String> = files
        .iter()
        .flat_map(|(rel, text)| check(rel, text))
        .collect();
    found.join("\n")
}

#[test]
fn imports_point_down_the_floors_only() {
    assert_eq!(in_tree(wrong_imports), "");
}

#[test]
fn no_source_file_is_over_600_lines() {
    assert_eq!(in_tree(too_long), "");
}

#[test]
fn the_checks_catch_what_they_are_for() {
    // An import up, a sibling's import, an impure crate in review/, each named with its line.
    assert_eq!(
        wrong_imports(
            "model/span.rs",
            "//! a [`crate::tui`] link\nuse crate::tui::app::App;"
        ),
        ["model/span.rs:2: imports tui: use crate::tui::app::App;"]
    );
    assert_eq!(
        wrong_imports("store/a.rs", "let f = crate::formats::Format::ALL;"),
        ["store/a.rs:1: imports formats: let f = crate::formats::Format::ALL;"]
    );
    assert_eq!(
        wrong_imports("review/x.rs", "use rusqlite::Connection;"),
        ["review/x.rs:1: uses rusqlite: use rusqlite::Connection;"]
    );
    // Down, within the floor, and from the top (cli, main) are fine; so is a comment.
    assert!(wrong_imports("tui/a.rs", "use crate::store::Store;\nuse crate::tui::x;").is_empty());
    assert!(wrong_imports("cli/a.rs", "use crate::tui::app::App;").is_empty());
    assert!(wrong_imports("main.rs", "use spanreview::cli;").is_empty());
    assert!(wrong_imports("store/a.rs", "use rusqlite::Connection; // crate::tui").is_empty());
    // 601 lines are too many for a source file, not for a test file.
    let long = "x\n".repeat(MAX_LINES + 1);
    assert_eq!(
        too_long("tui/app/a.rs", &long).as_deref(),
        Some("tui/app/a.rs: 601 lines")
    );
    assert_eq!(too_long("tui/app/tests.rs", &long), None);
    assert_eq!(too_long("store/guard_tests.rs", &long), None);
    assert_eq!(too_long("tui/app/a.rs", &"x\n".repeat(MAX_LINES)), None);
}
