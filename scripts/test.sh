#!/usr/bin/env bash
# The one test command (README, .ci/run): every test of the repository.
#
#   1. the root package: `swift test`;
#   2. FederateVapor (Integrations/FederateVapor, a package of its own so that Vapor never enters
#      the root's graph), built and tested against the root's build folder (.build): only Vapor
#      and the package's own targets are compiled (Docs/Architecture.md, "Server integrations").
#
# Both run even when the first fails; the exit status is the first failure's.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
swift test || status=$?

start=$(date +%s)
swift test --package-path Integrations/FederateVapor --scratch-path .build || { [ $status -eq 0 ] && status=$?; }
echo "test.sh: Integrations/FederateVapor built and tested in $(( $(date +%s) - start )) s"
exit $status
