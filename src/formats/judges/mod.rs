//! Annotation sources attached with `--judge NAME=FILE`, and judges' verdicts ready for
//! arbitration.
//!
//! A `--judge` file is read once, whole, into per-record spans ([`read_file`]); the records under
//! review then get its sources by `id` ([`Judges::attach`]). What a file contributes depends on
//! its format:
//!
//! - **prediction files**: the detector's `pred_spans` (extra keys such as `confidence` kept in
//!   each span's `raw`) as a `Detector` source named `NAME`; the file's `gold_spans` are ignored
//!   (the records under review bring their own);
//! - **halu-toolace judge decisions**: a `Judge` source named `NAME`, one span per decision line
//!   holding the whole line (see [`super::judge_decisions`]); [`verdicts`] turns them into
//!   [`JudgeVerdict`]s, locating `extra_text` in the answer with [`Claim::locate`] (exact,
//!   case-insensitive, fuzzy; a quote that cannot be found stays an unplaced claim);
//! - **Mu-SHROOM**: every annotator an `Annotator` source named `NAME/<annotator>`, and the
//!   file's `hard_labels` as `NAME`;
//! - **records files** (RAGTruth-compatible, LettuceDetect): their labels as an `Annotator`
//!   source named `NAME` (another version of the same records);
//! - **another reviewer's database** is read by the command line (it needs the store): its
//!   reviewed result becomes an `Annotator` source named `NAME`.
//!
//! **Reviewers as sources.** When the `--db` database holds decisions by several reviewers (a
//! `merge-db` result), the command line also makes each reviewer's reviewed result an
//! `Annotator` source named `reviewer:<NAME>` ([`REVIEWER_PREFIX`]), on the records at least two
//! reviewers gave an opinion on. [`Judges::agreed`] lists the records where those reviewers
//! agree; [`Judges::for_arbitration`] leaves the reviewer sources off them, so the arbitration
//! queue holds only records where reviewers' final decisions differ.
//!
//! A record absent from a judge file gets no source from it (no opinion); a record present with
//! no span gets an empty source (the judge says "nothing here").
//!
//! **Labels outside the label set** ([`comparable`]): detectors often label every span with
//! their own name (the ensemble labels each span `ensemble`) or carry no type at all. Such a
//! label states no hallucination type, so for clustering it is read as empty, which agrees with
//! any label: it can dispute coverage, never a label. The label set is the toolace types plus
//! every label of the record's gold spans (so Mu-SHROOM's `hallucination` counts). A detector
//! that names a real type different from the gold's does create a label dispute.

pub mod reviewers;
mod server;
mod span_reader;

use server::is_server;

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sha2::{Digest, Sha256};

use super::judge_decisions::{Judgement, LabelCorrect};
use super::validate::labels::LabelSet;
use super::{DataFile, Dataset, Format, FormatError};
use crate::model::{answer_hash, AnswerMark, Record, Source, SourceRole, Span};
use crate::review::disagreement::{self, Claim, Disagreement, JudgeVerdict, Options};

pub use span_reader::{skimmable, SpanReader};

/// One `--judge NAME=FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeSpec {
    /// The source name.
    pub name: String,
    /// The file (a prediction, decisions, Mu-SHROOM or records file, or a spanreview database).
    pub path: PathBuf,
}

impl FromStr for JudgeSpec {
    type Err = String;

