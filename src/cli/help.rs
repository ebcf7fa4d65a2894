//! Text shown after each subcommand's options in `--help` (and in the man pages): exit
//! status, the environment it reads, examples. Kept together so the subcommands say it alike.

/// The environment every command that reads input files uses.
macro_rules! input_env {
    () => {
        "Input:\n  \
           A FILE of `-` is standard input (read once, into a temporary copy).\n\
         \n\
         Environment:\n  \
           SPANREVIEW_CACHE_DIR    where the index of a large JSONL file is saved \
         [default: ~/.cache/spanreview]\n  \
           SPANREVIEW_INDEX_CACHE  `off`: no index cache\n  \
           TMPDIR                  where a stream (a pipe, `-`) is copied\n"
    };
}

/// `spanreview --help`.
pub const TOP: &str = "\
Every subcommand's --help gives its options, the environment it reads and its exit status
(0 success, 1 the subcommand's own failure, 2 a usage or I/O error).

Environment:
  SPANREVIEW_DB      the decision database [default: spanreview.sqlite in ~/.local/share/spanreview]
  SPANREVIEW_CONFIG  a config file read after ~/.config/spanreview/config.toml
  SPANREVIEW_LOG     review's log file [default: review.log in ~/.local/state/spanreview]
  NO_COLOR           no colour unless --color always
  COLORTERM          truecolor or 24bit: 24-bit colour, else the nearest of 256";

/// What `review --help` says after the input environment.
macro_rules! review_tail {
    () => {
        "  SPANREVIEW_CONFIG       a config file (keys, colours) read after \
         ~/.config/spanreview/config.toml\n  \
           SPANREVIEW_LOG          the log file [default: review.log in ~/.local/state/spanreview]\n  \
           USER                    the default --reviewer\n  \
           NO_COLOR, COLORTERM     see --color\n\
         \n\
         Exit status:\n  \
           0  the review ended\n  \
           1  the database was deleted or replaced during the review: what was saved until \
         then was copied to a file, named on exit; or the PostgreSQL server stayed \
         unreachable until quit: the decisions not saved were written to a file for `apply`, \
         named on exit\n  \
           2  a usage error, a file or database that cannot be read, a bad config, or no \
         terminal"
    };
}

/// `review -h`.
pub const REVIEW: &str = concat!(input_env!(), review_tail!());

/// `review --help`: examples first.
pub const REVIEW_LONG: &str = concat!(
    "Examples:\n  \
       spanreview review                                   # the bundled sample\n  \
       spanreview review records.jsonl preds.jsonl --queue type:missing_tool --db review.sqlite\n  \
       spanreview review records.jsonl --judge gpt=judge.jsonl --queue disputed\n  \
       zcat records.jsonl.gz | spanreview review - --dataset records\n\
     \n",
    input_env!(),
    review_tail!()
);

/// `validate --help`.
pub const VALIDATE: &str = concat!(
    input_env!(),
    "\nExit status:\n  \
       0  no problem\n  \
       1  problems (listed)\n  \
       2  a usage or I/O error"
);

/// `compare --help`.
pub const COMPARE: &str = concat!(
    input_env!(),
    "\nExit status:\n  \
       0  compared\n  \
       2  a usage or I/O error, or an unknown source (the sources the files hold are listed)"
);

/// `decisions --help`.
pub const DECISIONS: &str = "\
Exit status:
  0  printed
  2  a usage error, or no database / not a spanreview database at --db (left as it was)";

/// `export --help`.
pub const EXPORT: &str = concat!(
    input_env!(),
    "\nExit status:\n  \
       0  written\n  \
       1  stale decisions (nothing written; --skip-stale exports without them), or written but \
     incomplete: decisions on unreadable lines not applied, a JSON array cut short, lines \
     --split-by cannot route\n  \
       2  a usage or I/O error (nothing written)"
);

/// `stats --help`.
pub const STATS: &str = concat!(
    input_env!(),
    "\nExit status:\n  \
       0  printed\n  \
       2  a usage or I/O error, or no database at --db"
);

/// `assign --help`.
pub const ASSIGN: &str = concat!(
    input_env!(),
    "\nExamples:\n  \
       spanreview assign records.jsonl --reviewers ana,bo,cy --overlap 0.2 --db team.sqlite\n  \
       spanreview assign records.jsonl --reviewers ana,cy,dan --db team.sqlite  (bo left, dan \
     joined: only records nobody decided on move)\n  \
       spanreview assign records.jsonl --show --json --db team.sqlite\n\
     \n\
     Exit status:\n  \
       0  planned (or shown)\n  \
       1  planned, but lines without a readable id were left out (listed)\n  \
       2  a usage or I/O error, a bad --reviewers/--overlap/--overlap-k, or (--show) no plan"
);

/// `merge-db --help`.
pub const MERGE_DB: &str = "\
Exit status:
  0  merged
  2  a usage or I/O error, a missing input, or OUT among the inputs (nothing merged into itself)";

/// `completions --help`.
pub const COMPLETIONS: &str = "\
Examples:
  spanreview completions bash > ~/.local/share/bash-completion/completions/spanreview
  spanreview completions zsh > ~/.zfunc/_spanreview      # with fpath+=(~/.zfunc)
  spanreview completions fish > ~/.config/fish/completions/spanreview.fish

Exit status:
  0  printed
  2  a usage error";

/// `man --help`.
pub const MAN: &str = "\
Examples:
  spanreview man | man -l -
  spanreview man --dir ~/.local/share/man/man1     # spanreview.1, spanreview-review.1, ...

Exit status:
  0  written
  2  a usage error, or the folder cannot be written";
