#!/usr/bin/env bash
# One large `apply` (issues 22 item 5 and 28): LINES decisions of one reviewer
# (bench/team_load_gen.py's mix: accept, relabel, drop, note, flag, add, undo) applied to a new
# SQLite database, interleaved with the floor: `sqlite3` importing the same rows (the decisions
# and the record states `apply` wrote, read back from a first run) into a new file with the same
# schema in one transaction. Prints wall time and peak RSS of each (GNU time), the medians and
# the ratio spanreview / sqlite3, and from `apply --timings` how long the write lock was held.
# Then, during one more apply, a writer that takes the write lock as a review screen's save does
# (`BEGIN IMMEDIATE`, commit) every 20 ms: the longest it waited.
#
#   bench/apply_large.sh                         # 100,000 lines, 3 runs each, release build
#   bench/apply_large.sh --lines 1000000 --runs 1
#   bench/apply_large.sh --pg                    # also PostgreSQL against psql -1 + \copy
#
# Options: --lines N  --runs R  --file RECORDS.jsonl (default: the toolace records)  --debug
# --profile NAME (a cargo profile: profiling)  --no-build  --pg (needs SPANREVIEW_TEST_PG, e.g.
# from `eval "$(.ci/pg.sh start)"`)  --pg-only (PostgreSQL only: no SQLite runs)  --bin PATH
# (time this spanreview binary, e.g. an older build kept for a before/after; implies --no-build).
# The files live in a temporary folder, deleted at exit. Not a test: .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=100000
RUNS=3
FILE=data/toolace/test_records_reconstructed.jsonl
PROFILE=release
BUILD=1
PG=0
SQLITE=1
BIN_GIVEN=
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) LINES=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --file) FILE=$2; shift ;;
    --debug) PROFILE=debug ;;
    --profile) PROFILE=$2; shift ;;
    --no-build) BUILD=0 ;;
    --pg) PG=1 ;;
    --pg-only) PG=1; SQLITE=0 ;;
    --bin) BIN_GIVEN=$2; BUILD=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "apply_large.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$BUILD" = 1 ]; then
  if [ "$PROFILE" = debug ]; then cargo build -q --bin spanreview; else cargo build --profile "$PROFILE" -q --bin spanreview; fi
fi
BIN=$(realpath "${BIN_GIVEN:-target/$PROFILE/spanreview}")
W=$(mktemp -d /tmp/apply_large.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
python3 bench/team_load_gen.py "$FILE" 2 "$LINES" "$W"
D=$W/d-01.jsonl
echo "decisions: $(wc -l < "$D") lines, $(du -h "$D" | cut -f1)"

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t() { /usr/bin/time -f "%e %M" "$@" 2>"$W/t" >/dev/null || { tail -5 "$W/t" >&2; exit 1; }; tail -n1 "$W/t"; }
if [ "$SQLITE" = 1 ]; then
# The floor's input: the rows a first apply wrote, as one transaction of INSERTs after the schema.
"$BIN" apply "$FILE" --decisions "$D" --db "$W/ref.sqlite" >/dev/null
{
  sqlite3 "$W/ref.sqlite" .schema | grep -v '^CREATE TABLE sqlite_'
  echo "BEGIN;"
  sqlite3 "$W/ref.sqlite" ".mode insert decision" "SELECT * FROM decision"
  sqlite3 "$W/ref.sqlite" ".mode insert record_state" "SELECT * FROM record_state"
  echo "COMMIT;"
} > "$W/floor.sql"
rows=$(sqlite3 "$W/ref.sqlite" "SELECT COUNT(*) FROM decision")
echo "rows: $rows decisions, $(sqlite3 "$W/ref.sqlite" "SELECT COUNT(*) FROM record_state") record states"

sr=() fl=()
for i in $(seq "$RUNS"); do
  rm -f "$W"/db.sqlite* "$W"/floor.sqlite*
  sr+=("$(t "$BIN" apply "$FILE" --decisions "$D" --db "$W/db.sqlite" --timings "$W/timings")")
  fl+=("$(t sh -c "sqlite3 '$W/floor.sqlite' < '$W/floor.sql'")")
  [ "$(sqlite3 "$W/db.sqlite" "SELECT COUNT(*) FROM decision")" = "$rows" ] || { echo "apply saved another count" >&2; exit 1; }
  [ "$(sqlite3 "$W/floor.sqlite" "SELECT COUNT(*) FROM decision")" = "$rows" ] || { echo "the floor saved another count" >&2; exit 1; }
done
srw=$(median "${sr[@]%% *}") flw=$(median "${fl[@]%% *}")
srm=$(median "${sr[@]##* }") flm=$(median "${fl[@]##* }")
echo "SQLite, $RUNS runs each (wall s, max RSS KB): spanreview ${sr[*]} | sqlite3 ${fl[*]}"
echo "  median wall: spanreview $srw s, sqlite3 $flw s; ratio spanreview/sqlite3 $(awk "BEGIN {printf \"%.2f\", $srw/$flw}")"
echo "  median max RSS: spanreview $((srm / 1024)) MB, sqlite3 $((flm / 1024)) MB"
awk -F'\t' '{w+=$1; if ($2>h) h=$2; t++} END {printf "  apply transactions: %d, lock wait: %.0f ms, longest lock hold: %.0f ms\n", t, w, h}' "$W/timings"

# A screen's save during an apply: the longest wait for the write lock.
rm -f "$W"/db.sqlite*
sqlite3 "$W/ref.sqlite" ".backup '$W/db.sqlite'"
sqlite3 "$W/db.sqlite" "PRAGMA journal_mode=WAL" >/dev/null
python3 - "$W/db.sqlite" "$W/saver" <<'PY' &
import sqlite3, sys, time, os
db, out = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db, timeout=300, isolation_level=None)
waits = []
stop = time.time() + 600
while time.time() < stop and not os.path.exists(out + ".stop"):
    t0 = time.perf_counter()
    c.execute("BEGIN IMMEDIATE")
    waits.append(time.perf_counter() - t0)
    c.execute("COMMIT")
    time.sleep(0.02)
