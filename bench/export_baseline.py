#!/usr/bin/env python3
"""Baseline for `spanreview export` (issue 5): the plain Python way of applying a review log to
a RAGTruth-compatible JSONL file, streaming: load -> apply -> dump, one record at a time.

    python3 bench/export_baseline.py RECORDS.jsonl --db DB.sqlite --out OUT.jsonl [--dataset NAME]

The same work as `spanreview export RECORDS --db DB --out OUT`: read the dataset's decisions
from the review database once, grouped by record id; undone decisions are not applied (undo /
redo); a decision made on other content of the record (its content hash differs) is stale and
not applied, and stale decisions stop the export unless --skip-stale; span decisions (accept,
drop, adjust, relabel, add, resolve) are replayed in log order onto the record's
`hallucination_labels`, with `text` recomputed as output[start:end] in code points; `clean`
empties the labels and sets meta.corruption_type = "clean"; `remove` leaves the record out.
Every record is written back with json.dumps (non-ASCII kept, key order kept), to a temporary
file in the destination's folder that is fsynced and renamed into place, as export does.
Prints one summary line.
"""
import argparse
import hashlib
import json
import os
import sqlite3
import struct
import sys
import tempfile

SPAN_ACTIONS = {"accept", "drop", "adjust", "relabel", "add", "resolve"}


def load_log(db, dataset):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute(
        "SELECT id, record_id, record_hash, action, span_key, start_after, end_after, "
        "label_after, category_after, subcategory_after, reason, target "
        "FROM decision WHERE dataset = ? ORDER BY id",
        (dataset,),
    )
    by_record = {}
    for row in rows:
        by_record.setdefault(row[1], []).append(row)
    con.close()
    return by_record


def in_force(log):
    """Decisions not undone (a redo restores one), undo/redo rows themselves left out."""
    active = {}
    for d in log:
        action, target = d[3], d[11]
        if action == "undo":
            active[target] = False
        elif action == "redo":
            active[target] = True
        else:
            active[d[0]] = True
    return [d for d in log if d[3] not in ("undo", "redo") and active.get(d[0])]


def content_hash(rec, spans):
    """The record's content hash, as the review database stores it."""
    h = hashlib.sha256()
    for part in (rec.get("id"), rec.get("query") or "", rec.get("context") or "", rec.get("output")):
        b = part.encode("utf-8")
        h.update(struct.pack("<Q", len(b)))
        h.update(b)
    for s in spans:
        label = s.get("label", "").encode("utf-8")
        h.update(struct.pack("<QQQ", s["start"], s["end"], len(label)))
        h.update(label)
    return h.digest()[:12].hex()


def apply(rec, decisions):
    """Replay `decisions` onto `rec`; returns the record to write, or None when removed."""
    output = rec["output"]
    spans = [{"key": "gold:%d" % i, "obj": s, "kept": True} for i, s in enumerate(rec["hallucination_labels"])]
    outcome = "open"
    for d in decisions:
        _, _, _, action, key, start, end, label, cat, sub, reason, _ = d
        span = next((s for s in spans if s["key"] == key), None)
        after = None if start is None else {"start": start, "end": end, "label": label}
        if after is not None:
            if cat is not None:
                after["category"] = cat
            if sub is not None:
                after["subcategory"] = sub
        if action == "accept" and span:
            span["kept"] = True
        elif action == "drop" and span:
            span["kept"] = False
        elif action in ("adjust", "relabel", "resolve") and span and after:
            span["obj"] = dict(span["obj"], **after)
            span["kept"] = True
        elif action == "resolve" and span and not after:
            span["kept"] = False
        elif action in ("add", "resolve") and not span and after:
            spans.append({"key": key, "obj": after, "kept": True})
        elif action == "clean":
            outcome = "clean"
        elif action == "remove":
            outcome = "removed"
    if outcome == "removed":
        return None
    labels = []
    if outcome == "open":
        for s in spans:
            if s["kept"]:
                obj = dict(s["obj"])
                obj["text"] = output[obj["start"]:obj["end"]]
                labels.append(obj if s["key"].startswith("gold:") else dict(sorted(obj.items())))
    rec["hallucination_labels"] = labels
    if outcome == "clean":
        rec.setdefault("meta", {})["corruption_type"] = "clean"
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("records")
    ap.add_argument("--db", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dataset")
    ap.add_argument("--skip-stale", action="store_true")
    a = ap.parse_args()
    dataset = a.dataset or os.path.splitext(os.path.basename(a.records))[0]
    by_record = load_log(a.db, dataset)
    folder = os.path.dirname(os.path.abspath(a.out))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".export-baseline-")
    n_in = n_out = reviewed = stale = 0
    try:
        with open(a.records, encoding="utf-8") as f, os.fdopen(fd, "w", encoding="utf-8") as out:
            for line in f:
                if line.isspace():
                    continue
                n_in += 1
                rec = json.loads(line)
                log = by_record.get(rec["id"])
                if log:
                    decisions = in_force(log)
                    h = content_hash(rec, rec["hallucination_labels"])
                    fresh = [d for d in decisions if d[2] == h]
                    stale += len(decisions) - len(fresh)
                    if fresh:
                        reviewed += 1
                        rec = apply(rec, fresh)
                        if rec is None:
                            continue
                out.write(json.dumps(rec, ensure_ascii=False))
                out.write("\n")
                n_out += 1
            out.flush()
            os.fsync(out.fileno())
        if stale and not a.skip_stale:
            os.unlink(tmp)
            print("%d stale decisions; nothing written" % stale, file=sys.stderr)
            return 1
        os.replace(tmp, a.out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    print("exported %d of %d records (%d reviewed, %d stale decisions) to %s" % (n_out, n_in, reviewed, stale, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
