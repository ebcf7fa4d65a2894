#!/usr/bin/env bash
# A valid record whose line is longer than 256 MiB (an answer of MiB-s of text) is read by
# `validate` as by the other subcommands (issue 22 item 8: validate once cut detection at
# 256 MiB and said "EOF while parsing a string at column 268435456").
#
#   bench/long_line.sh              # a 270 MiB first line, then a short one; debug build
#   bench/long_line.sh --mib 300 --release
#
# Prints each command's exit status, wall time and peak RSS (GNU time), and fails (exit 1)
# when `validate` does not exit 0 or another command fails. The file lives in /tmp and is
# deleted at exit. Not a test: .ci/run does not call it (it writes the file: several seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
MIB=270
PROFILE=debug
while [ $# -gt 0 ]; do
  case "$1" in
    --mib) MIB=$2; shift ;;
    --release) PROFILE=release ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "long_line.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$PROFILE" = release ]; then cargo build --release -q; else cargo build -q; fi
BIN="target/$PROFILE/spanreview"
DIR=$(mktemp -d /tmp/long_line.XXXXXX)
trap 'rm -rf "$DIR"' EXIT INT TERM
FILE="$DIR/long °.jsonl"
python3 - "$FILE" "$MIB" <<'PY'
import json, sys
path, mib = sys.argv[1], int(sys.argv[2])
word = "25°C 東京 🙂 "  # 11 code points, 22 bytes in UTF-8
n = (mib << 20) // len(word.encode()) + 1
answer = word * n
meta = {"source": "s", "base_id": "long", "corruption_type": "contradiction",
        "tools": [], "tool_call": {}}
first = {"id": "long", "query": "q", "context": "c", "output": answer,
         "hallucination_labels": [{"start": 0, "end": 4, "text": "25°C", "label": "contradiction"}],
         "meta": meta}
second = dict(first, id="short", output="25°C", meta=dict(meta, base_id="short"))
with open(path, "w", encoding="utf-8") as f:
    f.write(json.dumps(first, ensure_ascii=False) + "\n")
    f.write(json.dumps(second, ensure_ascii=False) + "\n")
PY
echo "first line: $(head -c 400000000 "$FILE" | head -1 | wc -c) bytes"
status=0
for cmd in validate; do
  /usr/bin/time -f "$cmd: exit %x, %e s, %M KiB peak RSS" "$BIN" "$cmd" "$FILE" >"$DIR/out" 2>"$DIR/err" || true
  tail -1 "$DIR/err"
  grep -q "exit 0," "$DIR/err" || { status=1; head -c 2000 "$DIR/out" "$DIR/err"; }
done
exit $status
