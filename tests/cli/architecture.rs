//! The architecture CONTRIBUTING.md describes, checked on the source tree: imports point down
//! the floors only (model ← review ← formats, store ← export ← tui ← cli), review/ and model/
//! stay free of storage, terminal and argument crates, no source file grows past 600 lines, no
//! function in export/ past 80, and no folder's modules import each other in a circle.

use std::path::{Path, PathBuf};

/// The floors, lowest first; `formats` and `store` share one and import neither each other.
const FLOORS: [&[&str]; 6] = [
    &["model"],
    &["review"],
    &["formats", "store"],
    &["export"],
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

/// Lines a function under src/export/ may span, from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 80;

/// Functions of `text`, the file at `rel`, that span more than [`MAX_FN_LINES`] lines, when
/// the file is under export/ (test files aside): from the line holding `fn` to the first line
/// after it that is only `}` at the `fn` line's indent.
fn long_functions(rel: &str, text: &str) -> Vec<String> {
    if !rel.starts_with("export/") || is_test_file(rel) {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let Some(at) = code.find("fn ") else { continue };
        let head = &code[..at];
        let qualifiers = head
            .split_whitespace()
            .all(|w| w.starts_with("pub") || ["const", "unsafe", "async", "extern"].contains(&w));
        if !qualifiers || (at > 0 && !head.ends_with(' ')) {
            continue;
        }
        let end = code.trim_end();
        if end.ends_with('}') || end.ends_with(';') {
            continue; // one line, or a declaration without a body
        }
        let close = format!("{indent}}}");
        let Some(last) = (i + 1..lines.len()).find(|&j| lines[j].trim_end() == close) else {
            continue;
        };
        let n = last - i + 1;
        if n > MAX_FN_LINES {
            let name: String = code[at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(format!("{rel}:{}: fn {name} is {n} lines", i + 1));
        }
    }
    out
}

/// The module path of the file at `rel` (relative to src/): `a/b.rs` is `a::b`, `a/mod.rs`
/// is `a`, `lib.rs` the crate; a file a `#[path]` attribute names is the module declared there
/// (`paths`, file → module).
fn module_of(rel: &str, paths: &std::collections::HashMap<String, Vec<String>>) -> Vec<String> {
    if let Some(m) = paths.get(rel) {
        return m.clone();
    }
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && !(parts.is_empty() && stem == "lib") {
        parts.push(stem.to_owned());
    }
    parts
}

/// Files that `#[path = "F"] mod N;` in `rel` (module `module`) declares, with their modules.
fn path_attributes(rel: &str, module: &[String], text: &str) -> Vec<(String, Vec<String>)> {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("#[path = \"") else {
            continue;
        };
        let Some(file) = rest.split('"').next() else {
            continue;
        };
        let decl = lines[i + 1..].iter().find(|l| !l.starts_with("#["));
        let Some(name) = decl.and_then(|l| l.split("mod ").nth(1)) else {
            continue;
        };
        let name = name.trim_end_matches(';').trim();
        let path = if dir.is_empty() {
            file.to_owned()
        } else {
            format!("{dir}/{file}")
        };
        let mut m = module.to_vec();
        m.push(name.to_owned());
        out.push((path, m));
    }
    out
}

/// Every path a `use` tree or an expression in `code` starts with `crate::`, `super::` or
/// `self::`, as its segments (`super::{a, b::c}` gives `super::a` and `super::b::c`), with the
/// byte offset it starts at.
fn paths_in(code: &str) -> Vec<(usize, Vec<String>)> {
    fn ident(b: &[u8], i: &mut usize) -> String {
        let start = *i;
        while *i < b.len() && (b[*i].is_ascii_alphanumeric() || b[*i] == b'_') {
            *i += 1;
        }
        String::from_utf8_lossy(&b[start..*i]).into_owned()
    }
    fn blank(b: &[u8], i: &mut usize) {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }
    fn tree(b: &[u8], i: &mut usize, mut path: Vec<String>, out: &mut Vec<Vec<String>>) {
        loop {
            blank(b, i);
            if b.get(*i) == Some(&b'{') {
                *i += 1;
                loop {
                    blank(b, i);
                    if b.get(*i).is_none_or(|&c| c == b'}') {
                        *i += 1;
                        return;
                    }
                    tree(b, i, path.clone(), out);
                    blank(b, i);
                    match b.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b'}') => {
                            *i += 1;
                            return;
                        }
                        _ => return,
                    }
                }
            }
            let seg = ident(b, i);
            if seg.is_empty() {
                out.push(path); // `*`, or the end of the path
                return;
            }
            if seg != "self" || path.is_empty() {
                path.push(seg);
            }
            blank(b, i);
            if b[*i..].starts_with(b"::") {
                *i += 2;
            } else {
                out.push(path);
                return;
            }
        }
    }
    let b = code.as_bytes();
    let mut found = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut paths = Vec::new();
            tree(b, &mut at.clone(), Vec::new(), &mut paths);
            found.extend(paths.into_iter().map(|p| (at, p)));
        }
    }
    found
}

