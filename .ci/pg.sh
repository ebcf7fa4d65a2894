#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server on loopback, for the tests that run against PostgreSQL.
#
#   eval "$(.ci/pg.sh start)"        # starts one; prints `export SPANREVIEW_TEST_PG=...; export PG_TEST_DIR=...`
#   .ci/pg.sh stop "$PG_TEST_DIR"    # stops it and removes its folder
#   .ci/pg.sh down DIR; .ci/pg.sh up DIR   # stop it and start it again, data kept (restart tests)
#   PG_FSYNC=on .ci/pg.sh start     # fsync on, as a real server (load benchmarks)
#   PG_SSL=1 .ci/pg.sh start         # also TLS: a new test CA (DIR/root.crt) signed the server's
#                                    # certificate (for localhost and 127.0.0.1: TLS tests)
#
# The server runs as the `postgres` user when run by root (initdb refuses root) in a new
# temporary folder, on a free port, listening on 127.0.0.1 only, with trust authentication: it
# is for tests (fsync off), and is gone when stopped. Needs PostgreSQL 15's binaries (Debian:
# postgresql-15; PG_BIN overrides where they are).
set -euo pipefail

bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Start the server of folder $1 on port $2.
up() {
  as_pg "$bin/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $2 -k $1 -c max_connections=200 -c fsync=${PG_FSYNC:-off}" start >/dev/null \
    || { cat "$1/server.log" >&2; exit 1; }
}

case "${1:-}" in
start)
  [ -x "$bin/initdb" ] || { echo "pg.sh: no PostgreSQL binaries in $bin (set PG_BIN)" >&2; exit 1; }
  dir=$(mktemp -d /tmp/spanreview-pg.XXXXXX)
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo "$port" >"$dir/port"
  as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  if [ -n "${PG_SSL:-}" ]; then
    # A test CA (DIR/root.crt, for sslrootcert) and the server's certificate signed by it.
    (
      cd "$dir"
      openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=spanreview-test-ca \
        -keyout ca.key -out root.crt
      openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout data/server.key -out server.csr
      printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >server.ext
      openssl x509 -req -in server.csr -CA root.crt -CAkey ca.key -CAcreateserial -days 2 \
        -extfile server.ext -out data/server.crt
    ) >/dev/null 2>&1
    chmod 600 "$dir/data/server.key"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/data/server.key" "$dir/data/server.crt"; fi
    echo "ssl = on" >>"$dir/data/postgresql.conf"
  fi
  up "$dir" "$port"
  echo "export SPANREVIEW_TEST_PG=postgresql://postgres@127.0.0.1:$port/postgres"
  echo "export PG_TEST_DIR=$dir"
  ;;
down)
  as_pg "$bin/pg_ctl" -D "${2:?usage: pg.sh down DIR}/data" -m fast -w stop >/dev/null
  ;;
up)
  up "${2:?usage: pg.sh up DIR}" "$(cat "$2/port")"
  ;;
stop)
  dir=${2:?usage: pg.sh stop DIR}
  if [ -d "$dir/data" ]; then
    as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  case "$dir" in /tmp/spanreview-pg.*) rm -rf "$dir" ;; esac
  ;;
*)
  echo "usage: pg.sh start | stop DIR | down DIR | up DIR" >&2
  exit 2
  ;;
esac
