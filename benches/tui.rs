//! Issue 3, the review screen's key handling (criterion): one key and a full redraw of a
//! record whose context is ~100 KB (650 tool responses), rendered into ratatui's `TestBackend`
//! at 200×60. The keys alternate between "next evidence occurrence" and "scroll the context",
//! the two that move the most text. The first frame of the 1.5 GB file is measured by
//! `examples/review_open.rs` (run by `bench/run.sh`), not here.
//!
//! `cargo bench --bench tui` (a few seconds). Results in `BENCHMARKS.md`, "Issue 3".
//!
//! Hardening: the same key loop on a record whose answer is 10 M characters (one paragraph,
//! spans at its start, middle and end) against a record of the same kind with a 2,000-character
//! answer, in the same run (`cargo bench --bench tui -- answer`); results in `BENCHMARKS.md`,
//! "Text layout".
//!
//! Code shown as code (issue 24): the same keys on a record whose context is a ~100 KB Python
//! file (`File:` + a fenced block, tabs, non-ASCII) against one whose context is the same text
//! with no fence (read as prose: no colour, no gutter, tabs escaped), in the same run
//! (`cargo bench --bench tui -- code`); results in `BENCHMARKS.md`, "Issue 24: code".

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::App;
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::{terminal, Action};

/// A records file holding one record with a ~100 KB context of JSON tool responses.
fn big_record() -> (tempfile::TempDir, std::path::PathBuf, usize) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut ctx = String::new();
    for i in 0..650 {
        ctx.push_str(&format!(
            "{{\"content\": {{\"id\": \"ITEM-{i}\", \"name\": \"Product {i} with a long \
             description of what it is\", \"price\": {}.5, \"tags\": [\"a\", \"b\", \"c\"]}}, \
             \"name\": \"search\", \"role\": \"tool\"}}\n",
            i * 3
        ));
    }
    let output = "The product ITEM-42 costs 126.5 and Product 7 is in stock. ".repeat(4);
    let rec = serde_json::json!({
        "id": "big", "query": "find products", "context": ctx.trim_end(), "output": output,
        "hallucination_labels": [
            {"start": 12, "end": 19, "text": "ITEM-42", "label": "contradiction"}
        ],
        "meta": {"corruption_type": "contradiction"}
    });
    let path = dir.path().join("big.jsonl");
    std::fs::write(&path, format!("{rec}\n")).expect("write");
    (dir, path, ctx.len())
}

fn key_and_redraw(c: &mut Criterion) {
    let (_dir, path, ctx_len) = big_record();
    let mut app = open_app(path);
    let mut t = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let mut g = c.benchmark_group("review_screen");
    g.sample_size(50)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_millis(500));
    let mut i = 0u32;
    g.bench_function(format!("key_redraw_context_{}kb", ctx_len / 1024), |b| {
        b.iter(|| {
            i += 1;
            app.update(if i.is_multiple_of(2) {
                Action::NextEvidence
            } else {
                Action::ContextDown
            });
            terminal::frame(black_box(&mut t), &mut app).expect("draw");
        });
    });
    g.finish();
}

/// A records file holding one record whose answer is `chars` characters of one paragraph
/// (mixed scripts, no line breaks), with a span at its start, its middle and its end.
fn answer_record(chars: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let unit = "The product ITEM-42 costs 126.5 € and ships from 東京 in 3 days; café naïve. ";
    let n = unit.chars().count();
    let mut output = unit.repeat(chars / n);
    output.extend(unit.chars().take(chars % n));
    let total = output.chars().count();
    let span = |at: usize| {
        let start = at / n * n + 12;
        serde_json::json!({"start": start, "end": start + 7, "text": "ITEM-42",
            "label": "contradiction"})
    };
    let labels = [span(0), span(total / 2), span(total.saturating_sub(2 * n))];
    let rec = serde_json::json!({
        "id": "long", "query": "where is ITEM-42 from?",
        "context": "{\"content\": {\"id\": \"ITEM-42\", \"price\": 126.5, \"origin\": \"東京\"}, \
                    \"name\": \"search\", \"role\": \"tool\"}",
        "output": output, "hallucination_labels": labels,
        "meta": {"corruption_type": "contradiction"}
    });
    let path = dir.path().join("long.jsonl");
    std::fs::write(&path, format!("{rec}\n")).expect("write");
    (dir, path)
}

/// The review screen over one records file, all records queued, with an in-memory store.
fn open_app(path: std::path::PathBuf) -> App {
    let ds = Dataset::open(&[path], None).expect("open");
    let store = Store::open_in_memory().expect("memory db");
    App::new(
        ds,
        Box::new(store),
        "bench",
        QueueKind::All,
        Config::defaults(false),
        None,
    )
    .expect("app")
}

/// One key and a redraw on a 2,000-character answer and on a 10 M-character one: the selection
/// walks start → middle → end → middle → start, so the output pane jumps across the answer.
fn key_on_long_answer(c: &mut Criterion) {
    let mut g = c.benchmark_group("answer");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    for chars in [2_000usize, 10_000_000] {
        let (_dir, path) = answer_record(chars);
        let mut app = open_app(path);
        let mut t = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
        terminal::frame(&mut t, &mut app).expect("draw");
        let keys = [
            Action::NextSpan,
            Action::NextSpan,
            Action::PrevSpan,
            Action::PrevSpan,
        ];
        let mut i = 0usize;
        g.bench_function(format!("key_redraw_{chars}_chars"), |b| {
            b.iter(|| {
                app.update(keys[i % keys.len()]);
                i += 1;
                terminal::frame(black_box(&mut t), &mut app).expect("draw");
            });
        });
        // Add mode at the last span: the cursor moves a character right and back.
        app.update(Action::Add);
        terminal::frame(&mut t, &mut app).expect("draw");
        g.bench_function(format!("add_cursor_{chars}_chars"), |b| {
            b.iter(|| {
                app.update(if i.is_multiple_of(2) {
                    Action::CursorRight
                } else {
                    Action::CursorLeft
                });
                i += 1;
                terminal::frame(black_box(&mut t), &mut app).expect("draw");
            });
        });
    }
    g.finish();
}

