#!/usr/bin/env bash
# `spanreview export` of a parquet file to parquet (its schema kept) against the `datasets` way
# of doing the same job (load_dataset("parquet") -> map -> to_parquet), in the same run,
# interleaved (results: BENCHMARKS.md; goal: ratio >= 10).
#
#   bench/parquet_export.sh                  # 150,000 records, 10,000 decisions, 3 runs each
#   bench/parquet_export.sh --records 30000 --decisions 2000 --repeat 1
#
# Options: --records N  --decisions K  --repeat R (runs per side, interleaved; medians)
#          --no-build
# Needs the venv of .ci/venv.sh (datasets, pyarrow; SPANREVIEW_TEST_PYTHON or target/pyenv).
# The file is the bundled sample repeated to N records by examples/to_parquet.rs (the schema
# `datasets` gives the sample, snappy, row groups of 1,000). K records with a span get a
# decision `drop gold:0` through `spanreview apply` (not timed). Timed, each with a cold
# page cache for neither (the file is read once first): `spanreview export big.parquet --db
# DB --out out.parquet`, and bench/parquet_export_baseline.py, which drops the same span of
# the same records in a `datasets` map (its cache in a fresh folder each run) and writes
# to_parquet. Both outputs are checked to load with the input's features and to hold the same
# labels. Peak RSS from wait4. Files in /tmp, deleted at exit. Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=150000
DECISIONS=10000
REPEAT=3
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS=$2; shift ;;
    --decisions) DECISIONS=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "parquet_export.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
PY=${SPANREVIEW_TEST_PYTHON:-$PWD/target/pyenv/bin/python}
[ -x "$PY" ] || { echo "parquet_export.sh: no venv python at $PY (eval \"\$(.ci/venv.sh)\")" >&2; exit 2; }
if [ "$BUILD" = 1 ]; then
  echo "== build (release)" >&2
  nice cargo build --release --quiet --bin spanreview --example to_parquet
fi
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
BIN=$TARGET/release/spanreview
WORK=$(mktemp -d /tmp/spanreview-pqex-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP
"$TARGET/release/examples/to_parquet" data/toolace/test_records_reconstructed.jsonl \
  "$WORK/big.parquet" --records "$RECORDS"
# K records with a span, spread over the file: `drop gold:0` on each.
"$PY" - "$WORK/big.parquet" "$DECISIONS" >"$WORK/decisions.jsonl" <<'PY'
import json, sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1], columns=["id", "hallucination_labels"])
ids = [i for i, l in zip(t["id"].to_pylist(), t["hallucination_labels"].to_pylist()) if l]
k = int(sys.argv[2]); step = max(1, len(ids) // k)
for i in ids[::step][:k]:
    print(json.dumps({"record_id": i, "action": "drop", "span_key": "gold:0"}))
PY
"$BIN" apply "$WORK/big.parquet" --decisions "$WORK/decisions.jsonl" --db "$WORK/db.sqlite" \
  --reviewer bench >/dev/null

# run NAME CMD...: one timed run, a JSON line with wall time and the child's peak RSS.
run() {
  local name=$1; shift
  python3 -c 'import json, os, subprocess, sys, time
t = time.monotonic(); p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0); wall = time.monotonic() - t
assert status == 0, (sys.argv[1], status)
print(json.dumps({"name": sys.argv[1], "s": wall, "rss_mib": ru.ru_maxrss / 1024}))' "$name" "$@"
}
{
  echo "# parquet export, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+dirty')"
  echo "machine: nproc $(nproc); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "input: $RECORDS records, $(stat -c %s "$WORK/big.parquet") bytes; $(wc -l <"$WORK/decisions.jsonl") decisions"
}
RES=$WORK/results.jsonl
cat "$WORK/big.parquet" >/dev/null
for _ in $(seq "$REPEAT"); do
  rm -f "$WORK/out.parquet"
  run spanreview "$BIN" export "$WORK/big.parquet" --db "$WORK/db.sqlite" --out "$WORK/out.parquet" >>"$RES"
  rm -rf "$WORK/hf" "$WORK/base.parquet"
  run datasets env HF_DATASETS_CACHE="$WORK/hf" HF_HUB_OFFLINE=1 "$PY" bench/parquet_export_baseline.py \
    "$WORK/big.parquet" "$WORK/decisions.jsonl" "$WORK/base.parquet" >>"$RES"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Both outputs: the input's features, the same labels.
HF_DATASETS_CACHE="$WORK/hf-check" HF_HUB_OFFLINE=1 "$PY" - "$WORK/big.parquet" "$WORK/out.parquet" "$WORK/base.parquet" <<'PY'
import sys, datasets, pyarrow.parquet as pq
load = lambda p: datasets.load_dataset("parquet", data_files=p, split="train")
a, b, c = (load(p) for p in sys.argv[1:])
assert a.features == b.features == c.features, "features differ"
assert b["hallucination_labels"] == c["hallucination_labels"], "labels differ"
meta = lambda p: pq.read_schema(p).metadata[b"huggingface"]
assert meta(sys.argv[1]) == meta(sys.argv[2]), "huggingface metadata differs"
print("check: both outputs load with the input's features and hold the same labels")
PY
python3 - "$RES" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = statistics.median
med = {}
for n in ("spanreview", "datasets"):
    rs = [r for r in rows if r["name"] == n]
    med[n] = m(r["s"] for r in rs)
    print("%-10s %7.2f s median (%s); peak RSS %.0f MiB median" % (n, med[n],
          ", ".join("%.2f" % r["s"] for r in rs), m(r["rss_mib"] for r in rs)))
ratio = med["datasets"] / med["spanreview"]
print("ratio datasets/spanreview: %.1fx  -> %s (goal >= 10)" % (ratio, "MET" if ratio >= 10 else "MISSED"))
PY
