//! Integration tests: the conventions of a well-kept CLI. `-` reads standard input; shell
//! completions that each installed shell parses; a man page `man -l` renders; `--color`; the
//! environment and exit status in every subcommand's help; the sample embedded in the binary;
//! the review log in the state folder; a manifest an installer can trust.

use std::path::Path;
use std::process::Command;

use super::common::{bin, fixture, help, root, SUBCOMMANDS};
use super::terminal::{self, Tmux};

fn records() -> Vec<u8> {
    std::fs::read(fixture("validate/clean_unicode.jsonl")).expect("fixture")
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// ---- `-` is standard input ----

#[test]
fn validate_dash_reads_standard_input() {
    let out = bin()
        .args(["validate", "-"])
        .write_stdin(records())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("summary: 6 records in 1 file"), "{text}");
    assert!(text.contains("0 problems"), "{text}");
}

#[test]
fn validate_dash_names_standard_input_and_the_line_of_a_problem() {
    let mut bytes = records();
    bytes.extend_from_slice(
        "{\"id\": \"x°\", \"output\": \"東京 👋\", \"hallucination_labels\": \
         [{\"start\": 3, \"end\": 9, \"text\": \"👋\", \"label\": \"contradiction\"}]}\n"
            .as_bytes(),
    );
    let out = bin()
        .args(["validate", "--format", "ragtruth", "-"])
        .write_stdin(bytes)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("-:7: "), "{text}");
}

#[test]
fn compare_dash_reads_standard_input_as_the_file() {
    let file = fixture("review/predictions_detector.jsonl");
    let from_file = bin()
        .args(["compare", "--json"])
        .arg(&file)
        .output()
        .expect("runs");
    let from_stdin = bin()
        .args(["compare", "--json", "-"])
        .write_stdin(std::fs::read(&file).expect("fixture"))
        .output()
        .expect("runs");
    assert_eq!(from_stdin.status.code(), Some(0), "{from_stdin:?}");
    let scores = |o: &std::process::Output| -> serde_json::Value {
        let line = stdout(o).lines().next().expect("a line").to_owned();
        let v: serde_json::Value = serde_json::from_str(&line).expect("json");
        assert!(v["records"].as_u64().is_some_and(|n| n > 0), "{v}");
        v["overall"].clone()
    };
    assert_eq!(scores(&from_stdin), scores(&from_file));
}

#[test]
fn a_judge_from_standard_input_is_refused_saying_why() {
    let out = bin()
        .arg("compare")
        .arg(fixture("review/records.jsonl"))
        .args(["--judge", "det=-"])
        .write_stdin(records())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr(&out);
    assert!(
        err.contains("standard input (-) needs a regular file (it is read twice)"),
        "{err}"
    );
}

// ---- completions ----

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "elvish", "powershell"];

fn completions(shell: &str) -> Vec<u8> {
    let out = bin().args(["completions", shell]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{shell}: {out:?}");
    out.stdout
}

/// The script written to a file in `dir`.
fn script_file(dir: &Path, shell: &str) -> std::path::PathBuf {
    let p = dir.join(format!("spanreview.{shell}"));
    std::fs::write(&p, completions(shell)).expect("write");
    p
}

fn installed(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIP: {program} is not installed; its completion script is not parsed");
    }
    found
}

#[test]
fn completions_name_every_subcommand_in_every_shell() {
    for shell in SHELLS {
        let text = String::from_utf8(completions(shell)).expect("utf-8");
        for sub in SUBCOMMANDS {
            assert!(text.contains(sub), "{shell}: no {sub}");
        }
        // fish names a long option without its dashes.
        assert!(
            text.contains("--color") || text.contains("-l color"),
            "{shell}"
        );
    }
}

#[test]
fn the_bash_script_parses_registers_and_completes() {
    let dir = tempfile::tempdir().expect("tmp");
    let script = script_file(dir.path(), "bash");
    let check = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(check.status.success(), "bash -n: {}", stderr(&check));
    // Sourced, it registers a completion, which completes a subcommand and a flag's values.
    let run = Command::new("bash")
        .arg("-c")
        .arg(
            "source \"$1\" && complete -p spanreview && \
             COMP_WORDS=(spanreview mer) COMP_CWORD=1 && _spanreview spanreview mer spanreview \
             && echo \"subcommands: ${COMPREPLY[*]}\" && \
             COMP_WORDS=(spanreview --color n) COMP_CWORD=2 && _spanreview spanreview n --color \
             && echo \"colors: ${COMPREPLY[*]}\"",
        )
        .arg("bash")
        .arg(&script)
        .output()
        .expect("bash runs");
    let text = stdout(&run);
    assert!(run.status.success(), "{text}{}", stderr(&run));
    assert!(text.contains("-F _spanreview spanreview"), "{text}");
    assert!(text.contains("subcommands: merge-db"), "{text}");
    assert!(text.contains("colors: never"), "{text}");
}

