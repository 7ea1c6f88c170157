#!/usr/bin/env bash
# `npm test`: install what is missing, build and run every test (native GoogleTest, then Vitest
# against the built WebAssembly module).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== formatting (clang-format, Prettier) and line lengths"
bash scripts/check-format.sh

echo "== native build and GoogleTest"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)"
ctest --test-dir build/native --output-on-failure -j"$(nproc)"

echo "== WebAssembly build"
bash scripts/build-wasm.sh

echo "== Vitest (the JS API against the built module)"
npx --no-install vitest run

echo "== Explorer and example decks in Chromium (served over http and opened from file://)"
bash scripts/build-explorer.sh
bash scripts/build-site.sh
# One Chromium for the whole stage; the files that time the page run alone, the others two at a time
# (tests/browser/run.js). One file: node --test tests/browser/x.test.js (launches its own Chromium).
node tests/browser/run.js
