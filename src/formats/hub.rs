//! A dataset folder as the Hugging Face Hub serves it (what `huggingface-cli download REPO
//! --repo-type dataset --local-dir D` leaves): `D/README.md` whose YAML front matter lists
//! `configs` and their `data_files` per split, or, without `configs`, the default layout
//! (`data/{split}-NNNNN-of-NNNNN.parquet`, `data/{split}.jsonl`, `{split}.jsonl`, …).
//!
//! [`Folder::files`] turns a folder, a config and a split into the ordered list of
//! `(config, split, file)` to read; what reads each file is the caller's (any records file:
//! JSONL, a JSON array, parquet once it is readable). Patterns resolve as the Hub resolves
//! them ([`glob`]).

mod card;
pub mod glob;
mod layout;

use std::path::{Path, PathBuf};

pub use card::ConfigSpec;

/// The file names a records file may have in a dataset folder (others matched by a pattern,
/// such as a `.md` or `.csv`, are not read as records).
pub const RECORD_EXTENSIONS: [&str; 3] = ["jsonl", "json", "parquet"];

/// One file of a folder's config and split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubFile {
    /// The config (`default` for a card without `configs`).
    pub config: String,
    /// The split.
    pub split: String,
    /// The file.
    pub path: PathBuf,
}

/// Errors reading a dataset folder; each names the card (or the folder when it has none).
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// A file or folder could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// File or folder.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// The front matter is not YAML.
    #[error("{}{}: the YAML front matter does not parse: {message}", card.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Yaml {
        /// The card.
        card: PathBuf,
        /// 1-based line of the card, when the parser tells it.
        line: Option<usize>,
        /// The parser's message.
        message: String,
    },
    /// `configs` is not of the shape the Hub reads.
    #[error("{}: {message}", card.display())]
    Card {
        /// The card.
        card: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No config of that name.
    #[error("{}: no config {name:?} (the card has: {})", card.display(), known.join(", "))]
    NoConfig {
        /// The card.
        card: PathBuf,
        /// The name asked for.
        name: String,
        /// The configs there are.
        known: Vec<String>,
    },
    /// Several configs, none the default, and none asked for.
    #[error("{}: the card has several configs and none is `default: true`; name one with --config ({})", card.display(), known.join(", "))]
    ChooseConfig {
        /// The card.
        card: PathBuf,
        /// The configs there are.
        known: Vec<String>,
    },
    /// No split of that name in the config.
    #[error("{}: config {config:?} has no split {name:?} (it has: {})", card.display(), known.join(", "))]
    NoSplit {
        /// The card.
        card: PathBuf,
        /// The config.
        config: String,
        /// The split asked for.
        name: String,
        /// The splits there are.
        known: Vec<String>,
    },
    /// A split's patterns match no records file.
    #[error("{}: config {config:?}, split {split:?}: {} match{} no records file (.{}) in {}", card.display(), quoted(patterns), if patterns.len() == 1 { "es" } else { "" }, RECORD_EXTENSIONS.join(", ."), dir.display())]
    NoMatch {
        /// The card.
        card: PathBuf,
        /// The config.
        config: String,
        /// The split.
        split: String,
        /// Its patterns (or the one literal path that is missing).
        patterns: Vec<String>,
        /// The folder they are relative to.
        dir: PathBuf,
    },
    /// The default layout finds no records file.
    #[error("{}: no `configs` in the card and no records file (.{}) in the folder", card.display(), RECORD_EXTENSIONS.join(", ."))]
    NoData {
        /// The card (or the folder).
        card: PathBuf,
    },
}

/// `"a", "b"` for messages.
fn quoted(patterns: &[String]) -> String {
    let q: Vec<String> = patterns.iter().map(|p| format!("{p:?}")).collect();
    q.join(", ")
}

/// True when `path` is a dataset folder rather than a records file.
#[must_use]
pub fn is_folder(path: &Path) -> bool {
    path.is_dir()
}

/// A dataset folder: its card's configs and the files in it.
#[derive(Debug)]
pub struct Folder {
    dir: PathBuf,
    card: PathBuf,
    configs: Vec<ConfigSpec>,
    files: Vec<String>,
}

