//! The options shared by the subcommands that read annotation sources (`compare`, `export`,
//! `stats`, and the review screen): `--judge NAME=FILE`, `--tolerance N`,
//! `--ignore-edge-punct`; and loading the judge sources, through the database when there is one.
//!
//! Loading a `--judge` file ([`JudgeArgs::load`]): its SHA-256 is computed; when the database
//! already holds sources imported from those bytes under that name they are read from there
//! (the file is not parsed again); otherwise the file is read ([`judges::read_file`]) and, when a
//! database is given, imported into it ([`Store::import_source`]). A spanreview database given
//! as a judge is another reviewer's review: each record it has decisions in force on becomes
//! that reviewer's reviewed result (the gold spans with their decisions replayed; clean records
//! no span; removed records and records they did not touch no opinion). Its hash covers the
//! database file, its WAL and the dataset name, so new decisions there mean a new import.
//!
//! **The database's own reviewers** ([`reviewers`]): when the database given to
//! [`JudgeArgs::load`] holds decisions on the dataset by more than one reviewer (a `merge-db`
//! result), each reviewer's reviewed result becomes a source `reviewer:<NAME>`, with no
//! `--judge`: the gold spans with only that reviewer's decisions in force replayed (their own
//! undo and redo respected), onto what their screen showed them: the other reviewers' decisions
//! made before their last verdict ([`crate::review::decision::replay_seen`]). A reviewer gives an opinion on a record when a decision of theirs
//! other than flags and notes is in force there: their kept spans (none for a record they
//! cleaned or removed); reviewer sources hold only the records at least two reviewers gave an
//! opinion on (one reviewer's changes are the reviewed result, not a dispute). A record one
//! reviewer removed and another kept is a conflict; when the other kept spans it is disputed
//! (the removal's lane holds none) and reaches the arbitration queue, where a resolution that
//! keeps a span reopens the record ([`crate::review::decision`]). Arbitration (every
//! resolution, and the arbiter's other decisions on the records they arbitrated:
//! [`Arbiter`](crate::review::team::Arbiter)) is no opinion: its author is no reviewer source there, and a resolution that
//! names a reviewer source settles the conflict ([`Conflict::resolved`]). Such sources are
//! computed from the log each time, never imported.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use sha2::{Digest, Sha256};

use super::db_args::no_decisions;
use super::to_stderr;
pub use crate::formats::judges::reviewers::{reviewers, Conflict, Reviewers};
use crate::formats::judges::{self, JudgeKind, JudgeSpec, Judges, LoadedSource};
use crate::formats::Dataset;
use crate::model::SourceRole;
use crate::review::decision::{replay, Decision};
use crate::review::disagreement::Options;
use crate::review::team::Opinion;
use crate::store::Store;

/// `--judge`, `--tolerance`, `--ignore-edge-punct`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct JudgeArgs {
    /// Attach an annotation source to the records by id (repeatable): a prediction file
    /// (pred_spans), halu-toolace judge decisions, a Mu-SHROOM file (one source per annotator,
    /// NAME/annotator), a records file, or another reviewer's spanreview database (their
    /// reviewed result).
    #[arg(long = "judge", value_name = "NAME=FILE")]
    pub judges: Vec<JudgeSpec>,
    /// Boundary differences of up to N code points are not disagreements.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub tolerance: usize,
    /// Differences made only of whitespace and punctuation at span edges are not
    /// disagreements.
    #[arg(long)]
    pub ignore_edge_punct: bool,
}

/// What happened to one `--judge` while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadNote {
    /// The spec.
    pub spec: String,
    /// Read from the database (an earlier import of the same bytes), not from the file.
    pub reused: bool,
    /// Imported into the database now.
    pub imported: bool,
    /// Source names it gave.
    pub sources: Vec<String>,
    /// Problems met (unreadable lines, stale decisions in another reviewer's database).
    pub problems: Vec<String>,
    /// The sources of the database's own reviewers (no `--judge`), not a file.
    pub reviewers: bool,
}

impl JudgeArgs {
    /// The clustering options these flags ask for (labels compared).
    #[must_use]
    pub fn options(&self) -> Options {
        Options {
            tolerance: self.tolerance,
            ignore_edge_punct: self.ignore_edge_punct,
            compare_labels: true,
        }
    }

