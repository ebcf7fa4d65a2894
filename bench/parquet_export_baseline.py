#!/usr/bin/env python3
"""Baseline for `spanreview export` of parquet to parquet (issue 23): the `datasets` way.

    parquet_export_baseline.py IN.parquet DECISIONS.jsonl OUT.parquet

DECISIONS holds `{"record_id": ID, "action": "drop", "span_key": "gold:0"}` lines (what
bench/parquet_export.sh makes): load_dataset("parquet") -> map dropping the first span of each
decided record -> to_parquet. It reads the decisions from their JSONL rather than replaying a
review database, so it does less than `spanreview export` does.
"""
import json
import sys

import datasets


def main(src, decisions, out):
    drop = set()
    with open(decisions, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d["action"] == "drop" and d["span_key"] == "gold:0":
                drop.add(d["record_id"])
    ds = datasets.load_dataset("parquet", data_files=src, split="train")

    def apply(r):
        if r["id"] in drop:
            r["hallucination_labels"] = r["hallucination_labels"][1:]
        return r

    ds.map(apply).to_parquet(out)
    print(f"{len(ds)} records, {len(drop)} decided")


if __name__ == "__main__":
    main(*sys.argv[1:])
