//! Integration tests: `export --card` beside the report on a rubric-coded review (non-ASCII
//! reasons, a card named with a space): the same per-reason rows as the report, every image a
//! file written beside the card, and a card that is no file path refused before anything is
//! written.

use pulldown_cmark::{Event, Parser, Tag};

use crate::apply_rubric::{coded_lines, RUBRIC};
use crate::common::{bin, fixture};

/// The rows of the reason table that follows `heading` in `md`.
fn reason_rows(md: &str, heading: &str) -> Vec<String> {
    let at = md.find(heading).expect(heading);
    md[at..]
        .lines()
        .skip_while(|l| !l.starts_with("|---"))
        .skip(1)
        .take_while(|l| l.starts_with("| "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_card_counts_reasons_as_the_report_does_and_links_the_charts_it_writes() {
    let dir = tempfile::tempdir().expect("tmp");
    let rubric = dir.path().join("rubric.toml");
    std::fs::write(&rubric, RUBRIC).expect("rubric");
    let d = dir.path().join("d.jsonl");
    let text: String = coded_lines().iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&d, text).expect("decisions");
    let db = dir.path().join("db.sqlite");
    let records = fixture("review/records.jsonl");
    bin()
        .arg("apply")
        .arg(&records)
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(&db)
        .args(["--reviewer", "ana", "--rubric"])
        .arg(&rubric)
        .assert()
        .success();
    let card = dir.path().join("my card.md");
    bin()
        .arg("export")
        .arg(&records)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(dir.path().join("out.jsonl"))
        .arg("--report")
        .arg(dir.path().join("report.md"))
        .arg("--card")
        .arg(&card)
        .arg("--rubric")
        .arg(&rubric)
        .assert()
        .success();
    let md = std::fs::read_to_string(&card).expect("card");
    let report = std::fs::read_to_string(dir.path().join("report.md")).expect("report");
    let rows = reason_rows(&md, "### Decisions per reason");
    assert!(rows.iter().any(|r| r.contains("`V1`")), "{md}");
    assert_eq!(rows, reason_rows(&report, "## Decisions per reason"));
    let images: Vec<String> = Parser::new(&md)
        .filter_map(|e| match e {
            Event::Start(Tag::Image { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        })
        .collect();
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    written.sort();
    let mut linked = images.clone();
    linked.sort();
    assert!(!images.is_empty(), "{md}");
    assert_eq!(linked, written, "{md}");
    assert!(
        images.iter().all(|i| i.starts_with("my card-")),
        "{images:?}"
    );
    for svg in &written {
        rendered_by_a_real_renderer(&dir.path().join(svg));
    }
    // One reviewer: no agreement to chart, and the card says so.
    assert!(!written.contains(&"my card-agreement.svg".to_owned()));
    assert!(
        md.contains("No example was reviewed by two reviewers."),
        "{md}"
    );
}

#[test]
fn a_card_that_is_no_file_path_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("out.jsonl");
    let db = dir.path().join("db.sqlite");
    let d = dir.path().join("d.jsonl");
    std::fs::write(&d, format!("{}\n", coded_lines()[0])).expect("decisions");
    bin()
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(&db)
        .args(["--reviewer", "ana"])
        .assert()
        .success();
    let got = bin()
        .arg("export")
        .arg(fixture("review/records.jsonl"))
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .args(["--card", "-"])
        .output()
        .expect("export");
    assert_eq!(got.status.code(), Some(2));
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(err.contains("--card - is not a file path"), "{err}");
    assert!(!out.exists(), "the records were written");
}

/// `svg` drawn by librsvg (`rsvg-convert`, Debian's `librsvg2-bin`) into a PNG; skipped with a
/// note where it is not installed (the charts are parsed as XML by every run either way).
fn rendered_by_a_real_renderer(svg: &std::path::Path) {
    let png = svg.with_extension("png");
    let run = std::process::Command::new("rsvg-convert")
        .arg(svg)
        .arg("-o")
        .arg(&png)
        .output();
    let Ok(run) = run else {
        eprintln!("SKIP: rsvg-convert is not installed (apt-get install librsvg2-bin)");
        return;
    };
    assert!(
        run.status.success(),
        "{}: {}",
        svg.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&png).expect("png");
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 1000,
        "{}",
        svg.display()
    );
}
