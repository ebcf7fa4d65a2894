#!/usr/bin/env bash
# `spanreview convert` against bench/convert_baseline.py (the same mapping in plain Python,
# byte-identical output, checked first), interleaved, with wall seconds and max RSS:
#   to-prodigy: RAGTruth records -> new Prodigy tasks (`--to prodigy`)
#   back:       those tasks -> onto the RAGTruth records (`--to ragtruth --records`)
#
#   bench/convert.sh                    # 20,000 records (~200 MB)
#   bench/convert.sh --records 150000   # the 1.5 GB set
#   bench/convert.sh --repeat 5         # runs per contender (medians reported)
#   bench/convert.sh --bin-dir DIR      # DIR/spanreview, DIR/examples/gen (no build)
#
# Data in $BENCH_DIR (default /work/bench-data). Not a test: .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
records=20000 repeat=3 profile=release
while [ $# -gt 0 ]; do
  case "$1" in
    --records) records=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --bin-dir) bindir=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir=${BENCH_DIR:-/work/bench-data}
data="$dir/convert-$records"
mkdir -p "$data"
out=${bindir:-${CARGO_TARGET_DIR:-target}/$profile}
[ -n "${bindir:-}" ] || cargo build --profile "$profile" --quiet --bin spanreview --example gen
bin=$out/spanreview
recs="$data/records.jsonl"
[ -s "$recs" ] || "$out/examples/gen" --records "$records" --broken 0 --out "$recs"
tasks="$data/tasks.rs.jsonl" back="$data/back.rs.jsonl"

# The same bytes first.
"$bin" convert "$recs" --to prodigy --out "$tasks" 2>/dev/null
python3 bench/convert_baseline.py to-prodigy "$recs" "$data/tasks.py.jsonl"
cmp "$tasks" "$data/tasks.py.jsonl"
"$bin" convert "$tasks" --to ragtruth --records "$recs" --out "$back" 2>/dev/null
python3 bench/convert_baseline.py back "$tasks" "$recs" "$data/back.py.jsonl"
cmp "$back" "$data/back.py.jsonl"
echo "same bytes: to-prodigy $(wc -l < "$tasks") tasks, back $(wc -l < "$back") records"

t="$dir/time.$$"
run() { /usr/bin/time -f "%e %M" "$@" >/dev/null 2>>"$t"; tail -n1 "$t"; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cat "$recs" "$tasks" > /dev/null
prs=() ppy=() brs=() bpy=() cp_=()
for i in $(seq "$repeat"); do
  cp_+=("$(run sh -c "cp '$recs' '$data/copy' && sync '$data/copy'")")
  prs+=("$(run "$bin" convert "$recs" --to prodigy --out "$tasks")")
  ppy+=("$(run python3 bench/convert_baseline.py to-prodigy "$recs" "$data/tasks.py.jsonl")")
  brs+=("$(run "$bin" convert "$tasks" --to ragtruth --records "$recs" --out "$back")")
  bpy+=("$(run python3 bench/convert_baseline.py back "$tasks" "$recs" "$data/back.py.jsonl")")
done
rm -f "$t" "$data/copy"
echo "records $records ($(du -h "$recs" | cut -f1)), $repeat runs each (wall s, max RSS KB), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cp+sync: ${cp_[*]}"
for c in to-prodigy back; do
  if [ $c = to-prodigy ]; then r=("${prs[@]}") p=("${ppy[@]}"); else r=("${brs[@]}") p=("${bpy[@]}"); fi
  rw=$(median "${r[@]%% *}") pw=$(median "${p[@]%% *}")
  rm_=$(median "${r[@]##* }") pm=$(median "${p[@]##* }")
  echo "$c: spanreview ${r[*]} | python ${p[*]}"
  echo "$c median wall: spanreview $rw s, python $pw s; ratio python/spanreview $(awk "BEGIN {printf \"%.1f\", $pw/$rw}"); max RSS spanreview $rm_ KB, python $pm KB"
done
