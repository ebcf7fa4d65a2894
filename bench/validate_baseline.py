#!/usr/bin/env python3
"""Baseline for `spanreview validate`: a plain, streaming Python validator of RAGTruth-compatible
records (toolace-hallucination-spans), written the way one would write it for the dataset.

It checks what `spanreview validate` checks on such a file, one line at a time:
- each non-blank line parses as a JSON object (`json.loads`);
- required fields with the right types: `id`, `output` (strings), `hallucination_labels` (list),
  `meta` (object) with `base_id` and `corruption_type`; `query` and `context` strings if present;
- every label: integer `start`/`end` with 0 <= start < end <= len(output), `output[start:end] ==
  text` (Python code points), `label` in the taxonomy and equal to `meta.corruption_type`;
  clean records carry no labels;
- `id` is unique in the file and is `<base_id>` or starts with `<base_id>__`;
- counts of records, types and spans.

Every problem is printed as `path:line: message`; the exit code is 1 when there is any.

    python3 bench/validate_baseline.py FILE [FILE ...]
"""

import json
import sys
from collections import Counter

TYPES = {"clean", "contradiction", "missing_tool", "overgeneration"}
LABELS = TYPES - {"clean"}


def short(value, limit=80):
    s = json.dumps(value, ensure_ascii=False)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def check_label(i, lab, output, n_chars, ctype):
    """Problems of label number `i` of a record."""
    if not isinstance(lab, dict):
        return [f"hallucination_labels[{i}] is not an object: {short(lab)}"]
    out = []
    start, end = lab.get("start"), lab.get("end")
    # bool is a subclass of int in Python; a JSON true is not an offset.
    ints = True
    for key, v in (("start", start), ("end", end)):
        if type(v) is not int:
            out.append(f"hallucination_labels[{i}].{key} is not an integer: {short(v)}")
            ints = False
    if ints:
        if not 0 <= start < end <= n_chars:
            out.append(
                f"hallucination_labels[{i}] [{start}, {end}) is not within 0 <= start < end <= "
                f"len(output) = {n_chars}"
            )
        else:
            text = lab.get("text")
            if not isinstance(text, str):
                out.append(f"hallucination_labels[{i}].text is not a string: {short(text)}")
            elif output[start:end] != text:
                out.append(
                    f"hallucination_labels[{i}].text {short(text)} != output[{start}:{end}] "
                    f"{short(output[start:end])}"
                )
    label = lab.get("label")
    if label not in LABELS:
        out.append(f"hallucination_labels[{i}].label {short(label)} is not one of {sorted(LABELS)}")
    elif ctype in TYPES and label != ctype:
        out.append(f"hallucination_labels[{i}].label {label!r} != meta.corruption_type {ctype!r}")
    return out


def check_record(rec):
    """Problems of one parsed record, and its (id, type, labels) for the counts."""
    if not isinstance(rec, dict):
        return [f"the line is not a JSON object: {short(rec)}"], None, None, []
    problems = []
    rid = rec.get("id")
    if not isinstance(rid, str):
        problems.append(f"field \"id\" is missing or not a string: {short(rid)}")
        rid = None
    output = rec.get("output")
    if not isinstance(output, str):
        problems.append(f"field \"output\" is missing or not a string: {short(output)}")
        output = None
    for key in ("query", "context"):
        if key in rec and not isinstance(rec[key], str):
            problems.append(f"field \"{key}\" is not a string: {short(rec[key])}")
    meta = rec.get("meta")
    ctype = None
    if not isinstance(meta, dict):
        problems.append(f"field \"meta\" is missing or not an object: {short(meta)}")
    else:
        ctype = meta.get("corruption_type")
        if ctype not in TYPES:
            problems.append(f"meta.corruption_type {short(ctype)} is not one of {sorted(TYPES)}")
            ctype = None
        base = meta.get("base_id")
        if not isinstance(base, str):
            problems.append(f"meta.base_id is missing or not a string: {short(base)}")
        elif rid is not None and rid != base and not rid.startswith(base + "__"):
            problems.append(f"id {rid!r} does not belong to meta.base_id {base!r}")
    labels = rec.get("hallucination_labels")
    if not isinstance(labels, list):
        problems.append(f"field \"hallucination_labels\" is missing or not a list: {short(labels)}")
        labels = []
    elif output is not None:
        n_chars = len(output)
        for i, lab in enumerate(labels):
            problems.extend(check_label(i, lab, output, n_chars, ctype))
        if ctype == "clean" and labels:
            problems.append(f"a clean record has {len(labels)} label(s)")
    return problems, rid, ctype, labels


def validate(path, counts):
    """Validate one file; return its number of problems."""
    n_problems = 0
    seen = {}
    out = sys.stdout
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue
            counts["records"] += 1
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                out.write(f"{path}:{lineno}: invalid JSON: {e}\n")
                n_problems += 1
                continue
            problems, rid, ctype, labels = check_record(rec)
            if rid is not None:
                first = seen.get(rid)
                if first is not None:
                    problems.append(f"duplicate id {rid!r} (first on line {first})")
                else:
                    seen[rid] = lineno
            if ctype is not None:
                counts["type " + ctype] += 1
            counts["spans"] += len(labels)
            for p in problems:
                out.write(f"{path}:{lineno}: {p}\n")
            n_problems += len(problems)
            if problems:
                counts["bad records"] += 1
    return n_problems


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    counts = Counter()
    total = 0
    for path in argv:
        total += validate(path, counts)
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    print(f"{total} problem(s); {summary}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