    /// The files given with `--judge`.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.judges.iter().map(|j| j.path.as_path())
    }

    /// Load every `--judge` source for `dataset` (named `dataset_name` in the log): from
    /// `store` when it already holds them, else from the file, importing into `store` when
    /// given (see the module docs); then, when `store` holds decisions by several reviewers,
    /// one `reviewer:<NAME>` source per reviewer ([`reviewers`]).
    ///
    /// # Errors
    /// A file cannot be read or recognised, a database cannot be opened, the store fails, or
    /// a `--judge` is named like a reviewer source.
    pub fn load(
        &self,
        dataset: &Dataset,
        dataset_name: &str,
        store: Option<&Store>,
    ) -> anyhow::Result<(Judges, Vec<LoadNote>)> {
        match store {
            Some(store) => {
                let log = store.decisions(Some(dataset_name))?;
                self.load_with_log(dataset, dataset_name, store, &log)
            }
            None => self.load_judges(dataset, dataset_name, None),
        }
    }

    /// The `--judge` sources alone (see [`JudgeArgs::load`]).
    fn load_judges(
        &self,
        dataset: &Dataset,
        dataset_name: &str,
        store: Option<&Store>,
    ) -> anyhow::Result<(Judges, Vec<LoadNote>)> {
        let mut out = Judges::default();
        let mut notes = Vec::new();
        for spec in &self.judges {
            let shown = shown_spec(spec);
            let (sources, note) = load_one(spec, dataset, dataset_name, store)
                .with_context(|| format!("--judge {shown}"))?;
            for s in sources {
                if out.sources.iter().any(|o| o.name == s.name) {
                    anyhow::bail!("--judge {shown}: source name {:?} given twice", s.name);
                }
                out.sources.push(s);
            }
            notes.push(note);
        }
        Ok((out, notes))
    }

    /// [`JudgeArgs::load`] with `log`, the dataset's decisions in `store`, already read (by a
    /// caller that needs them too: read once).
    ///
    /// # Errors
    /// As [`JudgeArgs::load`].
    pub fn load_with_log(
        &self,
        dataset: &Dataset,
        dataset_name: &str,
        store: &Store,
        log: &[Decision],
    ) -> anyhow::Result<(Judges, Vec<LoadNote>)> {
        let r = reviewers(log, dataset, &self.options());
        self.load_with_reviewers(dataset, dataset_name, store, r)
    }

    /// [`JudgeArgs::load_with_log`] with the reviewers of the log already computed
    /// ([`reviewers`]), by a caller that also uses their opinions ([`Reviewers::opinions`]):
    /// each reviewer's decisions are replayed once.
    ///
    /// # Errors
    /// As [`JudgeArgs::load`].
    pub fn load_with_reviewers(
        &self,
        dataset: &Dataset,
        dataset_name: &str,
        store: &Store,
        reviewers: Reviewers,
    ) -> anyhow::Result<(Judges, Vec<LoadNote>)> {
        let (mut out, mut notes) = self.load_judges(dataset, dataset_name, Some(store))?;
        self.add_reviewers(&mut out, &mut notes, reviewers, store)?;
        Ok((out, notes))
    }

    /// When the log held decisions by several reviewers, one `reviewer:<NAME>` source per
    /// reviewer (`r`, [`reviewers`]) added to `out`, with a note naming `store`.
    fn add_reviewers(
        &self,
        out: &mut Judges,
        notes: &mut Vec<LoadNote>,
        r: Reviewers,
        store: &Store,
    ) -> anyhow::Result<()> {
        if r.sources.is_empty() {
            return Ok(());
        }
        for s in &r.sources {
            if out.sources.iter().any(|o| o.name == s.name) {
                anyhow::bail!(
                    "--judge {}: the name is taken by a reviewer of the database; choose another",
                    s.name
                );
            }
        }
        notes.push(LoadNote {
            spec: store
                .path()
                .map_or_else(|| ":memory:".to_owned(), |p| p.display().to_string()),
            reused: false,
            imported: false,
            sources: r.sources.iter().map(|s| s.name.clone()).collect(),
            problems: r.problems,
            reviewers: true,
        });
        out.sources.extend(r.sources);
        out.agreed = r.agreed;
        Ok(())
    }
}

