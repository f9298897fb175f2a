#!/usr/bin/env bash
# Runs reference_rp.py with the interop venv's Python (a stand-in `federate` for harness checks).
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
exec "${FEDERATE_INTEROP_VENV:-$here/../../.venv-interop}/bin/python" "$here/reference_rp.py" "$@"
