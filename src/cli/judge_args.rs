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

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use sha2::{Digest, Sha256};

use crate::formats::judges::{self, JudgeKind, JudgeSpec, Judges, LoadedSource};
use crate::formats::Dataset;
use crate::model::SourceRole;
use crate::review::decision::{replay, Decision, RecordOutcome};
use crate::review::disagreement::Options;
use crate::review::outcome::is_verdict_action;
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
    /// given (see the module docs).
    ///
    /// # Errors
    /// A file cannot be read or recognised, a database cannot be opened, or the store fails.
    pub fn load(
        &self,
        dataset: &Dataset,
        dataset_name: &str,
        store: Option<&Store>,
    ) -> anyhow::Result<(Judges, Vec<LoadNote>)> {
        let mut out = Judges::default();
        let mut notes = Vec::new();
        for spec in &self.judges {
            let (sources, note) = load_one(spec, dataset, dataset_name, store)
                .with_context(|| format!("--judge {spec}"))?;
            for s in sources {
                if out.sources.iter().any(|o| o.name == s.name) {
                    anyhow::bail!("--judge {spec}: source name {:?} given twice", s.name);
                }
                out.sources.push(s);
            }
            notes.push(note);
        }
        Ok((out, notes))
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
        JudgeKind::Database => {
            let wal = wal_path(&spec.path);
            let files = judges::content_hash(&[&spec.path, &wal])?;
            let mut h = Sha256::new();
            h.update(files.as_bytes());
            h.update([0]);
            h.update(dataset_name.as_bytes());
            h.finalize().iter().map(|b| format!("{b:02x}")).collect()
        }
    };
    let mut note = LoadNote {
        spec: spec.to_string(),
        reused: false,
        imported: false,
        sources: Vec::new(),
        problems: Vec::new(),
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
                sources.push(LoadedSource {
                    spans: store.source_all_spans(r.id)?,
                    name: r.name,
                    role: r.role,
                });
            }
            note.reused = true;
            note.sources = sources.iter().map(|s| s.name.clone()).collect();
            return Ok((sources, note));
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
            store.import_source(&s.name, s.role, &spec.path, &hash, kind.name(), &s.spans)?;
        }
        note.imported = true;
    }
    note.sources = sources.iter().map(|s| s.name.clone()).collect();
    Ok((sources, note))
}

/// `PATH-wal`, where SQLite keeps a WAL database's recent commits.
fn wal_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-wal");
    PathBuf::from(s)
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
        let known = other.datasets().unwrap_or_default().join(", ");
        problems.push(format!(
            "{} has no decisions on dataset {dataset_name:?} (it has: {}); the source is empty",
            spec.path.display(),
            if known.is_empty() { "none" } else { &known }
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
        if !review.applied.iter().any(|d| is_verdict_action(d.action)) {
            continue;
        }
        if matches!(review.outcome, RecordOutcome::Removed { .. }) {
            continue;
        }
        source
            .spans
            .insert(rec.id.clone(), review.kept_spans(&rec.output));
    }
    if stale > 0 {
        problems.push(format!(
            "{}: {stale} stale decision(s) (made on other content of the records) not applied",
            spec.path.display()
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
        eprintln!("--judge {}: {how}: {}", n.spec, n.sources.join(", "));
        for p in &n.problems {
            eprintln!("warning: {p}");
        }
    }
}
