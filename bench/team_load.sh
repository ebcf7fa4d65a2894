#!/usr/bin/env bash
# Issue 11 load (results: BENCHMARKS.md, "Team load"): one SQLite file, PROCS `spanreview apply`
# processes of PER decisions each started at once, while SCREENS review screens (tmux sessions
# running `spanreview review`) press keys. With --db URL, the same on a PostgreSQL server
# (issue 12): each run's databases are created there (and dropped after) instead of files.
#
#   bench/team_load.sh                 # 20 × 500, 8 screens, 3 runs, release binary
#   bench/team_load.sh --repeat 1 --no-build
#   eval "$(PG_FSYNC=on .ci/pg.sh start)"; bench/team_load.sh --db "$SPANREVIEW_TEST_PG"
#
# Options: --procs N (20)  --per N (500)  --screens N (8)  --repeat R (3)  --no-build
#          --chunks K (1): each of the PROCS workers applies its PER decisions as K files, one
#          `apply` (one transaction) after another: more commits to take the latency of
#          --file RECORDS (data/toolace/test_records_reconstructed.jsonl)
#          --db URL: a PostgreSQL database on a server where this user may CREATE DATABASE (the
#          script's databases are made beside it; needs psql)
# Env: BENCH_DIR (work folder; default /tmp/team-load), CARGO_TARGET_DIR, BIN (the binary to
# run instead of the release build's).
#
# Each run, on a fresh database: first the baseline, one process applying all PROCS × PER
# decisions (the same lines, one file) alone; then the load. Checked after each run, any failure
# exits 1: every apply exited 0 with "N decisions saved"; the database holds exactly PROCS × PER
# rows of the apply reviewers; each screen's rows equal the decisions its log file says it saved
# (nothing it called saved was lost); no "locked" or "NOT saved" on any process's stderr, in a
# screen's log or on its last status line; every screen quits with 0.
# Commit latency: each apply writes, per transaction (one per process: a file is all or none),
# the ms it waited for the write lock and the ms it held it (check, insert, state, fsync'd
# commit) (`apply --timings`, hidden); p50/p99 are over every run's transactions.
# Not a test: .ci/run does not call it.
set -euo pipefail

PROCS=20 PER=500 SCREENS=8 REPEAT=3 BUILD=1 CHUNKS=1 PG=
FILE=data/toolace/test_records_reconstructed.jsonl
while [ $# -gt 0 ]; do
    case "$1" in
        --procs) PROCS=$2; shift 2 ;;
        --per) PER=$2; shift 2 ;;
        --screens) SCREENS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --chunks) CHUNKS=$2; shift 2 ;;
        --file) FILE=$2; shift 2 ;;
        --db) PG=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
[ "$BUILD" = 1 ] && cargo build --release --bin spanreview >&2
BIN=$(realpath "${BIN:-$TARGET/release/spanreview}")
W=${BENCH_DIR:-/tmp/team-load}
rm -rf "$W"
mkdir -p "$W"
python3 bench/team_load_gen.py "$FILE" "$PROCS" "$PER" "$W" "$CHUNKS"
FILE=$(realpath "$FILE")
TAG="srload$$"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
now() { date +%s.%N; }
# Run $run's new database NAME: the file DIR/NAME.sqlite, or on the --db server (its URL, the
# --db URL's with another database name).
newdb() {
    if [ -z "$PG" ]; then echo "$2/$1.sqlite"; return; fi
    local bare=${PG%%\?*}
    psql "$PG" -qAt -c "CREATE DATABASE ${TAG}_$1_$run" >/dev/null
    echo "${bare%/*}/${TAG}_$1_$run${PG#"$bare"}"
}
q() {
    if [ -n "$PG" ]; then psql "$1" -qAt -c "$2"; else sqlite3 -cmd ".timeout 60000" "$1" "$2"; fi
}

