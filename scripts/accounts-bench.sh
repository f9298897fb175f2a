#!/usr/bin/env bash
# Sessions and accounts figures (Docs/Performance.md, "Sessions and accounts"), in one run:
#   1. the load average;
#   2. `openssl speed ecdsap256` on core 0 (the raw P-256 verify baseline);
#   3. a durable PostgreSQL 15 on loopback (fsync, synchronous_commit and full_page_writes on:
#      the defaults), in a temporary directory, stopped at the end;
#   4. what bounds a durable commit there: `pg_test_fsync` on the same disk;
#   5. `pgbench` running exactly the statements Federate runs for a returning and for a new
#      sign-in (the server logs them while `AccountsPerf statements` signs in once each;
#      scripts/pgbench-statements.py makes the pgbench scripts) with 1, 8 and 64 clients;
#   6. AccountsPerf (release): session verification as a ratio to a raw P-256 verify measured
#      interleaved with it, sign-ins per second, new and returning, and `accessToken` with a
#      fresh kept provider token (the provider never called), on SQLite and on it; then each
#      PostgreSQL sign-in rate over pgbench's rate for the same statements;
#   7. with BENCH_SUITE=1, the package-benchmark suite AccountsBenchmarks too (percentiles of
#      the same workload; the ratios come from AccountsPerf).
#
# Usage: scripts/accounts-bench.sh [seconds per AccountsPerf measure, default 5]
# Environment: BENCH_PGBENCH_SECONDS (default 10), FEDERATE_BENCH_POSTGRES_POOL (default 64),
#              BENCH_SKIP_SUITE=1 (baselines 1-4 only: no Swift build or run),
#              FEDERATE_BENCH_NIO_EXECUTOR=1 (Swift tasks on SwiftNIO's event loops, as serve runs them).
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

[ "${BENCH_SKIP_SUITE:-0}" = 1 ] && exit 0
(cd "$ROOT/Benchmarks" && swift build -c release --product AccountsPerf >/dev/null)
perf_binary="$ROOT/Benchmarks/.build/release/AccountsPerf"
url="postgres://postgres@127.0.0.1:$port/postgres"

echo "== pgbench: exactly the statements Federate runs for a sign-in, ${seconds} s each"
# The server logs every statement while AccountsPerf runs one returning and one new sign-in
# between markers; scripts/pgbench-statements.py turns what it logged into pgbench scripts.
"${psql[@]}" -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
FEDERATE_BENCH_POSTGRES_URL="$url" "$perf_binary" statements >"$dir/values.txt"
"${psql[@]}" -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" >/dev/null
python3 "$ROOT/scripts/pgbench-statements.py" "$dir/server.log" "$dir/values.txt" "$dir"
# The machine's busy CPU time in clock ticks (/proc/stat: all but idle and I/O wait).
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
ticks_per_second=$(getconf CLK_TCK)
for kind in returning new; do
  echo "-- $kind sign-in: $(grep -c ';$' "$dir/$kind.sql") statement(s), $(grep -ciE '^(BEGIN|COMMIT)' "$dir/$kind.sql" || true) BEGIN/COMMIT"
  sed 's/^/   | /' "$dir/$kind.sql"
  for clients in 1 8 64; do
    before=$(busy_ticks)
    "$bin/pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c "$clients" -j 2 -T "$seconds" -f "$dir/$kind.sql" postgres \
      >"$dir/pgbench.out" 2>&1 || true
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$dir/pgbench.out")
    transactions=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$dir/pgbench.out")
    machine=$(awk -v b="$before" -v a="$(busy_ticks)" -v t="${transactions:-0}" -v hz="$ticks_per_second" \
      'BEGIN { printf "%.0f", (t > 0 ? (a - b) / hz * 1e6 / t : 0) }')
    printf 'pgbench %-9s clients %-3s tps = %-12s machine CPU each: %s µs\n' "$kind" "$clients" "${tps:-failed}" "$machine"
    echo "$kind $clients ${tps:-0}" >>"$dir/pgbench.txt"
  done
done

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== AccountsPerf (release, both cores), ${1:-5} s per measure"
FEDERATE_BENCH_POSTGRES_URL="$url" "$perf_binary" "${1:-5}" | tee "$dir/accounts.txt"
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== PostgreSQL sign-ins ÷ pgbench running the same statements (same run)"
for kind in returning new; do
  for clients in 1 8 64; do
    rate=$(sed -n "s/^PostgreSQL: signIn $kind user, concurrency $clients  *\([0-9]*\) .*/\1/p" "$dir/accounts.txt")
    tps=$(awk -v k="$kind" -v c="$clients" '$1 == k && $2 == c { print $3 }' "$dir/pgbench.txt")
    awk -v k="$kind" -v c="$clients" -v r="${rate:-0}" -v t="${tps:-0}" \
      'BEGIN { printf "%-9s concurrency %-3s %7d /s ÷ %8.0f tps = %.2f ×\n", k, c, r, t, (t > 0 ? r / t : 0) }'
  done
done
cd "$ROOT/Benchmarks"
if [ "${BENCH_SUITE:-0}" = 1 ]; then
  echo "== package-benchmark: AccountsBenchmarks"
  FEDERATE_BENCH_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres" \
    swift package --allow-writing-to-package-directory benchmark --target AccountsBenchmarks --no-progress --format markdown
fi
