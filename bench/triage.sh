#!/usr/bin/env bash
# `spanreview triage` against bench/triage_baseline.py (the same checks in plain Python, the
# same flags out, checked equal as JSON values), interleaved, on the synthetic records.
#
#   bench/triage.sh                  # 150,000 records (~1.5 GB) in $BENCH_DIR (/work/bench-data)
#   bench/triage.sh --records 15000  # a smaller file
#   bench/triage.sh --repeat 3       # runs per contender (medians reported)
#
# Prints wall seconds and max RSS (GNU time) per run, the medians and the ratio Python /
# spanreview. Not a test: .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
records=150000 repeat=3
while [ $# -gt 0 ]; do
  case "$1" in
    --records) records=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir=${BENCH_DIR:-/work/bench-data}
mkdir -p "$dir"
data="$dir/triage-records-$records.jsonl"
cargo build --release --quiet --bin spanreview --example gen
bin=${CARGO_TARGET_DIR:-target}/release/spanreview
[ -s "$data" ] || "${CARGO_TARGET_DIR:-target}/release/examples/gen" --records "$records" --out "$data"
# A few boundary defects planted by the generator's own behaviour are not enough to check
# the two agree: they must agree on every flag, whatever the count.
"$bin" triage "$data" --out "$dir/triage.rs.jsonl" --dataset bench >/dev/null
python3 bench/triage_baseline.py "$data" "$dir/triage.py.jsonl" bench 2>/dev/null
python3 - "$dir/triage.rs.jsonl" "$dir/triage.py.jsonl" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
b = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
assert a == b, f"the flags differ: spanreview {len(a)}, python {len(b)}; first difference " + \
    next((f"{x} != {y}" for x, y in zip(a, b) if x != y), "in length")
print(f"same {len(a)} flags")
PY
run() { /usr/bin/time -f "%e %M" "$@" >/dev/null 2>>"$dir/time.$$"; tail -n1 "$dir/time.$$"; }
rs=() py=()
for i in $(seq "$repeat"); do
  rs+=("$(run "$bin" triage "$data" --out "$dir/triage.rs.jsonl" --dataset bench)")
  py+=("$(run python3 bench/triage_baseline.py "$data" "$dir/triage.py.jsonl" bench)")
done
rm -f "$dir/time.$$"
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rsw=$(median "${rs[@]%% *}") pyw=$(median "${py[@]%% *}")
rsm=$(median "${rs[@]##* }") pym=$(median "${py[@]##* }")
echo "records $records, $repeat runs each (wall s, max RSS KB): spanreview ${rs[*]} | python ${py[*]}"
echo "median wall: spanreview $rsw s, python $pyw s; ratio python/spanreview $(awk "BEGIN {printf \"%.1f\", $pyw/$rsw}")"
echo "median max RSS: spanreview $rsm KB, python $pym KB"
