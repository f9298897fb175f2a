#!/usr/bin/env bash
# Issue 16, item 4's last figure: full sign-ins through the dev provider per second with one
# `federate serve` instance, then with two instances on one durable PostgreSQL, in one run.
#
#   1. a throwaway PostgreSQL 15 (fsync and synchronous_commit on: the defaults);
#   2. `federate dev-provider` (alice auto-approved) and two `federate serve` instances, both
#      on that database, sharing one sealing key;
#   3. scripts/signin-load.py (Python processes playing browsers: start, the provider's
#      authorization, the callback with code exchange, ID-token verification, sign-in and the
#      session cookie) against instance A alone, then against A and B;
#   4. the sign-ins per second of each, their ratio, and the CPU seconds per sign-in of every
#      process group (the instances, the provider, PostgreSQL, the load), from /proc.
#
# Usage: scripts/multi-instance-bench.sh [seconds per run, default 15] [load processes, default 8]
# Environment: BENCH_BINARY (a release `federate`; default: build one).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pgbin="${FEDERATE_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
seconds="${1:-15}"
workers="${2:-8}"
if [[ -n ${BENCH_BINARY:-} ]]; then
    BIN="$BENCH_BINARY"
else
    (cd "$ROOT" && swift build -c release --product federate >&2)
    BIN="$ROOT/.build/release/federate"
fi

WORK="$(mktemp -d /tmp/federate-multi.XXXXXX)"
PIDS=()
as_postgres=()
if [ "$(id -u)" = 0 ]; then as_postgres=(runuser -u postgres --); chown postgres: "$WORK"; fi
chmod 700 "$WORK"
cleanup() {
    # The instances start in command substitutions (subshells): their PIDs are in files.
    for file in "$WORK"/*.pid; do [[ -f $file ]] && PIDS+=("$(cat "$file")"); done
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    "${as_postgres[@]}" "$pgbin/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
wait_for() { for _ in $(seq 600); do [[ -s "$1" ]] && grep -q "$2" "$1" && return 0; sleep 0.05; done; echo "multi-instance-bench: timed out waiting for $1" >&2; exit 1; }
# utime + stime of processes (children included), in clock ticks.
ticks() { local total=0; for pid in "$@"; do total=$((total + $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$total"; }
postgres_pids() { pgrep -u postgres -f "postgres" | tr '\n' ' '; }

pgport="$(free_port)"
"${as_postgres[@]}" "$pgbin/initdb" -D "$WORK/data" -U postgres --auth=trust -E UTF8 >"$WORK/initdb.log" 2>&1
"${as_postgres[@]}" "$pgbin/pg_ctl" -D "$WORK/data" -l "$WORK/pg.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -k $WORK -c max_connections=200 -c shared_buffers=256MB" start >/dev/null

"$BIN" dev-provider >"$WORK/dev.json" 2>/dev/null & DEV=$!; PIDS+=($DEV)
wait_for "$WORK/dev.json" issuer
ISSUER="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["issuer"])' "$WORK/dev.json")"
KEY="$(python3 -c 'import base64,os; print(base64.b64encode(os.urandom(32)).decode())')"
start_instance() { # $1 = name; prints the origin
    local port; port="$(free_port)"
    cat >"$WORK/$1.json" <<JSON
{"port": $port, "store": {"postgres_url_env": "BENCH_DATABASE_URL"}, "sealing_key_env": "BENCH_SEALING_KEY",
 "providers": [{"name": "dev", "type": "oidc", "issuer": "$ISSUER", "client_id": "dev-client", "client_secret_env": "BENCH_DEV_SECRET"}]}
JSON
    BENCH_DATABASE_URL="postgres://postgres@127.0.0.1:$pgport/postgres" BENCH_SEALING_KEY="$KEY" BENCH_DEV_SECRET=dev-secret "$BIN" serve --config "$WORK/$1.json" >"$WORK/$1.out" 2>"$WORK/$1.err" &
    echo "$!" >"$WORK/$1.pid"
    wait_for "$WORK/$1.out" url
    for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.05; done
    echo "http://127.0.0.1:$port"
}
A="$(start_instance a)"; B="$(start_instance b)"
APID="$(cat "$WORK/a.pid")"; BPID="$(cat "$WORK/b.pid")"

run() { # $1 = label, then origins
    local label="$1"; shift
    python3 "$ROOT/scripts/signin-load.py" 3 "$workers" "$@" >/dev/null  # warm-up: keys, pools, plans
    local a0 b0 d0 p0 a1 b1 d1 p1 result load
    a0=$(ticks "$APID"); b0=$(ticks "$BPID"); d0=$(ticks "$DEV"); p0=$(ticks $(postgres_pids))
    result="$(/usr/bin/time -f 'TIME %U %S' -o "$WORK/time" python3 "$ROOT/scripts/signin-load.py" "$seconds" "$workers" "$@")"
    a1=$(ticks "$APID"); b1=$(ticks "$BPID"); d1=$(ticks "$DEV"); p1=$(ticks $(postgres_pids))
    load="$(awk -v hz="$(getconf CLK_TCK)" '/^TIME/ { printf "%d", ($2 + $3) * hz }' "$WORK/time")"
    python3 - "$label" "$result" "$((a1 - a0))" "$((b1 - b0))" "$((d1 - d0))" "$((p1 - p0))" "$load" "$(getconf CLK_TCK)" <<'PY'
import json, sys
label, result = sys.argv[1], json.loads(sys.argv[2])
a, b, dev, pg, load, hz = (int(x) for x in sys.argv[3:9])
n = max(result["signins"], 1)
ms = lambda ticks: ticks / hz * 1000 / n
print(f"{label}: {result['per_second']:8.1f} sign-ins/s ({result['signins']} in {result['seconds']} s, {result['errors']} errors); "
      f"CPU ms per sign-in: serve A {ms(a):.2f}, serve B {ms(b):.2f}, dev provider {ms(dev):.2f}, PostgreSQL {ms(pg):.2f}, load {ms(load):.2f}; "
      f"all {ms(a + b + dev + pg + load):.2f} (2 cores give {2000 / result['per_second']:.2f} per sign-in)")
print("RATE", result["per_second"])
PY
}
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $workers load processes, $seconds s per run"
one="$(run "one instance " "$A")"; echo "$one" | grep -v '^RATE'
two="$(run "two instances" "$A" "$B")"; echo "$two" | grep -v '^RATE'
python3 -c 'import sys; print(f"two instances / one: {float(sys.argv[2]) / float(sys.argv[1]):.2f} (goal >= 1.6)")' \
    "$(echo "$one" | awk '/^RATE/ { print $2 }')" "$(echo "$two" | awk '/^RATE/ { print $2 }')"
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
