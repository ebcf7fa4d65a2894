#!/usr/bin/env python3
"""Baseline for examples/cluster_bench.rs (issue 4): per-record disputed-character share of
gold + detectors, the way a Python script would do it: stream the records file and the
prediction files line by line (same order, ids checked), json.loads each line, cluster the
spans of every source and count the characters in dispute.

Rules (tolerance 0, edge punctuation counted, labels compared), as spanreview's
review::disagreement computes them for files without defects:
- spans (code points, half-open) that share a character cluster, transitively, across sources;
- a cluster is label-disputed when two sources that both cover something in it state different
  sets of non-empty labels; labels a detector gives that are not a hallucination type (the
  toolace types or the record's gold labels) count as empty (the ensemble's "ensemble");
- otherwise it is disputed when two sources' coverage differs; its disputed characters are those
  some but not all sources cover (the whole cluster when labels conflict);
- share = disputed characters / len(output).

Usage: cluster_baseline.py RECORDS PRED1 [PRED2 ...]
Prints the same totals line as the Rust example.
"""
import json
import sys
import time

TYPES = {"clean", "contradiction", "missing_tool", "overgeneration"}


def merge(ranges):
    out = []
    for a, b in sorted(r for r in ranges if r[0] < r[1]):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def record_totals(output, sources):
    """sources: list of span lists [(start, end, label)], gold first."""
    n = len(output)
    gold_labels = {l for (_, _, l) in sources[0]}
    known = TYPES | gold_labels
    items = []
    for k, spans in enumerate(sources):
        for s, e, label in spans:
            if s >= e:
                continue
            e = min(e, n)
            if s >= e:
                continue
            if k > 0 and label and label not in known:
                label = ""
            items.append((s, e, k, label))
    items.sort()
    clusters = disputed_clusters = disputed_chars = 0
    i = 0
    m = len(sources)
    while i < len(items):
        end = items[i][1]
        j = i + 1
        while j < len(items) and items[j][0] < end:
            end = max(end, items[j][1])
            j += 1
        group = items[i:j]
        start = group[0][0]
        cov = [merge([(s, e) for (s, e, k, _) in group if k == src]) for src in range(m)]
        labels = [sorted({l for (_, _, k, l) in group if k == src and l}) for src in range(m)]
        label_disputed = any(
            labels[a] and labels[b] and labels[a] != labels[b]
            for a in range(m) for b in range(a + 1, m)
        )
        coverage_disputed = any(cov[a] != cov[b] for a in range(m) for b in range(a + 1, m))
        clusters += 1
        if label_disputed:
            disputed_clusters += 1
            disputed_chars += end - start
        elif coverage_disputed:
            disputed_clusters += 1
            events = []
            for c in cov:
                for a, b in c:
                    events.append((a, 1))
                    events.append((b, -1))
            events.sort()
            depth = 0
            for w in range(len(events)):
                depth += events[w][1]
                if w + 1 < len(events) and 0 < depth < m and events[w][0] < events[w + 1][0]:
                    disputed_chars += events[w + 1][0] - events[w][0]
        i = j
    return clusters, disputed_clusters, disputed_chars, n


def spans_of(lst):
    return [(s["start"], s["end"], s.get("label", "") or "") for s in lst]


def main():
    t0 = time.time()
    files = sys.argv[1:]
    recs = open(files[0], encoding="utf-8")
    preds = [open(p, encoding="utf-8") for p in files[1:]]
    tot = dict(records=0, clusters=0, disputed_clusters=0, disputed_records=0,
               disputed_chars=0, output_chars=0, share_sum=0.0)
    for line in recs:
        if line.isspace():
            continue
        r = json.loads(line)
        sources = [spans_of(r.get("hallucination_labels") or [])]
        for f in preds:
            p = json.loads(f.readline())
            if p["id"] != r["id"]:
                raise SystemExit(f"{f.name}: id {p['id']} where {r['id']} was expected")
            sources.append(spans_of(p.get("pred_spans") or []))
        c, dc, ch, n = record_totals(r["output"], sources)
        tot["records"] += 1
        tot["clusters"] += c
        tot["disputed_clusters"] += dc
        tot["disputed_records"] += dc > 0
        tot["disputed_chars"] += ch
        tot["output_chars"] += n
        tot["share_sum"] += min(ch / n, 1.0) if n else 0.0
    print(f"total {time.time() - t0:.3f} s")
    print("records {records} clusters {clusters} disputed_clusters {disputed_clusters} "
          "disputed_records {disputed_records} disputed_chars {disputed_chars} "
          "output_chars {output_chars} share_sum {share_sum:.6f}".format(**tot))


if __name__ == "__main__":
    main()
