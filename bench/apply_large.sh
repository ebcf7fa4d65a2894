#!/usr/bin/env bash
# One large `apply` (issue 22 item 5): LINES decisions of one reviewer (bench/team_load_gen.py's
# mix) applied to a new SQLite database, measured with GNU time: wall time, peak RSS, and from
# `apply --timings` the wait for the write lock and how long it was held (the longest stretch
# a review screen's save would wait behind).
#
#   bench/apply_large.sh                        # 1,000,000 lines, release build
#   bench/apply_large.sh --lines 100000 --debug  # quicker, the debug build
#
# Options: --lines N  --file RECORDS.jsonl (default: the toolace records)  --debug  --no-build
# The files live in a temporary folder, deleted at exit. Not a test: .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=1000000
FILE=data/toolace/test_records_reconstructed.jsonl
PROFILE=release
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) LINES=$2; shift ;;
    --file) FILE=$2; shift ;;
    --debug) PROFILE=debug ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "apply_large.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$BUILD" = 1 ]; then
  if [ "$PROFILE" = release ]; then cargo build --release -q --bin spanreview; else cargo build -q --bin spanreview; fi
fi
BIN=$(realpath "target/$PROFILE/spanreview")
W=$(mktemp -d /tmp/apply_large.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
python3 bench/team_load_gen.py "$FILE" 1 "$LINES" "$W"
echo "decisions: $(wc -l < "$W/d-01.jsonl") lines, $(du -h "$W/d-01.jsonl" | cut -f1)"
/usr/bin/time -v "$BIN" apply "$FILE" --decisions "$W/d-01.jsonl" --db "$W/db.sqlite" \
  --timings "$W/timings" >"$W/out" 2>"$W/err" || { cat "$W/err" | tail -5; exit 1; }
cat "$W/out"
grep -E "Elapsed \(wall|Maximum resident" "$W/err" | sed 's/^\s*/  /'
awk -F'\t' '{w+=$1; if ($2>h) h=$2; n+=$3; t++} END {printf "  transactions: %d, rows saved: %d, lock wait: %.0f ms, longest lock hold: %.0f ms\n", t, n, w, h}' "$W/timings"