/// Load one `--judge`.
fn load_one(
    spec: &JudgeSpec,
    dataset: &Dataset,
    dataset_name: &str,
    store: Option<&Store>,
) -> anyhow::Result<(Vec<LoadedSource>, LoadNote)> {
    let kind = judges::kind_of(&spec.path, None)?;
    let hash = match kind {
        JudgeKind::File(_) => judges::content_hash(&[&spec.path])?,
        // A server's database has no bytes to hash: its URL and how far its log is stand in,
        // so new decisions there mean a new import, as for a file.
        JudgeKind::Database if crate::store::is_url(&spec.path.to_string_lossy()) => {
            let (count, last) = Store::open_snapshot(&spec.path)?.log_stamp(dataset_name)?;
            let shown = crate::store::shown(&spec.path);
            sha256_hex(&format!("{shown}\0{dataset_name}\0{count}\0{last}"))
        }
        JudgeKind::Database => {
            let wal = crate::store::sibling(&spec.path, "-wal");
            let files = judges::content_hash(&[&spec.path, &wal])?;
            sha256_hex(&format!("{files}\0{dataset_name}"))
        }
    };
    let mut note = LoadNote {
        spec: shown_spec(spec),
        reused: false,
        imported: false,
        sources: Vec::new(),
        problems: Vec::new(),
        reviewers: false,
    };
    if let Some(store) = store {
        let prefix = format!("{}/", spec.name);
        let rows: Vec<_> = store
            .source_by_hash(&hash)?
            .into_iter()
            .filter(|r| r.name == spec.name || r.name.starts_with(&prefix))
            .collect();
        if !rows.is_empty() {
            let mut sources = Vec::new();
            for r in rows {
                let spans = store.source_all_spans(r.id)?;
                let answers = store.source_answers(r.id)?;
                sources.push(LoadedSource {
                    name: r.name,
                    role: r.role,
                    spans,
                    answers,
                    path: Some(spec.path.clone()),
                });
            }
            // An import made before the answer texts were stored (schema 3) cannot check them:
            // the file is read again, and the marks are filled in below.
            let lacks_answers = matches!(kind, JudgeKind::File(f) if f.has_output())
                && sources
                    .iter()
                    .any(|s| !s.spans.is_empty() && s.answers.is_empty());
            if !lacks_answers {
                note.reused = true;
                note.sources = sources.iter().map(|s| s.name.clone()).collect();
                return Ok((sources, note));
            }
        }
    }
    let sources = match kind {
        JudgeKind::File(format) => {
            let (sources, problems) = judges::read_file(spec, format)?;
            note.problems = problems;
            sources
        }
        JudgeKind::Database => {
            let (source, problems) = reviewed_source(spec, dataset, dataset_name)?;
            note.problems = problems;
            vec![source]
        }
    };
    if let Some(store) = store {
        for s in &sources {
            store.import_source(
                &s.name,
                s.role,
                &spec.path,
                &hash,
                kind.name(),
                &s.spans,
                &s.answers,
            )?;
        }
        note.imported = true;
    }
    note.sources = sources.iter().map(|s| s.name.clone()).collect();
    Ok((sources, note))
}

/// `NAME=FILE` as it may be shown: a URL's password removed.
fn shown_spec(spec: &JudgeSpec) -> String {
    format!("{}={}", spec.name, crate::store::shown(&spec.path))
}

/// SHA-256 of `s` in hex: what stands for a `--judge` database's content.
fn sha256_hex(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Another reviewer's reviewed result on `dataset`, as a source named after the spec.
///
/// # Errors
/// The database cannot be opened or read.
pub fn reviewed_source(
    spec: &JudgeSpec,
    dataset: &Dataset,
    dataset_name: &str,
) -> anyhow::Result<(LoadedSource, Vec<String>)> {
    let other = Store::open_read_only(&spec.path)?;
    let log = other.decisions(Some(dataset_name))?;
    let mut problems = Vec::new();
    if log.is_empty() {
        let known = other.datasets().unwrap_or_default();
        problems.push(format!(
            "{}; the source is empty",
            no_decisions(&spec.path, dataset_name, &known)
        ));
    }
    let mut by_record: HashMap<String, Vec<Decision>> = HashMap::new();
    for d in log {
        by_record.entry(d.record_id.clone()).or_default().push(d);
    }
    let mut source = LoadedSource::new(spec.name.clone(), SourceRole::Annotator);
    let mut stale = 0;
    for i in 0..dataset.len() {
        let rec = match dataset.record(i) {
            Ok(r) => r,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        let Some(log) = by_record.get(&rec.id) else {
            continue;
        };
        let review = replay(&rec, log);
        stale += review.stale.len();
        match Opinion::from_review(&rec.output, &spec.name, &review) {
            Some(o) if !o.removed => {
                source.spans.insert(rec.id.clone(), o.spans);
            }
            _ => {}
        }
    }
    if stale > 0 {
        problems.push(format!(
            "{}: {stale} stale decision(s) (made on other content of the records) not applied",
            crate::store::shown(&spec.path)
        ));
    }
    Ok((source, problems))
}

/// Print what loading did, on stderr (one line per `--judge`, then its problems).
pub fn tell(notes: &[LoadNote]) {
    for n in notes {
        let how = if n.reused {
            "read from the database (imported before)"
        } else if n.imported {
            "imported into the database"
        } else {
            "read"
        };
        if n.reviewers {
            to_stderr!(
                "reviewers in {} as sources: {}",
                n.spec,
                n.sources.join(", ")
            );
        } else {
            to_stderr!("--judge {}: {how}: {}", n.spec, n.sources.join(", "));
        }
        for p in &n.problems {
            to_stderr!("warning: {p}");
        }
    }
}
