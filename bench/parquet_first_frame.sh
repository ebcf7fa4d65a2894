#!/usr/bin/env bash
# The review screen's first frame on a parquet file never opened before: 150,000 records
# against 1,000, in the same run, interleaved (results: BENCHMARKS.md; goal: ratio <= 1.5).
#
#   bench/parquet_first_frame.sh                 # 150,000 and 1,000 records, 5 runs each
#   bench/parquet_first_frame.sh --repeat 9 --records 300000
#
# Options: --records N (the big file)  --small N (the small one)  --repeat R (runs per file,
#          interleaved; medians)  --no-build
# The files are the bundled sample (data/toolace, 175 records) repeated to N records, ids
# suffixed `#k`, written by examples/to_parquet.rs (the Arrow writer of the parquet crate) with
# the schema `datasets` gives the sample, snappy, row groups of 1,000 rows. Each run is
# examples/cold_open.rs (`Dataset::open_lazy` + the first frame into a 200x60 TestBackend, as
# `spanreview review` opens one file) with a new, empty SPANREVIEW_CACHE_DIR; its peak RSS
# is read from wait4. The files live in /tmp and are deleted at exit. Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=150000
SMALL=1000
REPEAT=5
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS=$2; shift ;;
    --small) SMALL=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "parquet_first_frame.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$BUILD" = 1 ]; then
  echo "== build (release)" >&2
  nice cargo build --release --quiet --example to_parquet --example cold_open
fi
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
MAKE=$TARGET/release/examples/to_parquet
OPEN=$TARGET/release/examples/cold_open
WORK=$(mktemp -d /tmp/spanreview-pqff-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP
SAMPLE=data/toolace/test_records_reconstructed.jsonl
"$MAKE" "$SAMPLE" "$WORK/big.parquet" --records "$RECORDS"
"$MAKE" "$SAMPLE" "$WORK/small.parquet" --records "$SMALL"

# run FILE: one cold open (fresh cache), its JSON line with the child's peak RSS added.
run() {
  rm -rf "$WORK/cache"
  SPANREVIEW_CACHE_DIR=$WORK/cache python3 -c 'import json, os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
out = p.stdout.read(); _, status, ru = os.wait4(p.pid, 0)
assert status == 0, status
r = json.loads(out); r["rss_mib"] = ru.ru_maxrss / 1024; r["file"] = sys.argv[2]
print(json.dumps(r))' "$OPEN" "$1"
}
{
  echo "# parquet first frame, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+dirty')"
  echo "machine: nproc $(nproc); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "files: big $(stat -c %s "$WORK/big.parquet") bytes, small $(stat -c %s "$WORK/small.parquet") bytes"
}
RES=$WORK/results.jsonl
cat "$WORK/big.parquet" "$WORK/small.parquet" >/dev/null
for _ in $(seq "$REPEAT"); do
  run "$WORK/small.parquet" >>"$RES"
  run "$WORK/big.parquet" >>"$RES"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RES" <<'PY'
import json, os, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = statistics.median
med = {}
for f in dict.fromkeys(r["file"] for r in rows):
    rs = [r for r in rows if r["file"] == f]
    ff = [r["first_frame_ms"] for r in rs]
    rss = [r["rss_mib"] for r in rs]
    med[os.path.basename(f)] = m(ff)
    print("%-14s %7d records: first frame %7.1f ms median (%s); peak RSS %.0f MiB median (%s)"
          % (os.path.basename(f), rs[0]["records"], m(ff), ", ".join("%.1f" % x for x in ff),
             m(rss), ", ".join("%.0f" % x for x in rss)))
ratio = med["big.parquet"] / med["small.parquet"]
print("ratio big/small: %.2f  -> %s (goal <= 1.5)" % (ratio, "MET" if ratio <= 1.5 else "MISSED"))
PY
