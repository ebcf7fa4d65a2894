#!/usr/bin/env bash
# Issue 4 benchmark: disagreement clustering of 150,000 records x 3 sources (gold + 2 detectors)
# with examples/cluster_bench.rs (SpanReader, and --full: Dataset::record), against
# bench/cluster_baseline.py on the same files; checks that all three report the same totals.
#
#   bench/cluster.sh [--repeat N] [--no-build]
#
# Data: $BENCH_DIR (default /work/bench-data) as bench/run.sh generates it:
#   records-150000-s1-*.jsonl and predictions-150000-s1-*/predictions_{alpha,beta}_combined.jsonl
#   (made if missing with: cargo run --release --example gen -- --records 150000 --out F
#    --predictions P1 --predictions P2).
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=3
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir="${BENCH_DIR:-/work/bench-data}"
target="${CARGO_TARGET_DIR:-target}"
if [ "$build" = 1 ]; then
  cargo build --release --example cluster_bench --example gen >&2
fi
records=$(ls -t "$dir"/records-150000-s1-*.jsonl 2>/dev/null | head -1 || true)
if [ -z "$records" ]; then
  records="$dir/records-150000-s1-bench.jsonl"
  mkdir -p "$dir/predictions-150000-s1-bench"
  "$target/release/examples/gen" --records 150000 --out "$records" \
    --predictions "$dir/predictions-150000-s1-bench/predictions_alpha_combined.jsonl" \
    --predictions "$dir/predictions-150000-s1-bench/predictions_beta_combined.jsonl" >&2
fi
tag=$(basename "$records" .jsonl); tag=${tag#records-}
preds="$dir/predictions-$tag"
files=("$records" "$preds/predictions_alpha_combined.jsonl" "$preds/predictions_beta_combined.jsonl")
du -ch "${files[@]}" | tail -1 | sed 's/^/input: /'
echo "machine: $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
# Warm the page cache for every contender.
cat "${files[@]}" > /dev/null

run() { # label, command...
  local label="$1"; shift
  local out
  out=$( { /usr/bin/time -v "$@" ; } 2>&1 )
  local wall user sys rss totals
  wall=$(grep 'Elapsed (wall clock)' <<<"$out" | awk '{print $NF}')
  user=$(grep 'User time' <<<"$out" | awk '{print $NF}')
  sys=$(grep 'System time' <<<"$out" | awk '{print $NF}')
  rss=$(grep 'Maximum resident' <<<"$out" | awk '{print $NF}')
  totals=$(grep '^records ' <<<"$out" | sed 's/ problems [0-9]*//')
  printf '%-8s wall %8s  cpu %6.2f s  rss %7.1f MB  load %s\n' "$label" "$wall" \
    "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
  echo "$totals" >> /tmp/cluster-bench-totals.$$
}
: > /tmp/cluster-bench-totals.$$
for i in $(seq "$repeat"); do
  echo "-- run $i"
  run skim   "$target/release/examples/cluster_bench" "${files[@]}"
  run full   "$target/release/examples/cluster_bench" "${files[@]}" --full
  run python python3 bench/cluster_baseline.py "${files[@]}"
done
n=$(sort -u /tmp/cluster-bench-totals.$$ | wc -l)
echo "totals (all runs): $(sort -u /tmp/cluster-bench-totals.$$ | head -1)"
if [ "$n" != 1 ]; then
  echo "MISMATCH between contenders:"; sort -u /tmp/cluster-bench-totals.$$
  rm -f /tmp/cluster-bench-totals.$$; exit 1
fi
rm -f /tmp/cluster-bench-totals.$$
echo "all contenders agree"
