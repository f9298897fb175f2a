#!/usr/bin/env bash
# The public API check of CI (Docs/Architecture.md, "The public API"):
# 1. the public API of every library product equals the baseline under api/, and every public
#    declaration has a doc comment (scripts/public-api.py --check; it builds what it needs);
# 2. every commit that changed the baseline changed CHANGELOG.md too (on a clone with history).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 scripts/public-api.py --check

if [ "$(git rev-parse --is-shallow-repository 2>/dev/null || echo true)" = "true" ]; then
  echo "check-api: a shallow clone; the baseline-with-CHANGELOG rule is checked on the commits present only"
fi
status=0
for commit in $(git log --no-merges --format=%H -- api/ 2>/dev/null); do
  if ! git diff-tree --no-commit-id --name-only -r "$commit" | grep -qx 'CHANGELOG.md'; then
    echo "check-api: commit $(git log -1 --format='%h %s' "$commit") changed api/ without CHANGELOG.md"
    status=1
  fi
done
exit $status
