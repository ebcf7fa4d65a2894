#!/usr/bin/env python3
"""Decision files for bench/team_load.sh: PROCS files of PER decisions each, one reviewer per
file (apply-01, ...), every line valid whatever order the files are applied in.

Usage: team_load_gen.py RECORDS.jsonl PROCS PER OUT_DIR [CHUNKS]

Writes OUT_DIR/d-NN.jsonl (and with CHUNKS > 1 the same lines cut into CHUNKS files
OUT_DIR/d-NN-CC.jsonl, an undo never first in one: its target must be in its file), and
OUT_DIR/all.jsonl (every file, one after another: the baseline of
one process applying them all). Offsets are code points (Python string indices). The mix, over
the records in turn: accept, relabel (a label of its own), drop, note, flag, add (bounds and
label of its own, so no two files add the same span), and an undo of the line before it. No
adjust, clean or remove: another reviewer's adjust would change the span an accept keeps, and a
clean closes the record to its reviewer's later span decisions.
"""
import json
import sys


def keepable(s, n):
    return 0 <= s["start"] < s["end"] <= n


def main():
    path, procs, per, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    chunks = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    size = -(-per // chunks)
    recs = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    every = []
    for p in range(1, procs + 1):
        who = f"apply-{p:02d}"
        lines = []
        k = 0
        while len(lines) < per:
            r = recs[(k + p * 7) % len(recs)]
            n = len(r["output"])
            spans = r.get("hallucination_labels") or []
            kind = k % 7
            k += 1
            base = {"reviewer": who, "record_id": r["id"], "id": p * 100000 + len(lines)}
            ok = [i for i, s in enumerate(spans) if keepable(s, n)]
            if kind == 0 and ok:
                lines.append({**base, "action": "accept", "span_key": f"gold:{ok[0]}"})
            elif kind == 1 and ok:
                s = spans[ok[-1]]
                after = {"start": s["start"], "end": s["end"], "label": f"{who}-{k}"}
                lines.append({**base, "action": "relabel", "span_key": f"gold:{ok[-1]}",
                              "after": after})
            elif kind == 2 and spans:
                lines.append({**base, "action": "drop", "span_key": f"gold:{len(spans) - 1}",
                              "reason": "load"})
            elif kind == 3:
                lines.append({**base, "action": "note", "note": f"{who} note {k} ’°"})
            elif kind == 4:
                lines.append({**base, "action": "flag"})
            elif kind == 5 and n > 2:
                start = k % (n - 1)
                after = {"start": start, "end": start + 1, "label": f"{who}-added-{k}"}
                lines.append({**base, "action": "add", "span_key": f"added:{who}-{k}",
                              "after": after})
            elif kind == 6 and lines and len(lines) % size != 0:
                prev = lines[-1]
                if prev["action"] in ("undo", "redo"):
                    continue
                lines.append({**base, "record_id": prev["record_id"], "action": "undo",
                              "target": prev["id"]})
        with open(f"{out}/d-{p:02d}.jsonl", "w", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        if chunks > 1:
            for c in range(chunks):
                with open(f"{out}/d-{p:02d}-{c:02d}.jsonl", "w", encoding="utf-8") as f:
                    for line in lines[c * size:(c + 1) * size]:
                        f.write(json.dumps(line, ensure_ascii=False) + "\n")
        every.extend(lines)
    with open(f"{out}/all.jsonl", "w", encoding="utf-8") as f:
        for line in every:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
