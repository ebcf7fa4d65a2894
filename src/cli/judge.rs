//! `spanreview judge`: a model's first pass over records through any OpenAI-compatible
//! chat-completions endpoint, written as a halu-toolace judge-decisions file for
//! `review --judge` and `stats --judge` ([`crate::judge`] does the work).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use serde_json::json;

use super::to_stderr;
use crate::export::{persist_all, AtomicFile, Protected};
use crate::formats::{Dataset, Format};
use crate::judge::cache::Cache;
use crate::judge::http::{completions_url, ClientOptions};
use crate::judge::prompt::{self, Prompt, Rubric};
use crate::judge::run::{self, Options, Summary};
use crate::tui::queue::QueueKind;

/// The label set a default prompt is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Labels {
    /// toolace-hallucination-spans: contradiction, overgeneration, missing_tool.
    Toolace,
    /// The LettuceDetect unified taxonomy, its categories' definitions in the prompt.
    Lettucedetect,
}

/// Arguments of `spanreview judge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The records to judge (joined files: the leading one's records and labels). A dataset
    /// folder (a Hub download, README.md card) is read as the file of its --config and --split.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
    /// The endpoint: its base (`http://localhost:8000/v1`) or its `…/chat/completions`.
    #[arg(long, value_name = "URL")]
    pub endpoint: String,
    /// The model name sent with each request.
    #[arg(long, value_name = "NAME")]
    pub model: String,
    /// The judge file written (decision lines; `--judge NAME=FILE` reads it).
    #[arg(long, value_name = "JUDGE.jsonl")]
    pub out: PathBuf,
    /// The environment variable holding the API key (sent as a bearer token, never printed
    /// or written). Unset or empty: no key is sent.
    #[arg(long, value_name = "NAME", default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// The prompt file (a system message, a line `=== user ===`, the user message, with the
    /// placeholders {query}, {context}, {answer}, {spans}, {tools}, {labels}, {rubric}; see
    /// docs/judge.md). Default: the label set's bundled prompt.
    #[arg(long, value_name = "FILE")]
    pub prompt: Option<PathBuf>,
    /// The label set of the default prompt.
    #[arg(long, value_enum, default_value = "toolace")]
    pub labels: Labels,
    /// A rubric: a TOML file of `CODE = "description"` lines; its codes go into the prompt and
    /// the schema, and each reason comes back as `CODE: reason`.
    #[arg(long, value_name = "FILE")]
    pub rubric: Option<PathBuf>,
    /// Requests in flight at most.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub concurrency: usize,
    /// Seconds each phase of a request may take: connecting, sending it, waiting for the
    /// reply, reading the reply.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub timeout: f64,
    /// Retries of a request after a 429, a 5xx, a timeout or a dropped connection.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub retries: u32,
    /// The first retry's wait in seconds (doubling each time) when the server sends no
    /// Retry-After.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub backoff: f64,
    /// Sampling temperature.
    #[arg(long, value_name = "T", default_value_t = 0.0)]
    pub temperature: f64,
    /// `max_tokens` of each reply (default: the server's).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Send no `response_format` (for servers without structured output): the reply is read as
    /// plain JSON. Without it, a 400 naming `response_format` switches to this by itself.
    #[arg(long)]
    pub no_schema: bool,
    /// The reply cache (default: JUDGE.jsonl.cache next to --out).
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,
    /// Continue a run that was killed: its cache must exist (every reply it holds is used;
    /// only the rest is sent). A plain rerun uses the cache too.
    #[arg(long)]
    pub resume: bool,
    /// Send nothing: judge only the records the cache has replies for.
    #[arg(long)]
    pub offline: bool,
    /// USD per million prompt and completion tokens (`0.15,0.60`): the progress line and the
    /// summary show the cost.
    #[arg(long, value_name = "IN,OUT", value_parser = parse_price)]
    pub price: Option<(f64, f64)>,
    /// Fuzzy placement threshold of a quote (similarity 0..1).
    #[arg(long, value_name = "S", default_value_t = crate::review::locate::DEFAULT_THRESHOLD)]
    pub threshold: f64,
    /// Judge only these records, as review's queue names them: `all`, `type:NAME` (the
    /// record's corruption type), `label:NAME` (a labeled span's label or category). The
    /// queues that read the decision database are refused: judge reads none.
    #[arg(long, value_name = "QUEUE")]
    pub queue: Option<String>,
    /// Read every file in this format instead of detecting it.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
}

