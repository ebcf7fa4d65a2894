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
  PGPASSWORD         the password of a postgresql:// database (never shown); PGUSER its user
                     when the URL names none
  PGPASSFILE         the password file [default: ~/.pgpass], read when no password is given
  PGSERVICE          a service of PGSERVICEFILE [~/.pg_service.conf] or PGSYSCONFDIR's
                     pg_service.conf, filling what --db leaves unset
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
    "Checks: a JSON object per line (lists and objects nested 128 deep or more refused); \
     required fields and their types (per format); integer offsets with 0 <= start < end <= \
     len(output) in code points; output[start:end] == text; span boundaries that split a \
     character from its combining mark; labels in the label set; clean records without labels \
     and, unless --allow-clean, other records with at least one; ids unique in a file and \
     belonging to meta.base_id; the same meta.base_id in two of the files (split leakage); a \
     file with no record (`empty`, with --format: without it, its format cannot be told, exit \
     2).\n\
     \n\
     Examples:\n  \
       spanreview validate data/toolace/test_records_reconstructed.jsonl \
     data/toolace/*/predictions_combined.jsonl --strict\n  \
       spanreview validate train.jsonl validation.jsonl test.jsonl --json | jq -c \
     'select(.kind)'\n\
     \n",
    input_env!(),
    "\nExit status:\n  \
       0  no problem\n  \
       1  problems (listed)\n  \
       2  a usage or I/O error"
);

/// `compare --help`.
pub const COMPARE: &str = concat!(
    "Examples:\n  \
       spanreview compare data/toolace/ensemble/predictions_combined.jsonl \
     data/toolace/modernbert_ft/predictions_combined.jsonl --by-type --by-label\n  \
       spanreview compare records.jsonl preds.jsonl --json\n  \
       spanreview compare mushroom.en-val.v2.extra.jsonl --alpha   # alpha among the annotators\n\
     \n\
     The numbers are exact characters: --tolerance and --ignore-edge-punct only matter where \
     disagreements are clustered (review, stats, export).\n\
     \n",
    input_env!(),
    "\nExit status:\n  \
       0  compared\n  \
       2  a usage or I/O error, or an unknown source (the sources the files hold are listed)"
);

/// `decisions --help`.
pub const DECISIONS: &str = "\
Examples:
  spanreview decisions --dataset test_records_reconstructed --reviewer \"$USER\"
  spanreview decisions --db review.sqlite --json | jq -c 'select(.action == \"drop\")'

Exit status:
  0  printed
  2  a usage error, or no database / not a spanreview database at --db (left as it was)";

/// `export --help`.
pub const EXPORT: &str = concat!(
    "Examples:\n  \
       spanreview export records.jsonl --out reviewed.jsonl --verdicts verdicts.jsonl \
     --report report.md\n  \
       spanreview export records.jsonl --out reviewed.jsonl --strict \
     --split-by meta.corruption_type --clean-in-all\n  \
       spanreview export records.jsonl --out reviewed.jsonl --judge llm=decisions.jsonl \
     --contested contested.jsonl\n  \
       spanreview export records.jsonl --out reviewed.jsonl --report report.md --card card.md\n\
     \n",
    input_env!(),
    "\nExit status:\n  \
       0  written\n  \
       1  stale decisions (nothing written; --skip-stale exports without them), kept spans \
     that do not slice their answer (nothing written; each listed), or written but \
     incomplete: decisions on unreadable lines not applied, a JSON array cut short, lines \
     --split-by cannot route\n  \
       2  a usage or I/O error (nothing written)\n  \
       128+n  killed by signal n (SIGINT, SIGTERM, SIGHUP): temporary files removed, outputs \
     untouched\n\
     \"nothing written\" does not hold for a stream output (-, a FIFO, a device), which gets \
     records as they are made."
);

