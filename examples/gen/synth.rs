//! Synthetic ToolACE-like records in the RAGTruth-compatible schema, for benchmarks.
//!
//! Pure and deterministic: record `i` of seed `s` is always the same bytes, whatever the thread
//! count, because every record (and every base dialogue) draws from its own random stream. The
//! JSON is written by hand (Python `json.dumps` separators, non-ASCII raw) so that gigabytes come
//! out in seconds. Used by the `gen` example and by `benches/core.rs`.
//!
//! Records come in groups of four per base dialogue (`clean`, `contradiction`, `missing_tool`,
//! `overgeneration`); about one clean record in ten is a `__clean__recovered` record of another
//! type. Every answer has non-ASCII characters (`’`, `°`, `é`, CJK, emoji, combining marks) before
//! its first span, so an offset computed in UTF-8 bytes or UTF-16 units never lands right.

use std::fmt::Write as _;

use spanreview::review::splitmix::SplitMix64;

#[path = "domains.rs"]
mod domains;
#[path = "write.rs"]
mod write;

use domains::{
    item, Domain, CITIES, DISTRACTOR_TOOLS, DOMAINS, INTROS, MISSING_TOOL, OUTROS, OVERGEN,
    PRODUCTS, TITLES,
};
pub use write::{broken_kind, write_prediction, write_record};

/// Variants of one base dialogue, in record order.
pub const VARIANTS: [&str; 4] = ["clean", "contradiction", "missing_tool", "overgeneration"];

/// What can be wrong with an injected broken line (see [`Options::broken`]).
pub const BROKEN_KINDS: [&str; 11] = [
    "invalid_json",
    "missing_output",
    "offset_float",
    "offset_string",
    "reversed_span",
    "out_of_bounds",
    "text_mismatch",
    "byte_offsets",
    "unknown_label",
    "duplicate_id",
    "base_id_mismatch",
];

/// Generation settings.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Seed of every random stream.
    pub seed: u64,
    /// Fraction of records written as a broken line (0 for a valid file).
    pub broken: f64,
    /// Smallest and largest raw context size in bytes.
    pub context_min: usize,
    /// Largest raw context size in bytes.
    pub context_max: usize,
    /// Skew of the context size: `min * (max/min)^(u^skew)`, `u` uniform; larger is more skewed
    /// towards small contexts. 4.3 with 1 KB..100 KB gives about 10 KB a line (150,000 records ≈ 1.5 GB).
    pub skew: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            seed: 1,
            broken: 0.0,
            context_min: 1_000,
            context_max: 100_000,
            skew: 4.3,
        }
    }
}

/// A small, fast, seedable generator (the library's splitmix64, seeded per stream and item).
/// Not for cryptography.
#[derive(Debug, Clone)]
pub struct Rng(SplitMix64);

impl Rng {
    /// The stream `stream` of item `i` under `seed`.
    #[must_use]
    pub fn new(seed: u64, stream: u64, i: u64) -> Self {
        let mut r = Self(SplitMix64(
            seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)
                ^ i.wrapping_mul(0xAEF1_7502_108E_F2D9),
        ));
        r.next_u64();
        r
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// One string of a non-empty list.
    pub fn pick_str<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    /// An element of `xs` other than `not` (when there is one).
    pub fn pick_other<'a>(&mut self, xs: &[&'a str], not: &str) -> &'a str {
        for _ in 0..8 {
            let x = *self.pick(xs);
            if x != not {
                return x;
            }
        }
        xs.iter().copied().find(|x| *x != not).unwrap_or(xs[0])
    }
}

/// One piece of an answer sentence: plain text, or a fact a contradiction can falsify.
#[derive(Debug, Clone)]
enum Piece {
    Lit(String),
    Fact { right: String, wrong: String },
}

/// A sentence of the answer and the separator written before it.
#[derive(Debug, Clone)]
struct Sentence {
    sep: &'static str,
    pieces: Vec<Piece>,
}

/// What the variants of one base dialogue share.
#[derive(Debug, Clone)]
pub struct Base {
    /// `toolace_synth_000123`.
    pub id: String,
    /// The user request.
    pub query: String,
    /// Tool responses, one JSON object per line (raw, not yet escaped).
    pub context: String,
    /// `meta.tools` as JSON text.
    pub tools: String,
    /// `meta.tool_call` as JSON text.
    pub tool_call: String,
    plan: Vec<Sentence>,
}

/// A labeled span in code points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// First code point.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// `output[start:end]`.
    pub text: String,
    /// The hallucination type.
    pub label: String,
}

/// One generated record, before serialisation.
#[derive(Debug, Clone)]
pub struct Record {
    /// Record id.
    pub id: String,
    /// Index of the base dialogue.
    pub base: usize,
    /// `meta.corruption_type`.
    pub corruption_type: &'static str,
    /// The answer.
    pub output: String,
    /// Gold spans.
    pub labels: Vec<Label>,
    /// Code-point ranges of the answer's sentences (detector noise draws from them).
    pub sentences: Vec<(usize, usize)>,
}