#[test]
fn the_other_shells_parse_their_scripts_where_installed() {
    let dir = tempfile::tempdir().expect("tmp");
    let checks: [(&str, &str, &[&str]); 4] = [
        ("zsh", "zsh", &["-n"]),
        ("fish", "fish", &["--no-execute"]),
        ("elvish", "elvish", &["-compileonly"]),
        (
            "powershell",
            "pwsh",
            &["-NoProfile", "-NonInteractive", "-File"],
        ),
    ];
    for (shell, program, args) in checks {
        if !installed(program) {
            continue;
        }
        let script = script_file(dir.path(), shell);
        let out = Command::new(program)
            .args(args)
            .arg(&script)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{program} does not parse the {shell} script: {}",
            stderr(&out)
        );
    }
}

// ---- man pages ----

/// `man -l FILE` rendered as plain text, or `None` (with a message) without man.
fn man_l(page: &Path) -> Option<String> {
    if !installed("man") {
        return None;
    }
    let out = Command::new("man")
        .arg("-l")
        .arg(page)
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .expect("man runs");
    assert!(out.status.success(), "man -l {}: {out:?}", page.display());
    Some(stdout(&out))
}

#[test]
fn the_man_page_renders_with_man() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = bin().arg("man").output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout(&out).starts_with(".ie"), "roff: {}", stdout(&out));
    let page = dir.path().join("spanreview.1");
    std::fs::write(&page, &out.stdout).expect("write");
    let Some(text) = man_l(&page) else { return };
    assert!(
        text.contains("spanreview - Review span-level hallucination annotations"),
        "{text}"
    );
    assert!(text.contains("spanreview-review(1)"), "{text}");
    assert!(text.contains("SPANREVIEW_DB"), "{text}");
}

#[test]
fn man_dir_writes_a_page_per_subcommand_that_renders() {
    let dir = tempfile::tempdir().expect("tmp");
    let man1 = dir.path().join("man/man1");
    let out = bin()
        .arg("man")
        .arg("--dir")
        .arg(&man1)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for sub in [
        "",
        "-review",
        "-validate",
        "-compare",
        "-export",
        "-merge-db",
        "-convert",
        "-man",
    ] {
        let page = man1.join(format!("spanreview{sub}.1"));
        assert!(page.is_file(), "{}", page.display());
        let Some(text) = man_l(&page) else { return };
        assert!(text.contains("NAME"), "{text}");
    }
    let review = man_l(&man1.join("spanreview-review.1")).unwrap_or_default();
    if !review.is_empty() {
        assert!(review.contains("Exit status"), "{review}");
        assert!(review.contains("Examples"), "{review}");
    }
}

#[test]
fn man_dir_that_cannot_be_made_exits_2_naming_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("a file");
    std::fs::write(&file, "x").expect("write");
    let out = bin()
        .arg("man")
        .arg("--dir")
        .arg(file.join("man1"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("a file/man1"), "{}", stderr(&out));
}

// ---- help: environment, exit status, examples, colour ----

/// The tests that go over every subcommand share one list: it is the one `--help` lists, so a
/// new subcommand cannot be left out of them.
#[test]
fn the_shared_subcommand_list_is_the_one_help_lists() {
    let out = bin().arg("--help").output().expect("runs");
    let text = stdout(&out);
    let listed: Vec<&str> = text
        .split("Commands:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a command list")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert_eq!(listed, SUBCOMMANDS, "{text}");
}

#[test]
fn every_subcommand_documents_its_exit_status() {
    for sub in SUBCOMMANDS {
        let text = help(sub);
        let status = text
            .split("Exit status:")
            .nth(1)
            .unwrap_or_else(|| panic!("{sub} --help has no exit status:\n{text}"));
        assert!(status.contains("\n  0  "), "{sub}: {status}");
        assert!(status.contains("\n  2  "), "{sub}: {status}");
    }
    for sub in ["validate", "export", "review"] {
        let text = help(sub);
        let status = text.split("Exit status:").nth(1).unwrap_or_default();
        assert!(status.contains("\n  1  "), "{sub} exits 1 too: {status}");
    }
}

