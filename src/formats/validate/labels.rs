//! Label sets: the labels and taxonomy categories a span may carry, read from TOML taxonomy
//! files (`assets/labels/*.toml` are embedded). `validate` checks spans against a [`LabelSet`];
//! the review screen's pickers offer a [`Taxonomy`]'s entries, so they offer what `validate`
//! accepts.

use std::collections::{BTreeMap, BTreeSet};

/// The toolace corruption types (the default label set).
pub const TOOLACE: &str = include_str!("../../../assets/labels/toolace.toml");
/// The LettuceDetect taxonomy.
pub const LETTUCEDETECT: &str = include_str!("../../../assets/labels/lettucedetect.toml");

/// One taxonomy file: `labels = [...]`, `[categories.NAME] subcategories = [...]` and
/// `[native.SOURCE] "label" = "category/subcategory"`; labels and subcategories in file order,
/// categories and sources by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Taxonomy {
    /// Labels a span may carry outside the categories.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Categories (a span's `category`, or its `label`) and their subcategories.
    #[serde(default)]
    pub categories: BTreeMap<String, Category>,
    /// Per data source, each native label and the `category` or `category/subcategory` it
    /// maps to. A native label is a label a span may carry; the span's own category and
    /// subcategory are what is checked (the authors relabel categories and keep the label).
    #[serde(default)]
    pub native: BTreeMap<String, BTreeMap<String, String>>,
}

/// One category of a [`Taxonomy`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Category {
    /// Its subcategories, in file order.
    #[serde(default)]
    pub subcategories: Vec<String>,
    /// False for a category a record may carry but a span may not (`supported`, the
    /// document-level `omission`).
    #[serde(default = "yes")]
    pub span_class: bool,
}

impl Default for Category {
    fn default() -> Self {
        Self {
            subcategories: Vec::new(),
            span_class: true,
        }
    }
}

fn yes() -> bool {
    true
}

impl Taxonomy {
    /// Read a taxonomy file's text.
    ///
    /// # Errors
    /// The TOML error, when the text is not a taxonomy.
    pub fn parse(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// The text of an embedded taxonomy by the name `--labels` takes (`toolace`,
    /// `lettucedetect`), for `validate` and `review` alike.
    #[must_use]
    pub fn builtin_text(name: &str) -> Option<&'static str> {
        match name {
            "toolace" => Some(TOOLACE),
            "lettucedetect" => Some(LETTUCEDETECT),
            _ => None,
        }
    }

    /// An embedded taxonomy by name ([`Taxonomy::builtin_text`]).
    #[must_use]
    pub fn builtin(name: &str) -> Option<Self> {
        Self::parse(Self::builtin_text(name)?).ok()
    }
}

/// The labels, categories and subcategories a span may carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSet {
    labels: BTreeSet<String>,
    categories: BTreeMap<String, BTreeSet<String>>,
    /// Categories no span may carry ([`Category::span_class`]).
    not_span: BTreeSet<String>,
}

impl LabelSet {
    /// The default set: the toolace corruption types.
    #[must_use]
    pub fn toolace() -> Self {
        Self::from_toml(TOOLACE).unwrap_or_default()
    }

    /// An embedded taxonomy by name ([`Taxonomy::builtin_text`]).
    #[must_use]
    pub fn builtin(name: &str) -> Option<Self> {
        Self::from_toml(Taxonomy::builtin_text(name)?).ok()
    }

    /// Read a taxonomy file ([`Taxonomy`]).
    ///
    /// # Errors
    /// The TOML error, when the text is not a taxonomy.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let t = Taxonomy::parse(text)?;
        let native = t.native.into_values().flat_map(BTreeMap::into_keys);
        Ok(Self {
            labels: t.labels.into_iter().chain(native).collect(),
            not_span: t
                .categories
                .iter()
                .filter(|(_, c)| !c.span_class)
                .map(|(k, _)| k.clone())
                .collect(),
            categories: t
                .categories
                .into_iter()
                .map(|(k, c)| (k, c.subcategories.into_iter().collect()))
                .collect(),
        })
    }

    /// Add every label and category of `other`.
    pub fn extend(&mut self, other: &Self) {
        self.labels.extend(other.labels.iter().cloned());
        self.not_span.extend(other.not_span.iter().cloned());
        for (k, subs) in &other.categories {
            self.categories
                .entry(k.clone())
                .or_default()
                .extend(subs.iter().cloned());
        }
    }

    /// True when a span may carry `label` (a label or a category).
    #[must_use]
    pub fn has_label(&self, label: &str) -> bool {
        self.labels.contains(label) || self.categories.contains_key(label)
    }

    /// True when `category` is a category of the set.
    #[must_use]
    pub fn has_category(&self, category: &str) -> bool {
        self.categories.contains_key(category)
    }

    /// True when `category` is one a record may carry but a span may not (`supported`,
    /// `omission`).
    #[must_use]
    pub fn is_record_only(&self, category: &str) -> bool {
        self.not_span.contains(category)
    }

    /// True when `subcategory` is listed under `category` (or, with no known category, under
    /// any category).
    #[must_use]
    pub fn has_subcategory(&self, category: Option<&str>, subcategory: &str) -> bool {
        match category.and_then(|c| self.categories.get(c)) {
            Some(subs) => subs.contains(subcategory),
            None => self.categories.values().any(|s| s.contains(subcategory)),
        }
    }

    /// The labels and categories, for messages (`clean, contradiction, ...`).
    #[must_use]
    pub fn describe(&self) -> String {
        let all: BTreeSet<&str> = self
            .labels
            .iter()
            .chain(
                self.categories
                    .keys()
                    .filter(|k| !self.not_span.contains(*k)),
            )
            .map(String::as_str)
            .collect();
        all.into_iter().collect::<Vec<_>>().join(", ")
    }

    /// The categories a span may carry, for messages.
    #[must_use]
    pub fn describe_categories(&self) -> String {
        let c: Vec<&str> = self
            .categories
            .keys()
            .filter(|k| !self.not_span.contains(*k))
            .map(String::as_str)
            .collect();
        if c.is_empty() {
            "none: the label set has no categories".to_owned()
        } else {
            c.join(", ")
        }
    }
}

#[cfg(test)]
mod published;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_sets_parse() {
        let t = LabelSet::toolace();
        assert!(t.has_label("missing_tool"));
        assert!(!t.has_label("Evident Conflict"));
        let l = LabelSet::builtin("lettucedetect").expect("embedded");
        assert!(l.has_label("Evident Conflict"));
        assert!(l.has_label("unsupported_addition"));
        assert!(l.has_subcategory(Some("contradiction"), "numerical"));
        assert!(!l.has_subcategory(Some("contradiction"), "claim"));
        let mut both = t.clone();
        both.extend(&l);
        assert!(both.has_label("clean") && both.has_category("fabricated_reference"));
    }

    #[test]
    fn built_in_names_are_the_documented_ones() {
        // `review --labels lettuce` was refused while `validate --labels lettuce` took it.
        assert!(LabelSet::builtin("lettucedetect").is_some());
        assert!(LabelSet::builtin("lettuce").is_none());
        assert_eq!(Taxonomy::builtin_text("toolace"), Some(TOOLACE));
    }

    #[test]
    fn bad_taxonomy_is_an_error() {
        assert!(LabelSet::from_toml("labels = 3").is_err());
    }
}
