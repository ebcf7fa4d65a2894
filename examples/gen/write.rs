//! Serialising generated records: record lines (optionally broken on purpose) and detector
//! prediction lines, JSON written by hand with Python `json.dumps` separators.

use std::fmt::Write as _;

use super::{push_json_str, Base, Label, Options, Record, Rng, BROKEN_KINDS};

/// How an injected broken line is broken, or `None` for a valid line.
#[must_use]
pub fn broken_kind(opts: &Options, rec: &Record, i: usize) -> Option<&'static str> {
    if opts.broken <= 0.0 {
        return None;
    }
    let mut rng = Rng::new(opts.seed, 3, i as u64);
    if !rng.chance(opts.broken) {
        return None;
    }
    let mut kind = *rng.pick(&BROKEN_KINDS);
    let span_kind = matches!(
        kind,
        "offset_float"
            | "offset_string"
            | "reversed_span"
            | "out_of_bounds"
            | "text_mismatch"
            | "byte_offsets"
            | "unknown_label"
    );
    if span_kind && rec.labels.is_empty() {
        kind = "missing_output";
    }
    if kind == "duplicate_id" && i == 0 {
        kind = "invalid_json";
    }
    Some(kind)
}

fn push_labels(line: &mut String, labels: &[Label], offset_repr: Option<&str>) {
    line.push('[');
    for (k, l) in labels.iter().enumerate() {
        if k > 0 {
            line.push_str(", ");
        }
        let _ = write!(line, "{{\"end\": {}, \"label\": ", l.end);
        push_json_str(line, &l.label);
        match (k, offset_repr) {
            (0, Some("float")) => {
                let _ = write!(line, ", \"start\": {}.0, \"text\": ", l.start);
            }
            (0, Some("string")) => {
                let _ = write!(line, ", \"start\": \"{}\", \"text\": ", l.start);
            }
            _ => {
                let _ = write!(line, ", \"start\": {}, \"text\": ", l.start);
            }
        }
        push_json_str(line, &l.text);
        line.push('}');
    }
    line.push(']');
}

/// Code-point offset `cp` of `s` as a UTF-8 byte offset (the classic bug the broken kind
/// `byte_offsets` reproduces).
fn byte_offset(s: &str, cp: usize) -> usize {
    s.char_indices().nth(cp).map_or(s.len(), |(b, _)| b)
}

/// Append record `rec` (of base `b`) as one JSONL line, broken as `broken` says.
pub fn write_record(
    line: &mut String,
    b: &Base,
    rec: &Record,
    broken: Option<&str>,
    prev_id: &str,
) {
    let line_start = line.len();
    let mut labels = rec.labels.clone();
    let mut offset_repr = None;
    let mut base_id = b.id.as_str();
    let mut id = rec.id.as_str();
    let other_base;
    match broken {
        Some("offset_float") => offset_repr = Some("float"),
        Some("offset_string") => offset_repr = Some("string"),
        Some("reversed_span") => {
            let l = &mut labels[0];
            std::mem::swap(&mut l.start, &mut l.end);
        }
        Some("out_of_bounds") => labels[0].end = rec.output.chars().count() + 3,
        Some("text_mismatch") => labels[0].text = format!("{} ", labels[0].text),
        Some("byte_offsets") => {
            for l in &mut labels {
                l.start = byte_offset(&rec.output, l.start);
                l.end = byte_offset(&rec.output, l.end);
            }
        }
        Some("unknown_label") => labels[0].label = "halucination".to_owned(),
        Some("duplicate_id") => id = prev_id,
        Some("base_id_mismatch") => {
            other_base = format!("toolace_synth_{:06}", rec.base + 1);
            base_id = other_base.as_str();
        }
        _ => {}
    }
    line.push_str("{\"id\": ");
    push_json_str(line, id);
    line.push_str(", \"query\": ");
    push_json_str(line, &b.query);
    line.push_str(", \"context\": ");
    push_json_str(line, &b.context);
    if broken != Some("missing_output") {
        line.push_str(", \"output\": ");
        push_json_str(line, &rec.output);
    }
    line.push_str(", \"hallucination_labels\": ");
    push_labels(line, &labels, offset_repr);
    line.push_str(", \"meta\": {\"source\": \"synthetic/spanreview-gen\", \"base_id\": ");
    push_json_str(line, base_id);
    line.push_str(", \"corruption_type\": ");
    push_json_str(line, rec.corruption_type);
    line.push_str(", \"tools\": ");
    line.push_str(&b.tools);
    line.push_str(", \"tool_call\": ");
    line.push_str(&b.tool_call);
    line.push_str("}}");
    if broken == Some("invalid_json") {
        // Cut inside the context: an unterminated string, as a truncated write leaves it.
        let mut cut = line_start + (line.len() - line_start) / 2;
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line.truncate(cut);
    }
    line.push('\n');
}

