#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 cluster for the tests and prints "PORT DIRECTORY".
#
#   scripts/postgres-test-cluster.sh WATCH_PID
#
# The cluster listens on 127.0.0.1 only, on a free port, with trust authentication (local
# testing only), in a new temporary directory owned by the postgres user (the binaries
# refuse to run as root, so as root they run through runuser). A background watcher stops
# the cluster and removes the directory as soon as process WATCH_PID (the test process) exits.
set -euo pipefail
watch_pid="${1:?usage: postgres-test-cluster.sh WATCH_PID}"
bin="${FEDERATE_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "PostgreSQL binaries not found in $bin: install postgresql-15 (apt-get install postgresql-15) or set FEDERATE_TEST_POSTGRES_URL" >&2
  exit 2
fi
# Processes that outlive this script (the server, the watcher) must not keep the caller's
# descriptors open: a parent may wait for them to close (Foundation's Process does).
close_inherited_fds() {
  local fd
  for fd in /proc/self/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}
# The cluster runs niced: it shares the machine with the test process, whose own
# timing-sensitive tests must not starve while initdb and the server work.
as_postgres=(nice -n 10)
dir=$(mktemp -d /tmp/federate-pg.XXXXXX)
if [ "$(id -u)" = 0 ]; then
  as_postgres=(nice -n 10 runuser -u postgres --)
  chown postgres: "$dir"
fi
chmod 700 "$dir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
if ! "${as_postgres[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1; then
  cat "$dir/initdb.log" >&2
  rm -rf "$dir"
  exit 1
fi
if ! (close_inherited_fds; exec "${as_postgres[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off -c max_connections=200" start) \
  </dev/null >"$dir/pg_ctl.log" 2>&1; then
  cat "$dir/pg_ctl.log" "$dir/server.log" >&2
  rm -rf "$dir"
  exit 1
fi
(
  close_inherited_fds
  trap '' HUP INT
  while kill -0 "$watch_pid" 2>/dev/null; do sleep 1; done
  "${as_postgres[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
) </dev/null >/dev/null 2>&1 &
disown
echo "$port $dir"
