//! Every shell command README.md and docs/*.md show, run as a new user runs it: each ```sh
//! block, in order, in a folder holding the files the guides name (the bundled sample under
//! their names), with `spanreview` on the PATH. A command must exit 0, or the status its
//! line's comment says (`# exits 1`). `review` opens in a terminal of its own (tmux) and is
//! quit with `q` once its first frame is drawn. The team server's block runs against the
//! PostgreSQL of `.ci/pg.sh` when `SPANREVIEW_TEST_PG` names one (its host put for
//! `db.example:5432`). `judge`'s endpoints (`http://localhost:8000/v1`, a local vLLM, and
//! `https://api.example.com/v1`, a hosted API) are the loopback chat-completions server of
//! `judge_server`, started in the test and answering every record with a verdict;
//! `huggingface-cli download` leaves the Hub layout `tests/fixtures/hub/make.py` makes. Two
//! commands are not run inside the tests, and are checked instead:
//! `cargo test` (the suite itself: `.ci/run` runs it as the README's test command) and
//! `cargo install --path .` (a release build: the Rust version it names is `Cargo.toml`'s).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::super::common::{data, fixture, root, shared};
use super::super::judge_server;
use super::super::terminal::shell_quote;

/// A command shown in a guide: where, and its text with continuation lines joined.
#[derive(Debug, Clone, PartialEq)]
struct Shown {
    file: String,
    line: usize,
    text: String,
}

impl Shown {
    /// The exit status its comment announces (`# exits 1`), else 0.
    fn expected(&self) -> i32 {
        self.text
            .split("# exits ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }
}

/// The ```sh blocks of `text` (a Markdown file named `file`), each as its commands: comment
/// and blank lines left out, a line ending in `\` joined to the next, a `for` … `done` loop one
/// command.
fn blocks(file: &str, text: &str) -> Vec<Vec<Shown>> {
    let mut out = Vec::new();
    let mut block: Option<Vec<Shown>> = None;
    let mut pending: Option<Shown> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if block.is_none() {
            if trimmed == "```sh" {
                block = Some(Vec::new());
            }
            continue;
        }
        if trimmed == "```" {
            assert!(
                pending.is_none(),
                "{file}:{}: a command is cut short",
                i + 1
            );
            out.extend(block.take());
            continue;
        }
        let cmds = block.as_mut().expect("in a block");
        if let Some(p) = pending.as_mut() {
            p.text.push('\n');
            p.text.push_str(line);
        } else if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        } else {
            pending = Some(Shown {
                file: file.to_owned(),
                line: i + 1,
                text: line.to_owned(),
            });
        }
        let p = pending.as_ref().expect("a command");
        let open_loop = p.text.trim_start().starts_with("for ") && !trimmed.ends_with("done");
        if !trimmed.ends_with('\\') && !open_loop {
            cmds.extend(pending.take());
        }
    }
    assert!(block.is_none(), "{file}: a ```sh block is not closed");
    out
}

/// The guides in the order a reader takes them (the README's tour, then each workflow), so
/// one home carries the default database from the tour on, as a reader's does.
const ORDER: [&str; 8] = [
    "README.md",
    "docs/review.md",
    "docs/judge.md",
    "docs/triage.md",
    "docs/arbitration.md",
    "docs/team.md",
    "docs/formats.md",
    "docs/export.md",
];

/// The guides, in [`ORDER`], each with its text; every `docs/*.md` is one of them.
fn guides() -> Vec<(String, String)> {
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| format!("docs/{}", p.file_name().expect("a name").to_string_lossy()))
        .collect();
    docs.sort();
    let mut listed: Vec<String> = ORDER[1..].iter().map(|s| (*s).to_owned()).collect();
    listed.sort();
    assert_eq!(
        docs, listed,
        "a guide in docs/ that ORDER does not list, or the reverse"
    );
    ORDER
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(root().join(p)).expect("a guide");
            ((*p).to_owned(), text)
        })
        .collect()
}

/// The `spanreview` the guides call: the binary under test; `review` runs in a tmux pane of
/// its own, is sent `q` once its screen shows the key hints, and exits with the review's status.
const WRAPPER: &str = r#"#!/usr/bin/env bash
real=REAL
if [ "$1" != review ] || [[ " $* " == *" --help "* ]]; then exec "$real" "$@"; fi
d=$(mktemp -d "$SANDBOX/review.XXXXXX")
{ printf '#!/usr/bin/env bash\n'; printf '%q ' "$real" "$@";
  printf '2>%q; echo $? >%q; mv %q %q\n' "$d/err" "$d/rc.tmp" "$d/rc.tmp" "$d/rc"; } >"$d/run"
