#!/usr/bin/env bash
# Memory of `stats` and `compare` (issue 22, item 7): max RSS (GNU time) and wall seconds on
#   - one record with a 150,000-code-point answer and 5,000 / 30,000 gold spans, and a
#     prediction file for it (bench/stats_gen.py);
#   - 1,500,000 small records (examples/gen, contexts of 100-300 bytes).
#
#   bench/stats_memory.sh                      # both cases
#   bench/stats_memory.sh --records 150000     # fewer small records
#   bench/stats_memory.sh --profile profiling  # the binary of another cargo profile
#   bench/stats_memory.sh --bin-dir DIR        # DIR/spanreview, DIR/examples/gen (no build)
#
# Data in $BENCH_DIR (default /work/bench-data)/stats-memory. Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
records=1500000 profile=release
while [ $# -gt 0 ]; do
  case "$1" in
    --records) records=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --bin-dir) bindir=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir=${BENCH_DIR:-/work/bench-data}/stats-memory
mkdir -p "$dir"
out=${bindir:-${CARGO_TARGET_DIR:-target}/$profile}
[ -n "${bindir:-}" ] || cargo build --profile "$profile" --quiet --bin spanreview --example gen
bin=$out/spanreview
db="$dir/empty.sqlite"
rm -f "$db" "$db-wal" "$db-shm"
: > "$dir/none.jsonl"
measure() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/time" "$@" >/dev/null 2>"$dir/stderr" || {
    echo "$label: failed"; tail -n3 "$dir/stderr"; return; }
  read -r wall rss < "$dir/time"
  echo "$label: $wall s, max RSS $((rss / 1024)) MB"
}
for spans in 5000 30000; do
  f="$dir/huge-$spans.jsonl" p="$dir/huge-$spans.pred.jsonl"
  [ -s "$p" ] || python3 bench/stats_gen.py huge "$f" --chars 150000 --spans "$spans" --predictions "$p"
  [ -s "$db" ] || "$bin" apply --decisions "$dir/none.jsonl" --db "$db" --dataset bench "$f" >/dev/null
  measure "one record, 150,000 code points, $spans spans: stats" \
    "$bin" stats "$f" --db "$db" --dataset bench
  measure "one record, 150,000 code points, $spans spans: stats with the prediction file" \
    "$bin" stats "$f" "$p" --db "$db" --dataset bench
  measure "one record, 150,000 code points, $spans spans: compare with the prediction file" \
    "$bin" compare "$f" "$p" --json
done
m="$dir/many-$records.jsonl"
[ -s "$m" ] || "$out/examples/gen" --records "$records" --out "$m" --context-min 100 --context-max 300
echo "$records small records: $(du -h "$m" | cut -f1)"
measure "$records records: stats" "$bin" stats "$m" --db "$db" --dataset bench
measure "$records records: compare (gold with itself)" "$bin" compare "$m" --b gold
