//! `--config` and `--split`: which files of a dataset folder (a Hugging Face Hub download,
//! [`crate::formats::hub`]) a command reads. Every command that takes records files flattens
//! [`HubArgs`]; a folder among its files is replaced by the files of the chosen config and
//! split before the command opens them, so each file then opens as any records file does.

use std::path::{Path, PathBuf};

use crate::formats::hub::{Folder, HubFile};

/// `--config NAME`, `--split NAME`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HubArgs {
    /// A dataset folder's config (a `config_name` of its README's `configs`) [default: the
    /// card's default config].
    #[arg(long = "config", value_name = "NAME")]
    pub config: Option<String>,
    /// A dataset folder's split (`train`, `test`, ...) [default: every split of the config].
    #[arg(long, value_name = "NAME")]
    pub split: Option<String>,
}

impl HubArgs {
    /// The files of the folder `dir` these options choose: the config's (the default one when
    /// not given; every config when `every_config` and none is given) and the split's (every
    /// split when not given), in order.
    ///
    /// # Errors
    /// The folder's card or selection errors ([`crate::formats::hub::HubError`]).
    pub fn files_of(&self, dir: &Path, every_config: bool) -> anyhow::Result<Vec<HubFile>> {
        let folder = Folder::open(dir)?;
        let split = self.split.as_deref();
        Ok(match (&self.config, every_config) {
            (None, true) => folder.all_files(split)?,
            (c, _) => folder.files(c.as_deref(), split)?,
        })
    }

    /// Replace each dataset folder in `files` by the one file of the chosen config and split;
    /// when `dataset` (the `--dataset` name) is unset, set it to `FOLDER/CONFIG/SPLIT`, so that
    /// two configs' `test-00000-of-00001` shards never share their decisions. Files that are
    /// not folders stay as they are.
    ///
    /// # Errors
    /// `--config`/`--split` with no folder to apply to, the folder's errors, or a selection of
    /// several files (these commands read one records file: name the split).
    pub fn select(
        &self,
        files: &mut [PathBuf],
        dataset: Option<&mut Option<String>>,
    ) -> anyhow::Result<()> {
        let mut name = None;
        let mut any = false;
        for f in files.iter_mut() {
            if !crate::formats::hub::is_folder(f) {
                continue;
            }
            any = true;
            let picked = self.files_of(f, false)?;
            let [one] = picked.as_slice() else {
                let splits: Vec<String> = picked
                    .iter()
                    .map(|h| format!("{} ({})", h.split, h.path.display()))
                    .collect();
                anyhow::bail!(
                    "{}: config {:?} has {} files: {}; this command reads one records file: choose one \
                     with --split (only `validate` reads every split at once)",
                    f.display(),
                    picked.first().map(|h| h.config.as_str()).unwrap_or_default(),
                    picked.len(),
                    splits.join(", ")
                );
            };
            if name.is_none() {
                name = Some(format!("{}/{}/{}", folder_name(f), one.config, one.split));
            }
            *f = one.path.clone();
        }
        if !any && (self.config.is_some() || self.split.is_some()) {
            anyhow::bail!(
                "--config and --split choose the files of a dataset folder (a folder with a \
                 README.md card); none of the files given is a folder"
            );
        }
        if let (Some(d), Some(n)) = (dataset, name) {
            if d.is_none() {
                *d = Some(n);
            }
        }
        Ok(())
    }
}

/// The folder's own name (of its absolute path for `.`).
#[must_use]
pub fn folder_name(dir: &Path) -> String {
    let named = |p: &Path| p.file_name().and_then(|n| n.to_str()).map(str::to_owned);
    named(dir)
        .or_else(|| dir.canonicalize().ok().as_deref().and_then(named))
        .unwrap_or_else(|| "dataset".to_owned())
}
