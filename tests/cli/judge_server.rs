//! A chat-completions server on loopback for `spanreview judge`'s tests and benchmark: std
//! `TcpListener`, a thread per connection, HTTP/1.1 with keep-alive. A script decides each
//! reply; the replies are the recorded shapes of real servers (tests/fixtures/judge/: OpenAI
//! and vLLM completions, OpenAI's 429 and 500 bodies, vLLM's 400 for an unsupported
//! `response_format`, nginx's 502 page). It counts requests, the most in flight at once, and
//! keeps every request it read (headers and body) for the tests to look at. A [`Gate`] holds
//! replies until a test opens it, so a test can hold requests in flight for as long as it
//! needs, whatever the load of the machine, and [`wait_for`] waits on a condition, not a time.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The recorded replies.
pub const OPENAI: &str = include_str!("../fixtures/judge/openai_chat_completion.json");
pub const VLLM: &str = include_str!("../fixtures/judge/vllm_chat_completion.json");
pub const TRUNCATED: &str = include_str!("../fixtures/judge/openai_truncated.json");
pub const RATE_LIMITED: &str = include_str!("../fixtures/judge/openai_429.json");
pub const SERVER_ERROR: &str = include_str!("../fixtures/judge/openai_500.json");
pub const NO_SCHEMA: &str = include_str!("../fixtures/judge/vllm_400_response_format.json");
pub const BAD_GATEWAY: &str = include_str!("../fixtures/judge/nginx_502.html");

/// One request as read.
#[derive(Debug, Clone)]
pub struct Request {
    /// Request line and headers.
    pub head: String,
    /// The body.
    pub body: String,
    /// The body parsed (null when it is not JSON).
    pub json: Value,
    /// When it was read, since the server started.
    pub at: Duration,
}

impl Request {
    /// The user message.
    #[must_use]
    pub fn user(&self) -> &str {
        self.json["messages"][1]["content"].as_str().unwrap_or("")
    }

    /// The answer in the user message (between `ANSWER:` and `LABELED SPANS:`).
    #[must_use]
    pub fn answer(&self) -> &str {
        let u = self.user();
        let start = u.find("ANSWER:\n").map_or(0, |a| a + 8);
        let end = u.find("\n\nLABELED SPANS:").unwrap_or(u.len());
        u.get(start..end).unwrap_or("")
    }

    /// How many labeled spans the prompt numbers (`[0] ...` lines).
    #[must_use]
    pub fn spans(&self) -> usize {
        self.user()
            .lines()
            .filter(|l| {
                l.strip_prefix('[').is_some_and(|r| {
                    r.starts_with(|c: char| c.is_ascii_digit()) && r.contains("] ")
                })
            })
            .count()
    }
}

/// A reply: status, extra headers, body, and how long to wait before sending it.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Reply {
    /// A recorded completion (`OPENAI`, `VLLM`) with its message content set to `content`.
    #[must_use]
    pub fn completion(fixture: &str, content: &str) -> Self {
        let mut v: Value = serde_json::from_str(fixture).expect("fixture is JSON");
        v["choices"][0]["message"]["content"] = json!(content);
        Self::raw(200, "application/json", v.to_string())
    }

    /// The verdict a careful judge would give: every labeled span confirmed, and on a record
    /// without spans the answer's first words quoted as a claim.
    #[must_use]
    pub fn verdicts(fixture: &str, req: &Request) -> Self {
        Self::completion(fixture, &verdict_content(req))
    }

    /// Any status and body.
    #[must_use]
    pub fn raw(status: u16, content_type: &str, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    /// This reply after `d`.
    #[must_use]
    pub fn after(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }

    /// This reply with a header.
    #[must_use]
    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
}

