//! `stats --csv DIR_OR_FILE`: the report's tables as CSV for spreadsheets.
//!
//! A PATH ending in `.csv` (or `-`, standard output) gets every table in one file of four
//! columns, `table,row,column,value`: one line per cell, `row` the row's first cell (a source,
//! a pair, a reviewer), so a pivot table rebuilds any of them. Any other PATH is a folder
//! (created when missing) with one file per table, a header line and a line per row:
//! `progress.csv`, `sources.csv`, `pairs.csv`, `upheld.csv`, and with their data `team.csv`,
//! `reviewers.csv` (`--by-reviewer`), `first_pass.csv` (second passes: agreement with the
//! first pass, the rubber-stamp alarm), `reasons.csv` (`--rubric`). Numbers are written in full
//! (an empty cell when undefined); text is quoted when it holds `,`, `"` or a line end,
//! its hidden characters shown as `\u{..}`, and a text cell a spreadsheet would read as a
//! formula (starting with `=`, `+`, `-`, `@`) is prefixed with `'`.

use std::path::Path;

use anyhow::Context;

use super::Report;
use crate::review::metrics::Scores;

/// One cell: text (quoted and guarded as the module says) or a number (as written).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cell {
    Text(String),
    Num(String),
}

fn t(s: &str) -> Cell {
    Cell::Text(s.to_owned())
}

fn n(x: impl ToString) -> Cell {
    Cell::Num(x.to_string())
}

fn opt<T: ToString>(x: Option<T>) -> Cell {
    x.map_or_else(|| Cell::Num(String::new()), n)
}

/// One table: its file name (without `.csv`), header and rows.
#[derive(Debug, Clone)]
pub(super) struct Table {
    pub(super) name: &'static str,
    pub(super) header: Vec<&'static str>,
    pub(super) rows: Vec<Vec<Cell>>,
}

const SCORES: [&str; 10] = [
    "records",
    "char_p",
    "char_r",
    "char_f1",
    "example_f1",
    "mean_iou",
    "iou_records",
    "kappa",
    "labeled_char_f1",
    "labeled_kappa",
];

fn scores(s: &Scores) -> Vec<Cell> {
    vec![
        n(s.records),
        n(s.char_level.precision),
        n(s.char_level.recall),
        n(s.char_level.f1),
        n(s.example_level.f1),
        opt(s.mean_iou),
        n(s.iou_records),
        opt(s.kappa),
        n(s.char_level_labeled.f1),
        opt(s.kappa_labeled),
    ]
}

/// Every table of `r`, in the order the text report prints them.
pub(super) fn tables(r: &Report) -> Vec<Table> {
    let p = &r.progress;
    let mut progress: Vec<Vec<Cell>> = [
        ("records", p.records),
        ("unreadable", p.unreadable),
        ("reviewed", p.reviewed),
        ("with_decisions", p.with_decisions),
        ("flagged", p.flagged),
        ("compared", p.compared),
        ("stale_decisions", p.stale_decisions),
        ("stale_records", p.stale_records),
        ("orphan_decisions", p.orphan_decisions),
        ("disputed_records", r.disagreement.disputed_records),
        ("clusters", r.disagreement.clusters),
        ("disputed_clusters", r.disagreement.disputed_clusters),
        ("judge_disputes", r.disagreement.judge_disputes),
        ("unplaced_claims", r.disagreement.unplaced_claims),
    ]
    .into_iter()
    .map(|(k, v)| vec![t(k), n(v)])
    .collect();
    for (k, v) in &p.by_outcome {
        progress.push(vec![t(&format!("outcome_{k}")), n(v)]);
    }
    let mut out = vec![Table {
        name: "progress",
        header: vec!["measure", "value"],
        rows: progress,
    }];
    out.push(Table {
        name: "sources",
        header: [&["source", "role"][..], &SCORES, &["upheld", "dismissed"]].concat(),
        rows: r
            .sources
            .iter()
            .map(|s| {
                let role = serde_json::to_value(s.role).ok();
                let role = role.as_ref().and_then(|v| v.as_str()).unwrap_or("");
                let mut row = vec![t(&s.name), t(role)];
                row.extend(scores(&s.overall));
                row.extend([n(s.upheld), n(s.dismissed)]);
                row
            })
            .collect(),
    });
    out.push(Table {
        name: "pairs",
        header: [&["a", "b"][..], &SCORES].concat(),
        rows: r
            .pairs
            .iter()
            .map(|x| [vec![t(&x.a), t(&x.b)], scores(&x.overall)].concat())
            .collect(),
    });
    out.push(upheld(r));
    out.extend(team(r));
    out.extend(reviewers(r));
    out.extend(first_pass(r));
    out.extend(reasons(r));
    out
}

