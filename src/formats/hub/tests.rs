use std::path::Path;

use rstest::rstest;

use super::glob::{matching, segment_matches};
use super::{Folder, HubError};

/// A folder holding `files` (empty content unless given) and, when given, a README card.
fn folder(card: Option<&str>, files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    if let Some(c) = card {
        std::fs::write(dir.path().join("README.md"), c).expect("card");
    }
    for f in files {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("dirs");
        std::fs::write(p, "{}\n").expect("file");
    }
    dir
}

/// `(config, split, path relative to the folder)` of every file the selection reads.
fn picked(dir: &Path, config: Option<&str>, split: Option<&str>) -> Vec<(String, String, String)> {
    let f = Folder::open(dir).expect("folder");
    f.files(config, split)
        .expect("files")
        .into_iter()
        .map(|h| {
            let rel = h
                .path
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            (h.config, h.split, rel)
        })
        .collect()
}

fn t(c: &str, s: &str, p: &str) -> (String, String, String) {
    (c.to_owned(), s.to_owned(), p.to_owned())
}

const CARD: &str = "---\nlicense: apache-2.0\nconfigs:\n- config_name: combined\n  default: true\n  data_files:\n  - split: train\n    path: combined/train-*\n  - split: validation\n    path: combined/validation-*\n  - split: test\n    path: combined/test-*\n- config_name: contradiction\n  data_files:\n  - split: train\n    path: contradiction/train-*\n  - split: test\n    path: contradiction/test-*\n---\n# Card\n";

const SHARDS: [&str; 7] = [
    "combined/test-00000-of-00001.parquet",
    "combined/train-00001-of-00002.parquet",
    "combined/train-00000-of-00002.parquet",
    "combined/validation-00000-of-00001.parquet",
    "contradiction/test-00000-of-00001.jsonl",
    "contradiction/train-00000-of-00001.parquet",
    ".cache/huggingface/download/combined/test-00000-of-00001.parquet.metadata",
];

#[rstest]
#[case("train-*", "train-00000-of-00001.parquet", true)]
#[case("train-*", "test-00000-of-00001.parquet", false)]
#[case("*.jsonl", "données°.jsonl", true)]
#[case("训练?.jsonl", "训练1.jsonl", true)]
#[case("训练?.jsonl", "训练.jsonl", false)]
#[case("train[-._ 0-9]*", "train_0.csv", true)]
#[case("train[-._ 0-9]*", "trainer.csv", false)]
#[case("[!t]*", "test.jsonl", false)]
#[case("[!t]*", "😀.jsonl", true)]
#[case("[abc", "[abc", true)]
fn a_segment_matches_as_fnmatch(#[case] pattern: &str, #[case] name: &str, #[case] yes: bool) {
    assert_eq!(segment_matches(pattern, name), yes, "{pattern} ~ {name}");
}

