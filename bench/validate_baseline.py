#!/usr/bin/env python3
"""Baseline for `spanreview validate`: a plain, streaming Python validator of RAGTruth-compatible
records (toolace-hallucination-spans), written the way one would write it for the dataset.

It makes the checks `spanreview validate --strict` makes on such a file, one line at a time:
- each non-blank line parses as a JSON object (`json.loads`);
- required fields with the right types: `id` (string), `query`, `context`, `output` (non-empty
  strings), `hallucination_labels` (list), `meta` (object) with `source`, `base_id`,
  `corruption_type` (strings), `tools` (list) and `tool_call`;
- every label: an object with non-negative integer `start`/`end`, start <= end (start == end is
  an empty span), end <= len(output) in code points, no boundary inside a character (a combining
  mark, variation selector, emoji modifier or zero-width joiner on either side),
  `output[start:end] == text`, `label` in the label set and equal to `meta.corruption_type`;
- `meta.corruption_type` in the label set; clean records carry no labels, others at least one;
- `id` is unique in a file and is `<base_id>` or `<base_id>__<variant>`; a `meta.base_id` found
  in two files is split leakage;
- counts of records by type.

Every problem is printed as `path:line: message`, then a summary; the exit code is 1 when there
is any problem.

    python3 bench/validate_baseline.py [--strict] FILE [FILE ...]
"""

import json
import sys
import unicodedata
from collections import Counter

TYPES = {"clean", "contradiction", "missing_tool", "overgeneration"}

# Code points that join the one before them into one character on screen.
JOINERS = {"\u200d"}  # zero-width joiner (also joins the one after it)
EXTENDERS = set(map(chr, range(0xFE00, 0xFE10))) | set(map(chr, range(0x1F3FB, 0x1F400)))


def short(value, limit=80):
    s = json.dumps(value, ensure_ascii=False)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def splits_character(output, cp):
    """True when code point boundary `cp` falls inside a character (a grapheme cluster)."""
    if cp <= 0 or cp >= len(output):
        return False
    nxt = output[cp]
    return (
        unicodedata.category(nxt)[0] == "M"
        or nxt in EXTENDERS
        or nxt in JOINERS
        or output[cp - 1] in JOINERS
    )


def is_offset(v):
    # bool is a subclass of int in Python; a JSON true is not an offset.
    return type(v) is int


def check_label(i, lab, output, n_chars, ascii_output, ctype, strict):
    """Problems of label number `i` of a record."""
    at = f"hallucination_labels[{i}]"
    if not isinstance(lab, dict):
        return [f"{at} is not a span object: {short(lab)}"]
    out = []
    offsets = []
    for key in ("start", "end"):
        v = lab.get(key)
        if v is None and key not in lab:
            out.append(f'{at}: missing "{key}"')
        elif not is_offset(v):
            out.append(f'{at}: "{key}" is not an integer: {short(v)}')
        elif v < 0:
            out.append(f'{at}: "{key}" is negative: {v}')
        else:
            offsets.append(v)
    text = lab.get("text")
    if "text" not in lab:
        out.append(f'{at}: missing "text"')
    elif not isinstance(text, str):
        out.append(f'{at}: "text" is not a string: {short(text)}')
        text = None
    if len(offsets) == 2 and output is not None:
        start, end = offsets
        if start > end:
            out.append(f"{at}: reversed span: start {start} > end {end}")
        elif end > n_chars:
            out.append(f"{at}: span [{start}, {end}) ends past the end of output ({n_chars} code points)")
        else:
            if start == end:
                out.append(f"{at}: empty span [{start}, {end})")
            if not ascii_output:
                for name, cp in (("start", start), ("end", end)):
                    if splits_character(output, cp):
                        out.append(f"{at}: {name} {cp} splits a character of output")
            if text is not None and output[start:end] != text:
                out.append(
                    f"{at}: text {short(text)} does not match output[{start}:{end}] "
                    f"{short(output[start:end])}"
                )
    label = lab.get("label")
    if not isinstance(label, str):
        out.append(f'{at}: "label" is missing or not a string: {short(label)}')
    else:
        if label not in TYPES:
            out.append(f"{at}: label {short(label)} is not in the label set {sorted(TYPES)}")
        if strict and ctype is not None and label != ctype:
            out.append(f"{at}: label {label!r} differs from the record's type {ctype!r}")
    return out


