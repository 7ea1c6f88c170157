#!/usr/bin/env bash
# Run by `npm pack` / `npm publish`: the package ships the built module, which is never committed;
# without it the tarball would install but fail at the first loadHeadwise().
set -euo pipefail
cd "$(dirname "$0")/.."
for f in web/build/headwise-core.js web/build/headwise-core.wasm web/build/pool/worker-source.js; do
  [[ -f "$f" ]] || { echo "prepack: $f is missing; build it first: npm run build" >&2; exit 1; }
done