impl Folder {
    /// Read the folder `dir`: its `README.md` (none: the default layout) and its file list.
    ///
    /// # Errors
    /// A folder or card that cannot be read, YAML that does not parse, `configs` of the wrong
    /// shape.
    pub fn open(dir: &Path) -> Result<Self, HubError> {
        let card = dir.join("README.md");
        let configs = match std::fs::read_to_string(&card) {
            Ok(text) => card::configs(&card, &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(HubError::Io { path: card, source }),
        };
        let files = glob::walk(dir).map_err(|source| HubError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(Self {
            dir: dir.to_path_buf(),
            card,
            configs,
            files,
        })
    }

    /// The folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The card's configs in its order (`default` alone for a card without `configs`).
    #[must_use]
    pub fn config_names(&self) -> Vec<String> {
        if self.configs.is_empty() {
            return vec!["default".to_owned()];
        }
        self.configs.iter().map(|c| c.name.clone()).collect()
    }

    /// The config read when none is named: the one marked `default: true`, else the one
    /// named `default`, else the only one.
    ///
    /// # Errors
    /// Several configs and none of them the default.
    pub fn default_config(&self) -> Result<String, HubError> {
        let names = self.config_names();
        if let Some(c) = self.configs.iter().find(|c| c.default) {
            return Ok(c.name.clone());
        }
        if names.len() == 1 || names.iter().any(|n| n == "default") {
            let pick = names.iter().find(|n| *n == "default").unwrap_or(&names[0]);
            return Ok(pick.clone());
        }
        Err(HubError::ChooseConfig {
            card: self.card.clone(),
            known: names,
        })
    }

    /// The splits of `config` and their files, in the card's order (the default layout's
    /// for a card without `configs`).
    ///
    /// # Errors
    /// An unknown config, a split whose patterns match no records file.
    pub fn splits(&self, config: &str) -> Result<Vec<(String, Vec<PathBuf>)>, HubError> {
        let spec = if self.configs.is_empty() && config == "default" {
            None
        } else {
            Some(
                self.configs
                    .iter()
                    .find(|c| c.name == config)
                    .ok_or_else(|| HubError::NoConfig {
                        card: self.card.clone(),
                        name: config.to_owned(),
                        known: self.config_names(),
                    })?,
            )
        };
        let base = spec
            .and_then(|s| s.data_dir.as_deref())
            .map(|d| d.trim_matches('/'));
        let under = |p: &str| match base {
            Some(b) if !b.is_empty() && b != "." => format!("{b}/{p}"),
            _ => p.to_owned(),
        };
        let splits = match spec.and_then(|s| s.splits.clone()) {
            Some(s) => s,
            None => {
                // The default layout, inside `data_dir` when there is one.
                let inside: Vec<String> = match base {
                    Some(b) if !b.is_empty() && b != "." => self
                        .files
                        .iter()
                        .filter_map(|f| f.strip_prefix(&format!("{b}/")).map(str::to_owned))
                        .collect(),
                    _ => self.files.clone(),
                };
                let found = layout::infer(&inside, &|f| is_record_file(f));
                if found.is_empty() {
                    return Err(HubError::NoData {
                        card: self.card.clone(),
                    });
                }
                found
            }
        };
        let mut out = Vec::new();
        for (split, patterns) in splits {
            let mut files: Vec<PathBuf> = Vec::new();
            for p in &patterns {
                let matched = glob::matching(&under(p), &self.files);
                let records: Vec<&String> =
                    matched.into_iter().filter(|f| is_record_file(f)).collect();
                // As the Hub: a literal path must exist, a glob may match nothing.
                if records.is_empty() && !p.contains(['*', '?', '[']) {
                    return Err(self.no_match(config, &split, vec![p.clone()]));
                }
                for f in records {
                    let path = self.dir.join(f);
                    if !files.contains(&path) {
                        files.push(path);
                    }
                }
            }
            if files.is_empty() {
                return Err(self.no_match(config, &split, patterns));
            }
            out.push((split, files));
        }
        Ok(out)
    }

    /// The files of `config` (default: [`Folder::default_config`]) and `split` (default:
    /// every split), in order: split by split as the card lists them, each split's files in
    /// path order.
    ///
    /// # Errors
    /// As [`Folder::splits`], an unknown split (naming those there are), or no config named
    /// and no default.
    pub fn files(
        &self,
        config: Option<&str>,
        split: Option<&str>,
    ) -> Result<Vec<HubFile>, HubError> {
        let config = match config {
            Some(c) => c.to_owned(),
            None => self.default_config()?,
        };
        let splits = self.splits(&config)?;
        if let Some(name) = split {
            if !splits.iter().any(|(s, _)| s == name) {
                return Err(HubError::NoSplit {
                    card: self.card.clone(),
                    config,
                    name: name.to_owned(),
                    known: splits.into_iter().map(|(s, _)| s).collect(),
                });
            }
        }
        Ok(splits
            .into_iter()
            .filter(|(s, _)| split.is_none_or(|n| n == s))
            .flat_map(|(s, files)| {
                let config = config.clone();
                files.into_iter().map(move |path| HubFile {
                    config: config.clone(),
                    split: s.clone(),
                    path,
                })
            })
            .collect())
    }

    /// The files of every config (each as [`Folder::files`] with no split), config by config.
    ///
    /// # Errors
    /// As [`Folder::files`].
    pub fn all_files(&self, split: Option<&str>) -> Result<Vec<HubFile>, HubError> {
        let mut out = Vec::new();
        for c in self.config_names() {
            out.extend(self.files(Some(&c), split)?);
        }
        Ok(out)
    }

    fn no_match(&self, config: &str, split: &str, patterns: Vec<String>) -> HubError {
        HubError::NoMatch {
            card: self.card.clone(),
            config: config.to_owned(),
            split: split.to_owned(),
            patterns,
            dir: self.dir.clone(),
        }
    }
}

/// True when the name of `file` ends in one of [`RECORD_EXTENSIONS`].
fn is_record_file(file: &str) -> bool {
    Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| RECORD_EXTENSIONS.contains(&e))
}

#[cfg(test)]
mod tests;
