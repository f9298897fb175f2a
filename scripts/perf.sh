#!/usr/bin/env bash
# Performance evidence for Federate's ID-token verification (Docs/Performance.md).
#
# In one run on this machine:
#   1. builds `federate` in release;
#   2. measures the raw RSA-2048 and P-256 verify rates with `openssl speed`, pinned to core 0;
#   3. generates N RS256 and N ES256 ID tokens (iss/aud/sub/iat/exp valid for an hour) and a
#      JWKS with Python `cryptography` (in .venv);
#   4. times `taskset -c 0 federate verify --jwks ... --output summary < tokens`, subtracts the
#      start-up time of a 1-token run, and divides by openssl's verify/s;
#   5. (full mode) runs Benchmarks/Perf's FederatePerf: the single-core figures pinned to
#      core 0, the 1-vs-2-task scaling pair on both cores; then the package-benchmark suite
#      (Benchmarks/Benchmarks/FederateBenchmarks, same fixtures) with its percentiles.
#
# Usage: scripts/perf.sh            full: 40,000 tokens, benchmarks, exits 1 if the CLI RS256
#                                   ratio is below the 0.9 requirement (issue 13)
#        scripts/perf.sh --quick    CI: 4,000 tokens, no in-process figures, never fails on ratio
# Environment: PERF_TOKENS (token count), PERF_REPEAT (timed runs per file, best is kept),
#              PERF_SKIP_BUILD=1 (use the existing .build/release/federate, or PERF_BINARY),
#              PERF_BASELINE_BINARY (another build's federate, timed in the same run, its runs
#              alternating with this one's, and printed beside it),
#              PERF_WORK (scratch directory; default a fresh temporary one).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

MODE=full
for arg in "$@"; do
    case "$arg" in
        --quick) MODE=quick ;;
        -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "unknown argument: $arg" >&2; exit 2 ;;
    esac
done
if [[ $MODE == quick ]]; then
    TOKENS=${PERF_TOKENS:-4000}; REPEAT=${PERF_REPEAT:-2}
else
    TOKENS=${PERF_TOKENS:-40000}; REPEAT=${PERF_REPEAT:-3}
fi
REQUIRED_RATIO=0.9
ISS="https://perf.federate.dev"
AUD="perf-client"

log() { printf '[perf] %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# taskset pins to core 0 where it exists (it does on every Linux with util-linux).
PIN=()
if command -v taskset >/dev/null 2>&1; then PIN=(taskset -c 0); else log "taskset not found: timings are not pinned"; fi

# --- 1. release build -----------------------------------------------------------------------
FEDERATE="${PERF_BINARY:-$ROOT/.build/release/federate}"
if [[ ${PERF_SKIP_BUILD:-0} != 1 ]]; then
    log "building federate (release; several minutes the first time)"
    swift build -c release --product federate >&2
fi
[[ -x $FEDERATE ]] || { echo "no release binary at $FEDERATE" >&2; exit 1; }

# --- 2. openssl speed ---------------------------------------------------------------------
# The last field of the result line is verify/s.
openssl_verify_rate() { # $1 = rsa2048 | ecdsap256
    local out
    out="$("${PIN[@]}" openssl speed -seconds 3 "$1" 2>/dev/null)"
    case "$1" in
        rsa2048) awk '/^rsa 2048 bits/ { print $NF }' <<<"$out" | tail -1 ;;
        ecdsap256) awk '/ecdsa \(nistp256\)/ { print $NF }' <<<"$out" | tail -1 ;;
    esac
}
log "openssl speed -seconds 3 rsa2048 / ecdsap256 on core 0 (load $(load))"
OPENSSL_VERSION="$(openssl version)"
OSSL_RSA="$(openssl_verify_rate rsa2048)"
OSSL_EC="$(openssl_verify_rate ecdsap256)"
[[ -n $OSSL_RSA && -n $OSSL_EC ]] || { echo "could not read openssl speed output" >&2; exit 1; }

# --- 3. tokens ----------------------------------------------------------------------------
# A venv under .venv (gitignored) with `cryptography`; a python3 that already has it will do
# if PyPI cannot be reached.
PY="$ROOT/.venv/bin/python"
if [[ ! -x $PY ]]; then
    log "creating .venv"
    python3 -m venv "$ROOT/.venv" >&2