#[test]
fn every_db_option_shows_its_environment_variable() {
    for sub in ["review", "decisions", "export", "stats"] {
        let text = help(sub);
        assert!(text.contains("[env: SPANREVIEW_DB=]"), "{sub}:\n{text}");
    }
    let out = bin()
        .args(["decisions", "--help"])
        .env("SPANREVIEW_DB", "/tmp/team.sqlite")
        .output()
        .expect("runs");
    assert!(
        stdout(&out).contains("[env: SPANREVIEW_DB=/tmp/team.sqlite]"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_empty_spanreview_db_counts_as_unset() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = bin()
        .arg("decisions")
        .env("SPANREVIEW_DB", "")
        .env("XDG_DATA_HOME", dir.path())
        .env("HOME", dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "no database at {}",
            dir.path().join("spanreview/spanreview.sqlite").display()
        )),
        "{err}"
    );
}

#[test]
fn review_help_has_examples_and_the_environment_it_reads() {
    let text = help("review");
    assert!(text.contains("Examples:\n  spanreview review "), "{text}");
    for var in [
        "SPANREVIEW_DB",
        "SPANREVIEW_CONFIG",
        "SPANREVIEW_LOG",
        "NO_COLOR",
        "COLORTERM",
    ] {
        assert!(text.contains(var), "{var}:\n{text}");
    }
    assert!(text.contains("A FILE of `-` is standard input"), "{text}");
}

