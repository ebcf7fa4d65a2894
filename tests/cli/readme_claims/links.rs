//! The links of README.md, CONTRIBUTING.md and docs/*.md: every relative link names a file
//! that exists and, with `#anchor`, a heading of it (GitHub's anchors); and the README leads,
//! in one link each, to how a team review starts and to where `--blind` is explained; its
//! subcommand table lists every subcommand.

use std::path::{Path, PathBuf};

use super::super::common::{root, SUBCOMMANDS};

/// The Markdown files that link to each other.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// The targets of the `[text](target)` links of `md`, with their text, outside code blocks.
fn links(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let text_start = rest[..at].rfind('[').map_or(0, |i| i + 1);
            let text = rest[text_start..at].to_owned();
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((text, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` removed,
/// spaces made `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of every heading of `md`.
fn anchors(md: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// What is wrong with the link `target` of the page `from`, if anything.
fn broken(from: &Path, target: &str) -> Option<String> {
    if target.starts_with("http://") || target.starts_with("https://") {
        return None;
    }
    let (file, frag) = target.split_once('#').unwrap_or((target, ""));
    let path = if file.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().expect("a folder").join(file)
    };
    if !path.exists() {
        return Some(format!("{} does not exist", path.display()));
    }
    if frag.is_empty() {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let all = anchors(&text);
    (!all.iter().any(|a| a == frag))
        .then(|| format!("no heading #{frag} in {} (it has {all:?})", path.display()))
}

#[test]
fn every_link_of_the_readme_and_the_guides_leads_somewhere() {
    let mut bad = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("page");
        for (_, target) in links(&text) {
            count += 1;
            if let Some(why) = broken(&page, &target) {
                bad.push(format!("{}: ({target}): {why}", page.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(count > 30, "only {count} links found");
}

#[test]
fn the_readme_leads_to_a_team_review_and_to_blind_in_one_link_each() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let guide_line = |target: &str| {
        readme
            .split("\n- ")
            .find(|item| item.contains(&format!("]({target})")))
            .unwrap_or_else(|| panic!("no guide item links {target}"))
            .to_owned()
    };
    assert!(guide_line("docs/team.md").contains("start a team review"));
    assert!(guide_line("docs/arbitration.md").contains("what `--blind` hides"));
    let team = std::fs::read_to_string(root().join("docs/team.md")).expect("team");
    assert!(anchors(&team).contains(&"start-a-team-review".to_owned()));
    let arb = std::fs::read_to_string(root().join("docs/arbitration.md")).expect("arb");
    assert!(anchors(&arb).contains(&"blind-re-judging---blind".to_owned()));
}

#[test]
fn a_broken_link_or_anchor_is_caught() {
    let page = root().join("README.md");
    assert_eq!(broken(&page, "docs/team.md#start-a-team-review"), None);
    assert!(broken(&page, "docs/nowhere.md").is_some());
    assert!(broken(&page, "docs/team.md#no-such-heading").is_some());
    assert_eq!(
        anchor(" Blind re-judging: `--blind`"),
        "blind-re-judging---blind"
    );
    assert_eq!(
        links("see [a](x.md#y) and [b](z.md)\n```\n[c](code.md)\n```\n"),
        [("a".into(), "x.md#y".into()), ("b".into(), "z.md".into())]
    );
}

/// The first column of the README's subcommand table.
fn table_names(readme: &str) -> Vec<String> {
    readme
        .split("| subcommand | what it does |\n|---|---|\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('`').nth(1).map(str::to_owned))
        .collect()
}

#[test]
fn the_readme_table_lists_every_subcommand_in_the_order_help_does() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    assert_eq!(
        table_names(&readme),
        SUBCOMMANDS,
        "the README's subcommand table"
    );
    // A row left out is caught.
    let short = readme.replace("| `merge-db` | combine reviewers' databases |\n", "");
    assert_ne!(table_names(&short), SUBCOMMANDS);
}
