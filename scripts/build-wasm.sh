#!/usr/bin/env bash
# Compiles the core to WebAssembly and places the module next to the JS API, in web/build/.
set -euo pipefail
cd "$(dirname "$0")/.."

export NODE_PATH=/usr/share/nodejs  # emcc's optimiser needs Debian's acorn (see README)
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$(nproc)"

mkdir -p web/build
# The 3.1.6 glue is a classic script ending in a CommonJS/AMD export; it becomes an ES module
# here (its own -sEXPORT_ES6 output needs __dirname under Node). The CommonJS tail must go: module
# runners such as Vitest define `module` and `exports` even in ES-module scope.
glue=build/wasm/headwise-core.js
tail_line=$(grep -n "^if (typeof exports === 'object' && typeof module === 'object')" "$glue" | cut -d: -f1)
[[ -n $tail_line ]] || { echo "build-wasm: the glue's export tail was not found" >&2; exit 1; }
{ head -n $((tail_line - 1)) "$glue"; echo 'export default createHeadwiseCore;'; } > web/build/headwise-core.js
cp build/wasm/headwise-core.wasm web/build/headwise-core.wasm
echo "wasm module: web/build/headwise-core.js + headwise-core.wasm ($(stat -c %s web/build/headwise-core.wasm) bytes)"
# The .d.ts unions and option fields, from the module's own tables (web/headwise.d.ts imports them).
node scripts/schema-types.mjs web/build/headwise-schema.d.ts

# The pool's classic worker with the module inside, for Blob-URL workers (file://, bundles).
npx --no-install vite build --config scripts/pool-worker-bundle.config.js
echo "pool worker: web/build/pool/worker-source.js ($(stat -c %s web/build/pool/worker-source.js) bytes)"
