//! `spanreview judge` against the loopback chat-completions server (`judge_server`): the
//! bundled sample judged into a file `stats --judge` and the `--judge` loader read, the same
//! on a rerun that sends nothing; retries on 429 (Retry-After) and 500; each bad reply failing
//! only its record; the fallback for servers without `json_schema`; the concurrency bound;
//! resume after SIGKILL; the key in no output or file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::common::{bin, data};
use super::judge_server::{self as server, Reply, Request, Server};

pub(super) const KEY: &str = "sk-test-3f9a1c0ffee-SECRET";

pub(super) fn sample() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

pub(super) fn start(f: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> Server {
    server::start(Arc::new(f), true)
}

/// `spanreview judge FILE --endpoint URL --model m --out OUT ARGS...` with the key set.
pub(super) fn judge(url: &str, file: &Path, out: &Path, args: &[&str]) -> Output {
    bin()
        .arg("judge")
        .arg(file)
        .args(["--endpoint", url, "--model", "judge-model", "--out"])
        .arg(out)
        .args(args)
        .env("OPENAI_API_KEY", KEY)
        .output()
        .expect("runs")
}

pub(super) fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn skipped(out: &Path) -> Vec<Value> {
    let stem = out
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    lines(&out.with_file_name(format!("{stem}.skipped.jsonl")))
}

pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_sample_is_judged_into_a_file_stats_and_the_judge_loader_read_and_a_rerun_sends_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("qwen.jsonl");
    let s = start(|r, _| Reply::verdicts(server::VLLM, r));
    let first = judge(
        &s.url,
        &sample(),
        &out,
        &["--concurrency", "8", "--price", "1,2"],
    );
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    // The summary: vLLM's usage (982 + 49 tokens a reply) at $1 and $2 per million.
    let said = text(&first.stdout);
    assert!(
        said.contains("judged 175 of 175 records (0 from the cache, 175 sent)"),
        "{said}"
    );
    assert!(said.contains("171850 + 8575 tokens, $0.1890"), "{said}");
    assert_eq!(s.stats.count(), 175);
    let written = std::fs::read(&out).expect("written");
    let ls = lines(&out);
    assert!(ls.len() >= 175, "{}", ls.len());
    // Every request: stream off, temperature 0, the strict schema, the bearer key.
    for r in s.stats.requests() {
        assert_eq!(r.json["stream"], json!(false));
        assert_eq!(r.json["temperature"], json!(0.0));
        assert_eq!(
            r.json["response_format"]["json_schema"]["strict"],
            json!(true)
        );
        assert!(r.head.contains(&format!("Bearer {KEY}")), "{}", r.head);
        assert!(
            r.head.starts_with("POST /v1/chat/completions HTTP/1.1"),
            "{}",
            r.head
        );
    }
    // validate reads it as a decisions file with no problem.
    let v = bin().arg("validate").arg(&out).output().expect("runs");
    assert_eq!(v.status.code(), Some(0), "{}", text(&v.stdout));
    // stats --judge reads it beside the records (over a database with nothing decided yet).
    spanreview::store::Store::open(&dir.path().join("r.sqlite")).expect("store");
    let st = bin()
        .arg("stats")
        .arg(sample())
        .arg("--judge")
        .arg(format!("qwen={}", out.display()))
        .args(["--db"])
        .arg(dir.path().join("r.sqlite"))
        .output()
        .expect("runs");
    assert_eq!(st.status.code(), Some(0), "{st:?}");
    assert!(text(&st.stdout).contains("qwen"), "{}", text(&st.stdout));
    // The loader review --judge uses attaches a verdict to every record; the quotes placed.
    let ds = spanreview::formats::Dataset::open(&[sample()], None).expect("sample");
    let specs = vec![format!("qwen={}", out.display()).parse().expect("spec")];
    let args = spanreview::cli::judge_args::JudgeArgs {
        judges: specs,
        ..Default::default()
    };
    let (judges, _) = args.load(&ds, &ds.name, None).expect("loads");
    let mut claims = 0;
    for i in 0..ds.len() {
        let mut r = ds.record(i).expect("record");
        judges.attach(&mut r);
        let v = spanreview::formats::judges::verdicts(&r);
        assert!(!v.is_empty(), "{}: no verdict", r.id);
        for v in &v {
            if let Some(c) = &v.extra {
                assert!(c.located.is_some(), "{}: {c:?}", r.id);
                claims += 1;
            }
        }
    }
    assert!(claims > 0, "the clean records' claims were read");
    // A rerun sends nothing and writes the same bytes.
    let again = judge(&s.url, &sample(), &out, &["--concurrency", "8", "--json"]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(s.stats.count(), 175, "the rerun sent a request");
    assert_eq!(std::fs::read(&out).expect("rewritten"), written);
    let summary: Value = serde_json::from_slice(&again.stdout).expect("json summary");
    assert_eq!(
        (summary["from_cache"].clone(), summary["sent"].clone()),
        (json!(175), json!(0))
    );
    // A rubric changes the prompt: sent again, and its codes in the schema.
    let rubric = dir.path().join("rubric.toml");
    std::fs::write(&rubric, "H1 = \"a value the tool context contradicts\"\n").expect("w");
    let r = judge(
        &s.url,
        &sample(),
        &out,
        &["--rubric", rubric.to_str().expect("utf-8")],
    );
    assert_eq!(r.status.code(), Some(0), "{r:?}");
    assert_eq!(s.stats.count(), 350);
    let last = s.stats.requests().pop().expect("a request");
    assert!(last.json["messages"][0]["content"]
        .as_str()
        .expect("system")
        .contains("H1 - a value"));
}

/// A records file of one record per answer, each with one labeled span over its first word.
pub(super) fn records(dir: &Path, answers: &[&str]) -> PathBuf {
    let p = dir.join("records.jsonl");
    let mut s = String::new();
    for (i, a) in answers.iter().enumerate() {
        let first: String = a.chars().take_while(|c| !c.is_whitespace()).collect();
        let end = first.chars().count();
        s.push_str(
            &json!({"id": format!("r{i}"), "query": "天気は？", "context": "{\"temp\": \"18°C\"}",
            "output": a, "hallucination_labels": [{"start": 0, "end": end, "label": "contradiction",
            "text": first}], "meta": {"corruption_type": "contradiction"}})
            .to_string(),
        );
        s.push('\n');
    }
    std::fs::write(&p, s).expect("write records");
    p
}

#[test]
fn retries_wait_what_retry_after_says_on_429_and_back_off_on_500() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path(), &["20°C in 東京 today"]);
    let out = dir.path().join("j.jsonl");
    let s = start(|r, n| match n {
        0 => Reply::raw(429, "application/json", server::RATE_LIMITED).header("Retry-After", "1"),
        1 => Reply::raw(500, "application/json", server::SERVER_ERROR),
        _ => Reply::verdicts(server::OPENAI, r),
    });
    let o = judge(
        &s.url,
        &file,
        &out,
        &["--retries", "3", "--backoff", "0.05"],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let reqs = s.stats.requests();
    assert_eq!(reqs.len(), 3);
    assert!(
        reqs[1].at - reqs[0].at >= Duration::from_millis(950),
        "{:?}",
        reqs[1].at - reqs[0].at
    );
    assert_eq!(lines(&out)[0]["judge"]["label_correct"], json!("true"));
    // Out of retries: the record fails with the last reason, and the exit status says so.
    let s = start(|_, _| Reply::raw(500, "application/json", server::SERVER_ERROR));
    let o = judge(
        &s.url,
        &file,
        &out,
        &["--retries", "2", "--backoff", "0.01"],
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(s.stats.count(), 3);
    let sk = skipped(&out);
    assert_eq!(sk[0]["id"], json!("r0"));
    let why = sk[0]["reason"].as_str().expect("reason");
    assert!(
        why.contains("HTTP 500") && why.contains("after 3 attempts"),
        "{why}"
    );
}

#[test]
fn each_bad_reply_fails_its_record_with_its_reason_and_the_rest_go_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let answers = [
        "html: 502 from the proxy",
        "broken: a body cut short",
        "truncated: the token limit",
        "prose: not the schema",
        "misquote: it is 20°C in 東京 ✓",
        "slow: no reply in time",
        "fine: it’s 18°C in 東京 👋",
        "refused: a 401",
        "portal: a 200 page of HTML",
    ];
    let file = records(dir.path(), &answers);
    let out = dir.path().join("j.jsonl");
    let s = start(|r, _| {
        let a = r.answer().to_owned();
        let tag = a.split(':').next().unwrap_or("");
        let content = |c: &str| Reply::completion(server::OPENAI, c);
        match tag {
            "html" => Reply::raw(502, "text/html", server::BAD_GATEWAY),
            "portal" => Reply::raw(
                200,
                "text/html",
                "<!DOCTYPE html><html><title>Sign in</title></html>",
            ),
            "broken" => Reply::raw(200, "application/json", &server::OPENAI[..200]),
            "truncated" => Reply::raw(200, "application/json", server::TRUNCATED),
            "prose" => content("The span looks fine to me."),
            "misquote" => content(
                &json!({"labeled": [{"span": 0, "label_correct": "true",
                "code": "", "reason": "r"}], "unlabeled": [{"quote": "it is 25°F in Kyoto",
                "label": "contradiction", "code": "", "reason": "r"}], "reasoning": ""})
                .to_string(),
            ),
            "slow" => Reply::verdicts(server::OPENAI, r).after(Duration::from_secs(3)),
            "refused" => Reply::raw(
                401,
                "application/json",
                r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#,
            ),
            _ => Reply::verdicts(server::OPENAI, r),
        }
    });
    let o = judge(
        &s.url,
        &file,
        &out,
        &["--retries", "0", "--timeout", "1", "--concurrency", "8"],
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let reasons: Vec<(String, String, String)> = skipped(&out)
        .iter()
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or("").to_owned();
            (s("id"), s("kind"), s("reason"))
        })
        .collect();
    let why = |id: &str| {
        reasons
            .iter()
            .find(|r| r.0 == id)
            .map(|r| format!("{}: {}", r.1, r.2))
            .unwrap_or_else(|| panic!("{id} not skipped: {reasons:?}"))
    };
    assert!(
        why("r0").contains("HTTP 502: an HTML page (\"502 Bad Gateway\")"),
        "{}",
        why("r0")
    );
    assert!(
        why("r8").contains("the server answered HTML, not JSON"),
        "{}",
        why("r8")
    );
    assert!(why("r1").contains("not JSON"), "{}", why("r1"));
    assert!(
        why("r2").contains("cut off at the token limit"),
        "{}",
        why("r2")
    );
    assert!(
        why("r3").starts_with("schema: the message holds no JSON object"),
        "{}",
        why("r3")
    );
    assert!(
        why("r4").starts_with("quote: the quote is not in the answer"),
        "{}",
        why("r4")
    );
    assert!(why("r5").contains("(--timeout)"), "{}", why("r5"));
    assert!(
        why("r7").contains("HTTP 401: \"Incorrect API key provided\""),
        "{}",
        why("r7")
    );
    assert!(!reasons.iter().any(|r| r.0 == "r6"), "{reasons:?}");
    assert_eq!(reasons.len(), 8, "{reasons:?}");
    // Written: the fine record, and the misquoting one's verdict with its quote unplaced.
    let ls = lines(&out);
    let ids: Vec<&str> = ls.iter().map(|l| l["id"].as_str().expect("id")).collect();
    assert_eq!(ids, ["r4", "r4", "r6"], "{ls:?}");
    assert_eq!(ls[1]["extra_placed"]["match"], json!("not_found"));
    assert_eq!(ls[2]["labeled_span"]["text"], json!("fine:"));
    let summary = text(&o.stdout);
    assert!(
        summary.contains("8 record(s) failed (1 quote(s) not placed)"),
        "{summary}"
    );
}

