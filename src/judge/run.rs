//! The records through the endpoint: cached replies first, the rest by `concurrency` worker
//! threads (one request each in flight), replies cached as they come; progress on standard
//! error; the decision lines in input order, each failed record's reason as a skipped line.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::cache::{self, Cache};
use super::http::{Client, ClientOptions, Sent};
use super::lines::lines;
use super::prompt::{Prompt, Rubric};
use super::reply::{self, Completion};
use crate::model::Record;

/// What a run needs besides the records.
#[derive(Debug, Clone)]
pub struct Options {
    /// The endpoint as given (part of the cache key).
    pub endpoint: String,
    /// The model name sent.
    pub model: String,
    /// How requests are sent.
    pub client: ClientOptions,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Sampling temperature.
    pub temperature: f64,
    /// `max_tokens`, when set.
    pub max_tokens: Option<u64>,
    /// Send `response_format` (a strict JSON schema); without it, or when the server refuses
    /// it, the reply is parsed as plain JSON.
    pub schema: bool,
    /// The prompt.
    pub prompt: Prompt,
    /// `{labels}`'s text.
    pub labels: String,
    /// The rubric, if any.
    pub rubric: Option<Rubric>,
    /// The fuzzy placement threshold.
    pub threshold: f64,
    /// USD per million prompt and completion tokens.
    pub price: Option<(f64, f64)>,
    /// Send nothing; only cached replies are used (the rest fail as not cached).
    pub offline: bool,
}

/// The counts of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Records read (or not: unreadable lines count).
    pub records: usize,
    /// Records with decision lines written.
    pub judged: usize,
    /// Of those, from the cache.
    pub cached: usize,
    /// Records sent to the endpoint.
    pub sent: usize,
    /// Records that failed (skipped lines).
    pub failed: usize,
    /// Quotes not found in their answer.
    pub unplaced: usize,
    /// Decision lines written.
    pub lines: usize,
    /// Tokens of the requests sent.
    pub prompt_tokens: u64,
    /// Tokens of their replies.
    pub completion_tokens: u64,
    /// Their cost, with a price.
    pub cost: Option<f64>,
    /// Unreadable cache lines skipped.
    pub torn_cache_lines: usize,
    /// Wall time.
    pub seconds: f64,
}

/// What a run produced.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The decision lines (JSONL), in input order.
    pub lines: Vec<u8>,
    /// The skipped lines (JSONL): `{"id", "kind", "reason", ...}` per failure.
    pub skipped: Vec<u8>,
    /// The counts.
    pub summary: Summary,
}

/// One record's request.
struct Job {
    at: usize,
    record: Record,
    key: String,
    body: Vec<u8>,
    plain: Vec<u8>,
}

