#!/usr/bin/env bash
# Load test for Docs/Performance.md: what bearer ID-token verification adds to a request
# through `federate serve`, next to the raw verify rate, all in one run.
#
#   1. a dev provider, an RS256 ID token through `federate login` (this script plays the browser);
#   2. `federate serve` pinned to core 1, whose GET /api/whoami verifies the bearer ID token on
#      every request (BearerAuthenticationMiddleware; keys cached); a tampered token must get 401;
#   3. `openssl speed rsa2048` on the server's core (core 1);
#   4. wrk pinned to core 0 (-t1 -c32): GET / (a static page, the baseline), then GET /api/whoami,
#      both with the same Authorization header, so parsing the request costs the same; the pair
#      repeated LOAD_ROUNDS times (3), alternating, so a neighbour slowing the host for a while
#      weighs on both routes;
#   5. the added time per request, (1/bearer − 1/plain), against one raw verify (1/openssl),
#      over all rounds and per round (with their median);
#      the server's CPU time per request (from /proc, less sensitive to a loaded machine than
#      throughput); its resident memory; the load average.
#
# Usage: scripts/load.sh                       release build, 3 rounds of 10 s per route
#        LOAD_SOAK=300 scripts/load.sh         then 300 s more on /api/whoami, resident memory
#                                              sampled every 30 s (Docs/Performance.md, memory)
#        LOAD_TOKENS=rotate LOAD_CACHE_COMPARE=1 scripts/load.sh   a new token every request (below)
#        LOAD_TOKENS=flood scripts/load.sh     64 repeated tokens among one-time ones, cache on and off
# Environment: LOAD_BUILD (release|debug), LOAD_BINARY (skip the build, use this federate),
#   LOAD_DURATION (per route and round, default 10s), LOAD_ROUNDS (3; 1 with LOAD_ALLOCS or
#   LOAD_PERF, which count and sample one pair), LOAD_CONNECTIONS (32), LOAD_SERVER_CPU (1),
#   LOAD_CLIENT_CPU (0), LOAD_ALLOCS=1 (count the server's heap allocations per request with
#   an LD_PRELOAD counter built from scripts/malloc-count.c; needs cc), LOAD_PERF=1 (sample
#   the server with `perf record` during both measurements and print, per symbol, the CPU
#   microseconds per request the bearer route adds over the plain one: scripts/perf-diff.py;
#   the profiles, with call graphs, are kept in LOAD_PERF_DIR, default $TMPDIR or /tmp; with
#   LOAD_CACHE_COMPARE=1 the cache-off server is sampled too, and the cache server's
#   /api/whoami is also compared with the cache-off server's, per symbol),
#   LOAD_HOPS=1 (count Swift's executor switches per request on each route with a uprobe on
#   swift_task_switch; needs root and perf; with LOAD_HOP_STACKS=1, also where they come from),
#   LOAD_CACHE_COMPARE=1 (a second `federate serve` on the same core with
#   "verified_token_cache": false, whose /api/whoami is measured in each round too: the bearer
#   route's rate over the plain one's with the cache on, the default, and off, side by side).
#
# Many tokens (LOAD_TOKENS, default `one`: the one token above on every request):
#   LOAD_TOKENS=rotate  every request carries the next of LOAD_TOKEN_COUNT distinct tokens
#                       (50,000: five times the cache's 10,000 entries, 2.5 times its entries and
#                       ghosts), cycling, so a token comes back only after all the others and the
#                       cache never hits: what verifying a NEW token adds to a request. The cache
#                       server's hits and misses over the measurements are read from its /metrics
#                       (and shown, hits ~ 0).
#   LOAD_TOKENS=flood   half the requests carry one of LOAD_REPEATED (64) repeated tokens, in turn,
#                       the other half the next one-time token (the other LOAD_TOKEN_COUNT - 64,
#                       cycling: one comes back only after all the others, long evicted and
#                       forgotten by the cache), alternating; implies LOAD_CACHE_COMPARE=1. Prints the repeated
#                       tokens' hit rate from the cache's own counters (/metrics: hits come only
#                       from repeated tokens, so hits / half the lookups) and the cache server's
#                       /api/whoami rate over the cache-off server's, per round and over all.
#   The tokens are minted by scripts/load-issuer.py (Python's `cryptography`, every core, about
#   3,000 tokens/s per core, before the timed part): a tiny OpenID provider on 127.0.0.1 serving
#   the dev provider's discovery document with its own issuer and a JWKS of its own RSA-2048 key;
#   each token copies the header and claims of the login's real ID token (plus Google's profile
#   claims: about 1 KB) with a distinct `jti`. `serve` takes that provider's ID tokens instead of
#   the dev provider's, with /metrics on. wrk sends them with scripts/load-tokens.lua (every
#   request prepared at start), on BOTH routes with the same tokens, so `/` parses the same
#   headers; each route (and server) continues its own sequence from one wrk run (warm-up,
#   round) to the next. LOAD_HOPS and
#   LOAD_SOAK still send the one check token.
# Needs wrk, openssl, taskset, curl and python3 (with `cryptography` for LOAD_TOKENS).
# Exits non-zero when any request fails.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LOAD_BUILD:-release}"
DURATION="${LOAD_DURATION:-10s}"
CONNECTIONS="${LOAD_CONNECTIONS:-32}"
SERVER_CPU="${LOAD_SERVER_CPU:-1}"
CLIENT_CPU="${LOAD_CLIENT_CPU:-0}"
SOAK="${LOAD_SOAK:-0}"
TOKENS="${LOAD_TOKENS:-one}"
TOKEN_COUNT="${LOAD_TOKEN_COUNT:-50000}"
REPEATED="${LOAD_REPEATED:-64}"
case "$TOKENS" in
    one | rotate) ;;
    flood) LOAD_CACHE_COMPARE=1 ;;
    *) echo "load.sh: LOAD_TOKENS is one, rotate or flood" >&2; exit 2 ;;
