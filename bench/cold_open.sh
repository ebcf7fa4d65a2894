#!/usr/bin/env bash
# "Open anything at once": the review screen's first frame on a file never opened before (no
# index sidecar), against `wc -l` on the same file, in the same run (results: BENCHMARKS.md).
#
#   bench/cold_open.sh                    # 150,000 records (1.5 GB) in /tmp, plus the same file
#                                         # repeated --times N (default 3) when the disk allows
#   bench/cold_open.sh --repeat 5 --times 10
#
# Options: --records N  --seed S  --repeat R (runs per contender, interleaved; medians)
#          --times K (the big file: the records file K times over; made only when /tmp has its
#          size + 2 GiB free; 0 for none)  --no-build  --no-cold (skip the cold page cache runs)
# Contenders, each run with a new, empty SPANREVIEW_CACHE_DIR (no sidecar: never opened):
#   wc      `wc -l FILE` (wall time of the process, measured from Python)
#   lazy    examples/cold_open.rs: `Dataset::open_lazy` (as `spanreview review` opens one file)
#           + the first frame into a 200x60 TestBackend; also the time until fully indexed
#   eager   examples/review_open.rs: `Dataset::open` (a full scan first, as review did before)
#           + the same first frame
# Warm page cache (the file read once before the runs); with cold runs also one run each after
# evicting the file from the page cache (posix_fadvise DONTNEED). The data files live in /tmp
# and are deleted at exit, also on Ctrl-C or kill. Not a test: .ci/run does not call it.
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=150000
SEED=1
REPEAT=5
TIMES=3
BUILD=1
COLD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS=$2; shift ;;
    --seed) SEED=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --times) TIMES=$2; shift ;;
    --no-build) BUILD=0 ;;
    --no-cold) COLD=0 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "cold_open.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$BUILD" = 1 ]; then
  echo "== build (release)" >&2
  nice cargo build --release --quiet --example gen --example cold_open --example review_open
