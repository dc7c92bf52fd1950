#!/usr/bin/env bash
# Times jsonpatch against fast-json-patch (Node) and evanphx/json-patch on
# the shapes of BenchmarkShapes. Needs Go and Node with npm.
# Usage: bash jsonpatch/internal/jsbench/run.sh [-secs 2] [-only doc=1MB/ops=1000]
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d js/node_modules/fast-json-patch ]; then
  (cd js && npm ci --no-audit --no-fund >/dev/null)
fi
go run . "$@"
