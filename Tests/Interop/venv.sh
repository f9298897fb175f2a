#!/usr/bin/env bash
# Idempotently creates the interop virtualenv and installs requirements.txt into it.
#   bash Tests/Interop/venv.sh        -> prints nothing on success, exit 0
# The venv lives at <package root>/.venv-interop (override: FEDERATE_INTEROP_VENV);
# the Python used to create it is `python3` (override: FEDERATE_INTEROP_PYTHON).
# A stamp file holding requirements.txt's SHA-256 makes re-runs a no-op.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${FEDERATE_INTEROP_VENV:-$root/.venv-interop}"
python="${FEDERATE_INTEROP_PYTHON:-python3}"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.sha256"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "venv.sh: '$python' not found: the interop tests need Python 3 (3.10+) with venv and pip" >&2
    exit 2
fi

want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    exit 0
fi

mkdir -p "$(dirname "$venv")"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# Serialize concurrent runs (two test processes may get here at once).
lock="${TMPDIR:-/tmp}/federate-venv-interop-$(printf '%s' "$venv" | sha256sum | cut -c1-16).lock"
exec 9>"$lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
# Someone else may have finished while we waited.
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    exit 0
fi

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! "$python" -m venv "$venv" >"$log" 2>&1; then
        cat "$log" >&2
        echo "venv.sh: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2
        rm -rf "$venv"
        exit 2
    fi
fi
if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    echo "venv.sh: pip is missing from $venv (on Debian: apt-get install python3-pip python3-venv)" >&2
    exit 2
fi
rm -f "$stamp"
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -r "$requirements" >"$log" 2>&1; then
    cat "$log" >&2
    echo "venv.sh: pip install -r $requirements failed" >&2
    exit 2
fi
"$venv/bin/python" -c 'import django, oauth2_provider, requests, cryptography, authlib, selenium, mcp, webauthn, fido2, cbor2' >/dev/null
echo "$want" >"$stamp"