def check_record(rec, strict):
    """Problems of one parsed record, and its id, base id and type."""
    if not isinstance(rec, dict):
        return [f"the line is not a JSON object: {short(rec)}"], None, None, None
    problems = []
    rid = rec.get("id")
    if not isinstance(rid, str):
        problems.append(f'field "id" is missing or not a string: {short(rid)}')
        rid = None
    texts = {}
    for key in ("query", "context", "output"):
        v = rec.get(key)
        if not isinstance(v, str):
            problems.append(f'field "{key}" is missing or not a string: {short(v)}')
            v = None
        elif not v:
            problems.append(f'field "{key}" is empty')
        texts[key] = v
    output = texts["output"]
    meta = rec.get("meta")
    ctype = base = None
    if not isinstance(meta, dict):
        problems.append(f'field "meta" is missing or not an object: {short(meta)}')
    else:
        for key in ("source", "base_id", "corruption_type"):
            if not isinstance(meta.get(key), str):
                problems.append(f'field "meta.{key}" is missing or not a string: {short(meta.get(key))}')
        base = meta.get("base_id") if isinstance(meta.get("base_id"), str) else None
        ctype = meta.get("corruption_type") if isinstance(meta.get("corruption_type"), str) else None
        if rid is not None and base is not None:
            rest = rid[len(base):] if rid.startswith(base) else None
            if rest is None or (rest and not rest.startswith("__")):
                problems.append(f"id {rid!r} does not belong to meta.base_id {base!r} (ids are <base_id>__<variant>)")
        if not isinstance(meta.get("tools"), list):
            problems.append(f'field "meta.tools" is missing or not a list: {short(meta.get("tools"))}')
        if "tool_call" not in meta:
            problems.append('missing field "meta.tool_call"')
    labels = rec.get("hallucination_labels")
    if not isinstance(labels, list):
        problems.append(f'field "hallucination_labels" is missing or not a list: {short(labels)}')
        labels = []
    n_chars = len(output) if output is not None else 0
    ascii_output = output.isascii() if output is not None else True
    for i, lab in enumerate(labels):
        problems.extend(check_label(i, lab, output, n_chars, ascii_output, ctype, strict))
    if ctype is not None:
        if ctype not in TYPES:
            problems.append(f"meta.corruption_type {ctype!r} is not in the label set {sorted(TYPES)}")
        if ctype == "clean" and labels:
            problems.append(f"clean record carries {len(labels)} label(s) (clean records have none)")
        elif ctype != "clean" and not labels:
            problems.append(f"record of type {ctype!r} has no labels")
    return problems, rid, base, ctype


def validate(path, counts, strict, bases, fi):
    """Validate one file; return its number of problems. `bases` maps base ids to the first
    file (index, path, line) they were seen in, across files."""
    n_problems = 0
    seen = {}
    out = sys.stdout
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if raw.isspace():  # blank line (cheaper than strip(), which copies)
                continue
            counts["records"] += 1
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                out.write(f"{path}:{lineno}: invalid JSON: {e}\n")
                n_problems += 1
                counts["records with problems"] += 1
                continue
            problems, rid, base, ctype = check_record(rec, strict)
            if rid is not None:
                first = seen.get(rid)
                if first is not None:
                    problems.append(f"duplicate id {rid!r} (first at line {first})")
                else:
                    seen[rid] = lineno
            if base is not None:
                other = bases.setdefault(base, (fi, path, lineno))
                if other[0] != fi:
                    problems.append(f"meta.base_id {base!r} is also in {other[1]}:{other[2]} (split leakage)")
            counts["type " + (ctype or "(none)")] += 1
            for p in problems:
                out.write(f"{path}:{lineno}: {p}\n")
            n_problems += len(problems)
            if problems:
                counts["records with problems"] += 1
    return n_problems


def main(argv):
    strict = "--strict" in argv
    paths = [a for a in argv if a != "--strict"]
    if not paths:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    counts = Counter()
    bases = {}
    total = 0
    for fi, path in enumerate(paths):
        total += validate(path, counts, strict, bases, fi)
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    print(f"{total} problem(s); {summary}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