/// Modules `text` (the file of module `module`) declares under `#[cfg(test)]`.
fn test_modules(module: &[String], text: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if *line != "#[cfg(test)]" {
            continue;
        }
        let decl = lines[i + 1..].iter().find(|l| !l.starts_with("#["));
        let Some(rest) = decl.and_then(|l| l.split("mod ").nth(1)) else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.push(module.iter().cloned().chain([name]).collect());
    }
    out
}

/// Import cycles between the modules of one folder (siblings: `a` uses `b`, which uses `a`,
/// directly or through other siblings), one line per cycle with the imports that close it.
/// `files` are the source files, paths relative to src/. Test code (test files, modules
/// declared under `#[cfg(test)]`, a file's inline `mod tests {` to its end) is left out.
fn import_cycles(files: &[(String, String)]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
    let mut paths: HashMap<String, Vec<String>> = HashMap::new();
    for (rel, text) in files {
        let m = module_of(rel, &HashMap::new());
        paths.extend(path_attributes(rel, &m, text));
    }
    let mut tests: Vec<Vec<String>> = Vec::new();
    for (rel, text) in files {
        tests.extend(test_modules(&module_of(rel, &paths), text));
    }
    let is_test = |m: &[String]| tests.iter().any(|t| m.starts_with(t));
    let modules: HashSet<Vec<String>> = files.iter().map(|(r, _)| module_of(r, &paths)).collect();
    // folder → module → (module it uses, where)
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, BTreeMap<String, String>>> =
        BTreeMap::new();
    for (rel, text) in files {
        let module = module_of(rel, &paths);
        if is_test_file(rel) || is_test(&module) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            if line.trim() == "mod tests {" {
                break;
            }
            let code = line.split("//").next().unwrap_or(line);
            if !["crate::", "super::", "self::"]
                .iter()
                .any(|p| code.contains(p))
            {
                continue;
            }
            // A `use` tree may go on over the next lines.
            let rest: String = std::iter::once(code)
                .chain(
                    text.lines()
                        .skip(n + 1)
                        .take(20)
                        .map(|l| l.split("//").next().unwrap_or(l)),
                )
                .collect::<Vec<_>>()
                .join("\n");
            for (at, path) in paths_in(&rest) {
                if at >= code.len() {
                    continue;
                }
                let mut target: Vec<String> = match path.first().map(String::as_str) {
                    Some("crate") => Vec::new(),
                    Some("self") => module.clone(),
                    _ => module.clone(),
                };
                let mut segs = path.iter().peekable();
                if segs.peek().is_some_and(|s| *s == "crate" || *s == "self") {
                    segs.next();
                }
                while segs.peek().is_some_and(|s| *s == "super") {
                    segs.next();
                    target.pop();
                }
                target.extend(segs.cloned());
                let common = module
                    .iter()
                    .zip(&target)
                    .take_while(|(a, b)| a == b)
                    .count();
                if common >= module.len() || common >= target.len() {
                    continue; // the module itself, a parent or a child
                }
                let folder = module[..common].to_vec();
                let sibling: Vec<String> = target[..=common].to_vec();
                if !modules.contains(&sibling) {
                    continue; // an item of the folder's own module
                }
                edges
                    .entry(folder)
                    .or_default()
                    .entry(module[common].clone())
                    .or_default()
                    .entry(target[common].clone())
                    .or_insert_with(|| format!("{rel}:{}", n + 1));
            }
        }
    }
    let mut out = Vec::new();
    for (folder, graph) in &edges {
        let reach = |from: &str| {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.to_owned()];
            while let Some(m) = todo.pop() {
                for next in graph.get(&m).into_iter().flat_map(BTreeMap::keys) {
                    if seen.insert(next.clone()) {
                        todo.push(next.clone());
                    }
                }
            }
            seen
        };
        let mut done: BTreeSet<String> = BTreeSet::new();
        for m in graph.keys() {
            if done.contains(m) {
                continue;
            }
            let from_m = reach(m);
            if !from_m.contains(m) {
                continue;
            }
            let cycle: BTreeSet<String> = from_m
                .into_iter()
                .filter(|o| reach(o).contains(m))
                .collect();
            let mut closing = Vec::new();
            for a in &cycle {
                for (b, at) in graph.get(a).into_iter().flatten() {
                    if cycle.contains(b) {
                        closing.push(format!("{a} → {b} ({at})"));
                    }
                }
            }
            let name = if folder.is_empty() {
                "crate".to_owned()
            } else {
                folder.join("/")
            };
            out.push(format!("{name}: {}", closing.join(", ")));
            done.extend(cycle);
        }
    }
    out
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

