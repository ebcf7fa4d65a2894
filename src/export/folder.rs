//! `export D --out OUT/` of a dataset folder: every shard of the chosen config (and split)
//! exported into `OUT/` under its path relative to `D`, all of them or none (staged beside
//! `OUT` first: [`super::staging`]) (a parquet shard as parquet
//! with its schema, a JSONL one as JSONL), each split's decisions read under its dataset name
//! `FOLDER/CONFIG/SPLIT` (as `review D --config C --split S` saves them), and the card
//! `README.md` copied with its `dataset_info` left out (its sizes and counts would be those of
//! the input: `datasets` reads the features from the shards' schema instead).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};

use super::staging::Staging;
use super::{export, manifest, ExportOptions};
use crate::formats::hub::HubFile;
use crate::model::escape::to_stderr;

/// Export the shards `files` of the folder `dir` (named `name` in dataset names) into the
/// folder `opts.out`, every one or none ([`super::staging`]); the exit status is the worst of
/// the shards'.
///
/// # Errors
/// `--verdicts`, `--report`, `--contested`, `--card`, `--features` or `--split-by` (one file each, not one per shard),
/// `OUT` the folder itself or a file, a shard outside `dir`, a shard's export error, or a
/// failure to put the files in place: `OUT` is then left as it was.
pub fn export_folder(
    opts: &ExportOptions,
    dir: &Path,
    files: &[HubFile],
    name: &str,
) -> anyhow::Result<ExitCode> {
    refuse(opts, dir)?;
    let out = &opts.out;
    let staging = Staging::new(out)?;
    let untouched = || format!("nothing was written into {}", out.display());
    let mut worst = ExitCode::SUCCESS;
    let mut manifests = Vec::new();
    for f in files {
        let rel = f
            .path
            .strip_prefix(dir)
            .with_context(|| format!("{} is not under {}", f.path.display(), dir.display()))?;
        let dest = staging.path().join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let mut one = opts.clone();
        one.files = std::iter::once(f.path.clone())
            .chain(opts.files.iter().skip(1).cloned())
            .collect();
        one.out.clone_from(&dest);
        one.out_named = Some(out.join(rel));
        if opts.dataset.is_none() {
            one.dataset = Some(format!("{name}/{}/{}", f.config, f.split));
        }
        let shard = format!("config {} split {}: {}", f.config, f.split, rel.display());
        to_stderr!("spanreview: {shard}");
        let code = export(&one)
            .with_context(|| format!("{shard} could not be exported; {}", untouched()))?;
        manifests.push(manifest::path_for(&dest));
        if code != ExitCode::SUCCESS {
            if !dest.is_file() {
                to_stderr!(
                    "spanreview: {shard} was not exported (above); {} (a folder export writes \
                     every shard or none)",
                    untouched()
                );
                return Ok(code);
            }
            worst = code;
        }
    }
    copy_card(dir, staging.path())?;
    staging
        .commit(&manifests)
        .with_context(|| format!("putting the shards in place; {}", untouched()))?;
    to_stderr!(
        "spanreview: {} shard(s) in place in {}",
        files.len(),
        out.display()
    );
    Ok(worst)
}

/// Refuse what a folder export cannot do.
fn refuse(opts: &ExportOptions, dir: &Path) -> anyhow::Result<()> {
    let one_file = [
        (opts.verdicts.is_some(), "--verdicts"),
        (opts.report.is_some(), "--report"),
        (opts.contested.is_some(), "--contested"),
        (opts.card.is_some(), "--card"),
        (opts.features.is_some(), "--features"),
        (opts.verdicts_features.is_some(), "--verdicts-features"),
        (opts.split_by.is_some(), "--split-by"),
    ];
    if let Some((_, flag)) = one_file.iter().find(|(set, _)| *set) {
        bail!(
            "{flag} with a folder --out: a folder export writes every shard of the config on \
             its own; export one split to a file (--split NAME --out FILE) for {flag} \
             (nothing was written)"
        );
    }
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(&opts.out, dir) {
        bail!(
            "--out {} is the dataset folder itself: name another folder (nothing was written)",
            opts.out.display()
        );
    }
    Ok(())
}

/// Copy `dir/README.md` into `out`, without its `dataset_info`.
fn copy_card(dir: &Path, out: &Path) -> anyhow::Result<()> {
    let card = dir.join("README.md");
    let Ok(text) = std::fs::read_to_string(&card) else {
        return Ok(());
    };
    let dest = out.join("README.md");
    std::fs::write(&dest, without_dataset_info(&text))
        .with_context(|| format!("writing {}", dest.display()))
}

/// A card's text with the `dataset_info` key of its YAML front matter left out (the key's line
/// and every line under it: indented, a list item at the margin, blank), the rest as it is.
#[must_use]
pub fn without_dataset_info(text: &str) -> String {
    let Some(rest) = text.strip_prefix("---\n") else {
        return text.to_owned();
    };
    let Some(end) = rest.find("\n---\n").map(|i| i + 1) else {
        return text.to_owned();
    };
    let (yaml, after) = rest.split_at(end);
    let mut out = String::from("---\n");
    let mut skipping = false;
    for line in yaml.split_inclusive('\n') {
        let top = line.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if top {
            skipping = line.starts_with("dataset_info:");
        }
        if !skipping {
            out.push_str(line);
        }
    }
    out.push_str(after);
    out
}

#[cfg(test)]
mod tests {
    use super::without_dataset_info;

    #[test]
    fn the_card_loses_its_dataset_info_only() {
        let card = "---\nlicense: apache-2.0\ndataset_info:\n- config_name: combined\n  features:\n  - name: id\n    dtype: string\n  splits:\n  - name: train\n    num_bytes: 10\n    num_examples: 3\n  download_size: 99\n  dataset_size: 10\nconfigs:\n- config_name: combined\n  data_files:\n  - split: train\n    path: combined/train-*\n---\n# Title ’ 東京\n\ndataset_info: in the text stays\n";
        let got = without_dataset_info(card);
        assert_eq!(
            got,
            "---\nlicense: apache-2.0\nconfigs:\n- config_name: combined\n  data_files:\n  - split: train\n    path: combined/train-*\n---\n# Title ’ 東京\n\ndataset_info: in the text stays\n"
        );
        assert!(!got.contains("num_bytes"));
        // A card without front matter, or without dataset_info, is copied as it is.
        assert_eq!(without_dataset_info("# x\n"), "# x\n");
        let plain = "---\nlicense: mit\n---\nbody\n";
        assert_eq!(without_dataset_info(plain), plain);
    }
}
