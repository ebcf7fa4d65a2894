#!/usr/bin/env python3
"""Baseline for `spanreview compare` (bench/stats_compare.sh): the same overall figures of gold
against each detector, the way a Python script would do it: stream the records file and the
prediction files line by line (same order, ids checked), json.loads each line, and count on
sorted intervals (not per code point).

Per record (code points, spans clamped to the answer, empty/reversed ones cover nothing):
- label-blind: A's and B's merged coverage; tp = |A∩B|, fp = |B|-tp, fn = |A|-tp; a record is
  an example-level positive when a side covers something; IoU = tp/|A∪B| where |A∪B| > 0;
- label-aware: each code point carries the set of labels (label, category, subcategory) of the
  spans covering it; tp where both sets are equal and not empty, fp where B's is not empty and
  differs, fn where A's is not empty and differs; agree where equal (empty included);
  per label set the code points each side gives it (kappa's marginals).
Summed over records: P/R/F1 (F1 = 2PR/(P+R)), Cohen's kappa on the 2x2 table over every code
point, the multi-category kappa over label sets.

Usage: compare_baseline.py RECORDS PRED1 [PRED2 ...]
Prints one JSON line per detector: {"b": NAME, "overall": {...}} with the fields of
`spanreview compare --json`'s "overall".
"""
import json
import os
import sys
from collections import defaultdict


def merge(ranges):
    out = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def clamp(spans, n):
    """[(start, end, key)] clamped to [0, n), empty ones dropped; and the count of invalid."""
    out, invalid = [], 0
    for s, e, k in spans:
        if not (s < e <= n):
            invalid += 1
        s, e = min(s, n), min(e, n)
        if s < e:
            out.append((s, e, k))
    return out, invalid


def intersect_len(a, b):
    i = j = t = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            t += hi - lo
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return t


def labeled(n, a, b, marg):
    """Label-aware counts of clamped spans a, b over n code points; adds to marg."""
    events = [(s, 0, 1, k) for s, _, k in a] + [(e, 0, -1, k) for _, e, k in a]
    events += [(s, 1, 1, k) for s, _, k in b] + [(e, 1, -1, k) for _, e, k in b]
    events.sort(key=lambda x: x[0])
    opened = ({}, {})
    tp = fp = fn = agree = 0
    covered = 0
    i, m = 0, len(events)
    while i < m:
        pos = events[i][0]
        while i < m and events[i][0] == pos:
            _, side, d, k = events[i]
            o = opened[side]
            c = o.get(k, 0) + d
            if c:
                o[k] = c
            else:
                del o[k]
            i += 1
        if i == m:
            break
        w = events[i][0] - pos
        if w == 0:
            continue
        x = frozenset(opened[0])
        y = frozenset(opened[1])
        if not x and not y:
            continue
        covered += w
        if x == y:
            agree += w
            tp += w
        else:
            if y:
                fp += w
            if x:
                fn += w
        marg[x][0] += w
        marg[y][1] += w
    rest = n - covered
    agree += rest
    if rest:
        marg[frozenset()][0] += rest
        marg[frozenset()][1] += rest
    return tp, fp, fn, agree


class Agreement:
    def __init__(self):
        self.records = self.chars = 0
        self.c = [0, 0, 0]
        self.ex = [0, 0, 0]
        self.iou_sum, self.iou_n = 0.0, 0
        self.inv_a = self.inv_b = 0
        self.l = [0, 0, 0]
        self.agree = 0
        self.marg = defaultdict(lambda: [0, 0])

    def add(self, output, sa, sb):
        n = len(output)
        a, ia = clamp(sa, n)
        b, ib = clamp(sb, n)
        ca = merge([(s, e) for s, e, _ in a])
        cb = merge([(s, e) for s, e, _ in b])
        la = sum(e - s for s, e in ca)
        lb = sum(e - s for s, e in cb)
        tp = intersect_len(ca, cb)
        self.records += 1
        self.chars += n
        self.c[0] += tp
        self.c[1] += lb - tp
        self.c[2] += la - tp
        pa, pb = la > 0, lb > 0
        if pa and pb:
            self.ex[0] += 1
        elif pb:
            self.ex[1] += 1
        elif pa:
            self.ex[2] += 1
        u = la + lb - tp
        if u:
            self.iou_sum += tp / u
            self.iou_n += 1
        self.inv_a += ia
        self.inv_b += ib
        t, f, g, ag = labeled(n, a, b, self.marg)
        self.l[0] += t
        self.l[1] += f
        self.l[2] += g
        self.agree += ag

    def scores(self):
        def prf(c):
            tp, fp, fn = c
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
            return {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": f1,
                    "n": self.records}

        n = self.chars
        kappa = kappa_l = None
        if n:
            tp, fp, fn = self.c
            tn = n - tp - fp - fn
            obs = (tp + tn) / n
            ay, by = (tp + fn) / n, (tp + fp) / n
            exp = ay * by + (1 - ay) * (1 - by)
            kappa = (obs - exp) / (1 - exp) if exp < 1 else None
            exp = sum((x / n) * (y / n) for x, y in self.marg.values())
            kappa_l = (self.agree / n - exp) / (1 - exp) if exp < 1 else None
        return {"records": self.records, "chars": n, "char_level": prf(self.c),
                "char_level_labeled": prf(self.l), "example_level": prf(self.ex),
                "mean_iou": self.iou_sum / self.iou_n if self.iou_n else None,
                "iou_records": self.iou_n, "kappa": kappa, "kappa_labeled": kappa_l,
                "invalid_spans_a": self.inv_a, "invalid_spans_b": self.inv_b}


def spans_of(lst):
    return [(s["start"], s["end"], (s.get("label") or "", s.get("category") or "",
                                    s.get("subcategory") or ""))
            for s in lst or []]


def detector_name(path):
    """predictions_NAME_combined.jsonl -> NAME, as spanreview names a prediction file."""
    base = os.path.basename(path)
    for suffix in (".jsonl", "_combined"):
        base = base[: -len(suffix)] if base.endswith(suffix) else base
    return base[len("predictions_"):] if base.startswith("predictions_") else base


def rows(files):
    """Each record as (id, output, corruption type, [gold, detector spans...])."""
    recs = open(files[0], encoding="utf-8")
    preds = [open(p, encoding="utf-8") for p in files[1:]]
    for line in recs:
        if line.isspace():
            continue
        r = json.loads(line)
        sources = [spans_of(r.get("hallucination_labels"))]
        for f in preds:
            p = json.loads(f.readline())
            if p["id"] != r["id"]:
                raise SystemExit(f"{f.name}: id {p['id']} where {r['id']} was expected")
            sources.append(spans_of(p.get("pred_spans")))
        yield r, sources


def main():
    files = sys.argv[1:]
    names = [detector_name(p) for p in files[1:]]
    acc = [Agreement() for _ in names]
    for r, sources in rows(files):
        for k, ag in enumerate(acc):
            ag.add(r["output"], sources[0], sources[k + 1])
    for name, ag in zip(names, acc):
        print(json.dumps({"a": "gold", "b": name, "overall": ag.scores()}))


if __name__ == "__main__":
    main()