/// Append `s` as a JSON string literal (quotes, backslashes and control characters escaped,
/// everything else raw, as Python's `json.dumps(ensure_ascii=False)`).
pub fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(esc);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// Build the shared part of base dialogue `base`.
#[must_use]
pub fn base(opts: &Options, base: usize) -> Base {
    let mut rng = Rng::new(opts.seed, 1, base as u64);
    let domain = *rng.pick(&DOMAINS);
    let ratio = opts.context_max as f64 / opts.context_min.max(1) as f64;
    let target = (opts.context_min as f64 * ratio.powf(rng.unit().powf(opts.skew))) as usize;
    let mut ctx = String::with_capacity(target + 4096);
    let mut plan = Vec::new();
    let intro = *rng.pick(INTROS);
    plan.push(Sentence {
        sep: "",
        pieces: vec![Piece::Lit(intro.to_owned())],
    });
    let mentioned = rng.range(2, 7);
    let city = *rng.pick(CITIES);

    // A small side response, before or after the main ones.
    let mut side = String::new();
    if rng.chance(0.6) {
        let _ = write!(
            side,
            "{{\"content\": {{\"currency\": \"EUR\", \"rate\": 1.{:04}, \"source\": \"ECB\", \"symbol\": \"€\"}}, \"name\": \"Currency Converter\", \"role\": \"tool\"}}",
            rng.range(0, 9999)
        );
    }
    let side_first = rng.chance(0.5);
    if side_first && !side.is_empty() {
        ctx.push_str(&side);
        ctx.push('\n');
    }
    // Main responses: pages of at most ~24 KB, filled with items up to the target size.
    let mut page = 1;
    let mut items = 0usize;
    loop {
        let _ = write!(ctx, "{{\"content\": {{\"{}\": [", domain.list_key());
        let page_start = ctx.len();
        let mut first = true;
        while ctx.len() < target && ctx.len() - page_start < 24_000 || items == 0 {
            if !first {
                ctx.push_str(", ");
            }
            first = false;
            let s = item(domain, &mut rng, &mut ctx);
            if items < mentioned {
                plan.push(s);
            }
            items += 1;
        }
        let _ = write!(ctx, "], \"page\": {page}}}, \"name\": ");
        push_json_str(&mut ctx, domain.tool());
        ctx.push_str(", \"role\": \"tool\"}");
        page += 1;
        if ctx.len() >= target {
            break;
        }
        ctx.push('\n');
    }
    if !side_first && !side.is_empty() {
        ctx.push('\n');
        ctx.push_str(&side);
    }
    // Paragraph layout: items as a list or as running text.
    let bullets = rng.chance(0.4);
    for (k, s) in plan.iter_mut().enumerate().skip(1) {
        s.sep = if bullets {
            "\n- "
        } else if k == 1 {
            "\n\n"
        } else {
            " "
        };
    }
    plan.push(Sentence {
        sep: "\n\n",
        pieces: vec![Piece::Lit((*rng.pick(OUTROS)).to_owned())],
    });

    let query = match domain {
        Domain::Weather => format!("What’s the weather going to be in {city} over the next {mentioned} days? Je pars demain ✈️"),
        Domain::Events => format!("Can you find upcoming events about “{}” near {city}? Page 1 is fine.", rng.pick(TITLES)),
        Domain::Hotels => format!("I need a hotel in {city} for two nights — something under ¥40,000 please 🙏"),
        Domain::Flights => format!("Is my flight from {city} on time today? 航班状态"),
        Domain::Products => format!("Find me a {} under 150 € with good reviews.", rng.pick(PRODUCTS)),
    };
    let mut tools = String::from("[");
    tools.push_str(domain.schema());
    for _ in 0..rng.range(1, 3) {
        tools.push_str(", ");
        tools.push_str(rng.pick_str(DISTRACTOR_TOOLS));
    }
    tools.push(']');
    let mut tool_call = String::from("{\"name\": ");
    push_json_str(&mut tool_call, domain.tool());
    tool_call.push_str(", \"arguments\": {\"city\": ");
    push_json_str(&mut tool_call, city);
    let _ = write!(tool_call, ", \"page\": 1, \"days\": {mentioned}}}}}");
    Base {
        id: format!("toolace_synth_{base:06}"),
        query,
        context: ctx,
        tools,
        tool_call,
        plan,
    }
}

/// An inserted sentence: after which plan sentence, its text, its label.
struct Insert {
    after: usize,
    text: &'static str,
    label: &'static str,
}