    /// `NAME=FILE`; the name must not be empty, `gold` or contain `/`, and the file must exist.
    fn from_str(s: &str) -> Result<Self, String> {
        let Some((name, file)) = s
            .split_once('=')
            .filter(|(n, f)| !n.trim().is_empty() && !f.is_empty())
        else {
            return Err(format!("{s:?}: expected NAME=FILE"));
        };
        let name = name.trim();
        if name == crate::model::GOLD || name.contains('/') {
            return Err(format!(
                "{s:?}: the name {name:?} is reserved (gold) or contains '/'; choose another"
            ));
        }
        let path = PathBuf::from(file);
        // Another reviewer's PostgreSQL database (the store reads it; no file to check).
        if is_server(file) {
            return Ok(Self {
                name: name.to_owned(),
                path,
            });
        }
        if file == super::index::STDIN {
            let why = super::index::NEEDS_REGULAR;
            return Err(format!("{s:?}: standard input (-) {why}"));
        }
        if path.exists() && !path.is_file() {
            let why = super::index::NEEDS_REGULAR;
            return Err(format!("{s:?}: {} {why}", path.display()));
        }
        if !path.is_file() {
            return Err(format!("{s:?}: no file at {}", path.display()));
        }
        Ok(Self {
            name: name.to_owned(),
            path,
        })
    }
}

/// What a `--judge` file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgeKind {
    /// An input file in one of the formats.
    File(Format),
    /// A spanreview database (another reviewer's decisions).
    Database,
}

impl JudgeKind {
    /// The name stored with an imported source (`predictions`, ..., `database`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::File(f) => f.name(),
            Self::Database => "database",
        }
    }
}

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Tell what `path` holds: a SQLite database by its header, else the format of its records
/// (`format` when given).
///
/// # Errors
/// The file cannot be read, or its format cannot be recognised.
pub fn kind_of(path: &Path, format: Option<Format>) -> Result<JudgeKind, FormatError> {
    if is_server(&path.to_string_lossy()) {
        return Ok(JudgeKind::Database);
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| read_up_to(&mut f, &mut head))
        .map_err(|source| FormatError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if n == head.len() && &head == SQLITE_MAGIC {
        return Ok(JudgeKind::Database);
    }
    Ok(JudgeKind::File(DataFile::open(path, format, None)?.format))
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// SHA-256 of the bytes of `paths`, in order (files that do not exist are skipped), as 64 hex
/// digits: the key a source is imported under.
///
/// # Errors
/// A file exists but cannot be read.
pub fn content_hash(paths: &[&Path]) -> std::io::Result<String> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    for p in paths {
        let mut f = match std::fs::File::open(p) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        loop {
            let k = f.read(&mut buf)?;
            if k == 0 {
                break;
            }
            h.update(&buf[..k]);
        }
    }
    Ok(crate::model::hex(&h.finalize()))
}

/// One source of a judge file: its spans by record id.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSource {
    /// Source name (`NAME`, or `NAME/<annotator>` for Mu-SHROOM annotators).
    pub name: String,
    /// What it is.
    pub role: SourceRole,
    /// Spans by record id; a record the file does not have is absent.
    pub spans: HashMap<String, Vec<Span>>,
    /// The answer text each record's spans were made on, by record id, when the file carries
    /// answer text (every format but judge decisions); [`Judges::attach`] leaves the spans off
    /// a record whose answer differs.
    pub answers: HashMap<String, AnswerMark>,
    /// The file the source was read from (named in warnings).
    pub path: Option<PathBuf>,
}

impl LoadedSource {
    /// An empty source.
    #[must_use]
    pub fn new(name: impl Into<String>, role: SourceRole) -> Self {
        Self {
            name: name.into(),
            role,
            spans: HashMap::new(),
            answers: HashMap::new(),
            path: None,
        }
    }

    /// What the source's warnings name as their file: its path, else its name.
    fn origin(&self) -> String {
        self.path
            .as_deref()
            .map_or_else(|| self.name.clone(), |p| p.display().to_string())
    }
}

/// True when a record's `warning` names its own place (`FILE:`): it came from a file joined to
/// `dataset` or from a `--judge` file, not from the record's own line. The command line prints
/// the others at the record's line; the review screen lists the two kinds apart.
#[must_use]
pub fn from_elsewhere(dataset: &Dataset, judges: Option<&Judges>, warning: &str) -> bool {
    let judged = judges.into_iter().flat_map(|j| &j.sources);
    let joined = dataset
        .files()
        .skip(1)
        .map(|f| f.path().display().to_string());
    joined.chain(judged.map(LoadedSource::origin)).any(|f| {
        warning
            .strip_prefix(f.as_str())
            .is_some_and(|w| w.starts_with(':'))
    })
}

