#!/usr/bin/env bash
# The public API check of CI (Docs/Architecture.md, "The public API"):
# 1. the public API of every library product equals the baseline under api/, and every public
#    declaration has a doc comment (scripts/public-api.py --check; it builds what it needs); the
#    same for FederateVapor against Integrations/FederateVapor/api/ (built by scripts/test.sh);
#    and the guides name only public symbols (scripts/check-doc-symbols.py);
# 2. every commit after the first release (the commit that added api/VERSION) that changed the
#    baseline changed CHANGELOG.md too (on a clone with history; before it the baseline moved freely).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 scripts/public-api.py --check
python3 scripts/public-api.py --package Integrations/FederateVapor --check
python3 scripts/check-doc-symbols.py

if [ "$(git rev-parse --is-shallow-repository 2>/dev/null || echo true)" = "true" ]; then
  echo "check-api: a shallow clone; the baseline-with-CHANGELOG rule is checked on the commits present only"
fi
# The first release's commit: the one that added api/VERSION.
release=$(git log --diff-filter=A --format=%H -- api/VERSION 2>/dev/null | tail -1)
if [ -z "$release" ]; then
  echo "check-api: api/VERSION is not in the history present; the baseline-with-CHANGELOG rule is not checked"
  exit 0
fi
status=0
for commit in $(git log --no-merges --format=%H "$release..HEAD" -- api/ Integrations/FederateVapor/api/ 2>/dev/null); do
  # The file list is read whole first: `grep -q` stops at the first match, and under pipefail
  # the writer's SIGPIPE would fail a commit that touches many files.
  changed="$(git diff-tree --no-commit-id --name-only -r "$commit")"
  if ! grep -qx 'CHANGELOG.md' <<<"$changed"; then
    echo "check-api: commit $(git log -1 --format='%h %s' "$commit") changed api/ without CHANGELOG.md"
    status=1
  fi
done
exit $status
