#!/usr/bin/env bash
# `npm test`: install what is missing, build and run every test (native GoogleTest, then Vitest
# against the built WebAssembly module).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's heading says when it starts (seconds since npm test began), so a slow CI run shows
# where its time went.
stage() { echo "== $1 (at ${SECONDS} s)"; }
bash scripts/setup.sh

stage "formatting (clang-format, Prettier) and line lengths"
bash scripts/check-format.sh

stage "native build and GoogleTest"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)"
ctest --test-dir build/native --output-on-failure -j"$(nproc)"

stage "WebAssembly build"
bash scripts/build-wasm.sh

stage "Vitest (the JS API against the built module)"
npx --no-install vitest run

stage "Explorer and example decks in Chromium (served over http and opened from file://)"
bash scripts/build-explorer.sh
bash scripts/build-site.sh
stage "browser tests"
# One Chromium for the whole stage; the files that time the page run alone, the others two at a time
# (tests/browser/run.js). One file: node --test tests/browser/x.test.js (launches its own Chromium).
node tests/browser/run.js
stage "done"