fn parse_price(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("{s:?}: give IN,OUT (USD per million tokens), e.g. 0.15,0.60"))?;
    let num = |x: &str| {
        x.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("{x:?} is not a price (a number >= 0)"))
    };
    Ok((num(a)?, num(b)?))
}

/// The options of a run, read from the arguments: prompt, rubric, key.
fn options(args: &Args) -> anyhow::Result<Options> {
    let (prompt, labels) = match args.labels {
        Labels::Toolace => (
            prompt::TOOLACE,
            "contradiction, overgeneration, missing_tool".to_owned(),
        ),
        Labels::Lettucedetect => (prompt::LETTUCEDETECT, prompt::lettucedetect_labels()),
    };
    let prompt = match &args.prompt {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("reading --prompt {}", p.display()))?;
            Prompt::parse(&text, &p.display().to_string()).map_err(anyhow::Error::msg)?
        }
        None => Prompt::parse(prompt, "the bundled prompt").map_err(anyhow::Error::msg)?,
    };
    let rubric = match &args.rubric {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("reading --rubric {}", p.display()))?;
            Some(Rubric::parse(&text, &p.display().to_string()).map_err(anyhow::Error::msg)?)
        }
        None => None,
    };
    if args.concurrency == 0 {
        bail!("--concurrency 0: give at least 1");
    }
    let seconds = |v: f64, what: &str| {
        if v.is_finite() && v >= 0.0 {
            Ok(Duration::from_secs_f64(v))
        } else {
            Err(anyhow::anyhow!("{what} {v}: give a number of seconds >= 0"))
        }
    };
    if !(args.threshold > 0.0 && args.threshold <= 1.0) {
        bail!(
            "--threshold {}: give a similarity in (0, 1]",
            args.threshold
        );
    }
    let key = std::env::var(&args.api_key_env)
        .ok()
        .filter(|k| !k.is_empty());
    Ok(Options {
        endpoint: args.endpoint.clone(),
        model: args.model.clone(),
        client: ClientOptions {
            url: completions_url(&args.endpoint),
            key,
            timeout: seconds(args.timeout, "--timeout")?,
            retries: args.retries,
            backoff: seconds(args.backoff, "--backoff")?,
        },
        concurrency: args.concurrency,
        temperature: args.temperature,
        max_tokens: args.max_tokens,
        schema: !args.no_schema,
        prompt,
        labels,
        rubric,
        threshold: args.threshold,
        price: args.price,
        offline: args.offline,
    })
}

/// The skipped file of `out`: `JUDGE.skipped.jsonl`.
fn skipped_path(out: &std::path::Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.with_file_name(format!("{stem}.skipped.jsonl"))
}