cleanup() {
    for k in $(seq 1 "$SCREENS"); do tmux kill-session -t "$TAG-$k" 2>/dev/null || true; done
    [ -z "$PG" ] && return
    for d in $(psql "$PG" -qAt -c "SELECT datname FROM pg_database WHERE datname LIKE '${TAG}_%'"); do
        psql "$PG" -qAt -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null || true
    done
}
trap cleanup EXIT

: > "$W/base-wall.txt"
: > "$W/load-wall.txt"
for run in $(seq 1 "$REPEAT"); do
    R="$W/run$run"
    mkdir -p "$R"
    # Baseline: one process, every decision, alone.
    BASE=$(newdb base "$R")
    t0=$(now)
    "$BIN" apply "$FILE" --decisions "$W/all.jsonl" --db "$BASE" \
        --timings "$R/base-timings.tsv" > "$R/base.out" 2> "$R/base.err" || bad "baseline exit $?"
    t1=$(now)
    echo "$t1 - $t0" | bc >> "$W/base-wall.txt"

    DB=$(newdb load "$R")
    # The screens open the database first (one creates it), each on its own reviewer.
    for k in $(seq 1 "$SCREENS"); do
        tmux new-session -d -s "$TAG-$k" -x 120 -y 36 \
            "SPANREVIEW_LOG='$R/screen-$k.log' '$BIN' review '$FILE' --db '$DB' --reviewer screen-$k \
             --queue all 2> '$R/screen-$k.err'; echo \$? > '$R/screen-$k.rc'"
    done
    for k in $(seq 1 "$SCREENS"); do
        for _ in $(seq 1 100); do
            tmux capture-pane -p -t "$TAG-$k" | grep -q "toolace_" && break
            sleep 0.1
        done
    done
    # Keys: accept, next span, flag, accept all, undo, redo, drop with a reason, next record.
    touch "$R/pressing"
    (
        keys=(a j f A u C-r x z Enter n a n)
        i=0
        while [ -e "$R/pressing" ]; do
            for k in $(seq 1 "$SCREENS"); do
                tmux send-keys -t "$TAG-$k" "${keys[$(( (i + k) % ${#keys[@]} ))]}" 2>/dev/null || true
            done
            i=$((i + 1))
            sleep 0.05
        done
    ) &
    presser=$!
    sleep 1
    t0=$(now)
    pids=()
    for p in $(seq -f "%02g" 1 "$PROCS"); do
        if [ "$CHUNKS" = 1 ]; then
            "$BIN" apply "$FILE" --decisions "$W/d-$p.jsonl" --db "$DB" \
                --timings "$R/timings.tsv" > "$R/apply-$p.out" 2> "$R/apply-$p.err" &
        else
            (
                for c in $(seq -f "%02g" 0 $((CHUNKS - 1))); do
                    "$BIN" apply "$FILE" --decisions "$W/d-$p-$c.jsonl" --db "$DB" \
                        --timings "$R/timings.tsv" >> "$R/apply-$p.out" 2>> "$R/apply-$p.err" || exit $?
                done
            ) &
        fi
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || bad "run $run: apply $((i + 1)) exited $?"
    done
    t1=$(now)
    echo "$t1 - $t0" | bc >> "$W/load-wall.txt"
    sleep 1
    rm "$R/pressing"
    wait "$presser" || true
    sleep 0.5
    for k in $(seq 1 "$SCREENS"); do
        tmux send-keys -t "$TAG-$k" Escape Escape 2>/dev/null || true
        tmux capture-pane -p -t "$TAG-$k" > "$R/screen-$k.txt" || true
        tmux send-keys -t "$TAG-$k" q 2>/dev/null || true
    done
    for k in $(seq 1 "$SCREENS"); do
        for _ in $(seq 1 100); do [ -e "$R/screen-$k.rc" ] && break; sleep 0.1; done
        [ "$(cat "$R/screen-$k.rc" 2>/dev/null)" = 0 ] || bad "run $run: screen $k exit $(cat "$R/screen-$k.rc" 2>/dev/null || echo none)"
        said=$(grep -c "decision saved" "$R/screen-$k.log" 2>/dev/null || true)
        have=$(q "$DB" "SELECT count(*) FROM decision WHERE reviewer = 'screen-$k'")
        echo "screen $k: $have rows, its log says $said saved" >> "$R/screens.txt"
        [ "$said" = "$have" ] || bad "run $run: screen $k saved $said, the database has $have"
        if grep -qi "locked\|NOT saved" "$R/screen-$k.txt" "$R/screen-$k.err" "$R/screen-$k.log" 2>/dev/null; then
            bad "run $run: screen $k: $(grep -hi "locked\|NOT saved" "$R/screen-$k.txt" "$R/screen-$k.err" "$R/screen-$k.log" | head -1)"
        fi
    done
    for p in $(seq -f "%02g" 1 "$PROCS"); do
        saved=$(grep -o "[0-9]* decisions saved" "$R/apply-$p.out" | awk '{s += $1} END {print s + 0}')
        [ "$saved" = "$PER" ] || bad "run $run: apply $p saved $saved: $(head -3 "$R/apply-$p.out")"
        if [ -s "$R/apply-$p.err" ]; then bad "run $run: apply $p stderr: $(head -1 "$R/apply-$p.err")"; fi
    done
    rows=$(q "$DB" "SELECT count(*) FROM decision WHERE reviewer LIKE 'apply-%'")
    [ "$rows" = $((PROCS * PER)) ] || bad "run $run: $rows apply rows, want $((PROCS * PER))"
    base_rows=$(q "$BASE" "SELECT count(*) FROM decision")
    [ "$base_rows" = $((PROCS * PER)) ] || bad "run $run: baseline $base_rows rows"
    screens=$(q "$DB" "SELECT count(*) FROM decision WHERE reviewer LIKE 'screen-%'")
    echo "run $run: load $(tail -1 "$W/load-wall.txt") s, baseline $(tail -1 "$W/base-wall.txt") s; apply rows $rows, screen rows $screens" >&2
