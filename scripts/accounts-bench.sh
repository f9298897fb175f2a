#!/usr/bin/env bash
# Sessions and accounts figures (Docs/Performance.md, "Sessions and accounts"), in one run:
#   1. the load average;
#   2. `openssl speed ecdsap256` on core 0 (the raw P-256 verify baseline);
#   3. a durable PostgreSQL 15 on loopback (fsync, synchronous_commit and full_page_writes on:
#      the defaults), in a temporary directory, stopped at the end;
#   4. what bounds a durable commit there: `pg_test_fsync` on the same disk, and `pgbench`
#      running a transaction equivalent to a returning sign-in (one indexed UPDATE ... RETURNING
#      after one indexed SELECT) at the benchmark's concurrency;
#   5. AccountsPerf (release): session verification as a ratio to a raw P-256 verify measured
#      interleaved with it, sign-ins per second, new and returning, and `accessToken` with a
#      fresh kept provider token (the provider never called), on SQLite and on it;
#   6. with BENCH_SUITE=1, the package-benchmark suite AccountsBenchmarks too (percentiles of
#      the same workload; the ratios come from AccountsPerf).
#
# Usage: scripts/accounts-bench.sh [seconds per AccountsPerf measure, default 5]
# Environment: BENCH_PGBENCH_SECONDS (default 10), FEDERATE_BENCH_POSTGRES_POOL (default 64),
#              BENCH_SKIP_SUITE=1 (baselines only: no Swift build or run).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${FEDERATE_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
seconds="${BENCH_PGBENCH_SECONDS:-10}"

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "== openssl speed ecdsap256 (core 0)"
taskset -c 0 openssl speed -seconds 3 ecdsap256 2>/dev/null | tail -2

as_postgres=()
dir=$(mktemp -d /tmp/federate-bench-pg.XXXXXX)
if [ "$(id -u)" = 0 ]; then
  as_postgres=(runuser -u postgres --)
  chown postgres: "$dir"
fi
chmod 700 "$dir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"${as_postgres[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1
stop() { "${as_postgres[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap stop EXIT
"${as_postgres[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c shared_buffers=256MB" start >/dev/null
psql=("$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atq)
echo "== PostgreSQL $("${psql[@]}" -c 'SHOW server_version'): fsync=$("${psql[@]}" -c 'SHOW fsync')" \
  "synchronous_commit=$("${psql[@]}" -c 'SHOW synchronous_commit') full_page_writes=$("${psql[@]}" -c 'SHOW full_page_writes')" \
  "wal_sync_method=$("${psql[@]}" -c 'SHOW wal_sync_method')"

echo "== pg_test_fsync (the cluster's disk, 2 s per test)"
"${as_postgres[@]}" "$bin/pg_test_fsync" -s 2 -f "$dir/fsync.test" 2>&1 | grep -E 'fdatasync|open_datasync|fsync ' | head -6

echo "== pgbench: a returning sign-in's transaction (SELECT by key, then UPDATE ... RETURNING), ${seconds} s each"
"${psql[@]}" -c "CREATE TABLE ident (provider_id text, subject text, user_uid text, access_token text, PRIMARY KEY (provider_id, subject));
  CREATE TABLE users (uid text PRIMARY KEY, last_sign_in_at double precision);
  INSERT INTO users SELECT 'u' || i, 0 FROM generate_series(1, 1000) i;
  INSERT INTO ident SELECT 'oidc.bench', 's' || i, 'u' || i, 'at' FROM generate_series(1, 1000) i;"
cat >"$dir/returning.sql" <<'SQL'
\set i random(1, 1000)
SELECT u.uid FROM users u JOIN ident i ON i.user_uid = u.uid WHERE i.provider_id = 'oidc.bench' AND i.subject = 's' || :i;
WITH x AS (UPDATE ident SET access_token = md5(random()::text) WHERE provider_id = 'oidc.bench' AND subject = 's' || :i RETURNING user_uid)
UPDATE users SET last_sign_in_at = extract(epoch from now()) WHERE uid IN (SELECT user_uid FROM x) RETURNING uid;
SQL
for clients in 1 8 64; do
  printf 'clients %-3s ' "$clients"
  "$bin/pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c "$clients" -j 2 -T "$seconds" -f "$dir/returning.sql" postgres 2>/dev/null \
    | grep -E '^tps' | sed 's/ (without initial connection time)//'
done

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "${BENCH_SKIP_SUITE:-0}" = 1 ] && exit 0
cd "$ROOT/Benchmarks"
swift build -c release --product AccountsPerf >/dev/null
echo "== AccountsPerf (release, both cores), ${1:-5} s per measure"
FEDERATE_BENCH_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres" .build/release/AccountsPerf "${1:-5}"
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${BENCH_SUITE:-0}" = 1 ]; then
  echo "== package-benchmark: AccountsBenchmarks"
  FEDERATE_BENCH_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres" \
    swift package --allow-writing-to-package-directory benchmark --target AccountsBenchmarks --no-progress --format markdown
fi
