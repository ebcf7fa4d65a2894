//! The export as a library call ([`spanreview::export::export`] with [`ExportOptions`]):
//! the same files, byte for byte, as `spanreview export` with the same flags.

use std::fs;
use std::process::ExitCode;

use spanreview::export::{export, ExportOptions};

use crate::common;
use crate::export::{fixture, scripted};

#[test]
fn the_library_export_writes_what_the_command_writes() {
    let (dir, db) = scripted();
    let cli_dir = dir.path().join("cli");
    let lib_dir = dir.path().join("lib");
    fs::create_dir_all(&cli_dir).expect("mkdir");
    fs::create_dir_all(&lib_dir).expect("mkdir");
    let names = ["reviewed.jsonl", "v.jsonl", "report.md", "f.json"];

    common::bin()
        .arg("export")
        .arg(fixture())
        .arg("--db")
        .arg(&db)
        .args(["--strict", "--provenance", "--keep-removed"])
        .arg("--out")
        .arg(cli_dir.join(names[0]))
        .arg("--verdicts")
        .arg(cli_dir.join(names[1]))
        .arg("--report")
        .arg(cli_dir.join(names[2]))
        .arg("--features")
        .arg(cli_dir.join(names[3]))
        .assert()
        .success();

    let mut opts = ExportOptions::new(vec![fixture()], db.clone(), lib_dir.join(names[0]));
    opts.verdicts = Some(lib_dir.join(names[1]));
    opts.report = Some(lib_dir.join(names[2]));
    opts.features = Some(lib_dir.join(names[3]));
    opts.strict = true;
    opts.provenance = true;
    opts.keep_removed = true;
    let code = export(&opts).expect("export");
    assert_eq!(code, ExitCode::SUCCESS);

    for name in names {
        let want = fs::read_to_string(cli_dir.join(name)).expect("cli output");
        let got = fs::read_to_string(lib_dir.join(name)).expect("library output");
        assert!(!want.is_empty(), "{name} is empty");
        // The report names the files it wrote; they differ only by folder.
        let got = got.replace(
            lib_dir.to_str().expect("utf-8"),
            cli_dir.to_str().expect("utf-8"),
        );
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_library_export_refuses_an_output_that_is_an_input() {
    let (_dir, db) = scripted();
    let opts = ExportOptions::new(vec![fixture()], db, fixture());
    let err = export(&opts).expect_err("an input as --out");
    assert!(
        spanreview::cli::error_message(&err).contains("records.jsonl"),
        "{err:#}"
    );
}
