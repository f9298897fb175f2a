#!/usr/bin/env bash
# Load test for Docs/Performance.md: wrk against `federate serve`'s GET /api/whoami, a route
# guarded by bearer ID-token verification (RS256, keys from the dev provider's JWKS), with
# 64 connections on loopback; next to `openssl speed rsa2048` measured in the same run.
#
# Usage: scripts/load.sh                 release build, 20 s
#        LOAD_BUILD=debug LOAD_DURATION=10s scripts/load.sh
# Needs wrk and openssl (Debian packages), curl and python3. Exits non-zero when any request
# fails (a non-2xx answer or a socket error).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LOAD_BUILD:-release}"
DURATION="${LOAD_DURATION:-20s}"
CONNECTIONS="${LOAD_CONNECTIONS:-64}"
cd "$ROOT"
command -v wrk >/dev/null || { echo "load.sh: wrk is missing (apt-get install wrk)" >&2; exit 2; }

echo "[load] building federate ($BUILD)" >&2
swift build -c "$BUILD" --product federate >&2
BIN="$ROOT/.build/$BUILD/federate"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/federate-load.XXXXXX")"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {'d': d}))" "$@"; }
wait_for() { for _ in $(seq 200); do [[ -s "$1" ]] && grep -q "$2" "$1" && return 0; sleep 0.05; done; echo "load.sh: timed out waiting for $1" >&2; exit 1; }

# 1. The dev provider (auto-approves its test user alice).
"$BIN" dev-provider >"$WORK/dev.json" 2>/dev/null & PIDS+=($!)
wait_for "$WORK/dev.json" issuer
ISSUER="$(json "$WORK/dev.json" 'd["issuer"]')"

# 2. An ID token through `federate login`; this script plays the browser.
"$BIN" login --no-browser --issuer "$ISSUER" --client-id dev-client --client-secret=dev-secret --show-tokens \
    >"$WORK/login.json" 2>"$WORK/login.err" & LOGIN=$!
wait_for "$WORK/login.err" '^http://'
URL="$(grep -m1 '^http://' "$WORK/login.err")"
CALLBACK="$(curl -s -o /dev/null -w '%{redirect_url}' "$URL")"
curl -s -o /dev/null "$CALLBACK"
wait "$LOGIN"
TOKEN="$(json "$WORK/login.json" 'd["tokens"]["id_token"]')"

# 3. `federate serve` whose API takes that provider's ID tokens.
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
cat >"$WORK/serve.json" <<JSON
{"port": $PORT, "store": {"sqlite": "$WORK/accounts.sqlite"}, "api_bearer_provider": "dev",
 "providers": [{"name": "dev", "type": "oidc", "issuer": "$ISSUER", "client_id": "dev-client", "client_secret_env": "LOAD_DEV_SECRET"}]}
JSON
LOAD_DEV_SECRET=dev-secret "$BIN" serve --config "$WORK/serve.json" >"$WORK/serve.out" 2>/dev/null & PIDS+=($!)
wait_for "$WORK/serve.out" url
STATUS="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/whoami")"
[[ "$STATUS" == 200 ]] || { echo "load.sh: /api/whoami answered $STATUS" >&2; exit 1; }
BAD="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${TOKEN}x" "http://127.0.0.1:$PORT/api/whoami")"
[[ "$BAD" == 401 ]] || { echo "load.sh: a tampered token got $BAD" >&2; exit 1; }

# 4. The raw limit, same machine, same run.
RAW="$(openssl speed -seconds 3 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print $(NF)}')"
echo "openssl speed rsa2048: $RAW verify/s (one core)"

# 5. The load.
wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/whoami" | tee "$WORK/wrk.txt"
if grep -qE "Non-2xx|Socket errors" "$WORK/wrk.txt"; then
    echo "load.sh: some requests failed" >&2
    exit 1
fi
