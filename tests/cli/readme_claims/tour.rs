//! The README's five-minute tour, pressed key by key as the terminal loop resolves keys on the
//! bundled sample (accept, tighten, drop with a reason), then exported with the tour's command:
//! each step does what the tour says, and the export holds it.

use std::rc::Rc;

use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Opening, Status};
use spanreview::tui::config::Config;
use spanreview::tui::keymap::Key;
use spanreview::tui::queue::QueueKind;

use super::super::common::{bin, data, lines, root};

/// Press `keys` (as the keymap file writes them) the way the terminal loop does.
fn press(app: &mut App, keys: &[&str]) {
    for k in keys {
        let key = k.parse::<Key>().expect("a key");
        if let Some(a) = app.config.keymap.resolve(app.key_mode(), key) {
            app.update(a);
        }
    }
}

/// The selected span's `[start, end)` as the review shows it now.
fn selected(app: &App) -> (usize, usize) {
    let c = app.cur.as_ref().expect("a record");
    let i = c.selected_span().expect("a span selected");
    let v = &c.review.spans[i].current;
    (v.start, v.end)
}

fn saved(app: &App) -> bool {
    matches!(app.status, Status::Saved(_))
}

#[test]
fn the_five_minute_tour_does_what_the_readme_says() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    for step in [
        "`a` accepts it",
        "`t` starts an edit: `l` moves the start right, `H` the end left",
        "`x` drops the span and asks for a reason (optional)",
        "`u` undoes, `n`/`p` go to the next / previous record",
    ] {
        assert!(readme.contains(step), "the tour no longer says {step:?}");
    }
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let records = data("toolace/test_records_reconstructed.jsonl");
    let files = [
        records.clone(),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let store = Rc::new(Store::open(&db).expect("db"));
    let ds = Dataset::open(&files, None).expect("the sample");
    let opening = Opening::new(QueueKind::Unreviewed, Config::defaults(true));
    let mut app = App::open(ds, Box::new(Rc::clone(&store)), "ana", opening).expect("app");
    let first = app.cur.as_ref().expect("a record").record.id.clone();

    // 1. Accept the first span.
    assert_eq!(selected(&app), (0, 48));
    press(&mut app, &["a"]);
    assert!(saved(&app), "{:?}", app.status);
    // 2. Tighten the second: start one right, end one left.
    press(&mut app, &["j"]);
    assert_eq!(selected(&app), (184, 255));
    press(&mut app, &["t"]);
    assert!(
        matches!(app.mode, ModeState::Adjust { .. }),
        "{:?}",
        app.mode
    );
    press(&mut app, &["l", "H", "enter"]);
    assert!(saved(&app), "{:?}", app.status);
    assert_eq!(selected(&app), (185, 254));
    // 3. Next record: drop a span with a reason.
    press(&mut app, &["n"]);
    let second = app.cur.as_ref().expect("a record").record.id.clone();
    assert_ne!(second, first);
    let dropped = selected(&app);
    press(&mut app, &["x"]);
    for c in "not in the evidence — 25°C".chars() {
        app.update(spanreview::tui::Action::Input(c));
    }
    press(&mut app, &["enter"]);
    assert!(saved(&app), "{:?}", app.status);
    // 4. Undo and redo the drop: the log keeps both as rows; `q` quits.
    press(&mut app, &["u"]);
    assert!(saved(&app), "{:?}", app.status);
    press(&mut app, &["ctrl-r"]);
    assert!(saved(&app), "{:?}", app.status);
    press(&mut app, &["q"]);
    assert!(app.quit);
    drop(app);
    drop(store);

    // 5. The tour's export.
    let out = bin()
        .current_dir(dir.path())
        .arg("export")
        .arg(&records)
        .args(["--out", "reviewed.jsonl", "--verdicts", "verdicts.jsonl"])
        .args(["--report", "report.md", "--db"])
        .arg(&db)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let exported = lines(&dir.path().join("reviewed.jsonl"));
    // The spans of record `id` as exported, in text order.
    let spans_of = |id: &str| -> Vec<(u64, u64)> {
        let rec = exported
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} exported"));
        rec["hallucination_labels"]
            .as_array()
            .expect("labels")
            .iter()
            .map(|s| {
                (
                    s["start"].as_u64().expect("start"),
                    s["end"].as_u64().expect("end"),
                )
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    assert_eq!(spans_of(&first), [(0, 48), (185, 254)]);
    let kept = spans_of(&second);
    let dropped = (dropped.0 as u64, dropped.1 as u64);
    assert!(!kept.contains(&dropped), "{dropped:?} still in {kept:?}");
    let verdicts = lines(&dir.path().join("verdicts.jsonl"));
    assert_eq!(verdicts.len(), 2, "{verdicts:?}");
    let text = serde_json::to_string(&verdicts).expect("json");
    assert!(
        text.contains("not in the evidence — 25°C"),
        "the reason: {text}"
    );
    let report = std::fs::read_to_string(dir.path().join("report.md")).expect("report");
    assert!(report.contains("ighten"), "{report}");
}
