//! `spanreview judge` from end to end: the "done when" (the bundled sample judged by
//! the loopback server into a file the review screen, in a real terminal, and `stats` read;
//! a rerun sending no request and writing the same bytes), a dataset folder's `--config` and
//! `--split`, an endpoint refusing connections, and the progress line and the summary as a
//! terminal shows them (tmux).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::common::{bin, stderr};
use super::judge::{judge, lines, records, sample, start, text};
use super::judge_server::{self as server, Reply};
use super::terminal::{self, shell_quote, Tmux};

#[test]
fn the_sample_judged_is_read_by_review_and_stats_and_a_rerun_sends_nothing_and_writes_the_same() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("qwen.jsonl");
    let db = dir.path().join("review.sqlite");
    let s = start(|r, _| Reply::verdicts(server::VLLM, r));
    let first = judge(&s.url, &sample(), &out, &["--concurrency", "8"]);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    assert_eq!(s.stats.count(), 175, "one request per record");
    let written = std::fs::read(&out).expect("the judge file");
    // With no --prompt nor --labels, the bundled toolace prompt, its three definitions in it.
    let r = s.stats.requests().pop().expect("a request");
    let system = r.json["messages"][0]["content"].as_str().expect("system");
    for def in [
        "contradiction  - the answer states a fact",
        "overgeneration - the answer adds substantive claims",
        "missing_tool   - the answer offers to perform an action",
    ] {
        assert!(system.contains(def), "{system}");
    }
    // stats reads it as a source beside the records.
    spanreview::store::Store::open(&db).expect("store");
    let spec = format!("qwen={}", out.display());
    let st = bin()
        .arg("stats")
        .arg(sample())
        .args(["--judge", &spec, "--db"])
        .arg(&db)
        .output()
        .expect("runs");
    assert_eq!(st.status.code(), Some(0), "{st:?}");
    assert!(text(&st.stdout).contains("qwen"), "{}", text(&st.stdout));
    // The review screen, in a real terminal, shows its verdicts in the arbitration lanes (the
    // judge claims a hallucination in each record without spans: disputed).
    if let Some(t) = Tmux::start(
        "judge-review",
        &format!(
            "sh -c \"{} review {} --judge {} --db {} --reviewer e2e --queue disputed; \
             echo exit=\\$?; sleep 600\"",
            terminal::bin(),
            shell_quote(&sample()),
            shell_quote(Path::new(&spec)),
            shell_quote(&db)
        ),
        &terminal::env(dir.path()),
    ) {
        t.wait("⚖ qwen");
        t.press(&["q"], "exit=0");
    }
    // The rerun: no request reaches the server, and the file is the same, byte for byte.
    let before = s.stats.count();
    let again = judge(&s.url, &sample(), &out, &["--concurrency", "8", "--json"]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(s.stats.count() - before, 0, "the rerun sent a request");
    assert_eq!(std::fs::read(&out).expect("rewritten"), written);
    let summary: Value = serde_json::from_slice(&again.stdout).expect("json summary");
    assert_eq!(
        (summary["from_cache"].clone(), summary["sent"].clone()),
        (json!(175), json!(0)),
        "{summary}"
    );
}