#[test]
fn star_stays_in_a_segment_and_double_star_crosses_folders() {
    let files: Vec<String> = [
        "a.jsonl",
        "data/a.jsonl",
        "data/x/y/a.jsonl",
        "README.md",
        ".hidden/a.jsonl",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let m = |p: &str| matching(p, &files).into_iter().cloned().collect::<Vec<_>>();
    assert_eq!(m("*.jsonl"), ["a.jsonl"]);
    assert_eq!(m("data/*.jsonl"), ["data/a.jsonl"]);
    assert_eq!(m("data/**/*.jsonl"), ["data/a.jsonl", "data/x/y/a.jsonl"]);
    // `**` reads neither the card nor a hidden folder unless the pattern names them.
    assert_eq!(m("**"), ["a.jsonl", "data/a.jsonl", "data/x/y/a.jsonl"]);
    assert_eq!(m("README.md"), ["README.md"]);
    assert_eq!(m(".hidden/*"), [".hidden/a.jsonl"]);
}

#[test]
fn configs_resolve_split_by_split_in_card_order_shards_in_path_order() {
    let dir = folder(Some(CARD), &SHARDS);
    assert_eq!(
        picked(dir.path(), None, None),
        [
            t("combined", "train", "combined/train-00000-of-00002.parquet"),
            t("combined", "train", "combined/train-00001-of-00002.parquet"),
            t(
                "combined",
                "validation",
                "combined/validation-00000-of-00001.parquet"
            ),
            t("combined", "test", "combined/test-00000-of-00001.parquet"),
        ]
    );
    // A mixed config: the JSONL and the parquet shard alike; the `.cache` copy is never read.
    assert_eq!(
        picked(dir.path(), Some("contradiction"), None),
        [
            t(
                "contradiction",
                "train",
                "contradiction/train-00000-of-00001.parquet"
            ),
            t(
                "contradiction",
                "test",
                "contradiction/test-00000-of-00001.jsonl"
            ),
        ]
    );
    assert_eq!(
        picked(dir.path(), Some("combined"), Some("test")),
        [t(
            "combined",
            "test",
            "combined/test-00000-of-00001.parquet"
        )]
    );
    let all = Folder::open(dir.path())
        .expect("folder")
        .all_files(Some("test"))
        .expect("all");
    let configs: Vec<&str> = all.iter().map(|h| h.config.as_str()).collect();
    assert_eq!(configs, ["combined", "contradiction"]);
}

#[rstest]
#[case::one_pattern("data_files: \"*.jsonl\"", &[("train", "a.jsonl"), ("train", "b.jsonl")])]
#[case::pattern_list("data_files: [b.jsonl, a.jsonl]", &[("train", "b.jsonl"), ("train", "a.jsonl")])]
#[case::split_map("data_files:\n    test: b.jsonl\n    train: [a.jsonl]", &[("test", "b.jsonl"), ("train", "a.jsonl")])]
#[case::path_list("data_files:\n  - split: test\n    path: [b.jsonl, a.jsonl]", &[("test", "b.jsonl"), ("test", "a.jsonl")])]
fn every_form_of_data_files_reads(#[case] data_files: &str, #[case] want: &[(&str, &str)]) {
    let card = format!("---\nconfigs:\n- config_name: only\n  {data_files}\n---\n");
    let dir = folder(Some(&card), &["a.jsonl", "b.jsonl", "notes.txt"]);
    let want: Vec<_> = want.iter().map(|(s, p)| t("only", s, p)).collect();
    assert_eq!(picked(dir.path(), None, None), want);
}

#[test]
fn data_dir_is_where_the_patterns_and_the_default_layout_start() {
    let card = "---\nconfigs:\n- config_name: a\n  data_dir: sub\n  data_files: x.jsonl\n- config_name: b\n  data_dir: sub\n---\n";
    let dir = folder(Some(card), &["x.jsonl", "sub/x.jsonl", "sub/test.jsonl"]);
    assert_eq!(
        picked(dir.path(), Some("a"), None),
        [t("a", "train", "sub/x.jsonl")]
    );
    assert_eq!(
        picked(dir.path(), Some("b"), None),
        [t("b", "test", "sub/test.jsonl")]
    );
}

#[rstest]
#[case::push_to_hub_shards(
    &["data/test-00000-of-00001.parquet", "data/extra-00000-of-00001.parquet", "data/train-00000-of-00001.parquet", "data/validation-00000-of-00001.parquet"],
    &[("train", "data/train-00000-of-00001.parquet"), ("validation", "data/validation-00000-of-00001.parquet"), ("test", "data/test-00000-of-00001.parquet"), ("extra", "data/extra-00000-of-00001.parquet")]
)]
#[case::split_files_in_data(
    &["data/test.jsonl", "data/train.jsonl", "data/dev.jsonl"],
    &[("train", "data/train.jsonl"), ("validation", "data/dev.jsonl"), ("test", "data/test.jsonl")]
)]
#[case::split_files_at_the_top(&["test.jsonl", "train.jsonl"], &[("train", "train.jsonl"), ("test", "test.jsonl")])]
#[case::split_folders(
    &["train/a.jsonl", "valid/b.jsonl", "train.jsonl"],
    &[("train", "train/a.jsonl"), ("validation", "valid/b.jsonl")]
)]
#[case::no_split_word(&["records°.jsonl", "notes.txt"], &[("train", "records°.jsonl")])]
fn the_default_layout_is_the_hubs(#[case] files: &[&str], #[case] want: &[(&str, &str)]) {
    for card in [
        None,
        Some("---\nlicense: mit\n---\n# No configs\n"),
        Some("# No front matter\n"),
    ] {
        let dir = folder(card, files);
        let want: Vec<_> = want.iter().map(|(s, p)| t("default", s, p)).collect();
        assert_eq!(picked(dir.path(), None, None), want, "{card:?}");
    }
}