#[test]
fn color_decides_whether_help_is_coloured() {
    let run = |args: &[&str], env: &[(&str, &str)]| -> String {
        let mut cmd = bin();
        cmd.args(args).env_remove("NO_COLOR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        stdout(&cmd.output().expect("runs"))
    };
    let esc = |s: &str| s.contains('\u{1b}');
    assert!(esc(&run(&["--color", "always", "--help"], &[])));
    assert!(esc(&run(&["review", "--color=always", "-h"], &[])));
    assert!(esc(&run(
        &["--color", "always", "--help"],
        &[("NO_COLOR", "1")]
    )));
    assert!(!esc(&run(
        &["--color", "never", "--help"],
        &[("CLICOLOR_FORCE", "1")]
    )));
    // Not a terminal: no colour unless asked for.
    assert!(!esc(&run(&["--help"], &[])));
    let bad = bin()
        .args(["--color", "sometimes", "validate", "x.jsonl"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(stderr(&bad).contains("sometimes"), "{}", stderr(&bad));
}

/// `review` of the fixture in tmux with `extra` flags and `env`; the styled screen.
fn styled_review(name: &str, extra: &str, env: &[(&str, &str)]) -> Option<String> {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let mut e: Vec<(&str, String)> = terminal::env(dir.path())
        .into_iter()
        .filter(|(k, _)| !env.iter().any(|(k2, _)| k2 == k))
        .collect();
    e.extend(env.iter().map(|(k, v)| (*k, (*v).to_owned())));
    let cmd = format!(
        "sh -c \"{} review {} --db {} --reviewer e2e --queue all {extra}; echo exit=\\$?; sleep 600\"",
        terminal::bin(),
        terminal::shell_quote(&fixture("review/records.jsonl")),
        terminal::shell_quote(&db),
    );
    let t = Tmux::start(name, &cmd, &e)?;
    t.wait_frame("uni_1__contradiction");
    let styled = t.tmux(&["capture-pane", "-p", "-e", "-t", "t"]);
    t.keys(&["q"]);
    t.wait("exit=0");
    Some(styled)
}

#[test]
fn the_review_screen_falls_back_to_256_colours_without_truecolor() {
    // The contradiction span's vermillion (Okabe-Ito #D55E00): 24-bit where COLORTERM says the
    // terminal shows it, else xterm index 166 (#d75f00).
    let Some(rgb) = styled_review("truecolor", "", &[("COLORTERM", "truecolor")]) else {
        return;
    };
    assert!(rgb.contains("48;2;213;94;0"), "{rgb}");
    let Some(indexed) = styled_review("c256", "", &[("COLORTERM", "")]) else {
        return;
    };
    assert!(indexed.contains("48;5;166"), "{indexed}");
    assert!(
        !indexed.contains("38;2;") && !indexed.contains("48;2;"),
        "{indexed}"
    );
}

#[test]
fn color_never_and_always_override_no_color_in_the_review_screen() {
    let truecolor = ("COLORTERM", "truecolor");
    let Some(never) = styled_review("never", "--color never", &[truecolor]) else {
        return;
    };
    let any_colour = |s: &str| {
        ["38;2;", "48;2;", "38;5;", "48;5;"]
            .iter()
            .any(|c| s.contains(c))
    };
    assert!(!any_colour(&never), "{never}");
    assert!(
        never.contains("\u{1b}[7m") || never.contains(";7m"),
        "{never}"
    );
    let Some(always) = styled_review("always", "--color always", &[truecolor, ("NO_COLOR", "1")])
    else {
        return;
    };
    assert!(always.contains("48;2;213;94;0"), "{always}");
}

// ---- installable anywhere: the embedded sample, the log folder ----

#[test]
fn review_with_no_file_reviews_the_embedded_sample_and_logs_in_the_state_folder() {
    // Run from a folder with no data/: the sample comes from the binary, written into the
    // user data folder; the log goes to the state folder.
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let mut e: Vec<(&str, String)> = terminal::env(dir.path())
        .into_iter()
        .filter(|(k, _)| *k != "SPANREVIEW_LOG")
        .collect();
    e.push(("SPANREVIEW_LOG", String::new()));
    e.push((
        "XDG_STATE_HOME",
        dir.path().join("state").display().to_string(),
    ));
    let cmd = format!(
        "sh -c \"cd {} && {} review --db {} --reviewer e2e; echo exit=\\$?; sleep 600\"",
        terminal::shell_quote(dir.path()),
        terminal::bin(),
        terminal::shell_quote(&db),
    );
    let Some(t) = Tmux::start("sample", &cmd, &e) else {
        return;
    };
    t.wait("1 / 175");
    t.keys(&["q"]);
    let screen = t.wait("exit=0");
    let sample = dir.path().join("data/spanreview/sample");
    for rel in [
        "toolace/test_records_reconstructed.jsonl",
        "toolace/ensemble/predictions_combined.jsonl",
        "toolace/modernbert_ft/predictions_combined.jsonl",
    ] {
        let copy = std::fs::read(sample.join(rel)).expect("the sample was written");
        assert_eq!(
            copy,
            std::fs::read(root().join("data").join(rel)).expect("data/")
        );
    }
    let log = dir.path().join("state/spanreview/review.log");
    let text = std::fs::read_to_string(&log).expect("the log is in the state folder");
    assert!(text.contains("review opened"), "{text}");
    assert!(screen.contains("log: "), "{screen}");
    assert!(
        !dir.path().join("data/spanreview/review.log").exists(),
        "no log in the data folder"
    );
}

#[test]
fn stats_with_no_file_reads_the_embedded_sample() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    drop(spanreview::store::Store::open(&db).expect("db"));
    let out = bin()
        .current_dir(dir.path())
        .args(["stats", "--json", "--db"])
        .arg(&db)
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["progress"]["records"], 175, "{v}");
    assert!(dir
        .path()
        .join("data/spanreview/sample/toolace/test_records_reconstructed.jsonl")
        .is_file());
}

#[test]
fn the_manifest_is_fit_to_install() {
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml"))
            .expect("toml");
    let package = manifest["package"].as_table().expect("[package]");
    assert_eq!(package["license"].as_str(), Some("Apache-2.0"));
    let license = std::fs::read_to_string(root().join("LICENSE")).expect("a LICENSE file");
    assert!(
        license.trim_start().starts_with("Apache License") && license.contains("Version 2.0"),
        "LICENSE is not the Apache-2.0 text"
    );
    assert!(package["rust-version"].as_str().is_some(), "rust-version");
    let profiles = manifest["profile"].as_table().expect("[profile]");
    let release = profiles["release"].as_table().expect("[profile.release]");
    assert_eq!(
        release.get("strip").and_then(|v| v.as_str()),
        Some("debuginfo")
    );
    assert!(
        release
            .get("debug")
            .is_none_or(|d| d.as_bool() == Some(false) || d.as_integer() == Some(0)),
        "release keeps no debug info: {release:?}"
    );
    let profiling = profiles["profiling"]
        .as_table()
        .expect("[profile.profiling]");
    assert_eq!(profiling["inherits"].as_str(), Some("release"));
    assert!(profiling.contains_key("debug"), "{profiling:?}");
}