/// Each second-pass reviewer's agreement with the first pass and the alarm's verdicts.
fn first_pass(r: &Report) -> Option<Table> {
    (!r.first_pass.is_empty()).then(|| Table {
        name: "first_pass",
        header: vec![
            "reviewer",
            "followed",
            "agreed",
            "agreement",
            "blind",
            "blind_agreed",
            "first_passes",
            "timed_records",
            "median_seconds",
            "rubber_stamp",
            "too_fast",
        ],
        rows: r
            .first_pass
            .iter()
            .map(|f| {
                vec![
                    t(&f.reviewer),
                    n(f.followed),
                    n(f.agreed),
                    opt(f.agreement),
                    n(f.blind),
                    n(f.blind_agreed),
                    t(&f.first_passes.join(" ")),
                    n(f.timed_records),
                    opt(f.median_seconds),
                    n(f.rubber_stamp),
                    n(f.too_fast),
                ]
            })
            .collect(),
    })
}

fn upheld(r: &Report) -> Table {
    Table {
        name: "upheld",
        header: vec![
            "source",
            "clusters_upheld",
            "clusters_dismissed",
            "upheld_rate",
            "spans_upheld",
            "spans_dismissed",
        ],
        rows: r
            .upheld
            .iter()
            .map(|(name, j)| {
                vec![
                    t(name),
                    n(j.upheld),
                    n(j.dismissed),
                    opt(j.rate()),
                    n(j.upheld_spans),
                    n(j.dismissed_spans),
                ]
            })
            .collect(),
    }
}

fn team(r: &Report) -> Option<Table> {
    let a = r.team.as_ref()?;
    let mut rows: Vec<Vec<Cell>> = a
        .pairs
        .iter()
        .map(|p| {
            vec![
                t(&format!("{} vs {}", p.a, p.b)),
                n(p.scores.records),
                n(p.scores.char_level_labeled.f1),
                opt(p.scores.kappa_labeled),
                opt(p.alpha.labeled),
            ]
        })
        .collect();
    rows.push(vec![
        t(&format!("team ({})", a.reviewers.len())),
        n(a.records),
        n(a.team.char_level_labeled.f1),
        opt(a.team.kappa_labeled),
        opt(a.alpha.labeled),
    ]);
    Some(Table {
        name: "team",
        header: vec![
            "reviewers",
            "records",
            "labeled_char_f1",
            "labeled_kappa",
            "labeled_alpha",
        ],
        rows,
    })
}

fn reviewers(r: &Report) -> Option<Table> {
    let paces = r.by_reviewer.as_ref()?;
    Some(Table {
        name: "reviewers",
        header: vec![
            "reviewer",
            "assigned",
            "done",
            "left",
            "hours",
            "rate_per_hour",
            "hours_left",
        ],
        rows: paces
            .iter()
            .map(|p| {
                vec![
                    t(&p.reviewer),
                    opt(p.assigned),
                    n(p.done),
                    opt(p.left),
                    n(p.hours),
                    opt(p.rate_per_hour),
                    opt(p.hours_left),
                ]
            })
            .collect(),
    })
}

fn reasons(r: &Report) -> Option<Table> {
    let rows = r.reasons.as_ref()?;
    Some(Table {
        name: "reasons",
        header: vec!["action", "code", "description", "decisions"],
        rows: rows
            .iter()
            .map(|x| {
                vec![
                    t(x.action),
                    t(x.code.as_deref().unwrap_or("")),
                    t(x.description.as_deref().unwrap_or("")),
                    n(x.decisions),
                ]
            })
            .collect(),
    })
}

