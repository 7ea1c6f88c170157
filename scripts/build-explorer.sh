#!/usr/bin/env bash
# Bundles the explorer into one classic script with the wasm inside (web/build/explorer/explorer.js),
# so web/index.html and web/embed.html work from file:// as well as from any static host.
# Needs the module first: scripts/build-wasm.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f web/build/headwise-core.wasm ]] || { echo "build-explorer: run scripts/build-wasm.sh first" >&2; exit 1; }
npx --no-install vite build --config scripts/explorer-bundle.config.js
bundle=web/build/explorer/explorer.js
echo "explorer bundle: $bundle ($(stat -c %s "$bundle") bytes, $(gzip -9c "$bundle" | wc -c) gzipped)"