fi
if ! "$PY" -c 'import cryptography' 2>/dev/null; then
    log "installing cryptography into .venv"
    if ! "$ROOT/.venv/bin/pip" install --quiet cryptography >&2; then
        python3 -c 'import cryptography' || { echo "no Python cryptography package available" >&2; exit 1; }
        PY=python3
    fi
fi

if [[ -n ${PERF_WORK:-} ]]; then
    WORK="$PERF_WORK"; mkdir -p "$WORK"
else
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/federate-perf.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
fi

log "generating $TOKENS RS256 + $TOKENS ES256 tokens in $WORK"
"$PY" - "$WORK" "$TOKENS" "$ISS" "$AUD" <<'PYTHON'
import base64, json, multiprocessing, os, sys, time
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils

work, count, iss, aud = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
seg = lambda obj: b64(json.dumps(obj, separators=(",", ":")).encode())
num = lambda n, size: b64(n.to_bytes(size, "big"))

rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ec_key = ec.generate_private_key(ec.SECP256R1())
now = int(time.time())

def claims(i):
    # Distinct tokens, each valid for an hour from now.
    return {"iss": iss, "aud": aud, "sub": f"user-{i:08d}", "email": f"user{i}@example.com",
            "email_verified": True, "iat": now, "exp": now + 3600}

def rs256(i):
    signing_input = f"{seg({'alg': 'RS256', 'kid': 'perf-rsa', 'typ': 'JWT'})}.{seg(claims(i))}".encode()
    return f"{signing_input.decode()}.{b64(rsa_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256()))}"

