//! Integration tests: Label Studio exports read by the other subcommands (a `--judge` source,
//! a `review` input) and `convert --to` completed by bash.

use serde_json::Value;
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::queue::QueueKind;

use super::app_harness::{mem, open, render};
use super::common::{bin, data, fixture};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_label_studio_export_is_a_judge_source() {
    let out = bin()
        .args([
            "compare",
            "--json",
            "--a",
            "gold",
            "--b",
            "ls/prediction_gold",
        ])
        .arg(data("toolace/test_records_reconstructed.jsonl"))
        .arg("--judge")
        .arg(format!(
            "ls={}",
            fixture("formats/labelstudio/export_sample.json").display()
        ))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().expect("line"))
        .expect("json");
    // The two records the export shares with the records file, their gold as its prediction.
    assert_eq!(v["overall"]["char_level"]["f1"], 1.0, "{v}");
    assert!(
        v["overall"]["char_level"]["tp"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{v}"
    );
}

#[test]
fn a_label_studio_export_opens_in_the_review_screen() {
    let store = mem();
    let path = fixture("formats/labelstudio/export_sample.json");
    let mut app = open(&[path], &store, QueueKind::All, ArbConfig::default());
    let screen = render(&mut app, 140, 40);
    assert!(
        screen.contains("toolace_train_00021__overgeneration"),
        "{screen}"
    );
    assert!(screen.contains("Your generated password"), "{screen}");
}

#[test]
fn bash_completes_the_formats_of_convert_to() {
    if !std::process::Command::new("sh")
        .args(["-c", "command -v bash"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("SKIP: bash is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let script = dir.path().join("spanreview.bash");
    let out = bin().args(["completions", "bash"]).output().expect("runs");
    std::fs::write(&script, &out.stdout).expect("write");
    let run = std::process::Command::new("bash")
        .arg("-c")
        .arg(
            "source \"$1\" && COMP_WORDS=(spanreview convert x --to pro) COMP_CWORD=4 && \
              _spanreview spanreview pro --to && echo \"to: ${COMPREPLY[*]}\"",
        )
        .arg("bash")
        .arg(&script)
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        text.contains("to: prodigy"),
        "{text}{}",
        String::from_utf8_lossy(&run.stderr)
    );
}
