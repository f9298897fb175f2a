#!/usr/bin/env bash
# Builds the DocC documentation of every public module with warnings as errors, so a
# ``Symbol`` link that does not resolve (in a doc comment or a catalog) fails CI.
# Uses swift-docc-plugin (`swift package generate-documentation`), one invocation for all
# modules; the archives land in .build/plugins/Swift-DocC/outputs/.
#
# Usage: bash scripts/build-docs.sh [TARGET ...]   (default: every public module)
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(
    FederateTokens FederateRelyingParty FederateAsyncHTTPClient FederateURLSession FederateLoopback
    FederateAccounts Federate FederateSQLite FederatePostgres FederateServer FederateHummingbird FederateMCP FederateDevProvider
    FederateOIDC FederateGoogle FederateApple FederateMicrosoft
  )
fi
args=()
for target in "${targets[@]}"; do args+=(--target "$target"); done

start=$(date +%s)
swift package generate-documentation "${args[@]}" --warnings-as-errors
echo "build-docs: ${#targets[@]} modules documented with warnings as errors in $(( $(date +%s) - start )) s"