/// Run the subcommand.
///
/// # Errors
/// Usage and I/O errors: an unreadable input, prompt or rubric, a cache or output that
/// cannot be written.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.out.as_os_str() == "-" {
        bail!("--out -: judge writes a file (its cache and skipped file go beside it); name one");
    }
    let opts = options(&args)?;
    let cache_path = args.cache.clone().unwrap_or_else(|| {
        let mut s = args.out.clone().into_os_string();
        s.push(".cache");
        PathBuf::from(s)
    });
    if args.resume && !cache_path.exists() {
        bail!(
            "--resume: {} does not exist (no run to resume; drop --resume to start one)",
            cache_path.display()
        );
    }
    let skipped = skipped_path(&args.out);
    let mut inputs = Protected::default();
    for f in &args.files {
        inputs.add(f, "the input file");
    }
    inputs.check(&args.out, "--out")?;
    inputs.check(&skipped, "the skipped file")?;
    inputs.check(&cache_path, "--cache")?;
    let queue = args.queue.as_deref().map(queue).transpose()?;
    let ds = Dataset::open(&args.files, args.format)?;
    let records = (0..ds.len())
        .map(|i| {
            ds.record(i)
                .map_err(|e| (ds.primary().id(i).ok(), e.to_string()))
        })
        .filter(|r| match (&queue, r) {
            (Some(q), Ok(r)) => in_queue(q, r),
            _ => true, // an unreadable line is reported whatever the queue
        })
        .collect();
    let mut cache = Cache::open(&cache_path).map_err(anyhow::Error::msg)?;
    crate::export::cleanup::install()?;
    let outcome = run::run(records, &mut cache, &opts).map_err(anyhow::Error::msg)?;
    let mut out = AtomicFile::create(&args.out)?;
    let mut skip = AtomicFile::create(&skipped)?;
    out.writer()
        .and_then(|w| std::io::Write::write_all(w, &outcome.lines))
        .with_context(|| format!("writing {}", args.out.display()))?;
    skip.writer()
        .and_then(|w| std::io::Write::write_all(w, &outcome.skipped))
        .with_context(|| format!("writing {}", skipped.display()))?;
    persist_all(vec![(out, "--out"), (skip, "the skipped file")], None)?;
    let s = &outcome.summary;
    let text = if args.json {
        format!("{}\n", summary_json(s, &args, &skipped, &cache_path))
    } else {
        summary_text(s, &args, &skipped)
    };
    if s.torn_cache_lines > 0 {
        to_stderr!(
            "warning: {}: {} unreadable line(s) skipped (a line cut by a kill); their records \
             were sent again",
            cache_path.display(),
            s.torn_cache_lines
        );
    }
    super::write_stdout(text.as_bytes())?;
    Ok(if s.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--queue`: the queues that need no database.
fn queue(s: &str) -> anyhow::Result<QueueKind> {
    let q: QueueKind = s.parse().map_err(anyhow::Error::msg)?;
    match q {
        QueueKind::All | QueueKind::Type(_) | QueueKind::Label(_) => Ok(q),
        _ => bail!(
            "--queue {s}: judge reads no decision database; give all, type:NAME or label:NAME"
        ),
    }
}

/// Whether `r` is in the queue `q` (one of [`queue`]'s).
fn in_queue(q: &QueueKind, r: &crate::model::Record) -> bool {
    match q {
        QueueKind::Type(t) => r.corruption_type.as_deref() == Some(t.as_str()),
        QueueKind::Label(l) => r
            .gold_spans()
            .iter()
            .any(|s| s.label == *l || s.category.as_deref() == Some(l.as_str())),
        _ => true,
    }
}

fn summary_json(
    s: &Summary,
    args: &Args,
    skipped: &std::path::Path,
    cache: &std::path::Path,
) -> serde_json::Value {
    json!({"records": s.records, "judged": s.judged, "from_cache": s.cached, "sent": s.sent,
           "failed": s.failed, "unplaced_quotes": s.unplaced, "lines": s.lines,
           "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens,
           "cost_usd": s.cost, "seconds": (s.seconds * 1000.0).round() / 1000.0,
           "out": args.out.display().to_string(), "skipped": skipped.display().to_string(),
           "cache": cache.display().to_string()})
}

fn summary_text(s: &Summary, args: &Args, skipped: &std::path::Path) -> String {
    let cost = s.cost.map_or_else(String::new, |c| format!(", ${c:.4}"));
    let mut t = format!(
        "judged {} of {} records ({} from the cache, {} sent) in {:.1}s; {} + {} tokens{cost}\n\
         wrote {} ({} lines)\n",
        s.judged,
        s.records,
        s.cached,
        s.sent,
        s.seconds,
        s.prompt_tokens,
        s.completion_tokens,
        args.out.display(),
        s.lines,
    );
    if s.failed > 0 {
        t.push_str(&format!(
            "{} record(s) failed ({} quote(s) not placed): reasons in {}\n",
            s.failed,
            s.unplaced,
            skipped.display()
        ));
    }
    t
}