/// Detector behaviour for prediction files: detector `k` draws from its own stream.
struct Profile {
    name_label: bool,
    recall: f64,
    leading_space: f64,
    trim_end: f64,
    false_pos: f64,
}

fn profile(k: usize) -> Profile {
    match k {
        0 => Profile {
            name_label: false,
            recall: 0.85,
            leading_space: 0.3,
            trim_end: 0.1,
            false_pos: 0.3,
        },
        1 => Profile {
            name_label: true,
            recall: 0.7,
            leading_space: 0.05,
            trim_end: 0.3,
            false_pos: 0.8,
        },
        _ => Profile {
            name_label: false,
            recall: 0.5 + 0.05 * (k % 8) as f64,
            leading_space: 0.2,
            trim_end: 0.2,
            false_pos: 0.5,
        },
    }
}

/// Append record `rec` as a prediction line of detector `k` (`gold_spans` + `pred_spans`).
pub fn write_prediction(line: &mut String, opts: &Options, rec: &Record, k: usize, i: usize) {
    let p = profile(k);
    let mut rng = Rng::new(opts.seed, 100 + k as u64, i as u64);
    let chars: Vec<usize> = rec
        .output
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(rec.output.len()))
        .collect();
    let is_space = |cp: usize| rec.output[chars[cp]..].starts_with(' ');
    let mut preds: Vec<(usize, usize, String, f64)> = Vec::new();
    for l in &rec.labels {
        if !rng.chance(p.recall) {
            continue;
        }
        let mut s = l.start;
        let mut e = l.end;
        if s > 0 && is_space(s - 1) && rng.chance(p.leading_space) {
            s -= 1;
        }
        if rng.chance(p.trim_end) {
            // Stop at the last space inside the span, if any.
            if let Some(c) = (s + 1..e).rev().find(|&c| is_space(c)) {
                e = c;
            }
        }
        let conf = 0.5 + 0.5 * rng.unit();
        preds.push((s, e, l.label.clone(), conf));
    }
    while rng.chance(p.false_pos) && preds.len() < 6 {
        let &(s, e) = rng.pick(&rec.sentences);
        if s < e {
            let conf = 0.3 + 0.5 * rng.unit();
            preds.push((s, e, "overgeneration".to_owned(), conf));
        }
    }
    preds.sort_by_key(|x| (x.0, x.1));
    line.push_str("{\"id\": ");
    push_json_str(line, &rec.id);
    line.push_str(", \"output\": ");
    push_json_str(line, &rec.output);
    line.push_str(", \"corruption_type\": ");
    push_json_str(line, rec.corruption_type);
    line.push_str(", \"gold_spans\": ");
    push_labels(line, &rec.labels, None);
    line.push_str(", \"pred_spans\": [");
    for (n, (s, e, label, conf)) in preds.iter().enumerate() {
        if n > 0 {
            line.push_str(", ");
        }
        let _ = write!(line, "{{\"start\": {s}, \"end\": {e}, \"text\": ");
        push_json_str(line, &rec.output[chars[*s]..chars[*e]]);
        line.push_str(", \"label\": ");
        push_json_str(line, if p.name_label { "ensemble" } else { label });
        let _ = write!(line, ", \"confidence\": {conf:.6}}}");
    }
    line.push_str("]}\n");
}
