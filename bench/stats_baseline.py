#!/usr/bin/env python3
"""Baseline for `spanreview stats` on records + prediction files and a database without
decisions (bench/stats_compare.sh): the same figures, the way a Python script would do it:
stream the files line by line (same order, ids checked), json.loads each line.

With no decision the reviewed result of a record is its gold spans, so:
- sources: gold and each detector against the reviewed result (the reference), figures as
  bench/compare_baseline.py computes them;
- pairs: every two sources in order (gold, then the detectors as given), the first the
  reference;
- disagreement: clusters and disputed clusters and records by bench/cluster_baseline.py's rules
  (tolerance 0, labels compared).

Usage: stats_baseline.py RECORDS PRED1 [PRED2 ...]
Prints one JSON object: {"records", "disagreement", "sources": [{name, overall}], "pairs":
[{a, b, overall}]} with the fields of `spanreview stats --json`.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster_baseline import record_totals  # noqa: E402
from compare_baseline import Agreement, detector_name, rows  # noqa: E402


def main():
    files = sys.argv[1:]
    names = ["gold"] + [detector_name(p) for p in files[1:]]
    m = len(names)
    sources = [Agreement() for _ in names]
    pairs = {(x, y): Agreement() for x in range(m) for y in range(x + 1, m)}
    dis = {"disputed_records": 0, "clusters": 0, "disputed_clusters": 0}
    records = 0
    for r, spans in rows(files):
        out = r["output"]
        records += 1
        plain = [[(s, e, k[0]) for s, e, k in sp] for sp in spans]
        c, dc, _, _ = record_totals(out, plain)
        dis["clusters"] += c
        dis["disputed_clusters"] += dc
        dis["disputed_records"] += dc > 0
        for k in range(m):
            sources[k].add(out, spans[0], spans[k])
        for (x, y), ag in pairs.items():
            ag.add(out, spans[x], spans[y])
    print(json.dumps({
        "records": records,
        "disagreement": dis,
        "sources": [{"name": n, "overall": a.scores()} for n, a in zip(names, sources)],
        "pairs": [{"a": names[x], "b": names[y], "overall": a.scores()}
                  for (x, y), a in pairs.items()],
    }))


if __name__ == "__main__":
    main()