/// A cell as CSV (see the module docs).
pub(super) fn field(c: &Cell) -> String {
    let s = match c {
        Cell::Num(s) => return s.clone(),
        Cell::Text(s) => crate::model::escape::line(s).into_owned(),
    };
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn line(cells: &[Cell]) -> String {
    let mut l = cells.iter().map(field).collect::<Vec<_>>().join(",");
    l.push('\n');
    l
}

/// One table as a CSV file's text.
pub(super) fn wide(table: &Table) -> String {
    let header: Vec<Cell> = table.header.iter().map(|h| t(h)).collect();
    let mut s = line(&header);
    for r in &table.rows {
        s.push_str(&line(r));
    }
    s
}

/// Every table in the long layout `table,row,column,value`.
pub(super) fn long(tables: &[Table]) -> String {
    let mut s = line(&[t("table"), t("row"), t("column"), t("value")]);
    for table in tables {
        for r in &table.rows {
            let key = r.first().cloned().unwrap_or_else(|| t(""));
            for (h, c) in table.header.iter().zip(r).skip(1) {
                s.push_str(&line(&[t(table.name), key.clone(), t(h), c.clone()]));
            }
        }
    }
    s
}

/// Write `r`'s tables to `path` (see the module docs); what was written, for standard error.
///
/// # Errors
/// The folder cannot be created or a file cannot be written.
pub(super) fn write(r: &Report, path: &Path) -> anyhow::Result<String> {
    let tables = tables(r);
    let shown = path.display();
    if path == Path::new("-") {
        crate::cli::write_stdout(long(&tables).as_bytes())?;
        return Ok(format!("{} tables to standard output", tables.len()));
    }
    let one_file = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if one_file {
        std::fs::write(path, long(&tables)).with_context(|| format!("writing {shown}"))?;
        return Ok(format!("{} tables to {shown}", tables.len()));
    }
    std::fs::create_dir_all(path).with_context(|| format!("creating the folder {shown}"))?;
    for table in &tables {
        let p = path.join(format!("{}.csv", table.name));
        std::fs::write(&p, wide(table)).with_context(|| format!("writing {}", p.display()))?;
    }
    let names: Vec<String> = tables.iter().map(|t| format!("{}.csv", t.name)).collect();
    Ok(format!("{} in {shown}", names.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::{field, long, t, wide, Cell, Table};

    #[test]
    fn text_cells_are_quoted_escaped_and_never_a_formula() {
        let cases = [
            ("ann", "ann"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "two\\nlines"),
            ("=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""),
            ("-1+1", "'-1+1"),
            ("@SUM", "'@SUM"),
            ("\u{1b}[31m°’東京👋e\u{301}", "\\u{1b}[31m°’東京👋e\u{301}"),
        ];
        for (raw, want) in cases {
            assert_eq!(field(&t(raw)), want, "{raw:?}");
        }
        // A number is written as it is, a negative one too.
        assert_eq!(field(&Cell::Num("-0.25".to_owned())), "-0.25");
    }

    #[test]
    fn the_wide_and_long_layouts_hold_the_same_cells() {
        let table = Table {
            name: "upheld",
            header: vec!["source", "clusters_upheld", "upheld_rate"],
            rows: vec![
                vec![
                    t("gold, v2"),
                    Cell::Num("3".into()),
                    Cell::Num("0.75".into()),
                ],
                vec![t("東京"), Cell::Num("0".into()), Cell::Num(String::new())],
            ],
        };
        assert_eq!(
            wide(&table),
            "source,clusters_upheld,upheld_rate\n\"gold, v2\",3,0.75\n東京,0,\n"
        );
        assert_eq!(
            long(&[table]),
            "table,row,column,value\nupheld,\"gold, v2\",clusters_upheld,3\nupheld,\"gold, \
             v2\",upheld_rate,0.75\nupheld,東京,clusters_upheld,0\nupheld,東京,upheld_rate,\n"
        );
    }
}
