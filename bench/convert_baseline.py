#!/usr/bin/env python3
"""The yardstick of bench/convert.sh: the mapping `spanreview convert` does, in plain Python
(json.loads / json.dumps, one record at a time, fsync at the end), byte-identical output.

  convert_baseline.py to-prodigy RAGTRUTH.jsonl OUT.jsonl
      each RAGTruth record as a new Prodigy task (`--to prodigy`)
  convert_baseline.py back TASKS.jsonl RAGTRUTH.jsonl OUT.jsonl
      the tasks' spans written onto the RAGTruth records of their ids, in the records' order,
      unchanged spans keeping their objects (`--to ragtruth --records RAGTRUTH.jsonl`)

Covers the records bench/convert.sh makes (valid RAGTruth lines, integer code-point offsets,
no C1 or bidirectional controls): it is a yardstick, not a converter.
"""
import json
import os
import sys


def dump(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def to_prodigy(src, dst):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            r = json.loads(line)
            task = {"text": r["output"]}
            for k in ("query", "context"):
                if r.get(k):
                    task[k] = r[k]
            task["spans"] = [{"start": s["start"], "end": s["end"], "label": s["label"]}
                             for s in r["hallucination_labels"]]
            task["meta"] = {"id": r["id"]}
            out.write(dump(task) + "\n")
        out.flush()
        os.fsync(out.fileno())


def carry(original, spans):
    """Each span as the original object with its start, end and label, else a new one."""
    used = [False] * len(original)
    kept = []
    for s in spans:
        for k, o in enumerate(original):
            if not used[k] and (o["start"], o["end"], o["label"]) == (s["start"], s["end"], s["label"]):
                used[k] = True
                kept.append(o)
                break
        else:
            kept.append({"start": s["start"], "end": s["end"], "label": s["label"]})
    return kept


def back(tasks, records, dst):
    spans = {}
    with open(tasks, encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            spans[t["meta"]["id"]] = t["spans"]
    with open(records, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            r = json.loads(line)
            if r["id"] in spans:
                r["hallucination_labels"] = carry(r["hallucination_labels"], spans[r["id"]])
            out.write(dump(r) + "\n")
        out.flush()
        os.fsync(out.fileno())


if __name__ == "__main__":
    mode, *paths = sys.argv[1:]
    {"to-prodigy": to_prodigy, "back": back}[mode](*paths)
