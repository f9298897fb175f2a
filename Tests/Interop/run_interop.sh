#!/usr/bin/env bash
# Interop entry point: Federate's CLI against django-oauth-toolkit (a real, third-party
# OpenID provider) on 127.0.0.1.
#
#   bash Tests/Interop/run_interop.sh /path/to/federate [--only NAME,NAME]
#
# 1. ensures the venv (venv.sh: <package root>/.venv-interop),
# 2. picks free loopback ports: one for the provider, one per login scenario,
# 3. starts the provider (dot_provider.py) in the background and waits for discovery,
# 4. runs the scenarios (scenarios.py), one JSON line each on stdout:
#        {"scenario": NAME, "ok": bool, "seconds": S, "detail": ...}
# 5. always stops the provider and removes the runtime dir
#    (FEDERATE_INTEROP_KEEP=1 keeps it: logs, per-scenario JSON, DB).
# Exit 0 when every scenario passed, 1 when one failed, 2 when the harness could not start.
# Diagnostics go to stderr. FEDERATE_INTEROP_STARTUP_TIMEOUT (seconds, default 120).
set -uo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 FEDERATE_BINARY [--only NAME,NAME]" >&2
    exit 2
fi
federate="$1"
if [[ -d "$(dirname "$federate")" ]]; then federate="$(cd "$(dirname "$federate")" && pwd)/$(basename "$federate")"; fi
shift
if [[ ! -x "$federate" ]]; then
    echo "{\"scenario\": \"harness\", \"ok\": false, \"detail\": \"federate binary not executable: $federate\"}"
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${FEDERATE_INTEROP_VENV:-$root/.venv-interop}"
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the work tree

harness_fail() {
    # One scenario line so the caller sees why, then exit 2.
    local message="$1"
    printf '%s\n' "$message" >&2
    python_bin="$(command -v python3 || true)"
    if [[ -n "$python_bin" ]]; then
        "$python_bin" -c 'import json,sys; print(json.dumps({"scenario": "harness", "ok": False, "detail": sys.argv[1]}))' "$message"
    else
        echo '{"scenario": "harness", "ok": false, "detail": "python3 not found"}'
    fi
    exit 2
}

if ! bash "$here/venv.sh"; then
    harness_fail "venv.sh failed: the interop tests need python3 with venv and pip, and PyPI"
fi
py="$venv/bin/python"

runtime="$(mktemp -d "${TMPDIR:-/tmp}/federate-interop.XXXXXX")"
provider_pid=""
scenarios_pid=""
cleanup() {
    if [[ -n "$scenarios_pid" ]] && kill -0 "$scenarios_pid" 2>/dev/null; then
        # Its own process group (setsid): takes federate and browser children with it.
        kill -- "-$scenarios_pid" 2>/dev/null || kill "$scenarios_pid" 2>/dev/null
        wait "$scenarios_pid" 2>/dev/null
    fi
    if [[ -n "$provider_pid" ]] && kill -0 "$provider_pid" 2>/dev/null; then
        kill "$provider_pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$provider_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$provider_pid" 2>/dev/null
        wait "$provider_pid" 2>/dev/null
    fi
    if [[ "${FEDERATE_INTEROP_KEEP:-0}" == "1" ]]; then
        echo "run_interop: kept $runtime" >&2
    else
        rm -rf "$runtime"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Free ports for the provider and federate, below the system's ephemeral range (free_ports.py).
login_count="$("$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import scenarios; print(len(scenarios.LOGIN_SCENARIOS))' "$here")" \
    || harness_fail "cannot import scenarios.py"
ports="$("$py" "$here/free_ports.py" "$((1 + login_count))")" || harness_fail "cannot pick free ports"
read -r provider_port login_ports <<<"$ports"
login_args=()
for p in $login_ports; do login_args+=(--login-port "$p"); done
echo "run_interop: provider 127.0.0.1:$provider_port, login ports $login_ports, runtime $runtime" >&2

"$py" "$here/dot_provider.py" start --port "$provider_port" --runtime-dir "$runtime/provider" "${login_args[@]}" \
    >"$runtime/provider.json" 2>"$runtime/provider.log" &
provider_pid=$!

if ! "$py" - "$provider_pid" "http://127.0.0.1:$provider_port/o/.well-known/openid-configuration" \
        "${FEDERATE_INTEROP_STARTUP_TIMEOUT:-120}" <<'EOF'
import os, sys, time
import requests
pid, url, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
deadline = time.monotonic() + limit
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("provider exited during startup")
    try:
        if requests.get(url, timeout=2).status_code == 200:
            sys.exit(0)
    except requests.RequestException:
        pass
    time.sleep(0.25)
sys.exit(f"discovery did not answer within {limit:.0f}s")
EOF
then
    tail -n 40 "$runtime/provider.log" >&2
    harness_fail "provider did not start (log tail above)"
fi

mkdir -p "$runtime/results"
# In the background + `wait`, so a TERM to this script runs the cleanup at once.
setsid_cmd=()
if command -v setsid >/dev/null 2>&1; then setsid_cmd=(setsid); fi
"${setsid_cmd[@]}" "$py" "$here/scenarios.py" --federate "$federate" --provider-json "$runtime/provider.json" \
    --work-dir "$runtime/results" --login-ports "$(tr ' ' ',' <<<"$login_ports")" "$@" &
scenarios_pid=$!
wait "$scenarios_pid"
status=$?
scenarios_pid=""
if [[ $status -ne 0 ]]; then
    echo "run_interop: provider log tail:" >&2
    tail -n 60 "$runtime/provider.log" >&2
    status=1
fi
exit $status
