#!/usr/bin/env bash
# Chaos run: what the README's "Reliability" section promises, tried for a bounded time.
#
#   bench/chaos.sh [--seconds N] [--bin PATH]     (default 120 s, target/debug/spanreview)
#
# Cases (one pass of all of them always runs, 1 to 6 minutes depending on the machine's load;
# then they run again in turn until N seconds have passed):
#   kill_apply      apply of 50 lines SIGKILLed at a random moment (all or none)
#   kill_review     a review driven in tmux, SIGKILLed after a random number of decisions
#   wal_deleted     40 decisions, rm db-wal, 2 more, SIGKILL
#   wal_truncated   40 decisions, : > db-wal, 2 more, SIGKILL
#   db_copied_over  backup copied, decisions checkpointed, cp backup db, 2 more, quit
#   file_limit      a review under ulimit -f until a decision is NOT saved, then quit
#   server_crash    (when .ci/pg.sh can start a server) a review on PostgreSQL, the server
#                   stopped and started under it, decisions retried, then quit
# For each run: "CASE acknowledged=N found=M lost=K", where acknowledged counts what the tool
# called saved (a review's "saved #id", an apply's exit 0) and found what is in the database or
# its rescue files (by origin). The last line sums it up; the exit status is 1 if anything was
# lost. Needs tmux and python3 (for counting); not a CI test.
set -u
cd "$(dirname "$0")/.."
seconds=120
bin=target/debug/spanreview
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "usage: bench/chaos.sh [--seconds N] [--bin PATH]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "no binary at $bin: cargo build first" >&2; exit 2; }
bin=$(realpath "$bin")
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 2; }
root=$(pwd)
work=$(mktemp -d /tmp/spanreview-chaos.XXXXXX)
sock=chaos-$$
pg_dir=
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null
  [ -n "$pg_dir" ] && .ci/pg.sh stop "$pg_dir" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
records=$root/tests/fixtures/review/records.jsonl
preds=$root/tests/fixtures/review/predictions_detector.jsonl
total_ack=0 total_found=0 total_lost=0 runs=0
who=chaos

# Distinct origins of reviewer $1 in the SQLite files $2…, or on the server ($2 a URL).
origins() {
  python3 - "$@" <<'EOF'
import sqlite3, sys
who, files = sys.argv[1], sys.argv[2:]
seen = set()
for f in files:
    try:
        c = sqlite3.connect(f)
        seen.update(r[0] for r in c.execute("SELECT origin FROM decision WHERE reviewer = ?", (who,)))
    except Exception as e:
        print("unreadable %s: %s" % (f, e), file=sys.stderr)
print(len(seen))
EOF
}

report() { # case acknowledged found
  local lost=$(( $2 > $3 ? $2 - $3 : 0 ))
  echo "$1 acknowledged=$2 found=$3 lost=$lost"
  total_ack=$((total_ack + $2)); total_found=$((total_found + $3)); total_lost=$((total_lost + lost))
  runs=$((runs + 1))
}

# The review on $1 (a path or URL) in a fresh tmux pane; extra shell setup in $2.
start_review() {
  tmux -L "$sock" kill-server 2>/dev/null
  tmux -L "$sock" new-session -d -s t -x 160 -y 45 \
    "sh -c '$2 exec \"$bin\" review \"$records\" \"$preds\" --db \"$1\" --reviewer $who --queue all'; echo exit=\$?; sleep 600"
  for _ in $(seq 100); do
    screen | grep -q "uni_1__contradiction\|plain_2" && return 0
    sleep 0.1
  done
  echo "the review did not start:" >&2; screen >&2; return 1
}
screen() { tmux -L "$sock" capture-pane -p -J -t t 2>/dev/null; }
review_pid() { pgrep -P "$(tmux -L "$sock" display-message -p -t t '#{pane_pid}')" -x spanreview | head -1; }