/// One record's result.
enum Judged {
    Lines(Vec<Value>, Vec<String>),
    Failed(&'static str, String),
}

/// Judge `records` (each read, or why it could not be: its id if known and the message).
///
/// # Errors
/// The cache cannot be written.
pub fn run(
    records: Vec<Result<Record, (Option<String>, String)>>,
    cache: &mut Cache,
    opts: &Options,
) -> Result<Outcome, String> {
    let started = Instant::now();
    let n = records.len();
    let mut results: Vec<Option<Judged>> = (0..n).map(|_| None).collect();
    let mut ids: Vec<Option<String>> = vec![None; n];
    let format =
        reply::response_format(&opts.rubric.as_ref().map(Rubric::names).unwrap_or_default());
    let format_text = format.to_string();
    let mut jobs = Vec::new();
    let mut summary = Summary {
        records: n,
        torn_cache_lines: cache.torn,
        ..Summary::default()
    };
    for (at, r) in records.into_iter().enumerate() {
        let record = match r {
            Ok(r) => r,
            Err((id, why)) => {
                ids[at] = id;
                results[at] = Some(Judged::Failed("record", why));
                continue;
            }
        };
        ids[at] = Some(record.id.clone());
        let (system, user) = opts
            .prompt
            .render(&record, &opts.labels, opts.rubric.as_ref());
        let max = opts.max_tokens.map(|m| m.to_string()).unwrap_or_default();
        let key = cache::key(&[
            &opts.endpoint,
            &opts.model,
            &system,
            &user,
            &format_text,
            &opts.temperature.to_string(),
            &max,
        ]);
        if let Some(body) = cache.get(&key) {
            if let Ok((j, _, _)) = judged(&record, body, opts) {
                results[at] = Some(j);
                summary.cached += 1;
                continue;
            }
        }
        if opts.offline {
            results[at] = Some(Judged::Failed(
                "request",
                "no cached reply (--offline)".into(),
            ));
            continue;
        }
        let mut req = json!({"model": opts.model, "messages": [
            {"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": opts.temperature, "stream": false});
        if let Some(m) = opts.max_tokens {
            req["max_tokens"] = json!(m);
        }
        let plain = serde_json::to_vec(&req).map_err(|e| e.to_string())?;
        req["response_format"] = format.clone();
        let body = serde_json::to_vec(&req).map_err(|e| e.to_string())?;
        jobs.push(Job {
            at,
            record,
            key,
            body,
            plain,
        });
    }
    summary.sent = jobs.len();
    send_all(&jobs, cache, opts, &mut results, &mut summary)?;
    let mut out = Outcome::default();
    for (at, r) in results.into_iter().enumerate() {
        let id = ids[at].clone();
        match r {
            Some(Judged::Lines(ls, unplaced)) => {
                summary.judged += 1;
                summary.lines += ls.len();
                for l in &ls {
                    push_line(&mut out.lines, l);
                }
                if !unplaced.is_empty() {
                    summary.failed += 1;
                    summary.unplaced += unplaced.len();
                    for q in unplaced {
                        let why = "the quote is not in the answer (exact, case-insensitive or \
                                   fuzzy); its line is written with no placement";
                        push_line(
                            &mut out.skipped,
                            &json!({"id": id, "kind": "quote",
                            "reason": why, "quote": q}),
                        );
                    }
                }
            }
            Some(Judged::Failed(kind, why)) => {
                summary.failed += 1;
                let why = redact(&why, opts.client.key.as_deref());
                push_line(
                    &mut out.skipped,
                    &json!({"id": id, "kind": kind, "reason": why}),
                );
            }
            None => {
                summary.failed += 1;
                push_line(
                    &mut out.skipped,
                    &json!({"id": id, "kind": "request",
                    "reason": "no result (a worker thread stopped)"}),
                );
            }
        }
    }
    if let Some((pin, pout)) = opts.price {
        #[allow(clippy::cast_precision_loss)]
        let cost = summary.prompt_tokens as f64 * pin / 1e6
            + summary.completion_tokens as f64 * pout / 1e6;
        summary.cost = Some(cost);
    }
    summary.seconds = started.elapsed().as_secs_f64();
    out.summary = summary;
    Ok(out)
}

fn push_line(buf: &mut Vec<u8>, v: &Value) {
    // Serializing a Value cannot fail.
    let _ = serde_json::to_writer(&mut *buf, v);
    buf.push(b'\n');
}

/// `text` with the key replaced, should a server have echoed it back.
fn redact(text: &str, key: Option<&str>) -> String {
    match key {
        Some(k) if !k.is_empty() => text.replace(k, "[API key]"),
        _ => text.to_owned(),
    }
}

/// A reply body as the record's decision lines and its token counts (prompt, completion),
/// or why not.
fn judged(
    record: &Record,
    body: &str,
    opts: &Options,
) -> Result<(Judged, u64, u64), (&'static str, String)> {
    let Completion {
        content,
        prompt_tokens,
        completion_tokens,
    } = reply::completion(body).map_err(|e| ("reply", e))?;
    let verdict = reply::verdict(&content, record.gold_spans().len()).map_err(|e| ("schema", e))?;
    let (ls, unplaced) = lines(record, &verdict, &content, &opts.model, opts.threshold);
    Ok((
        Judged::Lines(ls, unplaced),
        prompt_tokens,
        completion_tokens,
    ))
}

/// What a worker hands back: the job's number and what the endpoint said.
type Reply = (usize, Sent);

/// Send `jobs` through `opts.concurrency` threads; each reply is read, cached and stored in
/// `results` as it comes.
fn send_all(
    jobs: &[Job],
    cache: &mut Cache,
    opts: &Options,
    results: &mut [Option<Judged>],
    summary: &mut Summary,
) -> Result<(), String> {
    if jobs.is_empty() {
        return Ok(());
    }
    let client = Client::new(opts.client.clone(), opts.concurrency);
    let next = AtomicUsize::new(0);
    let no_schema = AtomicBool::new(!opts.schema);
    let (tx, rx) = mpsc::channel::<Reply>();
    let mut progress = Progress::new(jobs.len());
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..opts.concurrency.clamp(1, jobs.len()) {
            let tx = tx.clone();
            let (client, next, no_schema) = (&client, &next, &no_schema);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let sent = send_one(client, job, no_schema);
                if tx.send((i, sent)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut error = None;
        for (i, sent) in rx {
            let job = &jobs[i];
            let r = match sent {
                Sent::Ok(body) => match judged(&job.record, &body, opts) {
                    Ok((j, prompt_tokens, completion_tokens)) => {
                        summary.prompt_tokens += prompt_tokens;
                        summary.completion_tokens += completion_tokens;
                        if error.is_none() {
                            if let Err(e) = cache.put(&job.key, &job.record.id, &body) {
                                // Stop sending: a reply that cannot be kept would be paid twice.
                                next.store(jobs.len(), Ordering::Relaxed);
                                error = Some(e);
                            }
                        }
                        j
                    }
                    Err((kind, why)) => Judged::Failed(kind, why),
                },
                Sent::Refused(status, body) => Judged::Failed(
                    "request",
                    format!("HTTP {status}: {}", reply::describe(&body)),
                ),
                Sent::Failed(why) => Judged::Failed("request", why),
            };
            results[job.at] = Some(r);
            progress.tick(summary, opts.price);
        }
        progress.end();
        error.map_or(Ok(()), Err)
    })
}

/// Send one job; a 400 that names `response_format` or `json_schema` (a server without
/// structured output) switches every later request to plain JSON.
fn send_one(client: &Client, job: &Job, no_schema: &AtomicBool) -> Sent {
    let plain = no_schema.load(Ordering::Relaxed);
    let sent = client.send(if plain { &job.plain } else { &job.body }, |_| {});
    if let Sent::Refused(400, body) = &sent {
        let b = body.to_lowercase();
        if !plain && (b.contains("response_format") || b.contains("json_schema")) {
            no_schema.store(true, Ordering::Relaxed);
            return client.send(&job.plain, |_| {});
        }
    }
    sent
}

/// The progress line on standard error: records done, rate, ETA, tokens, cost. On a terminal
/// it is redrawn in place a few times a second; otherwise a line every ten seconds.
struct Progress {
    total: usize,
    done: usize,
    started: Instant,
    last: Instant,
    tty: bool,
}

impl Progress {
    fn new(total: usize) -> Self {
        let now = Instant::now();
        Self {
            total,
            done: 0,
            started: now,
            last: now,
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn tick(&mut self, s: &Summary, price: Option<(f64, f64)>) {
        self.done += 1;
        let every = if self.tty {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(10)
        };
        if self.last.elapsed() < every && self.done < self.total {
            return;
        }
        if !self.tty && self.done == self.total {
            return; // the summary says it
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        #[allow(clippy::cast_precision_loss)]
        let rate = self.done as f64 / secs;
        #[allow(clippy::cast_precision_loss)]
        let eta = (self.total - self.done) as f64 / rate.max(1e-9);
        let tokens = s.prompt_tokens + s.completion_tokens;
        let cost = price.map_or_else(String::new, |(pin, pout)| {
            #[allow(clippy::cast_precision_loss)]
            let c = s.prompt_tokens as f64 * pin / 1e6 + s.completion_tokens as f64 * pout / 1e6;
            format!("  ${c:.4}")
        });
        let width = 24;
        let filled = self.done * width / self.total.max(1);
        let bar = format!("{}{}", "#".repeat(filled), "-".repeat(width - filled));
        let line = format!(
            "[{bar}] {}/{} requests  {rate:.1}/s  ETA {eta:.0}s  {tokens} tokens{cost}",
            self.done, self.total
        );
        // One write per redraw, so a terminal never shows half a line over the last one.
        let shown = if self.tty {
            format!("\r{line}\x1b[K")
        } else {
            format!("{line}\n")
        };
        let _ = std::io::stderr().lock().write_all(shown.as_bytes());
    }

    fn end(&self) {
        if self.tty {
            let _ = writeln!(std::io::stderr().lock());
        }
    }
}