/// `stats --help`.
pub const STATS: &str = concat!(
    "Examples:\n  \
       spanreview stats data/toolace/test_records_reconstructed.jsonl \
     --judge ensemble=data/toolace/ensemble/predictions_combined.jsonl --tolerance 2\n  \
       spanreview stats records.jsonl --judge alice=alice.sqlite --db review.sqlite --json | \
     jq .upheld\n  \
       spanreview stats records.jsonl --by-reviewer --db team.sqlite\n  \
       spanreview stats records.jsonl --db team.sqlite --min-seconds 8\n  \
       spanreview stats records.jsonl --db team.sqlite --csv stats/       # a CSV file per table\n  \
       spanreview stats records.jsonl --db team.sqlite --csv stats.csv    # table,row,column,value\n\
     \n",
    input_env!(),
    "\nExit status:\n  \
       0  printed (or, with --csv, written)\n  \
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

/// `apply --help`.
pub const APPLY: &str = concat!(
    "Examples:\n  \
       spanreview apply data/toolace/test_records_reconstructed.jsonl --decisions triage.jsonl \
     --reviewer llm-pass --dry-run\n  \
       spanreview decisions --json --db a.sqlite | spanreview apply records.jsonl --decisions - \
     --db b.sqlite\n\
     \n\
     Each line is one JSON object in the shape `decisions --json` prints: record_id and action, \
     and as the action needs span_key (gold:N; an add's a new added:ID of your choosing), \
     before, after, reason, note, target, record_type; \
     dataset and reviewer default to the flags (a line naming no reviewer needs --reviewer), \
     record_hash to the record's in FILE, time to now, origin to a new one. Offsets are code \
     points. With --rubric FILE.toml, a drop, adjust, relabel, add, clean, remove or flag \
     reason starts with one of the rubric's codes for its action (`V1` or `V1: note`), else the \
     line is refused.\n\
     \n",
    input_env!(),
    "\nExit status:\n  \
       0  every line saved (or already in the database; with --dry-run: every line would be)\n  \
       1  a line was refused (each reported as D.jsonl:LINE: why); nothing was saved\n  \
       2  a usage or I/O error; nothing was saved"
);

/// `triage --help`.
pub const TRIAGE: &str = concat!(
    "Codes (each flag's reason is CODE: explanation):\n  \
       span-in-context       a fabricated_reference span (or a contradiction) whose text occurs \
     in the context as a whole token: it marks original code or text (the code-agent authors' \
     rule)\n  \
       misquote              an edit answer (In file X, replace: ```old``` with: ```new```) whose \
     old block is not in the context; names the nearest context line\n  \
       boundary-space        a span that starts or ends with whitespace\n  \
       boundary-midword      a span that starts or ends inside a word or identifier (not in \
     scripts written without spaces)\n  \
       boundary-not-minimal  in an edit answer, a span wider than what the new block changes \
     (widened to whole words)\n  \
       taxonomy              a category not in the label set, a subcategory its category does not \
     list, a label the set lacks\n\
     \n\
     Examples:\n  \
       spanreview triage code_agent.jsonl --out flags.jsonl --json\n  \
       spanreview triage code_agent.jsonl --out - --labels lettucedetect | spanreview apply \
     code_agent.jsonl --decisions -\n\
     \n",
    input_env!(),
    "\nExit status:\n  \
       0  every record checked (findings are in --out, not errors)\n  \
       1  a line could not be read (reported as FILE:LINE; the others were checked)\n  \
       2  a usage or I/O error; nothing was written"
);

/// `judge --help`.
pub const JUDGE: &str = concat!(
    "One chat-completions request per record (stream off, temperature 0, a strict JSON schema \
     in response_format; plain JSON from servers without it): is each labeled span a \
     hallucination of its label, and which unlabeled text is (quoted, then placed in the \
     answer: exact, case-insensitive, fuzzy with its score). The verdicts go to --out in the \
     halu-toolace decisions format, the raw reply kept; each failed record (refused, timed \
     out, HTML, not the schema, cut off, a quote not in the answer) to JUDGE.skipped.jsonl \
     with its reason. Replies are cached (JUDGE.jsonl.cache): a rerun, or --resume after a \
     kill, sends nothing twice.\n\
     \n\
     Examples:\n  \
       spanreview judge records.jsonl --endpoint http://localhost:8000/v1 --model \
     Qwen/Qwen2.5-7B-Instruct --out qwen.jsonl --concurrency 32\n  \
       spanreview judge records.jsonl --endpoint https://api.example.com/v1 --model MODEL \
     --out judge.jsonl --rubric rubric.toml --price 0.15,0.60\n  \
       spanreview judge records.jsonl --endpoint http://localhost:8000/v1 --model m --out \
     judge.jsonl --resume\n\
     \n",
    input_env!(),
    "  OPENAI_API_KEY          the API key (or the variable --api-key-env names); sent as a \
     bearer token, never printed or written\n\
     \nExit status:\n  \
       0  every record judged\n  \
       1  written, but some records failed or a quote was not placed (each in \
     JUDGE.skipped.jsonl with its reason)\n  \
       2  a usage or I/O error: an unreadable input, prompt or rubric, an output or cache \
     that cannot be written"
);

/// `convert --help`.
pub const CONVERT: &str = concat!(
    "Spans: the gold, or --source's. A Label Studio task has a gold once spanreview wrote one \
     (the annotation completed_by \"spanreview\"); before that, converted to another format, \
     its one annotator's latest annotation stands, or with none the prediction \"gold\". \
     Several annotators need --source annotator_<id> (in JSON_MIN, a row per annotation, it \
     keeps that annotator's rows). A Prodigy task's spans are its gold when accepted; rejected \
     or ignored, they are the source prodigy_reject / prodigy_ignore.\n\
     \n\
     --to label-studio writes a JSON array of tasks: data is the record (every field) with rid, \
     output, query and context set, each source a prediction (model_version: its name; gold \
     for the gold); the labeling config for its labels goes to --config, else standard output. \
     --to prodigy writes {text, query, context, spans, meta.id} per line. A span whose text is \
     not the answer's [start:end] in code points is reported with its file and line and kept \
     as given.\n\
     \n\
     Examples:\n  \
       spanreview convert data.jsonl --to label-studio --out tasks.json --config config.xml\n  \
       spanreview convert export.json --to ragtruth --records data.jsonl --out reviewed.jsonl\n  \
       spanreview convert export.json --to ragtruth --out - --source annotator_3 | head\n  \
       spanreview convert prodigy.jsonl --to ragtruth --records data.jsonl --out data.new.jsonl\n\
     \n",
    input_env!(),
    "\nExit status:\n  \
       0  converted, nothing to report\n  \
       1  converted, with problems reported (spans that do not slice, records with no original \
     in --records or no spans to take)\n  \
       2  a usage or I/O error, or no record converted without --records (nothing written)"
);

/// `merge-db --help`.
pub const MERGE_DB: &str = "\
Examples:
  spanreview merge-db team.sqlite ana.sqlite bo.sqlite
  spanreview merge-db laptop.sqlite postgresql://ana@db.example:5432/review

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
