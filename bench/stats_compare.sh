#!/usr/bin/env bash
# `spanreview compare` and `stats` against bench/compare_baseline.py and bench/stats_baseline.py
# (the same figures in plain Python, checked equal to 4 dp first), interleaved, on the synthetic
# records with three prediction files (gold + 3 detectors), a database without decisions.
#
#   bench/stats_compare.sh                   # 150,000 records (~1.5 GB + 3 prediction files)
#   bench/stats_compare.sh --records 15000   # a smaller set
#   bench/stats_compare.sh --repeat 3        # runs per contender (medians reported)
#   bench/stats_compare.sh --profile profiling   # the binary of another cargo profile
#   bench/stats_compare.sh --bin-dir DIR         # DIR/spanreview, DIR/examples/gen (no build)
#
# Data in $BENCH_DIR (default /work/bench-data). Prints wall seconds and max RSS (GNU time) per
# run, the medians and the ratio Python / spanreview. Not a test: .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
records=150000 repeat=3 profile=release
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
data="$dir/stats-$records"
mkdir -p "$data"
out=${bindir:-${CARGO_TARGET_DIR:-target}/$profile}
[ -n "${bindir:-}" ] || cargo build --profile "$profile" --quiet --bin spanreview --example gen
bin=$out/spanreview
recs="$data/records.jsonl"
preds=("$data/predictions_alpha_combined.jsonl" "$data/predictions_beta_combined.jsonl"
  "$data/predictions_gamma_combined.jsonl")
if [ ! -s "${preds[2]}" ]; then
  "$out/examples/gen" --records "$records" --out "$recs" \
    --predictions "${preds[0]}" --predictions "${preds[1]}" --predictions "${preds[2]}"
fi
db="$data/empty.sqlite"
rm -f "$db" "$db-wal" "$db-shm"
: > "$data/none.jsonl"
"$bin" apply --decisions "$data/none.jsonl" --db "$db" --dataset bench "$recs" >/dev/null
files=("$recs" "${preds[@]}")

# The same numbers first: every figure of Python's in spanreview's JSON, equal to 4 dp.
"$bin" compare "${files[@]}" --json > "$data/compare.rs.json"
python3 bench/compare_baseline.py "${files[@]}" > "$data/compare.py.json"
"$bin" stats "${files[@]}" --db "$db" --dataset bench --json > "$data/stats.rs.json"
python3 bench/stats_baseline.py "${files[@]}" > "$data/stats.py.json"
python3 - "$data" <<'PY'
import json, sys
d = sys.argv[1]

def same(py, rs, where):
    """Every value of py is in rs, numbers equal to 4 dp."""
    if isinstance(py, dict):
        for k, v in py.items():
            same(v, rs[k], f"{where}.{k}")
    elif isinstance(py, list):
        assert len(py) == len(rs), f"{where}: {len(py)} != {len(rs)}"
        for k, (a, b) in enumerate(zip(py, rs)):
            same(a, b, f"{where}[{k}]")
    elif isinstance(py, float) or isinstance(rs, float):
        assert py is not None and rs is not None and round(py, 4) == round(rs, 4), \
            f"{where}: python {py} != spanreview {rs}"
    else:
        assert py == rs, f"{where}: python {py} != spanreview {rs}"

rs = [json.loads(l) for l in open(f"{d}/compare.rs.json")]
py = [json.loads(l) for l in open(f"{d}/compare.py.json")]
same(py, [{k: r[k] for k in ("a", "b", "overall")} for r in rs], "compare")
comparisons = len(py)
rs = json.load(open(f"{d}/stats.rs.json"))
py = json.load(open(f"{d}/stats.py.json"))
same(py["disagreement"], rs["disagreement"], "stats.disagreement")
assert py["records"] == rs["progress"]["records"], "stats.records"
same(py["sources"], [{"name": s["name"], "overall": s["overall"]} for s in rs["sources"]],
     "stats.sources")
same(py["pairs"], [{k: p[k] for k in ("a", "b", "overall")} for p in rs["pairs"]], "stats.pairs")
print(f"same figures: compare {comparisons} comparisons, "
      f"stats {len(rs['sources'])} sources and {len(rs['pairs'])} pairs")
PY

t="$dir/time.$$"
run() { /usr/bin/time -f "%e %M" "$@" >/dev/null 2>>"$t"; tail -n1 "$t"; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cat "${files[@]}" > /dev/null
crs=() cpy=() srs=() spy=() cat_=()
for i in $(seq "$repeat"); do
  cat_+=("$(run cat "${files[@]}")")
  crs+=("$(run "$bin" compare "${files[@]}")")
  cpy+=("$(run python3 bench/compare_baseline.py "${files[@]}")")
  srs+=("$(run "$bin" stats "${files[@]}" --db "$db" --dataset bench)")
  spy+=("$(run python3 bench/stats_baseline.py "${files[@]}")")
done
rm -f "$t"
echo "records $records x (gold + 3 prediction files), $repeat runs each (wall s, max RSS KB), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cat: ${cat_[*]}"
for c in compare stats; do
  if [ $c = compare ]; then r=("${crs[@]}") p=("${cpy[@]}"); else r=("${srs[@]}") p=("${spy[@]}"); fi
  rw=$(median "${r[@]%% *}") pw=$(median "${p[@]%% *}")
  rm_=$(median "${r[@]##* }") pm=$(median "${p[@]##* }")
  echo "$c: spanreview ${r[*]} | python ${p[*]}"
  echo "$c median wall: spanreview $rw s, python $pw s; ratio python/spanreview $(awk "BEGIN {printf \"%.1f\", $pw/$rw}"); max RSS spanreview $rm_ KB, python $pm KB"
done