/// A records file of one code-agent record whose context is a ~`kb` KB Python file, fenced
/// after `File:` (`fenced`) or the same lines bare (prose to the screen).
fn code_record(kb: usize, fenced: bool) -> (tempfile::TempDir, std::path::PathBuf, usize) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut body = String::new();
    let mut i = 0;
    while body.len() < kb * 1024 {
        body.push_str(&format!(
            "def to_celsius_{i}(f):\n\t\"\"\"Fahrenheit → °C for the 東京 office.\"\"\"\n\t\
             unit = \"°C’s\"  # the rate\n\treturn round((f - 32) * 5 / 9, {})\n\n",
            i % 7
        ));
        i += 1;
    }
    let context = if fenced {
        format!("File: units/convert.py\n```python\n{body}```\n")
    } else {
        format!("File units/convert.py\n\n{body}\n")
    };
    let answer = "In file units/convert.py, replace:\n```python\n\treturn round((f - 32) * 5 / 9, 2)\n```\nwith:\n```python\n\treturn round((f - 33) * 5 / 9, 2)\n```\n";
    let at = answer.find("33").expect("span");
    let rec = serde_json::json!({
        "id": "code", "prompt": context, "context": context, "question": "Make it exact.",
        "answer": answer,
        "labels": [{"start": at, "end": at + 2, "label": "wrong_implementation",
                    "category": "contradiction", "subcategory": "value"}],
        "split": "test", "task_type": "code_generation",
        "dataset": "lettucedetect-code-agent", "language": "en", "context_modality": "code"
    });
    let path = dir.path().join("code.jsonl");
    std::fs::write(&path, format!("{rec}\n")).expect("write");
    (dir, path, context.len())
}

/// One key and a redraw on the code context and on the plain one: the keys alternate between
/// the next evidence occurrence and scrolling the context a row (both walk down the file, so
/// the code's rows are coloured as they come on screen), then Home/End jumps once each line
/// is coloured. The first End's cost on a record just opened is printed.
fn key_on_code(c: &mut Criterion) {
    let mut g = c.benchmark_group("code");
    g.sample_size(50)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_millis(500));
    for fenced in [false, true] {
        let (_dir, path, len) = code_record(100, fenced);
        let name = if fenced { "code" } else { "plain" };
        let mut app = open_app(path);
        let mut t = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
        terminal::frame(&mut t, &mut app).expect("draw");
        let mut i = 0u32;
        g.bench_function(format!("key_redraw_{name}_{}kb", len / 1024), |b| {
            b.iter(|| {
                i += 1;
                app.update(if i.is_multiple_of(2) {
                    Action::NextEvidence
                } else {
                    Action::ContextDown
                });
                terminal::frame(black_box(&mut t), &mut app).expect("draw");
            });
        });
        // The first End on a record just opened (its code not coloured yet): 9 fresh apps.
        let (_d2, path2, _) = code_record(100, fenced);
        let mut firsts: Vec<Duration> = (0..9)
            .map(|_| {
                let mut fresh = open_app(path2.clone());
                terminal::frame(&mut t, &mut fresh).expect("draw");
                let t0 = std::time::Instant::now();
                fresh.update(Action::ContextBottom);
                terminal::frame(&mut t, &mut fresh).expect("draw");
                t0.elapsed()
            })
            .collect();
        firsts.sort();
        eprintln!(
            "{name}: first End, median of 9 {:?} (min {:?}, max {:?})",
            firsts[4], firsts[0], firsts[8]
        );
        // The same on the terminal's colour budget: the key's frame, then the frames drawn
        // at once after it until the rows on screen are coloured.
        let mut budgeted: Vec<(Duration, Duration, usize)> = (0..9)
            .map(|_| {
                let mut fresh = open_app(path2.clone());
                fresh.config.colour_budget = Some(terminal::COLOUR_BUDGET);
                terminal::frame(&mut t, &mut fresh).expect("draw");
                while fresh.layout.colouring {
                    terminal::frame(&mut t, &mut fresh).expect("draw");
                }
                let t0 = std::time::Instant::now();
                fresh.update(Action::ContextBottom);
                terminal::frame(&mut t, &mut fresh).expect("draw");
                let key = t0.elapsed();
                let mut frames = 1;
                while fresh.layout.colouring {
                    terminal::frame(&mut t, &mut fresh).expect("draw");
                    frames += 1;
                }
                (key, t0.elapsed(), frames)
            })
            .collect();
        budgeted.sort();
        let (key, all, frames) = budgeted[4];
        eprintln!(
            "{name}: first End with the colour budget, median of 9: key + frame {key:?} \
             (min {:?}, max {:?}); coloured after {frames} frames, {all:?}",
            budgeted[0].0, budgeted[8].0
        );
        app.update(Action::ContextBottom);
        terminal::frame(&mut t, &mut app).expect("draw");
        g.bench_function(format!("home_end_{name}_{}kb", len / 1024), |b| {
            b.iter(|| {
                i += 1;
                app.update(if i.is_multiple_of(2) {
                    Action::ContextTop
                } else {
                    Action::ContextBottom
                });
                terminal::frame(black_box(&mut t), &mut app).expect("draw");
            });
        });
    }
    g.finish();
}

criterion_group!(benches, key_and_redraw, key_on_long_answer, key_on_code);
criterion_main!(benches);