/// The source tree's files (src/), paths relative to it, with their text.
fn tree_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    assert!(
        files.len() > 100,
        "the source tree was not found: {}",
        files.len()
    );
    files
}

/// What `check` finds in the source tree's files (src/, paths relative to it), every line.
fn in_tree<I: IntoIterator<Item = String>>(check: impl Fn(&str, &str) -> I) -> String {
    let found: Vec<String> = tree_files()
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
fn no_function_under_export_is_over_80_lines() {
    assert_eq!(in_tree(long_functions), "");
}

#[test]
fn no_folder_has_an_import_cycle() {
    assert_eq!(import_cycles(&tree_files()).join("\n"), "");
}

#[test]
fn the_function_length_check_catches_a_long_function() {
    let body = "    let x = 1;\n".repeat(MAX_FN_LINES - 1);
    let long =
        format!("//! a\n\nimpl S {{\n    pub(super) fn finish(&self) {{\n{body}    }}\n}}\n");
    assert_eq!(
        long_functions("export/sink.rs", &long),
        ["export/sink.rs:4: fn finish is 81 lines"]
    );
    // 80 lines are fine; so is a long function outside export/, in a test file, or a
    // declaration and a one-line function.
    let fine = format!("fn f() {{\n{}}}\n", "    g();\n".repeat(MAX_FN_LINES - 2));
    assert!(long_functions("export/a.rs", &fine).is_empty());
    assert!(long_functions("cli/export.rs", &long).is_empty());
    assert!(long_functions("export/tests.rs", &long).is_empty());
    assert!(long_functions("export/a.rs", "fn f(&self);\npub fn g() { 1 }\n").is_empty());
}

#[test]
fn the_cycle_check_catches_a_cycle() {
    let files = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(r, t)| ((*r).to_owned(), (*t).to_owned()))
            .collect()
    };
    // Two siblings importing each other: a file and a folder's mod.rs, `super::` and
    // `crate::` paths; the comment and the test module do not count.
    let two = files(&[
        ("store/mod.rs", "mod engine;\nmod pg;\n"),
        ("store/engine.rs", "use super::pg::PgConn; // °\n"),
        ("store/pg/mod.rs", "//! [`super::engine`]\nmod value;\n"),
        ("store/pg/value.rs", "use crate::store::engine::Value;\n"),
    ]);
    assert_eq!(
        import_cycles(&two),
        ["store: engine → pg (store/engine.rs:1), pg → engine (store/pg/value.rs:1)"]
    );
    // Three around a circle, one import inside a `use` group over two lines.
    let three = files(&[
        ("export/atomic.rs", "use super::manifest::Manifest;\n"),
        (
            "export/manifest.rs",
            "use super::{\n    cleanup, output::canonical,\n};\n",
        ),
        (
            "export/output.rs",
            "let f = crate::export::atomic::AtomicFile::create(p);\n",
        ),
        ("export/cleanup.rs", "\n"),
    ]);
    assert_eq!(
        import_cycles(&three),
        [
            "export: atomic → manifest (export/atomic.rs:1), manifest → output \
          (export/manifest.rs:1), output → atomic (export/output.rs:1)"
        ]
    );
    // A line, down a tree and its tests are no cycle.
    let fine = files(&[
        ("store/engine.rs", "use super::sql::Value;\n"),
        (
            "store/pg/mod.rs",
            "use super::sql::Row;\nuse self::value::X;\n",
        ),
        ("store/pg/value.rs", "use super::super::sql::Value;\n"),
        (
            "store/sql.rs",
            "fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::super::engine::Conn;\n}\n",
        ),
        ("store/sql_tests.rs", "use super::engine::Conn;\n"),
        (
            "store/mod.rs",
            "mod engine;\nmod pg;\nmod sql;\n#[cfg(test)]\nmod test_db;\n",
        ),
        ("store/test_db.rs", "use super::engine::Conn;\n"),
    ]);
    assert!(
        import_cycles(&fine).is_empty(),
        "{:?}",
        import_cycles(&fine)
    );
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
    // The export layer sits below tui and cli, above formats and store.
    assert_eq!(
        wrong_imports("export/sink.rs", "use crate::cli::to_stderr;"),
        ["export/sink.rs:1: imports cli: use crate::cli::to_stderr;"]
    );
    assert!(wrong_imports("export/a.rs", "use crate::store::Store;").is_empty());
    assert!(wrong_imports("cli/a.rs", "use crate::export::Protected;").is_empty());
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
