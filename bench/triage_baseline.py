#!/usr/bin/env python3
"""The checks of `spanreview triage` in plain Python, for the benchmark (bench/triage.sh):
one JSON line in, its flags out, the same flag objects spanreview writes (checked equal as
JSON values by the script). RAGTruth-schema records (`output`, `context`,
`hallucination_labels`) and LettuceDetect samples (`answer`, `labels`, categories) with the
toolace label set, plus the LettuceDetect taxonomy for the latter.

Usage: triage_baseline.py RECORDS OUT [DATASET]"""
import hashlib
import json
import os
import struct
import sys

TOOLACE = {"contradiction", "missing_tool", "overgeneration"}
SUBS = {"contradiction": {"numerical", "temporal", "entity", "relational", "value"},
        "unsupported_addition": {"claim", "elaboration", "subjective", "behavior"},
        "fabricated_reference": {"entity", "section", "identifier", "attribute"}}
NO_SPACES = [(0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF),
             (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
             (0x20000, 0x3FFFF)]


def is_word(c):
    if not (c.isalnum() or c == "_"):
        return False
    o = ord(c)
    return not any(a <= o <= b for a, b in NO_SPACES)


def quoted(s):
    cut = s[:60]
    out = "".join(c if c.isprintable() or c == " " else {"\n": "\\n", "\t": "\\t"}.get(c, "\\u{%x}" % ord(c)) for c in cut)
    return "“" + out + ("…" if len(cut) < len(s) else "") + "”"


def content_hash(rid, query, context, output, spans):
    h = hashlib.sha256()
    for part in (rid, query, context, output):
        b = part.encode()
        h.update(struct.pack("<Q", len(b)) + b)
    for s in spans:
        lab = s.get("label", "").encode()
        h.update(struct.pack("<QQQ", s["start"], s["end"], len(lab)) + lab)
    return h.hexdigest()[:24]


def token_hits(hay, needle):
    first, last = is_word(needle[0]), is_word(needle[-1])
    i = hay.find(needle)
    while i >= 0:
        before = i > 0 and is_word(hay[i - 1])
        j = i + len(needle)
        after = j < len(hay) and is_word(hay[j])
        if not ((first and before) or (last and after)):
            yield i
        i = hay.find(needle, i + 1)


def checks(context, output, labels):
    found = []
    for i, s in enumerate(labels):
        text = output[s["start"]:s["end"]]
        if not text:
            continue
        cat = s.get("category") or s.get("label", "")
        if cat in ("fabricated_reference", "contradiction"):
            needle = text.strip()
            if len(needle) >= 2:
                hits = list(token_hits(context, needle))
                if hits:
                    what = "a fabricated reference" if cat == "fabricated_reference" else "a contradiction"
                    times = "once" if len(hits) == 1 else f"{len(hits)} times"
                    found.append((i, "span-in-context", f"{what} whose text {quoted(needle)} occurs in the context {times} (first at code point {hits[0]})"))
        st, en = text[0].isspace(), text[-1].isspace()
        if st or en:
            which = "starts and ends" if st and en else ("starts" if st else "ends")
            found.append((i, "boundary-space", f"span {quoted(text)} {which} with whitespace"))
        a, b = s["start"], s["end"]
        inside = lambda k: 0 < k < len(output) and is_word(output[k - 1]) and is_word(output[k])

        def word_at(k):
            x = k
            while x > 0 and is_word(output[x - 1]):
                x -= 1
            y = k
            while y < len(output) and is_word(output[y]):
                y += 1
            return output[x:y]
        parts = []
        if inside(a):
            parts.append(f"starts inside {quoted(word_at(a))}")
        if inside(b):
            parts.append(f"ends inside {quoted(word_at(b))}")
        if parts:
            found.append((i, "boundary-midword", f"span [{a}, {b}) " + " and ".join(parts)))
        label = s.get("label", "")
        if s.get("category") is None:
            if label == "clean" or (label and label not in TOOLACE):
                found.append((i, "taxonomy", f"label \"{label}\" is not in the label set"))
    return found


def main(path, out_path, dataset=None):
    dataset = dataset or os.path.basename(path).split(".")[0]
    n = 0
    with open(path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            n += 1
            output = r.get("output", r.get("answer", ""))
            labels = r.get("hallucination_labels", r.get("labels")) or []
            context, query = r.get("context", ""), r.get("query", "")
            h = content_hash(r["id"], query, context, output, labels)
            found = sorted(checks(context, output, labels), key=lambda x: (x[0], ["span-in-context", "misquote", "boundary-space", "boundary-midword", "boundary-not-minimal", "taxonomy"].index(x[1])))
            for i, code, why in found:
                d = {"dataset": dataset, "reviewer": "triage", "record_id": r["id"], "record_hash": h,
                     "action": "flag", "flag_on": True, "reason": f"{code}: {why}", "span_key": f"gold:{i}"}
                out.write(json.dumps(d, ensure_ascii=False) + "\n")
        out.flush()
        os.fsync(out.fileno())
    print(f"{n} records", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
