//! `--db` and `--dataset`, the one pair every subcommand reading the decision log shares.

use std::path::PathBuf;

use crate::formats::Dataset;
use crate::store::Store;

/// Which decision database and which dataset in it; flattened into review, decisions, export
/// and stats. `--db` reads `SPANREVIEW_DB` through [`crate::cli::command`] (which leaves an
/// empty variable unset). A subcommand whose `--dataset` means something else says so with
/// `#[command(mut_arg("dataset", ...))]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DbArgs {
    /// The database: a file, or a PostgreSQL server's database as
    /// postgresql://USER@HOST:PORT/DB or "host=HOST dbname=DB user=USER" (password from
    /// PGPASSWORD or ~/.pgpass; never shown) [default: $SPANREVIEW_DB, else spanreview.sqlite
    /// in the user data folder].
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

pub use crate::store::no_decisions;

/// What a password on the command line is told once: others can read it meanwhile.
pub const PASSWORD_ON_COMMAND_LINE: &str = "a password on the command line is visible to other \
     users; use PGPASSWORD or ~/.pgpass (it shows in ps and /proc while the command runs)";

/// The warnings about secrets a run's command line `args` and `SPANREVIEW_DB` call for, each
/// once: a password in an argument (a `--db`, `--judge NAME=...` or `merge-db` URL or
/// key=value string), and a password file libpq would refuse (group- or world-readable) for a
/// server named without a password.
#[must_use]
pub fn secret_warnings(args: &[std::ffi::OsString], env_db: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.iter().any(|a| crate::store::has_password(a)) {
        out.push(PASSWORD_ON_COMMAND_LINE.to_owned());
    }
    // `--db=URL`, `NAME=URL`: the value after the first '=' may be the server too.
    let tails = args
        .iter()
        .filter_map(|a| a.split_once('=').map(|(_, t)| t));
    let servers = args
        .iter()
        .map(String::as_str)
        .chain(tails)
        .chain(env_db)
        .filter(|s| crate::store::is_url(s));
    for s in servers {
        if let Some(w) = crate::store::pass_file_warning(s) {
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
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
