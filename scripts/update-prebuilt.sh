#!/usr/bin/env bash
# Copies the wasm module just built (scripts/build-wasm.sh) to deploy/prebuilt/, the copy a host
# without Emscripten deploys from (scripts/build-site-prebuilt.sh, vercel.json). Commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f web/build/headwise-core.wasm ]] || { echo "update-prebuilt: run scripts/build-wasm.sh first" >&2; exit 1; }
mkdir -p deploy/prebuilt
cp web/build/headwise-core.js web/build/headwise-core.wasm deploy/prebuilt/
echo "deploy/prebuilt: $(stat -c %s deploy/prebuilt/headwise-core.wasm) bytes of wasm; commit it"