/// The content of [`Reply::verdicts`].
#[must_use]
pub fn verdict_content(req: &Request) -> String {
    let labeled: Vec<Value> = (0..req.spans())
        .map(|i| json!({"span": i, "label_correct": "true", "code": "", "reason": "not in the tool context"}))
        .collect();
    let unlabeled: Vec<Value> = if labeled.is_empty() {
        let quote: String = req.answer().chars().take(24).collect();
        let quote = quote.trim().to_owned();
        if quote.is_empty() {
            vec![]
        } else {
            vec![
                json!({"quote": quote, "label": "overgeneration", "code": "", "reason": "unsupported"}),
            ]
        }
    } else {
        vec![]
    };
    json!({"labeled": labeled, "unlabeled": unlabeled, "reasoning": "checked against the context"})
        .to_string()
}

/// What decides each reply: the request and its number (from 0, in arrival order).
pub type Script = Arc<dyn Fn(&Request, usize) -> Reply + Send + Sync>;

/// The counters.
#[derive(Debug, Default)]
pub struct Stats {
    pub requests: AtomicUsize,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    pub log: Mutex<Vec<Request>>,
}

impl Stats {
    /// Requests read so far.
    #[must_use]
    pub fn count(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// The requests read so far.
    #[must_use]
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().expect("log").clone()
    }
}

/// Replies held until a test opens it: a script calls [`Gate::wait`] before the replies it
/// holds back.
#[derive(Debug, Default)]
pub struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    /// Block until the gate is open.
    pub fn wait(&self) {
        let mut open = self.open.lock().expect("gate");
        while !*open {
            open = self.opened.wait(open).expect("gate");
        }
    }

    /// Open the gate: every held reply goes, and no later one waits.
    pub fn open(&self) {
        *self.open.lock().expect("gate") = true;
        self.opened.notify_all();
    }
}

/// How long [`wait_for`] waits at most: a bound for a condition that never comes, not a timing.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// Wait until `done` holds, checked every few milliseconds, bounded by [`DEADLINE`] (the panic
/// names `what` and says what `state` shows then).
pub fn wait_for(what: &str, mut done: impl FnMut() -> bool, state: impl Fn() -> String) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < DEADLINE,
            "timed out waiting for {what}: {}",
            state()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A running server.
pub struct Server {
    /// `http://127.0.0.1:PORT/v1`.
    pub url: String,
    pub stats: Arc<Stats>,
}

/// Start a server answering with `script`; `keep` false keeps no request log (the benchmark).
#[must_use]
pub fn start(script: Script, keep: bool) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    let stats = Arc::new(Stats::default());
    let s = Arc::clone(&stats);
    let started = Instant::now();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let (script, stats) = (Arc::clone(&script), Arc::clone(&s));
            std::thread::spawn(move || serve(conn, &script, &stats, keep, started));
        }
    });
    Server { url, stats }
}

/// Serve the requests of one connection until it closes.
fn serve(conn: TcpStream, script: &Script, stats: &Stats, keep: bool, started: Instant) {
    let _ = conn.set_nodelay(true);
    let Ok(write) = conn.try_clone() else { return };
    let mut write = write;
    let mut read = BufReader::new(conn);
    loop {
        let mut head = String::new();
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            match read.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" || line == "\n" {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            head.push_str(&line);
        }
        let mut body = vec![0; length];
        if read.read_exact(&mut body).is_err() {
            return;
        }
        let body = String::from_utf8_lossy(&body).into_owned();
        let req = Request {
            json: serde_json::from_str(&body).unwrap_or(Value::Null),
            head,
            body,
            at: started.elapsed(),
        };
        let n = stats.requests.fetch_add(1, Ordering::SeqCst);
        let now = stats.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        stats.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let reply = script(&req, n);
        if keep {
            stats.log.lock().expect("log").push(req);
        }
        std::thread::sleep(reply.delay);
        let mut out = format!(
            "HTTP/1.1 {} {}\r\nContent-Length: {}\r\n",
            reply.status,
            reason(reply.status),
            reply.body.len()
        );
        for (k, v) in &reply.headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str("\r\n");
        out.push_str(&reply.body);
        let ok = write
            .write_all(out.as_bytes())
            .and_then(|()| write.flush())
            .is_ok();
        stats.in_flight.fetch_sub(1, Ordering::SeqCst);
        if !ok {
            return;
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        _ => "Status",
    }
}