done

python3 - "$W" "$REPEAT" "$PROCS" "$PER" "$SCREENS" <<'EOF'
import statistics, sys
w, repeat, procs, per, screens = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def floats(p):
    return [float(x) for x in open(p) if x.strip()]
def tsv(p):
    return [tuple(float(v) for v in l.split("\t")) for l in open(p) if l.strip()]
def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q / 100 * len(xs) + 0.5) - 1))]
load, base = floats(f"{w}/load-wall.txt"), floats(f"{w}/base-wall.txt")
t = [x for r in range(1, repeat + 1) for x in tsv(f"{w}/run{r}/timings.tsv")]
b = [x for r in range(1, repeat + 1) for x in tsv(f"{w}/run{r}/base-timings.tsv")]
lat = [x[0] + x[1] for x in t]
held = [x[1] for x in t]
ml, mb = statistics.median(load), statistics.median(base)
print(f"{procs} apply x {per} decisions + {screens} screens, {repeat} runs (median wall), {len(t)} transactions")
print(f"| load wall (s) | {ml:.2f} | runs: {', '.join(f'{x:.2f}' for x in load)} |")
print(f"| baseline: 1 process, all {int(procs)*int(per)} (s) | {mb:.2f} | runs: {', '.join(f'{x:.2f}' for x in base)} |")
print(f"| load / baseline | {ml / mb:.2f} | |")
print(f"| commit latency (wait + held), ms: p50 / p99 / max | {pct(lat, 50):.0f} / {pct(lat, 99):.0f} / {max(lat):.0f} | {len(lat)} transactions |")
print(f"| lock held per transaction ({int(t[0][2]) if t else 0} rows), ms: p50 / p99 | {pct(held, 50):.0f} / {pct(held, 99):.0f} | |")
print(f"| baseline lock held ({int(procs)*int(per)} rows), ms | {statistics.median([x[1] for x in b]):.0f} | |")
EOF
[ "$fail" = 0 ] || { echo "FAILED (details above; files in $W)" >&2; exit 1; }
echo "all checks passed (files in $W)" >&2
