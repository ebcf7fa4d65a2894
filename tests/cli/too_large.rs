//! A record too large to show (issue 22 item 7): the review screen refuses it with its size,
//! before reading it, and goes on to the others; the other subcommands still read it.

use std::io::Write;

use super::terminal::{bin, env, shell_quote, Tmux};

/// A JSONL file whose first record's answer is `mib` MiB of one word with a combining mark
/// (`é` as `e` + U+0301, no break anywhere), its second a short record with `°`.
fn file(dir: &std::path::Path, mib: usize) -> std::path::PathBuf {
    let path = dir.join("big °.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let unit = "e\u{301}";
    let n = (mib << 20) / unit.len() + 1;
    let meta = r#""meta":{"source":"s","base_id":"b","corruption_type":"contradiction","tools":[],"tool_call":{}}"#;
    write!(
        f,
        r#"{{"id":"b__huge","query":"q","context":"c","output":""#
    )
    .expect("write");
    for _ in 0..n {
        f.write_all(unit.as_bytes()).expect("write");
    }
    writeln!(
        f,
        r#"","hallucination_labels":[{{"start":0,"end":2,"text":"e\u0301","label":"contradiction"}}],{meta}}}"#
    )
    .expect("write");
    writeln!(
        f,
        r#"{{"id":"b__small","query":"q","context":"It was 25°C.","output":"It was 30°C in 東京.","hallucination_labels":[{{"start":7,"end":11,"text":"30°C","label":"contradiction"}}],{meta}}}"#
    )
    .expect("write");
    f.flush().expect("flush");
    path
}

#[test]
fn a_record_over_the_limit_is_refused_with_its_size_and_the_next_one_opens() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = file(dir.path(), 33);
    let size = std::fs::read(&path)
        .expect("read")
        .split(|&b| b == b'\n')
        .next()
        .map_or(0, <[u8]>::len);
    assert!(size as u64 > spanreview::tui::SHOW_LIMIT, "{size}");
    // Validate reads it: the limit is the screen's alone.
    let out = std::process::Command::new(bin())
        .args(["validate"])
        .arg(&path)
        .output()
        .expect("validate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let db = dir.path().join("db.sqlite");
    let cmd = format!(
        "{} review {} --db {} --reviewer e2e",
        bin(),
        shell_quote(&path),
        shell_quote(&db)
    );
    let Some(t) = Tmux::start("too-large", &cmd, &env(dir.path())) else {
        return;
    };
    let refused = t.wait_settled("the refusal", |s| s.contains("too large to show"));
    let shown = refused.replace(['\n', '│'], "");
    let grouped = {
        let digits = size.to_string();
        let mut out = String::new();
        for (k, ch) in digits.chars().enumerate() {
            if k > 0 && (digits.len() - k) % 3 == 0 {
                out.push(',');
            }
            out.push(ch);
        }
        out
    };
    assert!(
        shown.contains(&grouped),
        "size {grouped} not shown:\n{refused}"
    );
    t.keys(&["n"]);
    let next = t.wait_settled("the next record", |s| s.contains("東京"));
    assert!(next.contains("30°C"), "{next}");
    t.keys(&["a"]);
    t.wait_settled("saved", |s| s.contains("saved"));
    t.keys(&["q"]);
    let rows = std::process::Command::new(bin())
        .args(["decisions", "--db"])
        .arg(&db)
        .output()
        .expect("decisions");
    let listed = String::from_utf8_lossy(&rows.stdout);
    assert!(listed.contains("small"), "{listed}");
    assert!(!listed.contains("huge"), "{listed}");
}

#[test]
fn a_record_under_the_limit_opens() {
    // The known-good side: 1 MiB of the same word is shown, not refused.
    let dir = tempfile::tempdir().expect("tmp");
    let path = file(dir.path(), 1);
    let db = dir.path().join("db.sqlite");
    let cmd = format!(
        "{} review {} --db {} --reviewer e2e",
        bin(),
        shell_quote(&path),
        shell_quote(&db)
    );
    let Some(t) = Tmux::start("not-too-large", &cmd, &env(dir.path())) else {
        return;
    };
    let s = t.wait_settled("the record", |s| s.contains("Spans"));
    assert!(!s.contains("too large"), "{s}");
    assert!(s.contains("huge"), "{s}");
}