esac
cd "$ROOT"
command -v wrk >/dev/null || { echo "load.sh: wrk is missing (apt-get install wrk)" >&2; exit 2; }

if [[ -n ${LOAD_BINARY:-} ]]; then
    BIN="$LOAD_BINARY"
else
    echo "[load] building federate ($BUILD)" >&2
    swift build -c "$BUILD" --product federate >&2
    BIN="$ROOT/.build/$BUILD/federate"
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/federate-load.XXXXXX")"
PIDS=()
PROBE=""
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -n $PROBE ]] && perf probe -q -d "$PROBE" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {'d': d}))" "$@"; }
wait_for() { for _ in $(seq "${3:-200}"); do [[ -s "$1" ]] && grep -q "$2" "$1" && return 0; sleep 0.05; done; echo "load.sh: timed out waiting for $1" >&2; exit 1; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# utime + stime of a process, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

PRELOAD=()
if [[ ${LOAD_ALLOCS:-0} == 1 ]]; then
    cc -O2 -shared -fPIC -o "$WORK/malloc-count.so" "$ROOT/scripts/malloc-count.c" -ldl
    PRELOAD=(env "LD_PRELOAD=$WORK/malloc-count.so")
fi

# 1. The dev provider (auto-approves its test user alice), and an ID token.
taskset -c "$CLIENT_CPU" "$BIN" dev-provider >"$WORK/dev.json" 2>/dev/null & PIDS+=($!)
wait_for "$WORK/dev.json" issuer
ISSUER="$(json "$WORK/dev.json" 'd["issuer"]')"
"$BIN" login --no-browser --issuer "$ISSUER" --client-id dev-client --client-secret=dev-secret --show-tokens \
    >"$WORK/login.json" 2>"$WORK/login.err" & LOGIN=$!
wait_for "$WORK/login.err" '^http://'
URL="$(grep -m1 '^http://' "$WORK/login.err")"
CALLBACK="$(curl -s -o /dev/null -w '%{redirect_url}' "$URL")"
curl -s -o /dev/null "$CALLBACK"
wait "$LOGIN"
TOKEN="$(json "$WORK/login.json" 'd["tokens"]["id_token"]')"
API_ISSUER="$ISSUER"
METRICS=""
if [[ $TOKENS != one ]]; then
    # Many valid tokens: our own provider on 127.0.0.1, its tokens shaped as the real one.
    echo "[load] minting $TOKEN_COUNT tokens (LOAD_TOKENS=$TOKENS)" >&2
    echo "$TOKEN" >"$WORK/template.txt"
    curl -sf "$ISSUER/.well-known/openid-configuration" >"$WORK/discovery.json"
    python3 "$ROOT/scripts/load-issuer.py" "$WORK/template.txt" "$WORK/discovery.json" "$TOKEN_COUNT" "$WORK" "$CLIENT_CPU" \
        >"$WORK/issuer.json" & PIDS+=($!)
    wait_for "$WORK/issuer.json" issuer 12000
    API_ISSUER="$(json "$WORK/issuer.json" 'd["issuer"]')"
    TOKEN="$(cat "$WORK/check.txt")"
    echo "[load] $(json "$WORK/issuer.json" 'd["tokens"]') tokens of $(json "$WORK/issuer.json" 'd["bytes"]') bytes from $API_ISSUER" >&2
    METRICS=', "metrics": {"enabled": true, "bearer_token_env": "LOAD_METRICS_TOKEN"}'
    export LOAD_METRICS_TOKEN="load-$RANDOM$RANDOM"
fi

# 2. `federate serve` on its own core, whose API takes that provider's ID tokens.
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
cat >"$WORK/serve.json" <<JSON
{"port": $PORT, "store": {"sqlite": "$WORK/accounts.sqlite"}, "api_bearer_provider": "dev"$METRICS,
 "providers": [{"name": "dev", "type": "oidc", "issuer": "$API_ISSUER", "client_id": "dev-client", "client_secret_env": "LOAD_DEV_SECRET"}]}
JSON
LOAD_DEV_SECRET=dev-secret "${PRELOAD[@]}" taskset -c "$SERVER_CPU" "$BIN" serve --config "$WORK/serve.json" \
    >"$WORK/serve.out" 2>"$WORK/serve.err" & SERVER=$!; PIDS+=($SERVER)
wait_for "$WORK/serve.out" url
BASE="http://127.0.0.1:$PORT"
if [[ ${LOAD_CACHE_COMPARE:-0} == 1 ]]; then
    PORT_OFF="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    cat >"$WORK/serve-off.json" <<JSON
{"port": $PORT_OFF, "store": {"sqlite": "$WORK/accounts-off.sqlite"}, "api_bearer_provider": "dev", "verified_token_cache": false,
 "providers": [{"name": "dev", "type": "oidc", "issuer": "$API_ISSUER", "client_id": "dev-client", "client_secret_env": "LOAD_DEV_SECRET"}]}
JSON
    LOAD_DEV_SECRET=dev-secret taskset -c "$SERVER_CPU" "$BIN" serve --config "$WORK/serve-off.json" \
        >"$WORK/serve-off.out" 2>"$WORK/serve-off.err" & SERVER_OFF=$!; PIDS+=($SERVER_OFF)
    wait_for "$WORK/serve-off.out" url
    BASE_OFF="http://127.0.0.1:$PORT_OFF"
    STATUS="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE_OFF/api/whoami")"
    [[ "$STATUS" == 200 ]] || { echo "load.sh: /api/whoami (cache off) answered $STATUS" >&2; exit 1; }
