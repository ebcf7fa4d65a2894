#!/usr/bin/env bash
# Issue 2, 3 and 5 benchmarks, side by side in one run (results: BENCHMARKS.md).
#
#   bench/run.sh                      # 150,000 records (~1.5 GB) in $BENCH_DIR (/work/bench-data)
#   bench/run.sh --quick              # 15,000 records (~150 MB), for a small machine
#   bench/run.sh --skip-python-open   # skip the slow Python load-everything baseline (~6 GB RSS)
#
# Options: --records N  --seed S  --repeat R (runs per contender, interleaved; medians reported)
#          --index I (record to fetch; default 140000, or 14/15 of the file)  --no-cold
#          --skip-validate  --skip-open  --skip-export  --skip-review
#          --decisions N (export: decisions in the review database; default one per 15
#          records, 10000 for 150,000)
#          --before DIR (also time the release binaries of an older commit, built into the cargo
#          target folder DIR: DIR/release/spanreview and DIR/release/examples/open_at, as
#          "before" contenders in the same run)
#          --no-build (use the release binaries already in target/, e.g. while the tree does not build)
# Env: BENCH_DIR (data and results), CARGO_TARGET_DIR (where the binaries are built).
# To measure a pinned commit while others edit the tree: git worktree add --detach /tmp/wt HEAD,
# then CARGO_TARGET_DIR=/tmp/wt-target /tmp/wt/bench/run.sh (copy this script there if newer).
#          --detectors K (also generate K detector prediction files for the same records, in
#          $PRED_DIR, and time opening record I with them joined: gold + K detector sources)
#
# (a) `spanreview validate --strict` against bench/validate_baseline.py --strict (the same
#     checks): wall time, CPU time (user+sys) and max RSS from GNU time, and the ratios.
# (b) examples/open_at.rs (Dataset::open + record(I)) against bench/open_at_baseline.py
#     (`[json.loads(l) for l in f]`): elapsed ms and peak RSS (VmHWM), warm page cache, plus one
#     run with the file evicted from the page cache (cold). Index sidecars go to a cache folder
#     made fresh for the run: the first open scans the file and writes the sidecar ("first
#     open"), later ones read it; "scan" runs turn the cache off (SPANREVIEW_INDEX_CACHE=off).
# (c) issue 3: examples/review_open.rs, the review screen's first frame (TestBackend): time
#     and peak RSS, with and without the sidecar.
# (d) issue 5: `spanreview export --out` with N decisions (examples/gen_decisions.rs) against
#     bench/export_baseline.py (streaming json load -> apply -> dump, fsync + rename), after
#     checking that both outputs hold the same records as JSON values; and the floor of any
#     export here: a kernel copy of the file and an fsync. spanreview twice: with the file's
#     ids saved (as after a review) and on a file never opened (empty cache). Every contender
#     writes a new file (the previous output removed and synced, untimed).
# The data file is generated once per (records, seed, generator source) and reused. Not a test:
# .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BENCH_DIR=${BENCH_DIR:-/work/bench-data}
RECORDS=150000
SEED=1
REPEAT=3
INDEX=
PY_OPEN=1
VALIDATE=1
OPEN=1
COLD=1
DETECTORS=0
BUILD=1
EXPORT=1
REVIEW=1
DECISIONS=
BEFORE=
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS=$2; shift ;;
    --seed) SEED=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --index) INDEX=$2; shift ;;
    --quick) RECORDS=15000 ;;
    --skip-python-open) PY_OPEN=0 ;;
    --skip-validate) VALIDATE=0 ;;
    --skip-open) OPEN=0 ;;
    --no-cold) COLD=0 ;;
    --detectors) DETECTORS=$2; shift ;;
    --no-build) BUILD=0 ;;
    --skip-export) EXPORT=0 ;;
    --skip-review) REVIEW=0 ;;
    --decisions) DECISIONS=$2; shift ;;
    --before) BEFORE=$2; shift ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$DECISIONS" ] || DECISIONS=$(( RECORDS / 15 > 0 ? RECORDS / 15 : 1 ))
