#!/usr/bin/env bash
# The site (build/site/, as scripts/build-site.sh makes it) from a Git checkout with Node alone: the
# build command of vercel.json. Vercel's build image is not Debian and has no Emscripten, so the one
# output that needs emcc, the wasm module, comes prebuilt from deploy/prebuilt/ (the module built from
# these sources: scripts/update-prebuilt.sh copies it there after scripts/build-wasm.sh, and
# tests/js/prebuilt.test.js fails while the copy differs); the pool worker, the explorer bundle and
# both decks are built here by Vite and Slidev, as on a Debian machine. After `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "build-site-prebuilt: the wasm module from deploy/prebuilt/ (no Emscripten needed)"
mkdir -p web/build
cp deploy/prebuilt/headwise-core.js deploy/prebuilt/headwise-core.wasm web/build/
echo "build-site-prebuilt: bundling the pool worker (Vite)..."
npx --no-install vite build --config scripts/pool-worker-bundle.config.js --logLevel warn
bash scripts/build-explorer.sh
bash scripts/build-site.sh
