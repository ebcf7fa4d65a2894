//! The blocking chat-completions client (ureq, TLS by rustls): one POST per request, retried
//! with exponential backoff on 429, 5xx and a dropped connection, waiting what `Retry-After`
//! says when the server says it; a timeout per request (on each of its phases). The API key goes only into the
//! `Authorization` header: no error message quotes a header.

use std::time::Duration;

/// Replies larger than this are refused (a runaway server), in bytes.
const MAX_BODY: u64 = 16 << 20;

/// Longest wait a `Retry-After` may ask for before the request is given up.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);

/// How the client sends.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// `…/chat/completions`.
    pub url: String,
    /// The bearer token, when there is one.
    pub key: Option<String>,
    /// The timeout of each phase of a request: connecting, sending it, waiting for the
    /// reply's headers, reading its body.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first backoff; each next one doubles (capped at a minute).
    pub backoff: Duration,
}

/// One request's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// A 2xx answer's body.
    Ok(String),
    /// A 4xx other than 429 (retrying cannot help): status and body.
    Refused(u16, String),
    /// Every attempt failed: why the last one did.
    Failed(String),
}

/// The client, shared by the worker threads.
#[derive(Debug)]
pub struct Client {
    agent: ureq::Agent,
    opts: ClientOptions,
}

/// What one attempt gave.
enum Attempt {
    Done(Sent),
    /// Worth retrying: why, and how long the server asked us to wait.
    Again(String, Option<Duration>),
}

impl Client {
    /// A client for `opts`; idle connections are kept for `pool` requests in flight.
    #[must_use]
    pub fn new(opts: ClientOptions, pool: usize) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // A timeout per phase, not one for the whole call: with a global or per-call
            // timeout ureq resolves the host on a thread of its own for every request (one
            // thread spawned per record, most of the client's system time at 64 in flight).
            .timeout_connect(Some(opts.timeout))
            .timeout_send_request(Some(opts.timeout))
            .timeout_send_body(Some(opts.timeout))
            .timeout_recv_response(Some(opts.timeout))
            .timeout_recv_body(Some(opts.timeout))
            .max_idle_connections(pool.max(1))
            .max_idle_connections_per_host(pool.max(1))
            .user_agent(concat!("spanreview/", env!("CARGO_PKG_VERSION")))
            .build();
        Self {
            agent: config.into(),
            opts,
        }
    }

    /// POST `body` (JSON), retrying as the module says; `waited` is called with each wait.
    pub fn send(&self, body: &[u8], mut waited: impl FnMut(Duration)) -> Sent {
        let mut last = String::new();
        for attempt in 0..=self.opts.retries {
            match self.attempt(body) {
                Attempt::Done(s) => return s,
                Attempt::Again(why, after) => {
                    last = why;
                    if attempt == self.opts.retries {
                        break;
                    }
                    let backoff = self
                        .opts
                        .backoff
                        .saturating_mul(1 << attempt.min(16))
                        .min(Duration::from_secs(60));
                    let wait = match after {
                        Some(a) if a > MAX_RETRY_AFTER => {
                            return Sent::Failed(format!(
                                "{last}; the server asks to wait {}s (Retry-After), more than {}s",
                                a.as_secs(),
                                MAX_RETRY_AFTER.as_secs()
                            ))
                        }
                        Some(a) => a,
                        None => backoff,
                    };
                    waited(wait);
                    std::thread::sleep(wait);
                }
            }
        }
        Sent::Failed(format!(
            "{last} (after {} attempt{})",
            self.opts.retries + 1,
            if self.opts.retries == 0 { "" } else { "s" }
        ))
    }

    fn attempt(&self, body: &[u8]) -> Attempt {
        let mut req = self
            .agent
            .post(&self.opts.url)
            .header("Content-Type", "application/json");
        if let Some(k) = &self.opts.key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        let resp = match req.send(body) {
            Ok(r) => r,
            Err(ureq::Error::Timeout(_)) => {
                return Attempt::Again(
                    format!(
                        "no reply within {}s (--timeout)",
                        self.opts.timeout.as_secs_f64()
                    ),
                    None,
                )
            }
            Err(e) => return Attempt::Again(format!("request failed: {e}"), None),
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(retry_after);
        let text = match resp
            .into_body()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
        {
            Ok(t) => t,
            Err(ureq::Error::Timeout(_)) => {
                return Attempt::Again(
                    format!(
                        "the reply did not end within {}s (--timeout)",
                        self.opts.timeout.as_secs_f64()
                    ),
                    None,
                )
            }
            Err(e) => {
                return Attempt::Again(format!("reading the reply (HTTP {status}): {e}"), None)
            }
        };
        match status {
            200..=299 => Attempt::Done(Sent::Ok(text)),
            429 | 500..=599 => Attempt::Again(
                format!("HTTP {status}: {}", super::reply::describe(&text)),
                retry_after,
            ),
            _ => Attempt::Done(Sent::Refused(status, text)),
        }
    }
}

/// A `Retry-After` value in seconds (fractions taken, as some servers send them); an HTTP
/// date is not read (the backoff applies).
#[must_use]
pub fn retry_after(v: &str) -> Option<Duration> {
    let secs: f64 = v.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

/// The chat-completions URL of an endpoint: `…/chat/completions` as given, else that path
/// added to the base (`http://localhost:8000/v1` → `…/v1/chat/completions`).
#[must_use]
pub fn completions_url(endpoint: &str) -> String {
    let e = endpoint.trim_end_matches('/');
    if e.ends_with("/chat/completions") {
        e.to_owned()
    } else {
        format!("{e}/chat/completions")
    }
}

#[cfg(test)]
mod tests;