def es256(i):
    signing_input = f"{seg({'alg': 'ES256', 'kid': 'perf-ec', 'typ': 'JWT'})}.{seg(claims(i))}".encode()
    r, s = utils.decode_dss_signature(ec_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return f"{signing_input.decode()}.{b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"

rn, en = rsa_key.public_key().public_numbers(), ec_key.public_key().public_numbers()
jwks = {"keys": [
    {"kty": "RSA", "kid": "perf-rsa", "use": "sig", "alg": "RS256", "n": num(rn.n, 256), "e": num(rn.e, 3)},
    {"kty": "EC", "kid": "perf-ec", "use": "sig", "alg": "ES256", "crv": "P-256", "x": num(en.x, 32), "y": num(en.y, 32)},
]}
with open(os.path.join(work, "jwks.json"), "w") as f:
    json.dump(jwks, f)
with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
    for name, fn in (("rs256", rs256), ("es256", es256)):
        tokens = pool.map(fn, range(count), chunksize=256)
        with open(os.path.join(work, f"{name}.txt"), "w") as f:
            f.write("".join(t + "\n" for t in tokens))
        with open(os.path.join(work, f"{name}-1.txt"), "w") as f:
            f.write(tokens[0] + "\n")
PYTHON

# --- 4. the CLI ---------------------------------------------------------------------------
# Prints the wall time and the CPU time (user + system) in seconds of one run of binary $1 over
# file $2, checking the summary line. `openssl speed` divides by CPU user time, so on a loaded
# machine only the CPU-time ratio compares like with like (the wall-clock one then drops with
# the neighbours' load).
time_once() { # $1 = binary, $2 = token file, $3 = expected valid count
    local start end out
    local -a verify=("${PIN[@]}" "$1" verify --jwks "$WORK/jwks.json" --expected-issuer "$ISS" --audience "$AUD" --output summary)
    start=$(date +%s%N)
    out="$(/usr/bin/time -f '%U %S' -o "$WORK/cpu.txt" "${verify[@]}" <"$2")"
    end=$(date +%s%N)
    if [[ $out != "$3 valid, 0 invalid" ]]; then
        echo "unexpected CLI summary of $1 for $2: '$out' (expected '$3 valid, 0 invalid')" >&2
        exit 1
    fi
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f ", (e - s) / 1e9 }'
    awk '{ printf "%.6f\n", $1 + $2 }' "$WORK/cpu.txt"
}

# The best wall and CPU times of $3 runs over file $1 for each binary after it ($4...), the
# binaries' runs alternating; prints "wall cpu" per binary, one line each, in order.
best_times() { # $1 = token file, $2 = expected valid count, $3 = runs, $4... = binaries
    local file="$1" expected="$2" runs="$3"; shift 3
    local -a best best_cpu
    local i t cpu
    for _ in $(seq "$runs"); do
        i=0
        for bin in "$@"; do
            read -r t cpu <<<"$(time_once "$bin" "$file" "$expected")"
            if [[ -z ${best[i]:-} ]] || awk -v a="$t" -v b="${best[i]}" 'BEGIN { exit !(a < b) }'; then best[i]=$t; fi
            if [[ -z ${best_cpu[i]:-} ]] || awk -v a="$cpu" -v b="${best_cpu[i]}" 'BEGIN { exit !(a < b) }'; then best_cpu[i]=$cpu; fi
            i=$((i + 1))
        done
    done
    for i in $(seq 0 $(($# - 1))); do echo "${best[i]} ${best_cpu[i]}"; done
}

BINARIES=("$FEDERATE")
BASELINE="${PERF_BASELINE_BINARY:-}"
if [[ -n $BASELINE ]]; then
    [[ -x $BASELINE ]] || { echo "no baseline binary at $BASELINE" >&2; exit 1; }
    BINARIES+=("$BASELINE")
fi
log "timing the CLI on core 0, best of $REPEAT (load $(load))"
LOAD_BEFORE="$(load)"
mapfile -t STARTS_RS < <(best_times "$WORK/rs256-1.txt" 1 5 "${BINARIES[@]}")
mapfile -t STARTS_ES < <(best_times "$WORK/es256-1.txt" 1 5 "${BINARIES[@]}")
mapfile -t TIMES_RS < <(best_times "$WORK/rs256.txt" "$TOKENS" "$REPEAT" "${BINARIES[@]}")
mapfile -t TIMES_ES < <(best_times "$WORK/es256.txt" "$TOKENS" "$REPEAT" "${BINARIES[@]}")
LOAD_AFTER="$(load)"
read -r START_RS CPU_START_RS <<<"${STARTS_RS[0]}"
read -r START_ES CPU_START_ES <<<"${STARTS_ES[0]}"
read -r T_RS CPU_RS <<<"${TIMES_RS[0]}"
read -r T_ES CPU_ES <<<"${TIMES_ES[0]}"

rate() { awk -v n="$1" -v t="$2" -v s="$3" 'BEGIN { printf "%.0f", (n - 1) / (t - s) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
CLI_RS="$(rate "$TOKENS" "$T_RS" "$START_RS")"
CLI_ES="$(rate "$TOKENS" "$T_ES" "$START_ES")"
RATIO_RS="$(ratio "$CLI_RS" "$OSSL_RSA")"
RATIO_ES="$(ratio "$CLI_ES" "$OSSL_EC")"
# /usr/bin/time has a resolution of 10 ms: enough over thousands of tokens.
CPU_CLI_RS="$(rate "$TOKENS" "$CPU_RS" "$CPU_START_RS")"
CPU_CLI_ES="$(rate "$TOKENS" "$CPU_ES" "$CPU_START_ES")"
CPU_RATIO_RS="$(ratio "$CPU_CLI_RS" "$OSSL_RSA")"
CPU_RATIO_ES="$(ratio "$CPU_CLI_ES" "$OSSL_EC")"
if [[ -n $BASELINE ]]; then
    read -r B_START_RS B_CPU_START_RS <<<"${STARTS_RS[1]}"
    read -r B_START_ES B_CPU_START_ES <<<"${STARTS_ES[1]}"
    read -r B_T_RS B_CPU_RS <<<"${TIMES_RS[1]}"
    read -r B_T_ES B_CPU_ES <<<"${TIMES_ES[1]}"
    B_CLI_RS="$(rate "$TOKENS" "$B_T_RS" "$B_START_RS")"
    B_CLI_ES="$(rate "$TOKENS" "$B_T_ES" "$B_START_ES")"
    B_CPU_CLI_RS="$(rate "$TOKENS" "$B_CPU_RS" "$B_CPU_START_RS")"
    B_CPU_CLI_ES="$(rate "$TOKENS" "$B_CPU_ES" "$B_CPU_START_ES")"
fi

# --- 5. in-process figures (full mode) -------------------------------------------------------
# FederatePerf (Benchmarks/Perf) measures the same cases as the package-benchmark suite, with
# only a clock; the suite adds percentiles (its first build takes several minutes).
BENCH_STATUS="skipped (--quick)"
if [[ $MODE == full ]]; then
    (
        cd "$ROOT/Benchmarks"
        log "building FederatePerf (release)"
        swift build -c release --product FederatePerf >&2
        echo
        echo "in-process, pinned to core 0 (load $(load)):"
        "${PIN[@]}" .build/release/FederatePerf 3 | head -6
        echo "in-process, 1 vs 2 concurrent tasks on $(nproc) cores (load $(load)):"
        .build/release/FederatePerf 3 | tail -2
        echo
        echo "package-benchmark suite (load $(load)):"
        swift package --allow-writing-to-package-directory benchmark --target FederateBenchmarks \
            --no-progress --format markdown 2>&1 | grep -v -e "unhandled" -e "CMakeLists" -e "^\[[0-9]*/[0-9]*\]"
    ) && BENCH_STATUS="ran (figures above)" || BENCH_STATUS="FAILED"
fi

# --- report -------------------------------------------------------------------------------
CPU="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
echo
echo "Federate verification performance ($MODE mode, $TOKENS tokens per algorithm)"
echo "machine: $(nproc) cores, ${CPU:-unknown CPU}; $OPENSSL_VERSION"
echo "load (1/5/15 min): before CLI timing $LOAD_BEFORE, after $LOAD_AFTER"
echo
printf '%-34s %12s %12s %8s\n' "measure (core 0)" "verify/s" "openssl/s" "ratio"
printf '%-34s %12s %12s %8s\n' "openssl speed rsa2048" "$OSSL_RSA" "" ""
printf '%-34s %12s %12s %8s\n' "openssl speed ecdsap256" "$OSSL_EC" "" ""
printf '%-34s %12s %12s %8s\n' "federate verify RS256 (CLI)" "$CLI_RS" "$OSSL_RSA" "$RATIO_RS"
printf '%-34s %12s %12s %8s\n' "federate verify ES256 (CLI)" "$CLI_ES" "$OSSL_EC" "$RATIO_ES"
printf '%-34s %12s %12s %8s\n' "  RS256 per CPU second" "$CPU_CLI_RS" "$OSSL_RSA" "$CPU_RATIO_RS"
printf '%-34s %12s %12s %8s\n' "  ES256 per CPU second" "$CPU_CLI_ES" "$OSSL_EC" "$CPU_RATIO_ES"
if [[ -n $BASELINE ]]; then
    printf '%-34s %12s %12s %8s\n' "baseline RS256 (CLI)" "$B_CLI_RS" "$OSSL_RSA" "$(ratio "$B_CLI_RS" "$OSSL_RSA")"
    printf '%-34s %12s %12s %8s\n' "baseline ES256 (CLI)" "$B_CLI_ES" "$OSSL_EC" "$(ratio "$B_CLI_ES" "$OSSL_EC")"
    printf '%-34s %12s %12s %8s\n' "  RS256 per CPU second" "$B_CPU_CLI_RS" "$OSSL_RSA" "$(ratio "$B_CPU_CLI_RS" "$OSSL_RSA")"
    printf '%-34s %12s %12s %8s\n' "  ES256 per CPU second" "$B_CPU_CLI_ES" "$OSSL_EC" "$(ratio "$B_CPU_CLI_ES" "$OSSL_EC")"
    echo "baseline: $BASELINE"
fi
echo
printf 'CLI wall times: RS256 %ss, ES256 %ss for %s tokens; start-up (1 token) %ss / %ss\n' \
    "$T_RS" "$T_ES" "$TOKENS" "$START_RS" "$START_ES"
echo "in-process figures: $BENCH_STATUS"

if [[ $MODE == full ]]; then
    if awk -v r="$RATIO_RS" -v m="$REQUIRED_RATIO" 'BEGIN { exit !(r < m) }'; then
        echo "FAIL: CLI RS256 ratio $RATIO_RS is below the required $REQUIRED_RATIO" >&2
        exit 1
    fi
    if [[ $BENCH_STATUS == FAILED ]]; then exit 1; fi
    echo "OK: CLI RS256 ratio $RATIO_RS >= $REQUIRED_RATIO"
fi
