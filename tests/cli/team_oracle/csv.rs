//! `stats --csv` on a team run: the folder's tables hold `stats --json`'s figures and the
//! oracle's votes, and the one-file layout (`table,row,column,value`) holds the same cells.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Run;

/// A CSV file's lines as cells (quoted cells with `""` inside, as `stats --csv` writes them).
pub(super) fn parse(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| {
            let (mut cells, mut cur, mut quoted, mut chars) =
                (Vec::new(), String::new(), false, l.chars().peekable());
            while let Some(c) = chars.next() {
                match (c, quoted) {
                    ('"', true) if chars.peek() == Some(&'"') => {
                        cur.push('"');
                        chars.next();
                    }
                    ('"', _) => quoted = !quoted,
                    (',', false) => cells.push(std::mem::take(&mut cur)),
                    (c, _) => cur.push(c),
                }
            }
            cells.push(cur);
            cells
        })
        .collect()
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// Where the CSV tables disagree with `stats --json` or the oracle, tagged `csv`.
pub(super) fn check(run: &Run, out: &mut Vec<(&'static str, String)>) {
    let mut mismatch = |what: String| out.push(("csv", what));
    let table = |name: &str| parse(run.csv.get(name).map_or("", String::as_str));
    let team = table("team.csv");
    let t = &run.stats["team"];
    let mut want: Vec<Vec<Option<f64>>> = t["pairs"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|p| {
            vec![
                num(&p["scores"]["records"]),
                num(&p["scores"]["char_level_labeled"]["f1"]),
                num(&p["scores"]["kappa_labeled"]),
                num(&p["alpha"]["labeled"]),
            ]
        })
        .collect();
    want.push(vec![
        num(&t["records"]),
        num(&t["team"]["char_level_labeled"]["f1"]),
        num(&t["team"]["kappa_labeled"]),
        num(&t["alpha"]["labeled"]),
    ]);
    let got: Vec<Vec<Option<f64>>> = team
        .iter()
        .skip(1)
        .map(|r| r.iter().skip(1).map(|c| c.parse().ok()).collect())
        .collect();
    if got != want {
        mismatch(format!("team.csv {got:?}, stats --json {want:?}"));
    }
    let upheld: BTreeMap<String, [u64; 2]> = table("upheld.csv")
        .into_iter()
        .skip(1)
        .map(|r| {
            let n = |i: usize| r.get(i).and_then(|v| v.parse().ok()).unwrap_or(u64::MAX);
            (r[0].clone(), [n(1), n(2)])
        })
        .collect();
    let votes = super::oracle_votes(run);
    if upheld != votes {
        mismatch(format!("upheld.csv {upheld:?}, oracle {votes:?}"));
    }
    // The second passes: `first_pass.csv` holds `stats --json`'s counts, reviewer by reviewer.
    let want: Vec<Vec<String>> = run.stats["first_pass"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|f| {
            let k = |n: &str| f[n].as_u64().map_or_else(String::new, |v| v.to_string());
            let who = f["reviewer"].as_str().unwrap_or_default().to_owned();
            vec![
                who,
                k("followed"),
                k("agreed"),
                k("blind"),
                k("blind_agreed"),
            ]
        })
        .collect();
    let got: Vec<Vec<String>> = table("first_pass.csv")
        .into_iter()
        .skip(1)
        .map(|r| {
            [0, 1, 2, 4, 5]
                .iter()
                .map(|&i| r.get(i).cloned().unwrap_or_default())
                .collect()
        })
        .collect();
    if got != want {
        mismatch(format!("first_pass.csv {got:?}, stats --json {want:?}"));
    }
    // The long layout: every cell of every folder table, once, under its table, row and column.
    let long = parse(&run.csv_long);
    let mut cells = 0;
    for (file, text) in &run.csv {
        let name = file.trim_end_matches(".csv");
        let rows = parse(text);
        let Some((header, body)) = rows.split_first() else {
            continue;
        };
        for r in body {
            for (h, c) in header.iter().zip(r).skip(1) {
                cells += 1;
                let line = [name, r[0].as_str(), h.as_str(), c.as_str()];
                if !long.iter().any(|l| l == &line) {
                    mismatch(format!("{line:?} of {file} is not in the one-file layout"));
                }
            }
        }
    }
    if cells + 1 != long.len() {
        mismatch(format!(
            "{cells} cells in the folder, {} lines in one file",
            long.len()
        ));
    }
}