fi
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
GEN=$TARGET/release/examples/gen
LAZY=$TARGET/release/examples/cold_open
EAGER=$TARGET/release/examples/review_open
WORK=$(mktemp -d /tmp/spanreview-cold-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# A signal exits through the EXIT trap, so an interrupted run leaves no 15 GB file behind.
trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP
RES=$WORK/results.jsonl

echo "== generate $RECORDS records in $WORK" >&2
"$GEN" --records "$RECORDS" --seed "$SEED" --out "$WORK/records.jsonl" 2>/dev/null
FILES=("$WORK/records.jsonl")
size=$(stat -c %s "$WORK/records.jsonl")
if [ "$TIMES" -gt 1 ]; then
  big=$((size * TIMES))
  free=$(( $(df --output=avail -B1 /tmp | tail -1) ))
  # The records file is already written: what is left to fit is the big file and the index
  # sidecars in $WORK/cache (16 bytes a record + ids, tens of MB), hence 2 GiB of margin.
  if [ "$free" -ge $((big + (2 << 30))) ]; then
    echo "== the same file $TIMES times over ($((big >> 20)) MiB)" >&2
    for _ in $(seq "$TIMES"); do cat "$WORK/records.jsonl"; done >"$WORK/records-x$TIMES.jsonl"
    FILES+=("$WORK/records-x$TIMES.jsonl")
  else
    echo "cold_open.sh: $((big >> 20)) MiB + 2 GiB does not fit in /tmp ($((free >> 20)) MiB free): big file skipped" >&2
  fi
fi

# ms WHAT CMD...: wall time of a process in ms (stdout dropped).
ms() { python3 -c 'import subprocess, sys, time
t = time.perf_counter(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print("%.1f" % ((time.perf_counter() - t) * 1e3))' "$@"; }
# fresh CMD...: run with a new, empty index cache.
fresh() { rm -rf "$WORK/cache"; SPANREVIEW_CACHE_DIR=$WORK/cache "$@"; }
# resident FILE: how much of FILE the page cache holds (a warm run of a file larger than the
# free memory reads part of it from disk); empty without util-linux fincore.
resident() {
  command -v fincore >/dev/null || return 0
  local res; res=$(fincore -b -n -o RES "$1")
  echo "$(basename "$1"): $((res >> 20)) of $(($(stat -c %s "$1") >> 20)) MiB in the page cache $2"
}
evict() {
  python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

{
  echo "# cold first frame, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+dirty')"
  echo "machine: nproc $(nproc); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$WORK/header.txt"
for f in "${FILES[@]}"; do
  echo "== $(basename "$f") x$REPEAT (interleaved)" >&2
  cat "$f" >/dev/null
  resident "$f" "after warming"
  for _ in $(seq "$REPEAT"); do
    echo "{\"file\": \"$f\", \"tool\": \"wc\", \"ms\": $(ms wc -l "$f")}" >>"$RES"
    fresh "$LAZY" "$f" | sed "s|^{|{\"file\": \"$f\", |" >>"$RES"
    fresh "$EAGER" "$f" | sed "s|^{|{\"file\": \"$f\", \"tool2\": \"eager\", |" >>"$RES"
  done
  resident "$f" "after the warm runs"
  if [ "$COLD" = 1 ]; then
    evict "$f"; echo "{\"file\": \"$f\", \"tool\": \"wc_cold\", \"ms\": $(ms wc -l "$f")}" >>"$RES"
    evict "$f"; fresh "$LAZY" "$f" | sed "s|^{|{\"file\": \"$f\", \"cold\": true, |" >>"$RES"
    evict "$f"; fresh "$EAGER" "$f" | sed "s|^{|{\"file\": \"$f\", \"cold\": true, \"tool2\": \"eager\", |" >>"$RES"
  fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RES" <<'PY'
import json, os, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def pick(f, pred, key):
    return [r[key] for r in rows if r["file"] == f and pred(r)]
for f in dict.fromkeys(r["file"] for r in rows):
    size = os.path.getsize(f) / 1e9
    warm = lambda r: not r.get("cold")
    wc = pick(f, lambda r: r["tool"] == "wc", "ms")
    lazy = [r for r in rows if r["file"] == f and r["tool"] == "cold_open" and warm(r)]
    eager = pick(f, lambda r: r.get("tool2") == "eager" and warm(r), "first_frame_ms")
    ff = [r["first_frame_ms"] for r in lazy]
    idx = [r["indexed_ms"] for r in lazy]
    m = statistics.median
    fmt = lambda xs: ", ".join("%.1f" % x for x in xs)
    print("\n%s (%.2f GB, %d records), warm page cache, no sidecar, %d runs, medians:"
          % (os.path.basename(f), size, lazy[0]["records"], len(ff)))
    print("  wc -l                          %8.1f ms  (%s)" % (m(wc), fmt(wc)))
    print("  first frame, lazy (now)        %8.1f ms  (%s)  ratio to wc -l: %.3f  -> %s"
          % (m(ff), fmt(ff), m(ff) / m(wc), "MET" if m(ff) < 0.2 * m(wc) else "MISSED"))
    print("    records indexed at the first frame: %s; whole index after %.1f ms (%s)"
          % (sorted({r["records_at_first_frame"] for r in lazy}), m(idx), fmt(idx)))
    print("  first frame, eager (before)    %8.1f ms  (%s)  ratio to wc -l: %.3f"
          % (m(eager), fmt(eager), m(eager) / m(wc)))
    cw = pick(f, lambda r: r["tool"] == "wc_cold", "ms")
    cl = pick(f, lambda r: r["tool"] == "cold_open" and r.get("cold"), "first_frame_ms")
    ce = pick(f, lambda r: r.get("tool2") == "eager" and r.get("cold"), "first_frame_ms")
    if cw:
        print("  cold page cache (1 run each): wc -l %.1f ms, lazy first frame %.1f ms (ratio %.4f), eager %.1f ms"
              % (cw[0], cl[0], cl[0] / cw[0], ce[0]))
PY