/// The error the selection gives, as the user reads it.
fn error(
    card: &str,
    files: &[&str],
    config: Option<&str>,
    split: Option<&str>,
) -> (String, HubError) {
    let dir = folder(Some(card), files);
    let e = Folder::open(dir.path())
        .and_then(|f| f.files(config, split))
        .expect_err("an error");
    (e.to_string(), e)
}

#[test]
fn yaml_that_does_not_parse_is_named_with_the_cards_line() {
    let card = "---\nlicense: mit\nconfigs:\n- config_name: a\n  data_files: [x.jsonl\n---\n";
    let (msg, e) = error(card, &["x.jsonl"], None, None);
    let HubError::Yaml {
        line: Some(line), ..
    } = e
    else {
        panic!("{msg}")
    };
    assert!((5..=7).contains(&line), "{msg}");
    assert!(
        msg.contains(&format!(
            "README.md:{line}: the YAML front matter does not parse"
        )),
        "{msg}"
    );
}

#[rstest]
#[case::configs_not_a_list("---\nconfigs: combined\n---\n", "`configs` is a string, not a list")]
#[case::split_without_path(
    "---\nconfigs:\n- config_name: a\n  data_files:\n  - split: test\n---\n",
    "config \"a\": data_files[0] (split \"test\") has no `path`"
)]
#[case::twice("---\nconfigs:\n- config_name: a\n  data_files: x.jsonl\n- config_name: a\n  data_files: x.jsonl\n---\n", "config \"a\" is declared twice")]
fn configs_of_the_wrong_shape_are_named(#[case] card: &str, #[case] want: &str) {
    let (msg, _) = error(card, &["x.jsonl"], None, None);
    assert!(msg.contains("README.md: ") && msg.contains(want), "{msg}");
}

#[test]
fn a_missing_config_or_split_names_the_ones_there_are() {
    let (msg, _) = error(CARD, &SHARDS, Some("fabricated"), None);
    assert!(
        msg.ends_with(
            "README.md: no config \"fabricated\" (the card has: combined, contradiction)"
        ),
        "{msg}"
    );
    let (msg, _) = error(CARD, &SHARDS, Some("contradiction"), Some("validation"));
    assert!(
        msg.ends_with(
            "README.md: config \"contradiction\" has no split \"validation\" (it has: train, test)"
        ),
        "{msg}"
    );
    let no_default = CARD.replace("  default: true\n", "");
    let (msg, _) = error(&no_default, &SHARDS, None, None);
    assert!(
        msg.contains("several configs and none is `default: true`")
            && msg.contains("(combined, contradiction)"),
        "{msg}"
    );
}

#[test]
fn a_pattern_that_matches_no_records_file_is_named() {
    // Only the hidden download cache and a non-records file hold `combined/test-*` names.
    let files = [
        ".cache/combined/test-00000-of-00001.parquet",
        "combined/test-notes.md",
        "combined/train-0.jsonl",
        "combined/validation-0.jsonl",
        "contradiction/train-0.jsonl",
        "contradiction/test-0.jsonl",
    ];
    let (msg, e) = error(CARD, &files, Some("combined"), None);
    assert!(
        matches!(e, HubError::NoMatch { ref split, .. } if split == "test"),
        "{msg}"
    );
    assert!(msg.contains("README.md: config \"combined\", split \"test\": \"combined/test-*\" matches no records file (.jsonl, .json, .parquet) in "), "{msg}");
    // A literal path that is missing, even when the split's other patterns match.
    let card = "---\nconfigs:\n- config_name: a\n  data_files:\n  - split: test\n    path: [x.jsonl, gone.jsonl]\n---\n";
    let (msg, _) = error(card, &["x.jsonl"], None, None);
    assert!(
        msg.contains("\"gone.jsonl\" matches no records file"),
        "{msg}"
    );
    // A folder with no records file at all.
    let (msg, e) = error("# card\n", &["notes.txt"], None, None);
    assert!(matches!(e, HubError::NoData { .. }), "{msg}");
}