/// Read every record of a judge file (of kind `format`) into its sources (see the module docs).
/// Records that cannot be read are skipped and described in the returned messages.
///
/// # Errors
/// The file cannot be opened.
pub fn read_file(
    spec: &JudgeSpec,
    format: Format,
) -> Result<(Vec<LoadedSource>, Vec<String>), FormatError> {
    let file = DataFile::open(&spec.path, Some(format), Some(spec.name.clone()))?;
    let mut out: Vec<LoadedSource> = Vec::new();
    let mut problems = Vec::new();
    let mut first_answer: HashMap<String, AnswerMark> = HashMap::new();
    for i in 0..file.len() {
        let rec = match file.record(i) {
            Ok(r) => r,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        for w in &rec.warnings {
            problems.push(format!("{}:{}: {w}", spec.path.display(), file.line(i)));
        }
        let answer = format.has_output().then(|| AnswerMark {
            hash: answer_hash(&rec.output),
            line: file.line(i) as usize,
        });
        // An id on several lines: the spans of every line are joined when they were made on
        // the same answer text; a line with another text would put its spans at the wrong
        // offsets of that answer, so it is left out and named.
        if let Some(a) = &answer {
            match first_answer.get(&rec.id) {
                Some(first) if first.hash != a.hash => {
                    problems.push(format!(
                        "{}:{}: the id {:?} is also on line {} with another answer text; this \
                         line's spans were not attached",
                        spec.path.display(),
                        a.line,
                        rec.id,
                        first.line
                    ));
                    continue;
                }
                Some(_) => {}
                None => {
                    first_answer.insert(rec.id.clone(), a.clone());
                }
            }
        }
        for (name, role, spans) in contributed(&spec.name, format, rec.sources) {
            let k = match out.iter().position(|s| s.name == name) {
                Some(k) => k,
                None => {
                    out.push(LoadedSource::new(name, role));
                    out.len() - 1
                }
            };
            out[k]
                .spans
                .entry(rec.id.clone())
                .or_default()
                .extend(spans);
        }
    }
    if out.is_empty() {
        out.push(LoadedSource::new(spec.name.clone(), role_of(format)));
    }
    for s in &mut out {
        s.path = Some(spec.path.clone());
        s.answers = s
            .spans
            .keys()
            .filter_map(|id| Some((id.clone(), first_answer.get(id)?.clone())))
            .collect();
    }
    Ok((out, problems))
}

/// The role of the source a file of `format` contributes under its own name.
fn role_of(format: Format) -> SourceRole {
    format.spec().judge_role
}

/// The sources one record of a judge file contributes: `(name, role, spans)`. A file whose own
/// role is `Annotator` gives its gold as its opinion and its other sources as `NAME/<source>`;
/// a detector's or judge's file gives its other sources under its own name and drops its gold.
fn contributed(
    name: &str,
    format: Format,
    sources: Vec<Source>,
) -> Vec<(String, SourceRole, Vec<Span>)> {
    let gold_is_opinion = role_of(format) == SourceRole::Annotator;
    let mut out = Vec::new();
    for s in sources {
        match (gold_is_opinion, s.role) {
            (false, SourceRole::Gold) => {}
            (false, role) => out.push((name.to_owned(), role, s.spans)),
            (true, SourceRole::Gold) => {
                out.push((name.to_owned(), SourceRole::Annotator, s.spans));
            }
            (true, role) => out.push((format!("{name}/{}", s.name), role, s.spans)),
        }
    }
    out
}

/// The name prefix of the sources a database's reviewers give (`reviewer:ana`).
pub const REVIEWER_PREFIX: &str = "reviewer:";

/// True when `name` is a reviewer source's name ([`REVIEWER_PREFIX`]).
#[must_use]
pub fn is_reviewer_source(name: &str) -> bool {
    name.starts_with(REVIEWER_PREFIX)
}

/// Loaded `--judge` sources, ready to attach to records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Judges {
    /// Every source, in the order of the `--judge` flags, then the database's reviewers.
    pub sources: Vec<LoadedSource>,
    /// Ids of the records on which every reviewer source ([`REVIEWER_PREFIX`]) agrees.
    pub agreed: HashSet<String>,
}

