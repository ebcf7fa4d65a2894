//! The embedded LettuceDetect taxonomy against the published tables
//! (`tests/fixtures/taxonomy/lettucedetect_tables.json`, from the authors' `taxonomy.py`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Taxonomy, LETTUCEDETECT};

/// The tables of `taxonomy.py`, as the fixture holds them.
#[derive(Deserialize)]
struct Published {
    top_level_categories: Vec<String>,
    document_level_categories: Vec<String>,
    subcategories: BTreeMap<String, Vec<String>>,
    maps: BTreeMap<String, BTreeMap<String, (String, Option<String>)>>,
}

const TABLES: &str = include_str!("../../../../tests/fixtures/taxonomy/lettucedetect_tables.json");

/// Native label -> `category` or `category/subcategory`, per source.
type Native<'a> = BTreeMap<&'a String, BTreeMap<&'a String, String>>;

/// Every way `toml` differs from the published tables, one line each.
fn differences(toml: &Taxonomy, p: &Published) -> Vec<String> {
    let mut out = Vec::new();
    let published: Vec<&String> = p
        .top_level_categories
        .iter()
        .chain(&p.document_level_categories)
        .collect();
    let ours: Vec<&String> = toml.categories.keys().collect();
    let mut sorted = published.clone();
    sorted.sort();
    if ours != sorted {
        out.push(format!("categories: {ours:?}, published {sorted:?}"));
    }
    for cat in &published {
        let want = p.subcategories.get(*cat).cloned().unwrap_or_default();
        let Some(c) = toml.categories.get(*cat) else {
            continue;
        };
        if c.subcategories != want {
            out.push(format!(
                "{cat}: subcategories {:?}, published {want:?}",
                c.subcategories
            ));
        }
        // What the authors' Hub build refuses on a span: a category without a subcategory table.
        let span_class = p.subcategories.contains_key(*cat);
        if c.span_class != span_class {
            out.push(format!(
                "{cat}: span_class {}, published {span_class}",
                c.span_class
            ));
        }
    }
    let native: Native<'_> = p
        .maps
        .iter()
        .map(|(src, m)| {
            let m = m
                .iter()
                .map(|(l, (c, s))| {
                    let v = s.as_ref().map_or_else(|| c.clone(), |s| format!("{c}/{s}"));
                    (l, v)
                })
                .collect();
            (src, m)
        })
        .collect();
    let ours: Native<'_> = toml
        .native
        .iter()
        .map(|(src, m)| (src, m.iter().map(|(l, v)| (l, v.clone())).collect()))
        .collect();
    if ours != native {
        out.push(format!("native maps: {ours:?}, published {native:?}"));
    }
    out
}

fn published() -> Published {
    serde_json::from_str(TABLES).expect("fixture")
}

#[test]
fn the_embedded_taxonomy_is_the_published_one() {
    let t = Taxonomy::parse(LETTUCEDETECT).expect("embedded");
    assert_eq!(differences(&t, &published()), Vec::<String>::new());
}

#[test]
fn a_regrouped_subcategory_is_a_difference() {
    // spanreview's old guess: attribute under contradiction, not only under fabricated_reference.
    let wrong = LETTUCEDETECT.replace(
        r#"subcategories = ["numerical", "temporal", "entity", "relational", "value"]"#,
        r#"subcategories = ["numerical", "temporal", "entity", "relational", "value", "attribute"]"#,
    );
    let d = differences(&Taxonomy::parse(&wrong).expect("toml"), &published());
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].starts_with("contradiction: subcategories"), "{d:?}");
}

#[test]
fn a_native_label_mapped_elsewhere_or_missing_is_a_difference() {
    let wrong = LETTUCEDETECT
        .replace(
            r#""fabricated_api" = "fabricated_reference/identifier""#,
            r#""fabricated_api" = "fabricated_reference/attribute""#,
        )
        .replace("\"Invented\" = \"fabricated_reference/entity\"\n", "");
    let d = differences(&Taxonomy::parse(&wrong).expect("toml"), &published());
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].starts_with("native maps"), "{d:?}");
}