chmod +x "$d/run"
tmux -S "$d/sock" -f /dev/null new-session -d -x 160 -y 45 "$d/run"
sent=
for _ in $(seq 600); do
  [ -f "$d/rc" ] && break
  screen=$(tmux -S "$d/sock" capture-pane -p 2>/dev/null)
  if [ -z "$sent" ] && [[ "$screen" == *"? help"* ]]; then
    printf '%s\n' "$screen" >"$d/screen"; tmux -S "$d/sock" send-keys q; sent=1
  fi
  sleep 0.1
done
tmux -S "$d/sock" kill-server 2>/dev/null
cat "$d/err" >&2
if [ ! -f "$d/rc" ]; then echo "review did not end: $screen" >&2; exit 124; fi
if [ -n "$sent" ]; then echo "shown: $*" >>"$SANDBOX/reviews"; else echo "NOT shown: $*" >>"$SANDBOX/reviews"; fi
exit "$(cat "$d/rc")"
"#;

/// A folder to run a guide's commands in: `work/` holds the files the guides name, `bin/` the
/// `spanreview` wrapper, `home/` an empty home. Returns `(sandbox, work)`.
fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let (work, bin, home) = (
        dir.path().join("work"),
        dir.path().join("bin"),
        dir.path().join("home"),
    );
    for d in [&work, &bin, &home] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let wrapper = bin.join("spanreview");
    let real = shell_quote(Path::new(super::super::terminal::bin()));
    std::fs::write(&wrapper, WRAPPER.replace("REAL", &real)).expect("wrapper");
    let made = Command::new("chmod")
        .arg("+x")
        .arg(&wrapper)
        .status()
        .expect("chmod");
    assert!(made.success());
    std::os::unix::fs::symlink(root().join("data"), work.join("data")).expect("data/");
    std::os::unix::fs::symlink(root().join("src"), work.join("src")).expect("src/");
    std::os::unix::fs::symlink(root().join("assets"), work.join("assets")).expect("assets/");
    let records = data("toolace/test_records_reconstructed.jsonl");
    for (name, from) in [
        ("records.jsonl", records.clone()),
        ("data.jsonl", records.clone()),
        (
            "preds.jsonl",
            data("toolace/ensemble/predictions_combined.jsonl"),
        ),
        ("code_agent.jsonl", fixture("triage/code_agent.jsonl")),
        ("my-prompt.txt", root().join("assets/prompts/toolace.txt")),
    ] {
        std::fs::copy(&from, work.join(name)).expect("copy");
    }
    // A split of the sample that keeps each base's variants in one file.
    let text = std::fs::read_to_string(&records).expect("sample");
    let mut splits = [String::new(), String::new(), String::new()];
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let base = v["meta"]["base_id"].as_str().unwrap_or_default();
        let k = base.bytes().map(usize::from).sum::<usize>() % 3;
        splits[k].push_str(line);
        splits[k].push('\n');
    }
    for (name, s) in ["train.jsonl", "validation.jsonl", "test.jsonl"]
        .iter()
        .zip(&splits)
    {
        std::fs::write(work.join(name), s).expect("split");
    }
    if let Some(m) = shared("multilingual/mushroom/val_v2/mushroom.en-val.v2.extra.jsonl") {
        std::fs::copy(m, work.join("mushroom.en-val.v2.extra.jsonl")).expect("mushroom");
    }
    hub_download(&bin, dir.path());
    (dir, work)
}

/// `huggingface-cli download REPO --repo-type dataset --local-dir D` in `bin`: the Hub is not
/// reachable from the tests, so D gets the folder `tests/fixtures/hub/make.py` lays out as the
/// Hub serves toolace-hallucination-spans (configs combined and contradiction, three splits,
/// shards written by `datasets`). Without SPANREVIEW_TEST_PYTHON there is none, and the
/// guides' blocks that download are skipped.
fn hub_download(bin: &Path, sandbox: &Path) {
    let Ok(py) = std::env::var("SPANREVIEW_TEST_PYTHON") else {
        return;
    };
    let made = sandbox.join("hub");
    let status = Command::new(py)
        .arg(root().join("tests/fixtures/hub/make.py"))
        .arg(&made)
        .output()
        .expect("make.py runs");
    assert!(status.status.success(), "make.py: {status:?}");
    let from = shell_quote(&made.join("configs"));
    let script = format!(
        "#!/usr/bin/env bash\n\
         # A stand-in for the Hub's client: the download below is the only form the guides show.\n\
         set -eu\n\
         [ \"$1 $3 $4 $5\" = \"download --repo-type dataset --local-dir\" ] || \
         {{ echo \"huggingface-cli stand-in: unexpected $*\" >&2; exit 2; }}\n\
         cp -r {from} \"$6\"\n"
    );
    let cli = bin.join("huggingface-cli");
    std::fs::write(&cli, script).expect("huggingface-cli");
    let made = Command::new("chmod")
        .arg("+x")
        .arg(&cli)
        .status()
        .expect("chmod");
    assert!(made.success());
}

