#!/usr/bin/env python3
"""The one-huge-record input of the `stats` / `compare` memory case (bench/stats_memory.sh).

  stats_gen.py huge OUT --chars 150000 --spans 30000 [--predictions P]
      one record whose answer is CHARS code points of non-ASCII text with SPANS gold spans
      (overlapping, nested, three labels); with --predictions, a detector file for it
      (`gold_spans` + `pred_spans`, half the spans moved by a few code points);
(The 1.5 M-record case is examples/gen with small contexts: see bench/stats_memory.sh.)

RAGTruth-compatible lines (`id, query, context, output, hallucination_labels`), offsets in code
points, every span's `text` equal to `output[start:end]`. Deterministic (seeded).
"""
import argparse
import json
import random

LABELS = ["contradiction", "overgeneration", "missing_tool"]
WORDS = ["température", "25 °C", "it’s", "東京", "서울", "Zürich", "€12", "🙂", "naïve",
         "Δelta", "flight", "status", "København", "👍🏽", "on time", "日本語"]


def answer(rng, chars):
    parts, n = [], 0
    while n < chars:
        w = rng.choice(WORDS) + " "
        parts.append(w)
        n += len(w)
    return "".join(parts)[:chars]


def span(out, s, e, label):
    return {"start": s, "end": e, "text": out[s:e], "label": label}


def huge(args):
    rng = random.Random(args.seed)
    out = answer(rng, args.chars)
    spans = []
    for _ in range(args.spans):
        s = rng.randrange(0, args.chars - 1)
        e = min(args.chars, s + rng.randint(1, 400))
        spans.append(span(out, s, e, rng.choice(LABELS)))
    rid = "huge_000000"
    rec = {"id": rid, "query": "Is my flight on time? 航班状态", "context": "{\"name\": \"tool\"}",
           "output": out, "hallucination_labels": spans,
           "meta": {"corruption_type": "overgeneration"}}
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    if args.predictions:
        pred = []
        for sp in spans:
            s, e = sp["start"], sp["end"]
            if rng.random() < 0.5:
                s = max(0, s - rng.randint(0, 3))
                e = min(args.chars, e + rng.randint(0, 3))
            pred.append(span(out, s, e, rng.choice(LABELS)))
        line = {"id": rid, "output": out, "corruption_type": "overgeneration",
                "gold_spans": spans, "pred_spans": pred}
        with open(args.predictions, "w", encoding="utf-8") as f:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["huge"])
    p.add_argument("out")
    p.add_argument("--chars", type=int, default=150000)
    p.add_argument("--spans", type=int, default=30000)
    p.add_argument("--predictions")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    huge(args)


if __name__ == "__main__":
    main()