waits.sort()
with open(out, "w") as f:
    f.write(f"{len(waits)} {waits[-1] * 1e3:.0f} {waits[len(waits) // 2] * 1e3:.1f}\n")
PY
SAVER=$!
sleep 1
# Another reviewer's file (valid after the first) on the database the first one made.
/usr/bin/time -f "%e %M" "$BIN" apply "$FILE" --decisions "$W/d-02.jsonl" --db "$W/db.sqlite" \
  --timings "$W/timings2" >/dev/null 2>"$W/t2" || { tail -5 "$W/t2"; }
touch "$W/saver.stop"
wait "$SAVER"
read -r n longest med < "$W/saver"
echo "  a screen-style save every 20 ms during an apply ($(tail -n1 "$W/t2" | cut -d' ' -f1) s): $n saves, longest wait for the write lock $longest ms (median $med ms); apply held it $(awk -F'\t' '{print int($2)}' "$W/timings2") ms"

fi

if [ "$PG" = 1 ]; then
  : "${SPANREVIEW_TEST_PG:?--pg needs SPANREVIEW_TEST_PG (eval \"\$(.ci/pg.sh start)\")}"
  base=${SPANREVIEW_TEST_PG%/*}
  ps=() pf=()
  for i in $(seq "$RUNS"); do
    for which in sr floor; do
      db="apply_large_${which}_$$_$i"
      psql -q "$base/postgres" -c "CREATE DATABASE $db" >/dev/null
    done
    # The schema the store makes, and the rows as CSV from the reference run (ids kept).
    sr_db="$base/apply_large_sr_$$_$i" fl_db="$base/apply_large_floor_$$_$i"
    if [ "$i" = 1 ]; then
      "$BIN" apply "$FILE" --decisions "$D" --db "$fl_db" >/dev/null
      pg_dump --schema-only --no-owner --no-privileges "$fl_db" > "$W/pg_schema.sql"
      psql -q "$fl_db" -c "\\copy decision TO '$W/pg_decision.csv' CSV"
      psql -q "$fl_db" -c "\\copy record_state TO '$W/pg_state.csv' CSV"
      psql -q "$base/postgres" -c "DROP DATABASE apply_large_floor_$$_$i" >/dev/null
      psql -q "$base/postgres" -c "CREATE DATABASE apply_large_floor_$$_$i" >/dev/null
    fi
    ps+=("$(t "$BIN" apply "$FILE" --decisions "$D" --db "$sr_db" --timings "$W/pg_timings")")
    pf+=("$(t sh -c "psql -q -v ON_ERROR_STOP=1 -1 '$fl_db' -f '$W/pg_schema.sql' -c \"\\\\copy public.decision FROM '$W/pg_decision.csv' CSV\" -c \"\\\\copy public.record_state FROM '$W/pg_state.csv' CSV\"")")
    # Every row once, with the reference run's ids: the same count, origins and highest id.
    count() { psql -Atq "$1" -c "SELECT COUNT(*), COUNT(DISTINCT origin), MAX(id) FROM decision"; }
    [ "$(count "$sr_db")" = "$(count "$fl_db")" ] \
      || { echo "PostgreSQL: apply saved $(count "$sr_db") (rows|origins|max id), the floor $(count "$fl_db")" >&2; exit 1; }
    for which in sr floor; do
      psql -q "$base/postgres" -c "DROP DATABASE apply_large_${which}_$$_$i" >/dev/null
    done
  done
  psw=$(median "${ps[@]%% *}") pfw=$(median "${pf[@]%% *}")
  echo "PostgreSQL, $RUNS runs each (wall s, max RSS KB): spanreview ${ps[*]} | psql -1 + \\copy ${pf[*]}"
  echo "  median wall: spanreview $psw s, psql $pfw s; ratio spanreview/psql $(awk "BEGIN {printf \"%.2f\", $psw/$pfw}")"
  awk -F'\t' '{printf "%s%.0f", (NR > 1 ? ", " : "  write lock held (ms): "), $2} END {print ""}' "$W/pg_timings"
fi
