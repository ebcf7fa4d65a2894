#!/usr/bin/env bash
# Diagnostic (run after bench/cold_open.sh built the release examples): lazy first frame on the 1.54 GB and 15.4 GB files interleaved run by run, both
# warm at once (the same memory pressure for both).
set -euo pipefail
cd "$(dirname "$0")/.."
T=target/release/examples
W=$(mktemp -d /tmp/spanreview-cold-XXXXXX)
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP
$T/gen --records 150000 --seed 1 --out $W/small.jsonl 2>/dev/null
for _ in $(seq 10); do cat $W/small.jsonl; done > $W/big.jsonl
cat $W/big.jsonl > /dev/null; cat $W/small.jsonl > /dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); free: $(free -m | awk '/Mem/{print $4" MiB free, "$6" MiB cache"}')"
fincore $W/small.jsonl $W/big.jsonl
for i in $(seq "${REPEAT:-10}"); do
  order="small big"; [ $((i % 2)) = 0 ] && order="big small"
  for f in $order; do
    rm -rf $W/cache; echo "$f $(SPANREVIEW_CACHE_DIR=$W/cache $T/cold_open $W/$f.jsonl)"
  done
done
fincore $W/small.jsonl $W/big.jsonl
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