# Press A once; prints "saved" (a new saved #id shown), "not" (NOT saved) or "none". The last
# id seen is kept in a file: callers run this in a subshell.
press_a() {
  local before s id
  before=$(cat "$work/last_id" 2>/dev/null)
  tmux -L "$sock" send-keys -t t -l A
  for _ in $(seq 60); do
    s=$(screen)
    id=$(printf '%s\n' "$s" | grep -v "NOT saved" | grep -o 'saved #[0-9]*' | tail -1)
    if printf '%s\n' "$s" | grep -q "NOT saved"; then echo not; return; fi
    if [ -n "$id" ] && [ "$id" != "$before" ]; then echo "$id" > "$work/last_id"; echo saved; return; fi
    sleep 0.05
  done
  echo none
}
# Press A $1 times; prints how many were shown saved (a NOT saved stays on the status line:
# only a new saved #id after it counts).
decide() {
  local n=0 r
  for _ in $(seq "$1"); do
    r=$(press_a)
    [ "$r" = saved ] && n=$((n + 1))
  done
  echo "$n"
}
rescues() { ls "$1"/*.rescued-*.sqlite 2>/dev/null; }
kill_review() { local p; p=$(review_pid); [ -n "$p" ] && kill -9 "$p"; sleep 0.3; }

case_kill_apply() {
  local d=$work/apply.$RANDOM; mkdir -p "$d"
  local ack=0 k
  for k in $(seq 4); do
    python3 - "$d/lines.jsonl" "$k" <<'EOF'
import json, sys, random
ids = ["uni_1__contradiction", "plain_2__overgeneration"]
with open(sys.argv[1], "w") as f:
    for i in range(50):
        f.write(json.dumps({"record_id": random.choice(ids), "action": "flag",
            "note": "chaos %s %d °東京" % (sys.argv[2], i),
            "origin": "chaos-%s-%d-%d" % (sys.argv[2], i, random.getrandbits(60))}) + "\n")
EOF
    "$bin" apply "$records" --decisions "$d/lines.jsonl" --db "$d/db.sqlite" --reviewer chaos >/dev/null 2>&1 &
    local p=$!
    sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null && ack=$((ack + 50))
  done
  report kill_apply "$ack" "$(origins chaos "$d/db.sqlite")"
}

case_kill_review() {
  local d=$work/review.$RANDOM; mkdir -p "$d"; rm -f "$work/last_id"
  start_review "$d/db.sqlite" "" || return
  local ack; ack=$(decide $((5 + RANDOM % 20)))
  kill_review
  report kill_review "$ack" "$(origins chaos "$d/db.sqlite")"
}

case_wal() { # name how
  local d=$work/wal.$RANDOM; mkdir -p "$d"; rm -f "$work/last_id"
  start_review "$d/db.sqlite" "" || return
  local ack; ack=$(decide 40)
  if [ "$2" = rm ]; then rm -f "$d/db.sqlite-wal"; else : > "$d/db.sqlite-wal"; fi
  ack=$((ack + $(decide 2)))
  kill_review
  # shellcheck disable=SC2046
  report "$1" "$ack" "$(origins chaos "$d/db.sqlite" $(rescues "$d"))"
}

case_db_copied_over() {
  local d=$work/cp.$RANDOM; mkdir -p "$d"; rm -f "$work/last_id"
  start_review "$d/db.sqlite" "" || return
  local ack; ack=$(decide 2)
  cp "$d/db.sqlite" "$d/backup.sqlite"
  ack=$((ack + $(decide 30)))
  python3 -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(PASSIVE)')" "$d/db.sqlite"
  cp "$d/backup.sqlite" "$d/db.sqlite"
  ack=$((ack + $(decide 2)))
  tmux -L "$sock" send-keys -t t q
  sleep 1
  # shellcheck disable=SC2046
  report db_copied_over "$ack" "$(origins chaos "$d/db.sqlite" $(rescues "$d"))"
}

case_file_limit() {
  local d=$work/limit.$RANDOM; mkdir -p "$d"; rm -f "$work/last_id"
  start_review "$d/db.sqlite" "ulimit -f 400;" || return
  local ack=0 r
  for _ in $(seq 60); do
    r=$(press_a)
    [ "$r" = saved ] && ack=$((ack + 1))
    [ "$r" = not ] && break
  done
  tmux -L "$sock" send-keys -t t q
  sleep 1
  screen | grep -q "exit=" || echo "file_limit: the review did not quit" >&2
  report file_limit "$ack" "$(origins chaos "$d/db.sqlite")"
}

case_server_crash() {
  [ -n "$pg_dir" ] || return 0
  local db=$SPANREVIEW_TEST_PG ack=0
  rm -f "$work/last_id"
  who=chaos-$RANDOM
  start_review "$db" "" || { who=chaos; return; }
  ack=$(decide 5)
  .ci/pg.sh down "$pg_dir"
  tmux -L "$sock" send-keys -t t -l A
  sleep 1
  .ci/pg.sh up "$pg_dir"
  for _ in $(seq 100); do
    screen | grep -q "retrying" || break
    sleep 0.1
  done
  ack=$((ack + $(decide 3)))
  tmux -L "$sock" send-keys -t t q
  sleep 1
  # The retried decision counts once it was shown saved; count the server's rows.
  local found
  found=$(psql "$db" -Atc "SELECT count(DISTINCT origin) FROM decision WHERE reviewer = '$who'" 2>/dev/null || echo 0)
  report server_crash "$ack" "$found"
  who=chaos
}

if [ -x .ci/pg.sh ] && command -v psql >/dev/null; then
  if out=$(.ci/pg.sh start 2>/dev/null); then
    eval "$out"
    pg_dir=${PG_TEST_DIR:-}
  fi
fi

cases="kill_apply kill_review wal_deleted wal_truncated db_copied_over file_limit server_crash"
end=$(( $(date +%s) + seconds ))
first=1
while [ "$first" = 1 ] || [ "$(date +%s)" -lt "$end" ]; do
  for c in $cases; do
    case $c in
      wal_deleted) case_wal wal_deleted rm ;;
      wal_truncated) case_wal wal_truncated truncate ;;
      *) "case_$c" ;;
    esac
    [ "$first" = 0 ] && [ "$(date +%s)" -ge "$end" ] && break
  done
  first=0
done
echo "TOTAL runs=$runs acknowledged=$total_ack found=$total_found lost=$total_lost"
[ "$total_lost" = 0 ]