#[test]
fn a_server_without_json_schema_gets_plain_json_after_its_400() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path(), &["20°C in 東京", "晴れ 👋 today", "it’s sunny"]);
    let out = dir.path().join("j.jsonl");
    let s = start(|r, _| {
        if r.json.get("response_format").is_some() {
            Reply::raw(400, "application/json", server::NO_SCHEMA)
        } else {
            // A model that wraps its JSON in a fence, as models without structured output do.
            Reply::completion(
                server::VLLM,
                &format!("```json\n{}\n```", server::verdict_content(r)),
            )
        }
    });
    let o = judge(&s.url, &file, &out, &["--concurrency", "1"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let with: Vec<bool> = s
        .stats
        .requests()
        .iter()
        .map(|r| r.json.get("response_format").is_some())
        .collect();
    assert_eq!(
        with,
        [true, false, false, false],
        "one 400, then plain JSON for every record"
    );
    assert_eq!(lines(&out).len(), 3);
}

#[test]
fn no_more_requests_are_in_flight_than_concurrency() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("j.jsonl");
    let s = start(|r, _| Reply::verdicts(server::OPENAI, r).after(Duration::from_millis(40)));
    let o = judge(&s.url, &sample(), &out, &["--concurrency", "5"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let max = s
        .stats
        .max_in_flight
        .load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(max, 5, "at most 5 in flight, and 5 were");
}

/// The complete lines of `path` so far (a line being written, with no `\n` yet, not counted).
fn complete_lines(path: &Path) -> usize {
    std::fs::read(path)
        .unwrap_or_default()
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

#[test]
fn a_run_killed_with_sigkill_resumes_without_sending_any_request_twice() {
    // The first ANSWERED requests are answered; every later one is held by the gate, so the
    // kill finds exactly IN_FLIGHT requests in flight however loaded the machine is: nothing
    // below waits a set time, every wait is on a condition (the server's count, the cache's
    // lines), bounded only by a deadline.
    const ANSWERED: usize = 40;
    const IN_FLIGHT: usize = 4;
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("j.jsonl");
    let cache = dir.path().join("j.jsonl.cache");
    let gate = Arc::new(server::Gate::default());
    let held = Arc::clone(&gate);
    let s = start(move |r, n| {
        if n >= ANSWERED {
            held.wait();
        }
        Reply::verdicts(server::OPENAI, r)
    });
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_spanreview"))
        .arg("judge")
        .arg(sample())
        .args([
            "--endpoint",
            &s.url,
            "--model",
            "judge-model",
            "--concurrency",
            &IN_FLIGHT.to_string(),
            "--out",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawns");
    // Every answered reply cached, and the workers' next requests read by the server.
    server::wait_for(
        "40 replies cached and 4 requests held",
        || s.stats.count() == ANSWERED + IN_FLIGHT && complete_lines(&cache) == ANSWERED,
        || {
            format!(
                "{} requests, {} cache lines",
                s.stats.count(),
                complete_lines(&cache)
            )
        },
    );
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert!(!out.exists(), "a killed run writes no judge file");
    gate.open();
    server::wait_for(
        "the held requests in the log",
        || s.stats.requests().len() == ANSWERED + IN_FLIGHT,
        || format!("{} logged", s.stats.requests().len()),
    );
    let first = s.stats.requests();
    assert_eq!(s.stats.count(), ANSWERED + IN_FLIGHT, "sent after the kill");
    // What the killed run kept: one line per answered reply, each of another record; the
    // replies of the requests in flight were lost, no more.
    let kept: Vec<String> = lines(&cache)
        .iter()
        .map(|l| l["id"].as_str().expect("id").to_owned())
        .collect();
    let distinct: HashSet<&String> = kept.iter().collect();
    assert_eq!(
        (kept.len(), distinct.len()),
        (ANSWERED, ANSWERED),
        "{kept:?}"
    );
    let o = judge(
        &s.url,
        &sample(),
        &out,
        &["--concurrency", "4", "--resume", "--json"],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let summary: Value = serde_json::from_slice(&o.stdout).expect("json summary");
    assert_eq!(
        (summary["from_cache"].clone(), summary["sent"].clone()),
        (json!(ANSWERED), json!(175 - ANSWERED)),
        "{summary}"
    );
    let all = s.stats.requests();
    let second = &all[first.len()..];
    assert_eq!(
        second.len(),
        175 - ANSWERED,
        "every record not cached sent once"
    );
    // Across both runs: no answered request sent again, each lost one sent once more, every
    // record sent, none of the resumed run twice.
    let again: HashSet<&str> = second.iter().map(Request::user).collect();
    assert_eq!(again.len(), second.len(), "a request sent twice on resume");
    for r in &first[..ANSWERED] {
        assert!(!again.contains(r.user()), "an answered request sent again");
    }
    for r in &first[ANSWERED..] {
        assert!(again.contains(r.user()), "a lost request not sent again");
    }
    let every: HashSet<&str> = all.iter().map(Request::user).collect();
    assert_eq!(every.len(), 175);
    // The resumed run's file is the one an uninterrupted run writes.
    let whole = dir.path().join("whole.jsonl");
    let w = judge(&s.url, &sample(), &whole, &["--concurrency", "4"]);
    assert_eq!(w.status.code(), Some(0), "{w:?}");
    assert_eq!(
        std::fs::read(&out).expect("resumed"),
        std::fs::read(&whole).expect("whole"),
        "the resumed run's judge file differs from an uninterrupted run's"
    );
    // --resume with no cache to resume from is refused.
    let none = judge(
        &s.url,
        &sample(),
        &dir.path().join("other.jsonl"),
        &["--resume"],
    );
    assert_eq!(none.status.code(), Some(2), "{none:?}");
    assert!(
        text(&none.stderr).contains("does not exist (no run to resume"),
        "{none:?}"
    );
}

#[test]
fn the_key_is_in_no_output_and_no_file_even_when_a_server_echoes_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path(), &["20°C in 東京", "晴れ 👋 today", "it’s sunny"]);
    let out = dir.path().join("j.jsonl");
    let s = start(|r, _| {
        let auth = r
            .head
            .lines()
            .find(|l| l.to_lowercase().starts_with("authorization:"))
            .unwrap_or("")
            .to_owned();
        if r.answer().starts_with("晴れ") {
            // A server that quotes the header it refused, as some proxies do.
            Reply::raw(
                500,
                "application/json",
                json!({"error": {"message": format!("bad {auth}")}}).to_string(),
            )
        } else if r.answer().starts_with("it’s") {
            Reply::raw(
                403,
                "application/json",
                json!({"error": {"message": format!("no: {auth}")}}).to_string(),
            )
        } else {
            Reply::verdicts(server::OPENAI, r)
        }
    });
    for args in [vec![], vec!["--json"]] {
        let o = judge(
            &s.url,
            &file,
            &out,
            &[&["--retries", "0"], args.as_slice()].concat(),
        );
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        assert!(
            !text(&o.stdout).contains(KEY) && !text(&o.stderr).contains(KEY),
            "{o:?}"
        );
    }
    let mut files = 0;
    for e in std::fs::read_dir(dir.path()).expect("dir") {
        let p = e.expect("entry").path();
        let body = std::fs::read(&p).expect("read");
        assert!(!text(&body).contains(KEY), "{} holds the key", p.display());
        files += 1;
    }
    assert!(files >= 4, "records, judge file, skipped, cache: {files}");
    assert!(text(&std::fs::read(skipped_path(&out)).expect("skipped")).contains("[API key]"));
    // The key the server saw was the one from the environment (so the check above could fail).
    assert!(s.stats.requests().iter().all(|r| r.head.contains(KEY)));
    // --api-key-env names another variable; the key of OPENAI_API_KEY is then not sent.
    let o = bin()
        .arg("judge")
        .arg(&file)
        .args([
            "--endpoint",
            &s.url,
            "--model",
            "m",
            "--retries",
            "0",
            "--api-key-env",
            "MY_KEY",
            "--out",
        ])
        .arg(&out)
        .env("OPENAI_API_KEY", KEY)
        .env("MY_KEY", "other-key-777")
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let last = s.stats.requests().pop().expect("request");
    assert!(
        last.head.contains("Bearer other-key-777") && !last.head.contains(KEY),
        "{}",
        last.head
    );
}

fn skipped_path(out: &Path) -> PathBuf {
    out.with_file_name("j.skipped.jsonl")
}

#[test]
fn prompt_overrides_the_bundled_one_and_a_bad_one_is_refused_with_its_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path(), &["20°C in 東京 ✓"]);
    let out = dir.path().join("j.jsonl");
    let s = start(|r, _| Reply::verdicts(server::OPENAI, r));
    let prompt = dir.path().join("p.txt");
    std::fs::write(
        &prompt,
        "Judge the spans.\n=== user ===\nA: {answer}\n{spans}\n",
    )
    .expect("w");
    let o = judge(
        &s.url,
        &file,
        &out,
        &["--prompt", prompt.to_str().expect("utf-8")],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let r = s.stats.requests().pop().expect("request");
    assert_eq!(r.json["messages"][0]["content"], json!("Judge the spans."));
    assert_eq!(
        r.json["messages"][1]["content"],
        json!("A: 20°C in 東京 ✓\n[0] \"20°C\" - contradiction (characters 0-4)")
    );
    // The LettuceDetect prompt carries the taxonomy's definitions.
    judge(&s.url, &file, &out, &["--labels", "lettucedetect"]);
    let r = s.stats.requests().pop().expect("request");
    let system = r.json["messages"][0]["content"].as_str().expect("system");
    assert!(
        system.contains("unsupported_addition - the span asserts something"),
        "{system}"
    );
    // A typo in a placeholder: exit 2, the file and line named, nothing sent.
    std::fs::write(&prompt, "sys\n=== user ===\n{answer}\n{contxt}\n").expect("w");
    let before = s.stats.count();
    let o = judge(
        &s.url,
        &file,
        &out,
        &["--prompt", prompt.to_str().expect("utf-8")],
    );
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        text(&o.stderr).contains("p.txt:4: unknown placeholder {contxt}"),
        "{o:?}"
    );
    assert_eq!(s.stats.count(), before);
}

#[test]
fn queue_judges_the_records_of_a_type_or_label_and_refuses_one_needing_a_database() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("j.jsonl");
    let s = start(|r, _| Reply::verdicts(server::OPENAI, r));
    let o = judge(
        &s.url,
        &sample(),
        &out,
        &["--queue", "type:missing_tool", "--json"],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let want = std::fs::read_to_string(sample())
        .expect("sample")
        .lines()
        .filter(|l| l.contains("\"corruption_type\": \"missing_tool\""))
        .count();
    assert!(want > 0);
    assert_eq!(s.stats.count(), want);
    let ls = lines(&out);
    assert!(
        ls.iter()
            .all(|l| l["corruption_type"] == json!("missing_tool")),
        "{ls:?}"
    );
    let o = judge(&s.url, &sample(), &out, &["--queue", "flagged"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        text(&o.stderr).contains("judge reads no decision database"),
        "{o:?}"
    );
}
