//! `--db` and `--dataset`, the one pair every subcommand reading the decision log shares.

use std::path::{Path, PathBuf};

use crate::formats::Dataset;
use crate::store::Store;

/// Which decision database and which dataset in it; flattened into review, decisions, export
/// and stats. `--db` reads `SPANREVIEW_DB` through [`crate::cli::command`] (which leaves an
/// empty variable unset). A subcommand whose `--dataset` means something else says so with
/// `#[command(mut_arg("dataset", ...))]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DbArgs {
    /// The database: a file, or a PostgreSQL server's database as
    /// postgresql://USER@HOST:PORT/DB (password from PGPASSWORD; never shown) [default:
    /// $SPANREVIEW_DB, else spanreview.sqlite in the user data folder].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Dataset name in the log [default: the name the review screen uses: the leading file's
    /// stem].
    #[arg(long, value_name = "NAME")]
    pub dataset: Option<String>,
}

impl DbArgs {
    /// The database path (or PostgreSQL URL): `--db`, else `SPANREVIEW_DB`, else the user data
    /// folder's.
    #[must_use]
    pub fn db_path(&self) -> PathBuf {
        self.db.clone().unwrap_or_else(Store::default_path)
    }

    /// The dataset's name in the log: `--dataset`, else `dataset`'s own (the leading file's
    /// stem, as the review screen names it).
    #[must_use]
    pub fn dataset_name(&self, dataset: &Dataset) -> String {
        self.dataset.clone().unwrap_or_else(|| dataset.name.clone())
    }
}

/// `DB has no decisions on dataset "NAME" (it has: A, B)`: what a reader of dataset `name`
/// found in the database at `db`, whose datasets are `known` (a --dataset that names none of
/// them, most likely).
#[must_use]
pub fn no_decisions(db: &Path, name: &str, known: &[String]) -> String {
    let known = if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    };
    format!(
        "{} has no decisions on dataset {name:?} (it has: {known})",
        crate::store::shown(db)
    )
}

/// Say on standard error which stale files were moved aside before the database was made.
pub(super) fn tell_set_aside(store: &Store) {
    for (from, to) in store.set_aside() {
        super::to_stderr!(
            "warning: moved {} aside to {}: it was left by a database deleted from this path, and would have been replayed into the new one",
            from.display(),
            to.display()
        );
    }
}

#[cfg(test)]
mod tests {
    /// The `--help` of `name`, long form.
    fn help(name: &str) -> String {
        let mut cmd = crate::cli::command();
        let sub = cmd.find_subcommand_mut(name).expect("subcommand");
        sub.render_long_help().to_string()
    }

    #[test]
    fn each_subcommand_keeps_its_own_meaning_of_dataset() {
        let decisions = help("decisions");
        assert!(
            decisions.contains("Only decisions on this dataset"),
            "{decisions}"
        );
        assert!(!decisions.contains("leading file's stem"), "{decisions}");
        let review = help("review");
        assert!(review.contains("share their decisions"), "{review}");
        for name in ["review", "decisions", "export", "stats"] {
            let h = help(name);
            assert!(h.contains("--db <PATH>"), "{name}: {h}");
            assert!(h.contains("--dataset <NAME>"), "{name}: {h}");
            assert!(h.contains("$SPANREVIEW_DB"), "{name}: {h}");
        }
    }
}
