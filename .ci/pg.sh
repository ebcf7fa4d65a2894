#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server on loopback, for the tests that run against PostgreSQL.
#
#   eval "$(.ci/pg.sh start)"   # starts one; prints `export SPANREVIEW_TEST_PG=...; export PG_TEST_DIR=...`
#   .ci/pg.sh stop "$PG_TEST_DIR"   # stops it and removes its folder
#
# The server runs as the `postgres` user (initdb refuses root) in a new temporary folder, on a
# free port, listening on 127.0.0.1 only, with trust authentication for loopback: it is for
# tests, and is gone when stopped. Needs PostgreSQL 15's binaries (Debian: postgresql-15).
set -euo pipefail

bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
  [ -x "$bin/initdb" ] || { echo "pg.sh: no PostgreSQL binaries in $bin (set PG_BIN)" >&2; exit 1; }
  dir=$(mktemp -d /tmp/spanreview-pg.XXXXXX)
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  echo "export SPANREVIEW_TEST_PG=postgresql://postgres@127.0.0.1:$port/postgres"
  echo "export PG_TEST_DIR=$dir"
  ;;
stop)
  dir=${2:?usage: pg.sh stop DIR}
  if [ -d "$dir/data" ]; then
    as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  case "$dir" in /tmp/spanreview-pg.*) rm -rf "$dir" ;; esac
  ;;
*)
  echo "usage: pg.sh start | pg.sh stop DIR" >&2
  exit 2
  ;;
esac
