"""The baseline of bench/judge.sh: what a user writes today to judge records against an
OpenAI-compatible endpoint (halu-toolace's audit loop): a thread pool of N workers, one
keep-alive http.client connection per thread, the same request body shape (system + user
message, temperature 0, response_format json_schema), the reply's JSON parsed and one
decisions line written per labeled span. No cache, no placement of quotes.

    python3 bench/judge_baseline.py RECORDS.jsonl URL OUT.jsonl CONCURRENCY
"""

import http.client
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

SYSTEM = "You are an expert annotator for hallucination detection."


def main() -> int:
    records_path, url, out_path, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    u = urlparse(url)
    path = u.path.rstrip("/") + "/chat/completions"
    local = threading.local()
    records = [json.loads(l) for l in open(records_path, encoding="utf-8")]

    def conn():
        if not hasattr(local, "c"):
            local.c = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
        return local.c

    def one(r):
        labels = r.get("hallucination_labels") or []
        spans = "\n".join(
            f"[{i}] {json.dumps(l.get('text', ''), ensure_ascii=False)} - {l.get('label')} "
            f"(characters {l.get('start')}-{l.get('end')})" for i, l in enumerate(labels))
        user = (f"USER QUERY:\n{r.get('query', '')}\n\nTOOL CONTEXT:\n{r.get('context', '')}\n\n"
                f"ASSISTANT ANSWER:\n{r.get('output', '')}\n\nLABELED SPANS:\n{spans}\n")
        body = json.dumps({"model": "m", "messages": [{"role": "system", "content": SYSTEM},
                           {"role": "user", "content": user}], "temperature": 0,
                           "stream": False, "response_format": {"type": "json_schema"}})
        c = conn()
        c.request("POST", path, body, {"Content-Type": "application/json"})
        resp = c.getresponse()
        data = json.loads(resp.read())
        verdict = json.loads(data["choices"][0]["message"]["content"])
        rows = []
        for v in verdict.get("labeled", []):
            lab = labels[v["span"]] if v["span"] < len(labels) else None
            rows.append({"id": r["id"], "labeled_span": lab, "judge": {
                "label_correct": v["label_correct"], "extra_hallucination": False,
                "extra_text": "", "reasoning": v.get("reason", "")}})
        if not rows:
            rows.append({"id": r["id"], "labeled_span": None, "judge": {
                "label_correct": "unknown", "extra_hallucination": bool(verdict.get("unlabeled")),
                "extra_text": "", "reasoning": verdict.get("reasoning", "")}})
        return rows

    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(one, records))
    with open(out_path, "w", encoding="utf-8") as f:
        for rows in results:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
