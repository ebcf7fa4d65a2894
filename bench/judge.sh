#!/usr/bin/env bash
# `spanreview judge`'s client work per record at 64 requests in flight, against the tests'
# loopback chat-completions server (examples/judge_server.rs) answering at once (zero
# latency), interleaved with bench/judge_baseline.py (a Python thread pool doing the same
# requests, as a user's own script does). The server runs in its own process: its CPU time
# is not counted.
#
#   bench/judge.sh                    # the bundled sample copied to 5,000 records
#   bench/judge.sh --records 20000 --repeat 5 --concurrency 64
#
# Prints per run the wall and CPU (user+sys) seconds of each client, then per record: wall
# ms, CPU ms (the goal: < 1 ms of client work per record), and the ratio Python/spanreview.
# Not a test: .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
records=5000 repeat=3 conc=64
while [ $# -gt 0 ]; do
  case "$1" in
    --records) records=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --concurrency) conc=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir=${BENCH_DIR:-/work/bench-data}/judge
mkdir -p "$dir"
cargo build --release --quiet --bin spanreview --example judge_server
target=${CARGO_TARGET_DIR:-target}/release
data="$dir/records-$records.jsonl"
# The sample's 175 records copied with new ids and a numbered query (each prompt distinct).
python3 - data/toolace/test_records_reconstructed.jsonl "$data" "$records" <<'PY'
import json, sys
src = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
n = int(sys.argv[3])
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for i in range(n):
        r = dict(src[i % len(src)])
        r["id"] = f"{r['id']}#{i}"
        r["query"] = f"{r.get('query', '')} (#{i})"
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
PY
"$target/examples/judge_server" > "$dir/server.url" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$dir/server.url" ] && break; sleep 0.1; done
url=$(head -n1 "$dir/server.url")
run() { /usr/bin/time -f "%e %U %S" "$@" >/dev/null 2>>"$dir/time.$$"; tail -n1 "$dir/time.$$"; }
rs=() py=()
for i in $(seq "$repeat"); do
  rm -f "$dir/judge.jsonl.cache"  # every run sends every record
  rs+=("$(run "$target/spanreview" judge "$data" --endpoint "$url" --model m --out "$dir/judge.jsonl" --concurrency "$conc")")
  py+=("$(run python3 bench/judge_baseline.py "$data" "$url" "$dir/py.jsonl" "$conc")")
done
rm -f "$dir/time.$$"
lines=$(wc -l < "$dir/judge.jsonl")
echo "records $records, $conc in flight, $repeat runs each (wall s, user s, sys s): spanreview ${rs[*]// /\/} | python ${py[*]// /\/}"
printf '%s\n' "${rs[@]}" > "$dir/rs.txt"; printf '%s\n' "${py[@]}" > "$dir/py.txt"
python3 - "$dir/rs.txt" "$dir/py.txt" "$records" "$lines" <<'PY'
import statistics, sys
def load(p): return [tuple(map(float, l.split())) for l in open(p) if l.strip()]
rs, py, n = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
med = lambda xs: statistics.median(xs)
rw, rc = med([w for w, _, _ in rs]), med([u + s for _, u, s in rs])
pw, pc = med([w for w, _, _ in py]), med([u + s for _, u, s in py])
print(f"spanreview: {sys.argv[4]} decision lines; median wall {rw:.3f} s, CPU {rc:.3f} s")
print(f"per record: spanreview wall {1e3*rw/n:.3f} ms, CPU {1e3*rc/n:.3f} ms | "
      f"python wall {1e3*pw/n:.3f} ms, CPU {1e3*pc/n:.3f} ms")
print(f"ratio python/spanreview: wall {pw/rw:.2f}, CPU {pc/rc:.2f}")
PY