/// The commands that make the files a guide assumes you have: other reviewers' databases,
/// triage's output, and a Label Studio and a Prodigy file (made by `convert`, standing in for
/// those tools' exports).
const SETUP: &str = r#"set -e
accept='{"record_id": "toolace_train_00021__overgeneration", "action": "accept", "span_key": "gold:0"}'
drop='{"record_id": "toolace_train_00021__overgeneration", "action": "drop", "span_key": "gold:0"}'
echo "$accept" >accept.jsonl; echo "$drop" >drop.jsonl
for who in ana alice; do spanreview apply records.jsonl --decisions accept.jsonl --reviewer $who --db $who.sqlite; done
spanreview apply records.jsonl --decisions drop.jsonl --reviewer bo --db bo.sqlite
spanreview apply records.jsonl --decisions drop.jsonl --reviewer bo --db a.sqlite
spanreview apply records.jsonl --decisions accept.jsonl --reviewer ana --db review.sqlite
spanreview triage records.jsonl --out triage.jsonl
spanreview convert data.jsonl --to label-studio --out export.json
spanreview convert data.jsonl --to prodigy --out annotations.jsonl
rm accept.jsonl drop.jsonl
"#;

/// The team server's block with the test server put for `db.example:5432` (its superuser for
/// `createuser`, `createdb` and `psql`, as "on the server, as the postgres user" says), and
/// what an earlier run left on it removed first. `None` without a test server.
fn on_test_server(cmds: &[Shown]) -> Option<(String, Vec<Shown>)> {
    let url = std::env::var("SPANREVIEW_TEST_PG").ok()?;
    let hostport = url.split('@').nth(1)?.split('/').next()?.to_owned();
    let (host, port) = hostport.split_once(':')?;
    let cert = std::env::var("PG_TEST_DIR")
        .ok()
        .map(|d| PathBuf::from(d).join("root.crt"))
        .filter(|p| p.exists());
    // Without TLS on the test server, verify-full cannot be run: the URL asks for none there.
    let tls = cert.map_or_else(
        || "sslmode=disable".to_owned(),
        |c| format!("sslmode=verify-full&sslrootcert={}", c.display()),
    );
    let env = format!(
        "export PGHOST={host} PGPORT={port} PGUSER=postgres\n\
         dropdb --if-exists review; for r in ana bo cy spanreview; do dropuser --if-exists $r; done\n"
    );
    let cmds = cmds
        .iter()
        .map(|c| Shown {
            text: c
                .text
                .replace("db.example:5432", &hostport)
                .replace("sslmode=verify-full", &tls),
            ..c.clone()
        })
        .collect();
    Some((env, cmds))
}

/// The endpoints `docs/judge.md` shows, each put for the test server's URL.
const ENDPOINTS: [&str; 2] = ["http://localhost:8000/v1", "https://api.example.com/v1"];