/// Render the answer of a variant: the plan with some facts falsified and some sentences
/// inserted, each change becoming a label.
fn render(
    plan: &[Sentence],
    wrong: &[(usize, usize)],
    inserts: &[Insert],
    label: &str,
) -> (String, Vec<Label>, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(1024);
    let mut chars = 0usize;
    let mut labels = Vec::new();
    let mut sentences = Vec::new();
    let push = |out: &mut String, chars: &mut usize, s: &str| {
        out.push_str(s);
        *chars += s.chars().count();
    };
    for (si, s) in plan.iter().enumerate() {
        push(&mut out, &mut chars, s.sep);
        let start = chars;
        for (pi, p) in s.pieces.iter().enumerate() {
            match p {
                Piece::Lit(t) => push(&mut out, &mut chars, t),
                Piece::Fact { right, wrong: w } => {
                    if wrong.contains(&(si, pi)) {
                        let a = chars;
                        push(&mut out, &mut chars, w);
                        labels.push(Label {
                            start: a,
                            end: chars,
                            text: w.clone(),
                            label: label.to_owned(),
                        });
                    } else {
                        push(&mut out, &mut chars, right);
                    }
                }
            }
        }
        sentences.push((start, chars));
        for ins in inserts.iter().filter(|i| i.after == si) {
            push(&mut out, &mut chars, " ");
            let a = chars;
            push(&mut out, &mut chars, ins.text);
            labels.push(Label {
                start: a,
                end: chars,
                text: ins.text.to_owned(),
                label: ins.label.to_owned(),
            });
            sentences.push((a, chars));
        }
    }
    (out, labels, sentences)
}

/// Record `i` (variant `i % 4` of base `i / 4`), given its base.
#[must_use]
pub fn record(opts: &Options, b: &Base, i: usize) -> Record {
    let mut rng = Rng::new(opts.seed, 2, i as u64);
    let base = i / 4;
    let mut variant = VARIANTS[i % 4];
    let mut id = format!("{}__{variant}", b.id);
    let mut ctype = variant;
    if variant == "clean" && rng.chance(0.1) {
        // Already hallucinated in the source: keeps its own type.
        id.push_str("__recovered");
        variant = if rng.chance(0.5) {
            "overgeneration"
        } else {
            "contradiction"
        };
        ctype = variant;
    }
    let facts: Vec<(usize, usize)> = b
        .plan
        .iter()
        .enumerate()
        .flat_map(|(si, s)| {
            s.pieces
                .iter()
                .enumerate()
                .filter(|(_, p)| matches!(p, Piece::Fact { .. }))
                .map(move |(pi, _)| (si, pi))
        })
        .collect();
    // Sentences an insert may follow: the intro and the item sentences (not the outro).
    let last_body = b.plan.len() - 2;
    let mut wrong = Vec::new();
    let mut inserts = Vec::new();
    match variant {
        "contradiction" => {
            let n = if rng.chance(0.15) { 2 } else { 1 };
            while wrong.len() < n.min(facts.len()) {
                let f = *rng.pick(&facts);
                if !wrong.contains(&f) {
                    wrong.push(f);
                }
            }
        }
        "missing_tool" => inserts.push(Insert {
            after: rng.range(1, last_body),
            text: rng.pick_str(MISSING_TOOL),
            label: "missing_tool",
        }),
        "overgeneration" => {
            let n = if rng.chance(0.3) { 2 } else { 1 };
            for _ in 0..n {
                inserts.push(Insert {
                    after: rng.range(0, last_body + 1),
                    text: rng.pick_str(OVERGEN),
                    label: "overgeneration",
                });
            }
        }
        _ => {}
    }
    let (output, mut labels, sentences) = render(&b.plan, &wrong, &inserts, ctype);
    if labels.len() > 1 && rng.chance(0.5) {
        labels.reverse();
    }
    Record {
        id,
        base,
        corruption_type: ctype,
        output,
        labels,
        sentences,
    }
}

/// Generate records `from..to` into `out` (and detector `k`'s prediction lines into
/// `preds[k]`); returns the ids and kinds of broken lines written, with their 0-based index.
pub fn generate_range(
    opts: &Options,
    from: usize,
    to: usize,
    out: &mut String,
    preds: &mut [String],
) -> Vec<(usize, String, &'static str)> {
    let mut broken = Vec::new();
    let mut cur: Option<(usize, Base)> = None;
    let mut prev_id = String::new();
    if from > 0 {
        let b = base(opts, (from - 1) / 4);
        prev_id = record(opts, &b, from - 1).id;
    }
    for i in from..to {
        if cur.as_ref().is_none_or(|(n, _)| *n != i / 4) {
            cur = Some((i / 4, base(opts, i / 4)));
        }
        let Some((_, b)) = cur.as_ref() else { continue };
        let rec = record(opts, b, i);
        let kind = broken_kind(opts, &rec, i);
        write_record(out, b, &rec, kind, &prev_id);
        if let Some(k) = kind {
            broken.push((i, rec.id.clone(), k));
        }
        for (k, p) in preds.iter_mut().enumerate() {
            write_prediction(p, opts, &rec, k, i);
        }
        prev_id = rec.id;
    }
    broken
}
