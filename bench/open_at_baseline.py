#!/usr/bin/env python3
"""Baseline for examples/open_at.rs: the usual Python way to get record N of a JSONL file,
`[json.loads(l) for l in f]` and an index. Prints one JSON line with the elapsed time and the peak
resident memory (VmHWM, as the Rust side reports it).

    python3 bench/open_at_baseline.py FILE [INDEX]     # INDEX defaults to 140000
"""

import json
import sys
import time


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main(argv):
    path = argv[0]
    index = int(argv[1]) if len(argv) > 1 else 140_000
    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    rec = records[index]
    total_ms = (time.perf_counter() - t0) * 1e3
    print(
        json.dumps(
            {
                "tool": "python",
                "records": len(records),
                "index": index,
                "id": rec["id"],
                "spans": len(rec.get("hallucination_labels", [])),
                "total_ms": round(total_ms, 1),
                "vmhwm_kb": status_kb("VmHWM"),
                "vmrss_kb": status_kb("VmRSS"),
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