/// Run `cmds` as one script in `work` (so `export`s carry to the next line), each command's
/// exit status recorded; the failures, with the script's output.
fn run(sandbox: &Path, work: &Path, prelude: &str, cmds: &[Shown]) -> Vec<String> {
    let rcs = sandbox.join("rcs");
    let _ = std::fs::remove_file(&rcs);
    let mut script = format!("set -o pipefail\n{prelude}\n");
    for (i, c) in cmds.iter().enumerate() {
        script.push_str(&c.text);
        script.push_str(&format!("\necho \"{i} $?\" >>{}\n", shell_quote(&rcs)));
    }
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(work)
        .env_clear()
        .env(
            "PATH",
            format!(
                "{}:{}",
                sandbox.join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("HOME", sandbox.join("home"))
        .env("USER", "tester")
        .env("SANDBOX", sandbox)
        .env("LANG", "C.UTF-8")
        .env("TERM", "xterm-256color")
        .output()
        .expect("bash runs");
    let got: Vec<i32> = std::fs::read_to_string(&rcs)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            l.split(' ')
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(-1)
        })
        .collect();
    let mut failed = Vec::new();
    for (i, c) in cmds.iter().enumerate() {
        let rc = got.get(i).copied();
        if rc != Some(c.expected()) {
            failed.push(format!(
                "{}:{}: exit {rc:?}, want {}: {}",
                c.file,
                c.line,
                c.expected(),
                c.text
            ));
        }
    }
    if !failed.is_empty() {
        failed.push(format!(
            "--- stdout:\n{}\n--- stderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    failed
}

/// What the guides show that is checked here without being run (see the module's note).
fn checked_apart(c: &Shown) -> bool {
    let cmd = c.text.split('#').next().unwrap_or_default().trim();
    match cmd {
        "cargo test" => {
            let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
            assert!(
                ci.contains("# The README's test command:\ncargo test\n"),
                "{ci}"
            );
            true
        }
        "cargo install --path ." => {
            let toml = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
            assert!(c.text.contains("Rust 1.89 or newer"), "{}", c.text);
            assert!(toml.contains("rust-version = \"1.89\""), "{toml}");
            true
        }
        _ => false,
    }
}

#[test]
fn every_command_the_readme_and_the_guides_show_runs_as_shown() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIP: tmux is not installed; the guides' review commands run in it");
        return;
    }
    let (dir, work) = sandbox();
    let judge = judge_server::start(
        std::sync::Arc::new(|r: &judge_server::Request, _: usize| {
            judge_server::Reply::verdicts(judge_server::VLLM, r)
        }),
        false,
    );
    let setup = run(
        dir.path(),
        &work,
        "",
        &[Shown {
            file: "setup".into(),
            line: 0,
            text: SETUP.into(),
        }],
    );
    assert!(setup.is_empty(), "{}", setup.join("\n"));
    let (mut ran, mut apart, mut failed) = (0, 0, Vec::new());
    for (file, text) in guides() {
        for block in blocks(&file, &text) {
            let server = block.iter().any(|c| c.text.contains("db.example"));
            let (prelude, cmds) = if server {
                let Some(on) = on_test_server(&block) else {
                    eprintln!(
                        "SKIP: {file}:{}: the team server's block needs SPANREVIEW_TEST_PG \
                         (.ci/pg.sh start)",
                        block[0].line
                    );
                    continue;
                };
                on
            } else {
                let cmds = block
                    .iter()
                    .filter(|c| {
                        let checked = checked_apart(c);
                        apart += usize::from(checked);
                        !checked
                    })
                    .map(|c| Shown {
                        text: ENDPOINTS.iter().fold(
                            c.text.replace("cargo run --release -- ", "spanreview "),
                            |t, e| t.replace(e, &judge.url),
                        ),
                        ..c.clone()
                    })
                    .collect();
                (String::new(), cmds)
            };
            if file.ends_with("export.md")
                && cmds.iter().any(|c: &Shown| c.text.contains("mushroom"))
                && !work.join("mushroom.en-val.v2.extra.jsonl").exists()
            {
                eprintln!("SKIP: {file}: the Mu-SHROOM file of ../shared/data is absent");
                continue;
            }
            if cmds
                .iter()
                .any(|c: &Shown| c.text.starts_with("huggingface-cli"))
                && !dir.path().join("bin/huggingface-cli").exists()
            {
                eprintln!(
                    "SKIP: {file}: no Hub folder without SPANREVIEW_TEST_PYTHON (.ci/venv.sh)"
                );
                continue;
            }
            ran += cmds.len();
            failed.extend(run(dir.path(), &work, &prelude, &cmds));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Every review drew its screen before it was quit.
    let reviews = std::fs::read_to_string(dir.path().join("reviews")).expect("reviews ran");
    assert!(!reviews.contains("NOT shown"), "{reviews}");
    // The judge commands reached the server (the placeholders were put for it).
    assert!(
        judge.stats.count() > 0,
        "no judge command reached the test server"
    );
    let screens = reviews.lines().count();
    eprintln!("ran {ran} commands of the guides ({screens} review screens); {apart} checked apart:\n{reviews}");
    assert!(
        ran >= 40,
        "only {ran} commands found: is the block parser broken?"
    );
}

#[test]
fn the_parser_finds_every_command_and_a_failing_one_is_caught() {
    let md = "text\n```sh\n# a comment\nspanreview validate a.jsonl \\\n    b.jsonl\n\nfor r in a b; do\n  echo $r\ndone\nfalse   # exits 1\n```\n```rust\nnot shell\n```\n";
    let b = blocks("x.md", md);
    assert_eq!(b.len(), 1);
    let texts: Vec<&str> = b[0].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "spanreview validate a.jsonl \\\n    b.jsonl",
            "for r in a b; do\n  echo $r\ndone",
            "false   # exits 1"
        ]
    );
    assert_eq!(b[0][0].line, 4);
    assert_eq!((b[0][0].expected(), b[0][2].expected()), (0, 1));
    // A command that fails, or exits otherwise than announced, is reported with its line.
    let (dir, work) = sandbox();
    let bad = |text: &str| Shown {
        file: "x.md".into(),
        line: 7,
        text: text.into(),
    };
    let failed = run(
        dir.path(),
        &work,
        "",
        &[
            bad("true"),
            bad("spanreview validate missing.jsonl"),
            bad("true # exits 1"),
        ],
    );
    assert_eq!(failed.len(), 3, "{failed:?}");
    assert!(
        failed[0].starts_with("x.md:7: exit Some(2), want 0"),
        "{}",
        failed[0]
    );
    assert!(
        failed[1].starts_with("x.md:7: exit Some(0), want 1"),
        "{}",
        failed[1]
    );
}