impl Judges {
    /// Names of the sources.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.sources.iter().map(|s| s.name.as_str()).collect()
    }

    /// True when no `--judge` was given.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// The same sources for arbitration: reviewer sources ([`REVIEWER_PREFIX`]) left off the
    /// records where the reviewers agree ([`Judges::agreed`]): nothing there to arbitrate
    /// between them (the reviewed result already is their common result).
    #[must_use]
    pub fn for_arbitration(&self) -> Self {
        let mut out = self.clone();
        for s in out
            .sources
            .iter_mut()
            .filter(|s| is_reviewer_source(&s.name))
        {
            s.spans.retain(|id, _| !self.agreed.contains(id));
        }
        out
    }

    /// Add the sources that have `record`'s id to it (a name already on the record gets the
    /// spans appended). A source whose spans on the record were made on another answer text
    /// (its [`LoadedSource::answers`] mark differs) is left off, and the record gets a warning
    /// naming the file and line instead (one per file line, with the sources it held).
    pub fn attach(&self, record: &mut Record) {
        let mut own: Option<String> = None;
        let mut refused: Vec<(String, Vec<&str>)> = Vec::new();
        for s in &self.sources {
            let Some(spans) = s.spans.get(&record.id) else {
                continue;
            };
            if let Some(mark) = s.answers.get(&record.id) {
                if *own.get_or_insert_with(|| answer_hash(&record.output)) != mark.hash {
                    let at = format!("{}:{}", s.origin(), mark.line);
                    match refused.iter_mut().find(|(a, _)| *a == at) {
                        Some((_, names)) => names.push(&s.name),
                        None => refused.push((at, vec![&s.name])),
                    }
                    continue;
                }
            }
            record.add_source(Source::new(s.name.clone(), s.role, spans.clone()));
        }
        for (at, names) in refused {
            record.warnings.push(format!(
                "{at}: the answer text differs from the record's (the file was made on another \
                 version of the answer); the spans of {} were not attached",
                names.join(", ")
            ));
        }
    }
}

/// The verdicts of `record`'s `Judge` sources: each decision line's `label_correct` on the
/// span it judged, and its `extra_text` located in the output when `extra_hallucination` is
/// true (a claim with no text is not a claim). Spans without a readable verdict are skipped.
#[must_use]
pub fn verdicts(record: &Record) -> Vec<JudgeVerdict> {
    let mut out = Vec::new();
    for src in record
        .sources
        .iter()
        .filter(|s| s.role == SourceRole::Judge)
    {
        for span in &src.spans {
            let Some(j) = Judgement::of(span) else {
                continue;
            };
            out.push(verdict(&record.output, &src.name, span, &j));
        }
    }
    out
}

/// One judged span's verdict over `output`.
#[must_use]
pub fn verdict(output: &str, judge: &str, span: &Span, j: &Judgement) -> JudgeVerdict {
    let extra = (j.extra_hallucination && !j.extra_text.trim().is_empty())
        .then(|| Claim::locate(output, &j.extra_text));
    JudgeVerdict {
        source: judge.to_owned(),
        gold_span: (span.start < span.end).then_some((span.start, span.end)),
        label_correct: match j.label_correct {
            LabelCorrect::True => Some(true),
            LabelCorrect::False => Some(false),
            LabelCorrect::Unknown => None,
        },
        extra,
        reasoning: j.reasoning.clone(),
    }
}

