//! `spanreview judge`'s work: a model's first pass over records through any OpenAI-compatible
//! chat-completions endpoint, written in the halu-toolace judge-decisions format
//! (`formats::judge_decisions`) that `--judge NAME=FILE` reads.
//!
//! - [`prompt`]: the prompt files (`assets/prompts/`), a rubric's codes, one record's messages.
//! - [`reply`]: the reply's JSON schema, the completion envelope and the verdict in it.
//! - [`lines`]: a verdict as decision lines, its quotes placed in the answer
//!   ([`crate::review::locate`]: exact, case-insensitive, fuzzy with its score).
//! - [`http`]: the blocking client: retries with backoff on 429 and 5xx (`Retry-After`
//!   honoured), a timeout per request, the schema fallback for servers without it.
//! - [`cache`]: replies by the SHA-256 of (endpoint, model, prompt, record), appended as they
//!   come, so a rerun or a resumed run sends nothing twice.
//! - [`run`]: the records through N threads, progress, the summary.

pub mod cache;
pub mod http;
pub mod lines;
pub mod prompt;
pub mod reply;
pub mod run;