#[test]
fn a_dataset_folder_is_judged_as_the_file_of_its_config_and_split() {
    let fx = super::hub_folder::jsonl();
    let d = fx.path().join("jsonl");
    let out = fx.path().join("j.jsonl");
    let s = start(|r, _| Reply::verdicts(server::OPENAI, r));
    let o = judge(
        &s.url,
        &d,
        &out,
        &["--config", "contradiction", "--split", "test"],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // contradiction/test holds 6 records (make.py), each sent once and judged.
    assert_eq!(s.stats.count(), 6);
    let ids: Vec<String> = lines(&out)
        .iter()
        .map(|l| l["id"].as_str().expect("id").to_owned())
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| id.ends_with("__contradiction")),
        "{ids:?}"
    );
    let shard = d.join("contradiction/test-00000-of-00001.jsonl");
    let want = std::fs::read_to_string(&shard).expect("shard");
    for id in &ids {
        assert!(
            want.contains(&format!("\"{id}\"")),
            "{id} is not of the split"
        );
    }
    // A config of several splits is not one records file: refused, the splits named.
    let a = bin()
        .arg("judge")
        .arg(&d)
        .args(["--endpoint", &s.url, "--model", "m", "--out"])
        .arg(&out)
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("config \"combined\" has 3 files: train (")
            && stderr(&a).contains("choose one with --split"),
        "{}",
        stderr(&a)
    );
    // --config with no folder among the files is refused, and nothing is sent.
    let o = judge(&s.url, &sample(), &out, &["--config", "contradiction"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        text(&o.stderr).contains("none of the files given is a folder"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(s.stats.count(), 6);
}

#[test]
fn an_endpoint_that_refuses_connections_fails_each_record_with_its_reason() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path(), &["20°C in 東京", "晴れ 👋 today"]);
    let out = dir.path().join("j.jsonl");
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let o = judge(&url, &file, &out, &["--retries", "1", "--backoff", "0.01"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        text(&o.stdout).contains("2 record(s) failed"),
        "{}",
        text(&o.stdout)
    );
    let skipped = lines(&dir.path().join("j.skipped.jsonl"));
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    for (line, id) in skipped.iter().zip(["r0", "r1"]) {
        assert_eq!(line["id"], json!(id));
        let why = line["reason"].as_str().expect("reason");
        assert!(
            why.contains("after 2 attempts") && why.to_lowercase().contains("refused"),
            "{why}"
        );
    }
    assert!(
        lines(&out).is_empty(),
        "nothing judged, an empty judge file"
    );
}

/// A progress line as drawn: `[bar] DONE/TOTAL requests  RATE/s  ETA Ns  TOKENS tokens  $COST`.
#[derive(Debug, PartialEq)]
struct ProgressLine {
    bar: String,
    done: usize,
    total: usize,
    rate: f64,
    eta: u64,
    tokens: u64,
    cost: String,
}

/// The progress lines on `screen`, each read whole (`None` for one that is not).
fn progress_lines(screen: &str) -> Vec<Option<ProgressLine>> {
    screen
        .lines()
        .filter(|l| l.contains(" requests  "))
        .map(|l| {
            let (bar, rest) = l.trim().strip_prefix('[')?.split_once("] ")?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let [count, "requests", rate, "ETA", eta, tokens, "tokens", cost] = f.as_slice() else {
                return None;
            };
            let (done, total) = count.split_once('/')?;
            Some(ProgressLine {
                bar: bar.to_owned(),
                done: done.parse().ok()?,
                total: total.parse().ok()?,
                rate: rate.strip_suffix("/s")?.parse().ok()?,
                eta: eta.strip_suffix('s')?.parse().ok()?,
                tokens: tokens.parse().ok()?,
                cost: cost.strip_prefix('$')?.to_owned(),
            })
        })
        .collect()
}

#[test]
fn the_progress_line_shows_rate_eta_tokens_and_cost_on_a_terminal_then_the_summary() {
    const TOTAL: usize = 20;
    const HELD: usize = 10;
    // The recorded OpenAI reply's usage, and the price given.
    const PROMPT: u64 = 1117;
    const COMPLETION: u64 = 46;
    let cost = |n: usize| {
        let n = n as u64;
        #[allow(clippy::cast_precision_loss)]
        let c = (n * PROMPT) as f64 * 1.0 / 1e6 + (n * COMPLETION) as f64 * 10.0 / 1e6;
        format!("{c:.4}")
    };
    let dir = tempfile::tempdir().expect("tmp");
    let answers: Vec<String> = (0..TOTAL)
        .map(|i| format!("{i}°C in 東京 it’s sunny 👋"))
        .collect();
    let file = records(
        dir.path(),
        &answers.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let out = dir.path().join("j.jsonl");
    // One request at a time, each answered after 60 ms: the line (redrawn every 200 ms) is
    // drawn before the HELD-th reply at the latest, which the gate holds while the screen is
    // read.
    let gate = Arc::new(server::Gate::default());
    let held = Arc::clone(&gate);
    let s = start(move |r, n| {
        if n == HELD {
            held.wait();
        }
        let reply = Reply::verdicts(server::OPENAI, r);
        if n < HELD {
            reply.after(Duration::from_millis(60))
        } else {
            reply
        }
    });
    let cmd = format!(
        "sh -c \"{} judge {} --endpoint {} --model m --out {} --concurrency 1 --price 1,10; \
         echo exit=\\$?; sleep 600\"",
        terminal::bin(),
        shell_quote(&file),
        s.url,
        shell_quote(&out)
    );
    let Some(t) = Tmux::start("judge-progress", &cmd, &terminal::env(dir.path())) else {
        return;
    };
    let line = t.until("a progress line", || {
        progress_lines(&t.screen()).pop().flatten()
    });
    let d = line.done;
    assert!((1..=HELD).contains(&d) && line.total == TOTAL, "{line:?}");
    let filled = d * 24 / TOTAL;
    assert_eq!(
        line.bar,
        format!("{}{}", "#".repeat(filled), "-".repeat(24 - filled))
    );
    // Tokens and cost of the replies so far; at most one reply per 60 ms.
    assert_eq!(line.tokens, d as u64 * (PROMPT + COMPLETION), "{line:?}");
    assert_eq!(line.cost, cost(d), "{line:?}");
    assert!(line.rate > 0.0 && line.rate <= 16.7 + 0.05, "{line:?}");
    // The ETA is what is left at that rate (both shown rounded).
    #[allow(clippy::cast_precision_loss)]
    let left = (TOTAL - d) as f64;
    let (lo, hi) = (
        left / (line.rate + 0.05) - 0.5,
        left / (line.rate - 0.05).max(1e-9) + 0.5,
    );
    #[allow(clippy::cast_precision_loss)]
    let eta = line.eta as f64;
    assert!(
        lo <= eta && eta <= hi,
        "ETA {eta} not in [{lo}, {hi}]: {line:?}"
    );
    gate.open();
    let screen = t.wait("exit=");
    assert!(screen.contains("exit=0"), "{screen}");
    // Redrawn in place: one progress line, at its end.
    let drawn = progress_lines(&screen);
    assert_eq!(drawn.len(), 1, "{screen}");
    let end = drawn[0].as_ref().expect("a whole line");
    assert_eq!(
        (end.done, end.bar.as_str(), end.eta),
        (TOTAL, "#".repeat(24).as_str(), 0),
        "{end:?}"
    );
    assert_eq!(end.tokens, TOTAL as u64 * (PROMPT + COMPLETION));
    assert_eq!(end.cost, cost(TOTAL));
    // The summary.
    let joined = screen.replace('\n', "");
    let summary = format!("judged {TOTAL} of {TOTAL} records (0 from the cache, {TOTAL} sent) in ");
    assert!(joined.contains(&summary), "{screen}");
    let tokens = format!(
        "{} + {} tokens, ${}",
        TOTAL as u64 * PROMPT,
        TOTAL as u64 * COMPLETION,
        cost(TOTAL)
    );
    assert!(joined.contains(&tokens), "{screen}");
    assert!(
        joined.contains(&format!("({TOTAL} lines)")),
        "one line a record: {screen}"
    );
    assert_eq!(lines(&out).len(), TOTAL);
}