/// The spans a judge's verdicts stand for, as an annotation of their own: every judged span
/// it did not call wrong, plus its located claims (label: the judged span's, else empty).
/// `stats` compares judges with the reviewed result through these.
#[must_use]
pub fn verdict_spans(output: &str, verdicts: &[JudgeVerdict], gold: &[Span]) -> Vec<Span> {
    let mut out = Vec::new();
    for v in verdicts {
        if let Some((a, b)) = v.gold_span {
            if v.label_correct != Some(false) {
                let label = gold
                    .iter()
                    .find(|g| g.start == a && g.end == b)
                    .map_or("", |g| g.label.as_str());
                out.push(Span::new(output, a, b, label));
            }
        }
        if let Some(l) = v.extra.as_ref().and_then(|c| c.located) {
            out.push(Span::new(output, l.start, l.end, ""));
        }
    }
    out
}

/// Replace the spans of `record`'s `Judge` sources by the spans their verdicts stand for
/// ([`verdict_spans`]), so that metrics can compare a judge like any other source.
pub fn judges_as_spans(record: &mut Record) {
    let v = verdicts(record);
    let gold = record.gold_spans().to_vec();
    for s in record
        .sources
        .iter_mut()
        .filter(|s| s.role == SourceRole::Judge)
    {
        let mine: Vec<JudgeVerdict> = v.iter().filter(|x| x.source == s.name).cloned().collect();
        s.spans = verdict_spans(&record.output, &mine, &gold);
    }
}

/// `record`'s sources as arbitration compares them: labels of non-gold spans that are not in
/// the label set (the toolace types plus the record's gold labels) read as empty (see the
/// module docs). Judge sources pass unchanged (clustering leaves them out).
#[must_use]
pub fn comparable(record: &Record) -> Vec<Source> {
    // Parsed once: clustering asks for every record.
    static TOOLACE: std::sync::OnceLock<LabelSet> = std::sync::OnceLock::new();
    let set = TOOLACE.get_or_init(LabelSet::toolace);
    let gold_spans = record.gold_spans();
    let known = |l: &str| set.has_label(l) || gold_spans.iter().any(|g| g.label == l);
    let gold = record.gold().map(|g| g.name.clone());
    record
        .sources
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if Some(&s.name) != gold.as_ref() && s.role != SourceRole::Judge {
                for sp in &mut s.spans {
                    if !sp.label.is_empty() && !known(&sp.label) {
                        sp.label.clear();
                    }
                }
            }
            s
        })
        .collect()
}

/// One record's arbitration input and its disagreement: what the arbitration screen shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Arbitration {
    /// The sources compared ([`comparable`]), gold first as in the record.
    pub sources: Vec<Source>,
    /// The judges' verdicts ([`verdicts`]).
    pub verdicts: Vec<JudgeVerdict>,
    /// Clusters, disputes, unplaced claims.
    pub disagreement: Disagreement,
}

impl Arbitration {
    /// Compare `record`'s sources (with `--judge` sources already attached) under `options`.
    #[must_use]
    pub fn of(record: &Record, options: &Options) -> Self {
        let every = disagreement::Among::Named(vec!["*".to_owned()]);
        Self::among(record, options, &every, true)
    }

    /// As [`Arbitration::of`] (every source disputing), with only the sources and judges
    /// `among` counts ([`disagreement::cluster_among`]; `humans`: the session has a source
    /// that is no detector).
    #[must_use]
    pub fn among(
        record: &Record,
        options: &Options,
        among: &disagreement::Among,
        humans: bool,
    ) -> Self {
        let sources = comparable(record);
        let verdicts = verdicts(record);
        let disagreement = disagreement::cluster_among(
            &record.output,
            &sources,
            &verdicts,
            options,
            among,
            humans,
        );
        Self {
            sources,
            verdicts,
            disagreement,
        }
    }

    /// The disagreement score of the record.
    #[must_use]
    pub fn score(&self) -> disagreement::RecordScore {
        disagreement::score(&self.disagreement)
    }
}

#[cfg(test)]
mod tests;