if [ -z "$INDEX" ]; then
  if [ "$RECORDS" -gt 140000 ]; then INDEX=140000; else INDEX=$((RECORDS * 14 / 15)); fi
fi

# GNU time for max RSS.
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq time >/dev/null
  else
    echo "run.sh: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 2
  fi
fi

if [ "$BUILD" = 1 ]; then
  echo "== build (release)" >&2
  nice cargo build --release --quiet --bin spanreview --example gen --example open_at \
    --example gen_decisions --example review_open
fi
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/spanreview
GEN=$TARGET/release/examples/gen
OPEN_AT=$TARGET/release/examples/open_at
REVIEW_OPEN=$TARGET/release/examples/review_open
GEN_DECISIONS=$TARGET/release/examples/gen_decisions
if [ -n "$BEFORE" ]; then
  BIN_BEFORE=$BEFORE/release/spanreview
  OPEN_AT_BEFORE=$BEFORE/release/examples/open_at
  [ -x "$BIN_BEFORE" ] && [ -x "$OPEN_AT_BEFORE" ] || { echo "run.sh: --before $BEFORE: no release/spanreview and release/examples/open_at there" >&2; exit 2; }
fi

# Data: generated once per (records, seed, generator source), reused after. Prediction files of
# detectors alpha, beta, gamma... go in $PRED_DIR (the reader names a detector after its file).
mkdir -p "$BENCH_DIR"
GEN_HASH=$(cat examples/gen/*.rs | sha1sum | cut -c1-8)
FILE=$BENCH_DIR/records-$RECORDS-s$SEED-$GEN_HASH.jsonl
PRED_DIR=$BENCH_DIR/predictions-$RECORDS-s$SEED-$GEN_HASH
NAMES=(alpha beta gamma delta epsilon zeta eta theta)
PREDS=()
for k in $(seq 0 $((DETECTORS - 1))); do
  PREDS+=("$PRED_DIR/predictions_${NAMES[$k]}_combined.jsonl")
done
missing=0
[ -s "$FILE" ] || missing=1
for p in "${PREDS[@]}"; do [ -s "$p" ] || missing=1; done
if [ "$missing" = 1 ]; then
  echo "== generate $FILE (+ $DETECTORS prediction files)" >&2
  mkdir -p "$PRED_DIR"
  pred_args=()
  for p in "${PREDS[@]}"; do pred_args+=(--predictions "$p.tmp"); done
  "$GEN" --records "$RECORDS" --seed "$SEED" --out "$FILE.tmp" "${pred_args[@]}"
  mv "$FILE.tmp" "$FILE"
  for p in "${PREDS[@]}"; do mv "$p.tmp" "$p"; done
fi
OUT=$BENCH_DIR/results-$(date -u +%Y%m%dT%H%M%SZ).txt
TMP=$(mktemp -d)
# Index sidecars of this run only: the first open of each file has none.
export SPANREVIEW_CACHE_DIR=$BENCH_DIR/cache-$$
rm -rf "$SPANREVIEW_CACHE_DIR"
trap 'rm -rf "$TMP" "$SPANREVIEW_CACHE_DIR" "$BENCH_DIR/export-out-$$" "$BENCH_DIR/cache-first-$$"' EXIT
RES=$TMP/results.tsv
: >"$RES"

{
  echo "# spanreview issue-2/3/5 benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+dirty'), binary built $(date -u -r "$BIN" '+%H:%M UTC')"
  echo "file: $FILE ($(du -h "$FILE" | cut -f1), $RECORDS records, seed $SEED)"
  echo "machine: nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  free -h | sed 's/^/  /'
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: compare ratios, not absolute times)"
} | tee "$OUT"

# measure LABEL CMD...: run under GNU time; append "LABEL wall cpu maxrss_kb exit" to $RES.
# Exit codes 0 and 1 (problems found) are results; anything else stops the script.
measure() {
  local label=$1; shift
  local rc=0
  /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$@" >"$TMP/$label.out" 2>"$TMP/$label.err" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "run.sh: $label failed (exit $rc):" >&2; tail -5 "$TMP/$label.err" >&2; exit 1
  fi
  read -r wall user sys rss < <(tail -n1 "$TMP/time")
  echo "$label $wall $(echo "$user + $sys" | bc) $rss $rc" >>"$RES"
}

# The index sidecars of this run's cache folder (evicted with the files for cold opens).
sidecars() { find "$SPANREVIEW_CACHE_DIR" -name '*.idx' 2>/dev/null; }

# Evict FILE from the page cache (it must be clean: fsync first), for a cold open.
evict() {
  python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

command -v bc >/dev/null || { apt-get install -y -qq bc >/dev/null 2>&1 || true; }

if [ "$VALIDATE" = 1 ]; then
  if "$BIN" validate "$ROOT/data/toolace/test_records_reconstructed.jsonl" 2>&1 | grep -q "not built yet"; then
    echo "validate: skipped, \`spanreview validate\` is not built yet" | tee -a "$OUT"
  else
    # Same checks? Both validators on a small file with 1% broken lines of known kinds must
    # flag the same lines, with the same number of problems on each.
    BROKEN=$BENCH_DIR/broken-10000-s$SEED-$GEN_HASH.jsonl
    [ -s "$BROKEN" ] || "$GEN" --records 10000 --seed "$SEED" --broken 0.01 --out "$BROKEN" \
      --manifest "${BROKEN%.jsonl}.manifest.jsonl" 2>/dev/null
    "$BIN" validate --strict "$BROKEN" >"$TMP/broken_rust.out" || true
    python3 bench/validate_baseline.py --strict "$BROKEN" >"$TMP/broken_python.out" || true
    python3 - "$TMP" "${BROKEN%.jsonl}.manifest.jsonl" <<'PY' | tee -a "$OUT"
import collections, json, re, sys
def per_line(path):
    c = collections.Counter()
    for l in open(path, encoding="utf-8"):
        m = re.match(r".*?:(\d+): ", l)
        if m:
            c[int(m.group(1))] += 1
    return c
r = per_line(sys.argv[1] + "/broken_rust.out")
p = per_line(sys.argv[1] + "/broken_python.out")
man = {json.loads(l)["line"] for l in open(sys.argv[2])}
diff = sorted(l for l in set(r) | set(p) if r[l] != p[l])
print("validate agreement on 10,000 records with %d broken lines: rust %d problems on %d lines, "
      "python %d on %d lines, %d line(s) differ%s; broken lines flagged: rust %d/%d, python %d/%d"
      % (len(man), sum(r.values()), len(r), sum(p.values()), len(p), len(diff),
         (" " + str(diff[:5])) if diff else "", len(man & set(r)), len(man), len(man & set(p)), len(man)))
PY
    echo "== validate x$REPEAT (interleaved)" >&2
    cat "$FILE" >/dev/null # warm the page cache for both
    for r in $(seq "$REPEAT"); do
      measure validate_rust "$BIN" validate --strict "$FILE"
      measure validate_python python3 bench/validate_baseline.py --strict "$FILE"
      [ -z "$BEFORE" ] || measure validate_before "$BIN_BEFORE" validate --strict "$FILE"
    done
    rust_summary=$(tail -n1 "$TMP/validate_rust.out" | sed 's/^ *//')
    py_summary=$(tail -n1 "$TMP/validate_python.out")
    echo "validate problems: rust: $rust_summary | python: ${py_summary%%;*}" | tee -a "$OUT"
  fi
fi

if [ "$OPEN" = 1 ]; then
  echo "== open_at x$REPEAT" >&2
  cat "$FILE" >/dev/null
  # First open: no sidecar yet (this run's cache folder is empty); it writes one.
  "$OPEN_AT" "$FILE" "$INDEX" >"$TMP/open_rust_first.jsonl"
  for r in $(seq "$REPEAT"); do
    "$OPEN_AT" "$FILE" "$INDEX" >>"$TMP/open_rust.jsonl"
    SPANREVIEW_INDEX_CACHE=off "$OPEN_AT" "$FILE" "$INDEX" >>"$TMP/open_rust_scan.jsonl"
    [ -z "$BEFORE" ] || "$OPEN_AT_BEFORE" "$FILE" "$INDEX" >>"$TMP/open_before.jsonl"
  done
  if [ "$DETECTORS" -gt 0 ]; then
    cat "${PREDS[@]}" >/dev/null
    "$OPEN_AT" "$FILE" "$INDEX" "${PREDS[@]}" >"$TMP/open_rust_joined_first.jsonl"
    for r in $(seq "$REPEAT"); do
      "$OPEN_AT" "$FILE" "$INDEX" "${PREDS[@]}" >>"$TMP/open_rust_joined.jsonl"
      [ -z "$BEFORE" ] || "$OPEN_AT_BEFORE" "$FILE" "$INDEX" "${PREDS[@]}" >>"$TMP/open_before_joined.jsonl"
    done
  fi
  if [ "$COLD" = 1 ]; then
    # Cold page cache, sidecar on disk: the records file and its sidecar evicted.
    evict "$FILE"; for f in $(sidecars); do evict "$f"; done
    "$OPEN_AT" "$FILE" "$INDEX" >"$TMP/open_rust_cold.jsonl"
    # Cold page cache, no sidecar (a scan of the whole file from disk).
    evict "$FILE"
    SPANREVIEW_INDEX_CACHE=off "$OPEN_AT" "$FILE" "$INDEX" >"$TMP/open_rust_cold_scan.jsonl"
  fi
  if [ "$PY_OPEN" = 1 ]; then
    echo "== open_at python (slow: loads every record)" >&2
    cat "$FILE" >/dev/null
    python3 bench/open_at_baseline.py "$FILE" "$INDEX" >"$TMP/open_python.jsonl"
  fi
fi

if [ "$REVIEW" = 1 ]; then
  echo "== review first frame x$REPEAT" >&2
  cat "$FILE" >/dev/null
  for r in $(seq "$REPEAT"); do
    "$REVIEW_OPEN" "$FILE" >>"$TMP/review_open.jsonl"
    SPANREVIEW_INDEX_CACHE=off "$REVIEW_OPEN" "$FILE" >>"$TMP/review_open_scan.jsonl"
    if [ "$DETECTORS" -gt 0 ]; then
      "$REVIEW_OPEN" "$FILE" "${PREDS[@]}" >>"$TMP/review_open_joined.jsonl"
    fi
  done
  if [ "$COLD" = 1 ]; then
    evict "$FILE"; for f in $(sidecars); do evict "$f"; done
    "$REVIEW_OPEN" "$FILE" >"$TMP/review_open_cold.jsonl"
  fi
fi

if [ "$EXPORT" = 1 ]; then
  # The review database: N decisions spread over the file (dataset "bench"), made once.
  DB=$BENCH_DIR/decisions-$RECORDS-s$SEED-$GEN_HASH-$DECISIONS.sqlite
  if [ ! -s "$DB" ]; then
    rm -f "$DB" "$DB-wal" "$DB-shm"
    "$GEN_DECISIONS" "$FILE" "$DB" --decisions "$DECISIONS" --dataset bench 2>&1 | tee -a "$OUT"
  fi
  EXP=$BENCH_DIR/export-out-$$
  mkdir -p "$EXP"
  echo "== export x$REPEAT (interleaved)" >&2
  cat "$FILE" >/dev/null
  # The usual order is review, then export: the file's index and ids are saved by then (review
  # saves them in the background; so does any export that read every line). One untimed export
  # leaves them in this run's cache. "export_first" is the other case, a file never opened
  # before: an empty cache each time, so it scans the file for the index and reads every line.
  FIRST_CACHE=$BENCH_DIR/cache-first-$$
  "$BIN" export "$FILE" --db "$DB" --dataset bench --out "$EXP/rust.jsonl" 2>/dev/null
  # Every contender writes a new file: its output of the previous round is removed and the
  # removal synced first (replacing a 1.5 GB file costs 0.2-0.3 s more on ext4 with discard,
  # and whoever ran after the removal would pay for it).
  fresh() { rm -f "$@"; sync; }
  for r in $(seq "$REPEAT"); do
    fresh "$EXP/rust.jsonl"
    measure export_rust "$BIN" export "$FILE" --db "$DB" --dataset bench --out "$EXP/rust.jsonl"
    rm -rf "$FIRST_CACHE"; fresh "$EXP/first.jsonl"
    SPANREVIEW_CACHE_DIR=$FIRST_CACHE measure export_first "$BIN" export "$FILE" --db "$DB" --dataset bench --out "$EXP/first.jsonl"
    rm -rf "$FIRST_CACHE"
    fresh "$EXP/python.jsonl"
    measure export_python python3 bench/export_baseline.py "$FILE" --db "$DB" --dataset bench --out "$EXP/python.jsonl"
    if [ -n "$BEFORE" ]; then
      fresh "$EXP/before.jsonl"
      measure export_before "$BIN_BEFORE" export "$FILE" --db "$DB" --dataset bench --out "$EXP/before.jsonl"
    fi
    # The floor of any export that writes a new file durably: a kernel copy of the input
    # (copy_file_range) and an fsync, no parsing at all.
    fresh "$EXP/floor.jsonl"
    measure export_floor python3 -c 'import os, shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2]); fd = os.open(sys.argv[2], os.O_RDONLY); os.fsync(fd)' "$FILE" "$EXP/floor.jsonl"
  done
  # Same work? Line by line: equal bytes, or equal JSON values.
  python3 - "$EXP/rust.jsonl" "$EXP/python.jsonl" <<'PY' | tee -a "$OUT"
import json, sys
n = same = equal = differ = 0
with open(sys.argv[1], encoding="utf-8") as a, open(sys.argv[2], encoding="utf-8") as b:
    for x, y in zip(a, b):
        n += 1
        if x == y:
            same += 1
        elif json.loads(x) == json.loads(y):
            equal += 1
        else:
            differ += 1
    rest = sum(1 for _ in a) + sum(1 for _ in b)
print("export agreement: %d records; %d byte-equal, %d equal as JSON values, %d differ, %d extra lines"
      % (n, same, equal, differ, rest))
PY
  rm -rf "$EXP"
fi

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
python3 - "$TMP" <<'EOF' | tee -a "$OUT"
import json, os, statistics, sys
tmp = sys.argv[1]
rows = {}
for line in open(os.path.join(tmp, "results.tsv")):
    label, wall, cpu, rss, rc = line.split()
    rows.setdefault(label, []).append((float(wall), float(cpu), int(rss), int(rc)))

def med(label, i):
    return statistics.median(r[i] for r in rows[label])

if "validate_rust" in rows:
    print("\n(a) validate, %d run(s) each, medians" % len(rows["validate_rust"]))
    print("  %-28s %9s %9s %10s" % ("", "wall s", "cpu s", "max RSS"))
    for label, name in (("validate_rust", "spanreview validate"), ("validate_python", "python baseline")):
        walls = " ".join("%.2f" % r[0] for r in rows[label])
        print("  %-28s %9.2f %9.2f %7.0f MB   (walls: %s)" % (name, med(label, 0), med(label, 1), med(label, 2) / 1024, walls))
    w = med("validate_python", 0) / med("validate_rust", 0)
    c = med("validate_python", 1) / med("validate_rust", 1)
    print("  ratio python/rust: wall %.1fx, cpu %.1fx   (target: wall >= 10x) -> %s" % (w, c, "MET" if w >= 10 else "MISSED"))
    if "validate_before" in rows:
        print("  before (--before build): wall %.2f s, cpu %.2f s; ratio python/before: wall %.1fx, cpu %.1fx"
              % (med("validate_before", 0), med("validate_before", 1),
                 med("validate_python", 0) / med("validate_before", 0), med("validate_python", 1) / med("validate_before", 1)))

if "export_rust" in rows:
    print("\n(d) export with decisions, %d run(s) each, medians" % len(rows["export_rust"]))
    print("  %-28s %9s %9s %10s" % ("", "wall s", "cpu s", "max RSS"))
    labels = [("export_rust", "spanreview export"), ("export_python", "python baseline")]
    if "export_first" in rows:
        labels.insert(1, ("export_first", "  never opened before"))
    if "export_before" in rows:
        labels.append(("export_before", "spanreview export (before)"))
    if "export_floor" in rows:
        labels.append(("export_floor", "floor: copy + fsync"))
    for label, name in labels:
        walls = " ".join("%.2f" % r[0] for r in rows[label])
        print("  %-28s %9.2f %9.2f %7.0f MB   (walls: %s)" % (name, med(label, 0), med(label, 1), med(label, 2) / 1024, walls))
    w = med("export_python", 0) / med("export_rust", 0)
    c = med("export_python", 1) / med("export_rust", 1)
    print("  ratio python/rust: wall %.1fx, cpu %.1fx   (target: wall >= 10x) -> %s" % (w, c, "MET" if w >= 10 else "MISSED"))
    if "export_first" in rows:
        print("  ratio python/first export of a file never opened (empty cache): wall %.1fx, cpu %.1fx"
              % (med("export_python", 0) / med("export_first", 0), med("export_python", 1) / med("export_first", 1)))
    if "export_before" in rows:
        print("  ratio python/before: wall %.1fx, cpu %.1fx"
              % (med("export_python", 0) / med("export_before", 0), med("export_python", 1) / med("export_before", 1)))
    if "export_floor" in rows:
        print("  ratio python/floor (the most any export could reach here): wall %.1fx, cpu %.1fx"
              % (med("export_python", 0) / med("export_floor", 0), med("export_python", 1) / med("export_floor", 1)))

def load(name):
    p = os.path.join(tmp, name)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []

def line(name, runs, target_ms=None, target_mb=None):
    if not runs:
        return
    key = "total_ms" if "total_ms" in runs[0] else "first_frame_ms"
    ms = statistics.median(r[key] for r in runs)
    hwm = max(r["vmhwm_kb"] for r in runs) / 1024
    verdict = ""
    if target_ms:
        verdict = " -> " + ("MET" if ms < target_ms and hwm < target_mb else "MISSED")
    print("  %-44s %7.1f ms (runs: %s), peak RSS %4.0f MB%s"
          % (name, ms, " ".join("%.0f" % r[key] for r in runs), hwm, verdict))
    return ms, hwm

warm = load("open_rust.jsonl")
if warm:
    print("\n(b) open + fetch record %d of %d  (target < 300 ms, < 150 MB)" % (warm[0]["index"], warm[0]["records"]))
    line("first open, no sidecar (writes it), warm", load("open_rust_first.jsonl"), 300, 150)
    ms, hwm = line("later opens, sidecar, warm", warm, 300, 150)
    line("scan, no cache (SPANREVIEW_INDEX_CACHE=off)", load("open_rust_scan.jsonl"), 300, 150)
    line("before (--before build), warm", load("open_before.jsonl"), 300, 150)
    line("cold page cache, sidecar", load("open_rust_cold.jsonl"), 300, 150)
    line("cold page cache, scan", load("open_rust_cold_scan.jsonl"), 300, 150)
    j = load("open_rust_joined.jsonl")
    if j:
        print("  with %d files joined by id (%d sources):" % (j[0]["files"], j[0]["sources"]))
        line("  first open (no sidecars), warm", load("open_rust_joined_first.jsonl"))
        line("  later opens (sidecars), warm", j)
        line("  before (--before build), warm", load("open_before_joined.jsonl"))
    for r in load("open_python.jsonl"):
        print("  python [json.loads(l) for l in f]: %.0f ms, peak RSS %.0f MB  -> ratio %.0fx time, %.0fx memory"
              % (r["total_ms"], r["vmhwm_kb"] / 1024, r["total_ms"] / ms, r["vmhwm_kb"] / 1024 / hwm))

rv = load("review_open.jsonl")
if rv:
    print("\n(c) review screen, first frame of %d records (target < 300 ms, < 200 MB)" % rv[0]["records"])
    line("sidecar, warm", rv, 300, 200)
    line("scan (no cache), warm", load("review_open_scan.jsonl"), 300, 200)
    line("sidecar, cold page cache", load("review_open_cold.jsonl"), 300, 200)
    line("with the prediction files joined, sidecars, warm", load("review_open_joined.jsonl"), 300, 200)
EOF
echo "results saved to $OUT" >&2
