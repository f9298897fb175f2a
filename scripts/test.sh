#!/usr/bin/env bash
# The one test command (README, .ci/run): every test of the repository.
#
#   1. the root package: `swift test`;
#   2. FederateVapor (Integrations/FederateVapor, a package of its own so that Vapor never enters
#      the root's graph), built and tested against the root's build folder (.build): only Vapor
#      and the package's own targets are compiled (Docs/Architecture.md, "Server integrations");
#   3. Docs/Server.md's complete app, built verbatim as a package of its own against the same
#      build folder (scripts/check-doc-app.py).
#
# All run even when one fails; the exit status is the first failure's.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
record() { local code=$1; if [ "$status" -eq 0 ]; then status=$code; fi; }

swift test || record $?

start=$(date +%s)
# Built first, then tested without building: `swift test` alone on a shared build folder has
# found nothing to build and run the root package's test bundle instead of this one's.
vapor=(--package-path Integrations/FederateVapor --scratch-path .build)
if swift build "${vapor[@]}" --build-tests; then
  swift test "${vapor[@]}" --skip-build || record $?
else
  record 1
fi
echo "test.sh: Integrations/FederateVapor built and tested in $(( $(date +%s) - start )) s"

python3 scripts/check-doc-app.py || record $?
exit $status