fi
STATUS="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/api/whoami")"
[[ "$STATUS" == 200 ]] || { echo "load.sh: /api/whoami answered $STATUS" >&2; exit 1; }
BAD="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${TOKEN}x" "$BASE/api/whoami")"
[[ "$BAD" == 401 ]] || { echo "load.sh: a tampered token got $BAD" >&2; exit 1; }
NONE="$(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/whoami")"
[[ "$NONE" == 401 ]] || { echo "load.sh: a request without a token got $NONE" >&2; exit 1; }

# 3. The raw limit, on the server's core, in the same run.
LOAD_START="$(loadavg)"
RAW="$(taskset -c "$SERVER_CPU" openssl speed -seconds 3 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print $(NF)}')"

# 4. The load: wrk on the other core. Prints requests/s; records the server's CPU ticks and
#    (with LOAD_ALLOCS) allocations per request.
allocs() { kill -USR2 "$SERVER"; sleep 0.2; awk '/^allocs / { n = $2 } END { print n + 0 }' "$WORK/serve.err"; }
# The cache server's verified-token cache counters (hits, misses), summed over kinds, from /metrics.
cache_counts() {
    curl -sf -H "Authorization: Bearer $LOAD_METRICS_TOKEN" "$BASE/metrics" | awk '
        $1 ~ /^federate_verified_token_cache_hits_total($|\{)/ { h += $NF }
        $1 ~ /^federate_verified_token_cache_misses_total($|\{)/ { m += $NF }
        END { printf "%d %d\n", h, m }'
}
run_wrk() { # $1 = path, $2 = duration, $3 = output file, $4 = base URL (default $BASE), $5 = label (its token sequence)
    local auth=(-H "Authorization: Bearer $TOKEN")
    [[ $TOKENS != one ]] && auth=(-s "$ROOT/scripts/load-tokens.lua")
    local args=()
    [[ $TOKENS != one ]] && args=(-- "$WORK/tokens.txt" "$TOKENS" "$WORK/cursor-${5:-x}" "$REPEATED")
    taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"$2" "${auth[@]}" "${4:-$BASE}$1" "${args[@]}" >"$3"
    if grep -qE "Non-2xx|Socket errors" "$3"; then cat "$3" >&2; echo "load.sh: some requests to $1 failed" >&2; exit 1; fi
}
measure() { # $1 = path, $2 = label, $3 = base URL, $4 = server pid; sets RPS_<label>, TICKS_<label>, REQS_<label>, ALLOCS_<label>
    #                (and HITS_<label>, MISSES_<label>: the cache server's counters over the measurement, with LOAD_TOKENS)
    local base="${3:-$BASE}" pid="${4:-$SERVER}"
    run_wrk "$1" 2s "$WORK/warm.txt" "$base" "$2"
    local c0="0 0" c1="0 0"
    [[ $TOKENS != one ]] && c0="$(cache_counts)"
    local a0=0 a1=0 t0 t1
    [[ ${#PRELOAD[@]} -gt 0 ]] && a0="$(allocs)"
    t0="$(cpu_ticks "$pid")"
    local sampler=""
    if [[ ${LOAD_PERF:-0} == 1 ]]; then
        perf record -q -g -e cpu-clock -F 4000 -p "$pid" -o "$WORK/$2.perf" -- sleep "$DURATION" 2>/dev/null & sampler=$!
    fi
    run_wrk "$1" "$DURATION" "$WORK/$2.txt" "$base" "$2"
    [[ -n $sampler ]] && wait "$sampler"
    t1="$(cpu_ticks "$pid")"
    [[ $TOKENS != one ]] && c1="$(cache_counts)"
    printf -v "HITS_$2" '%s' "$(( ${c1% *} - ${c0% *} ))"
    printf -v "MISSES_$2" '%s' "$(( ${c1#* } - ${c0#* } ))"
    [[ ${#PRELOAD[@]} -gt 0 ]] && a1="$(allocs)"
    printf -v "RPS_$2" '%s' "$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/$2.txt")"
    printf -v "REQS_$2" '%s' "$(awk '/requests in/ { print $1 }' "$WORK/$2.txt")"
    printf -v "TICKS_$2" '%s' "$((t1 - t0))"
    printf -v "ALLOCS_$2" '%s' "$((a1 - a0))"
}
ROUNDS="${LOAD_ROUNDS:-3}"
[[ ${LOAD_ALLOCS:-0} == 1 || ${LOAD_PERF:-0} == 1 ]] && ROUNDS=1
RSS_START="$(rss_kib "$SERVER")"
: >"$WORK/rounds.txt"
: >"$WORK/rounds-off.txt"
for _ in $(seq "$ROUNDS"); do
    measure / plain
    measure /api/whoami bearer
    echo "$RPS_plain $RPS_bearer $REQS_plain $REQS_bearer $TICKS_plain $TICKS_bearer $HITS_bearer $MISSES_bearer" >>"$WORK/rounds.txt"
    if [[ -n ${BASE_OFF:-} ]]; then
        measure /api/whoami off "$BASE_OFF" "$SERVER_OFF"
        echo "$RPS_plain $RPS_off $REQS_plain $REQS_off $TICKS_plain $TICKS_off" >>"$WORK/rounds-off.txt"
    fi
done
LOAD_END="$(loadavg)"
RSS_AFTER="$(rss_kib "$SERVER")"

HZ="$(getconf CLK_TCK)"
# Over all rounds: requests and the time they took (requests / rate), the server's CPU ticks.
awk -v raw="$RAW" -v hz="$HZ" -v ap="$ALLOCS_plain" -v ab="$ALLOCS_bearer" -v counted="${#PRELOAD[@]}" '
{ np += $3; nb += $4; sp += $3 / $1; sb += $4 / $2; tp += $5; tb += $6
  round[NR] = (1e6 / $2 - 1e6 / $1) * raw / 1e6 }
END {
    plain = np / sp; bearer = nb / sb
    added = 1e6 / bearer - 1e6 / plain; verify = 1e6 / raw
    cp = tp / hz * 1e6 / np; cb = tb / hz * 1e6 / nb
    printf "openssl speed rsa2048 (core of the server)   %10.0f verify/s  (%.1f us each)\n", raw, verify
    printf "GET / (static page)                          %10.0f req/s     server CPU %.1f us/req\n", plain, cp
    printf "GET /api/whoami (RS256 bearer ID token)      %10.0f req/s     server CPU %.1f us/req\n", bearer, cb
    printf "added by verification, from throughput       %10.1f us/req  = %.2f x one raw verify\n", added, added / verify
    printf "added by verification, from server CPU time  %10.1f us/req  = %.2f x one raw verify\n", cb - cp, (cb - cp) / verify
    printf "bearer route rate / plain route rate          %10.2f\n", bearer / plain
    if (NR > 1) {
        line = ""
        for (i = 1; i <= NR; i++) {
            line = line sprintf(" %.2f", round[i])
            for (j = i; j > 1 && sorted[j - 1] > round[i]; j--) sorted[j] = sorted[j - 1]
            sorted[j] = round[i]
        }
        median = NR % 2 ? sorted[(NR + 1) / 2] : (sorted[NR / 2] + sorted[NR / 2 + 1]) / 2
        printf "added per round, x one raw verify           %s (median %.2f)\n", line, median
    }
    if (counted) printf "heap allocations per request                 %10.1f (/) %10.1f (/api/whoami)\n", ap / np, ab / nb
}' "$WORK/rounds.txt"
if [[ -s "$WORK/rounds-off.txt" ]]; then
    echo "the same, against a server with \"verified_token_cache\": false (plain route measured once, above):"
    awk -v raw="$RAW" -v hz="$HZ" '
    { np += $3; nb += $4; sp += $3 / $1; sb += $4 / $2; tp += $5; tb += $6
      ratio = ratio sprintf(" %.2f", $2 / $1) }
    END {
        plain = np / sp; bearer = nb / sb; verify = 1e6 / raw
        printf "GET /api/whoami, cache off                   %10.0f req/s     server CPU %.1f us/req\n", bearer, tb / hz * 1e6 / nb
        printf "added by verification, cache off             %10.1f us/req  = %.2f x one raw verify\n", 1e6 / bearer - 1e6 / plain, (1e6 / bearer - 1e6 / plain) / verify
        printf "bearer route rate / plain route rate, off    %10.2f (per round:%s)\n", bearer / plain, ratio
    }' "$WORK/rounds-off.txt"
    awk '{ ratio = ratio sprintf(" %.2f", $2 / $1) } END { printf "bearer / plain per round, cache on            %s\n", ratio }' "$WORK/rounds.txt"
    # Cache on against cache off, the same route in the same round: its rate and CPU per request.
    paste -d' ' "$WORK/rounds.txt" "$WORK/rounds-off.txt" | awk -v hz="$HZ" '
    { non += $4; son += $4 / $2; ton += $6; noff += $12; soff += $12 / $10; toff += $14
      ratio = ratio sprintf(" %.3f", $2 / $10); cpu = cpu sprintf(" %.3f", ($6 / $4) / ($14 / $12)) }
    END {
        printf "/api/whoami rate, cache on / cache off         %10.3f (per round:%s)\n", (non / son) / (noff / soff), ratio
        printf "server CPU per request, cache on / off         %10.3f (per round:%s)\n", (ton / non) / (toff / noff), cpu
    }'
fi
if [[ $TOKENS != one ]]; then
    # The cache server's own counters over the timed /api/whoami measurements (warm-ups excluded).
    awk -v mode="$TOKENS" -v count="$TOKEN_COUNT" -v repeated="$REPEATED" '
    { h += $7; m += $8; nb += $4; per = per sprintf(" %.2f", mode == "flood" ? 100 * $7 / (($7 + $8) / 2) : 100 * $7 / ($7 + $8)) }
    END {
        printf "tokens: %s, %d distinct; cache lookups %d (wrk counted %d responses): %d hits, %d misses\n", mode, count, h + m, nb, h, m
        if (mode == "flood")
            printf "repeated tokens (%d) hit rate, hits / (lookups / 2)  %7.2f %% (per round:%s)\n", repeated, 100 * h / ((h + m) / 2), per
        else
            printf "cache hit rate (a new token every request)          %7.3f %% (per round:%s)\n", 100 * h / (h + m), per
    }' "$WORK/rounds.txt"
fi
echo "server resident memory: ${RSS_START} KiB before, ${RSS_AFTER} KiB after; load average ${LOAD_START} before, ${LOAD_END} after"
if [[ ${LOAD_PERF:-0} == 1 ]]; then
    python3 "$ROOT/scripts/perf-diff.py" "$WORK/plain.perf" "$REQS_plain" "$WORK/bearer.perf" "$REQS_bearer"
    KEEP="${LOAD_PERF_DIR:-${TMPDIR:-/tmp}}"
    cp "$WORK/plain.perf" "$WORK/bearer.perf" "$KEEP/" && echo "profiles: $KEEP/plain.perf, $KEEP/bearer.perf (perf report -i ...)"
    if [[ -n ${BASE_OFF:-} ]]; then
        echo "GET /api/whoami, cache on over cache off:"
        python3 "$ROOT/scripts/perf-diff.py" "$WORK/off.perf" "$REQS_off" "$WORK/bearer.perf" "$REQS_bearer"
        cp "$WORK/off.perf" "$KEEP/" && echo "profile: $KEEP/off.perf"
    fi
fi

# 5. Executor switches per request (LOAD_HOPS=1): a uprobe on Swift's swift_task_switch,
#    counted by `perf stat` over a short wrk run per route. In `serve` every switch is an
#    enqueue on the event loop. A count, so the machine's noise does not move it; uprobes slow
#    the server, so this runs after the timed measurements.
if [[ ${LOAD_HOPS:-0} == 1 ]]; then
    LIB="$(awk '/libswift_Concurrency\.so/ { print $6; exit }' "/proc/$SERVER/maps")"
    perf probe -q -d '*:federate_load_switch' 2>/dev/null || true  # left by an interrupted run
    PROBE="$(perf probe -x "${LIB:-$BIN}" federate_load_switch=swift_task_switch 2>&1 | awk '/^ *probe_[A-Za-z0-9_]*:federate_load_switch/ { print $1; exit }' || true)"
    [[ -n $PROBE ]] || { echo "load.sh: could not place a uprobe on swift_task_switch (root and perf are needed)" >&2; exit 1; }
    for route in / /api/whoami; do
        perf stat -x, -e "$PROBE" -p "$SERVER" -o "$WORK/hops.csv" -- \
            taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d3s -H "Authorization: Bearer $TOKEN" "$BASE$route" >"$WORK/hops.txt"
        awk -F, -v route="$route" -v requests="$(awk '/requests in/ { print $1 }' "$WORK/hops.txt")" \
            '$3 ~ /federate_load_switch/ { printf "executor switches per request, GET %-12s %6.1f\n", route, $1 / requests }' "$WORK/hops.csv"
        if [[ ${LOAD_HOP_STACKS:-0} == 1 ]]; then
            # Where the switches resume: swift_task_switch's resume function (its second
            # argument, in rdi under the swiftasync convention), over one connection for 1 s,
            # counted per function, demangled, in LOAD_PERF_DIR (default $TMPDIR or /tmp).
            name="$(echo "$route" | tr -c 'a-z\n' '_')"
            out="${LOAD_PERF_DIR:-${TMPDIR:-/tmp}}/hops$name.txt"
            perf probe -q -d '*:federate_load_resume' 2>/dev/null || true
            resume="$(perf probe -x "${LIB:-$BIN}" 'federate_load_resume=swift_task_switch fn=%di:u64' 2>&1 | awk '/^ *probe_[A-Za-z0-9_]*:federate_load_resume/ { print $1; exit }')"
            perf record -q -e "$resume" -p "$SERVER" -o "$WORK/hops$name.perf" -- \
                taskset -c "$CLIENT_CPU" wrk -t1 -c1 -d1s -H "Authorization: Bearer $TOKEN" "$BASE$route" >"$WORK/hops1.txt" 2>&1
            perf probe -q -d "$resume" 2>/dev/null || true
            base="$(awk -v bin="$(readlink -f "$BIN")" '$6 == bin { split($1, r, "-"); print r[1]; exit }' "/proc/$SERVER/maps")"
            perf script -i "$WORK/hops$name.perf" -F trace 2>/dev/null | sed -n 's/.*fn=\([0-9]*\).*/\1/p' |
                python3 -c "import sys; base = int('$base', 16); [print(hex(int(l) - base)) for l in sys.stdin]" |
                addr2line -f -e "$BIN" | awk 'NR % 2 == 1' | sort | uniq -c | sort -rn |
                awk -v n="$(awk '/requests in/ { print $1 }' "$WORK/hops1.txt")" '{ printf "%8.2f per request  %s\n", $1 / n, $2 }' |
                swift demangle --simplified >"$out"
            echo "where the switches on GET $route resume: $out"
        fi
    done
fi

# 6. The soak: resident memory under sustained load.
if [[ $SOAK -gt 0 ]]; then
    echo "soak: ${SOAK} s of GET /api/whoami; resident memory (KiB) every 30 s:"
    taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"${SOAK}s" -H "Authorization: Bearer $TOKEN" "$BASE/api/whoami" >"$WORK/soak.txt" & WRK=$!
    elapsed=0
    printf '  t=%4ss %s\n' 0 "$(rss_kib "$SERVER")"
    while kill -0 "$WRK" 2>/dev/null; do
        sleep 30; elapsed=$((elapsed + 30))
        kill -0 "$WRK" 2>/dev/null && printf '  t=%4ss %s\n' "$elapsed" "$(rss_kib "$SERVER")"
    done
    wait "$WRK"
    printf '  end    %s (load average %s)\n' "$(rss_kib "$SERVER")" "$(loadavg)"
    grep -E "requests in|Requests/sec|Non-2xx|Socket errors" "$WORK/soak.txt"
    if grep -qE "Non-2xx|Socket errors" "$WORK/soak.txt"; then echo "load.sh: some requests failed" >&2; exit 1; fi
fi
