#!/usr/bin/env bash
# Compiles the core to WebAssembly and places the module next to the JS API, in web/build/.
set -euo pipefail
cd "$(dirname "$0")/.."

export NODE_PATH=/usr/share/nodejs  # emcc's optimiser needs Debian's acorn (see README)
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$(nproc)"

mkdir -p web/build
# The 3.1.6 glue is a classic script; the ES-module export is added here because its own
# -sEXPORT_ES6 output needs __dirname under Node.
{ cat build/wasm/headwise-core.js; echo; echo 'export default createHeadwiseCore;'; } > web/build/headwise-core.js
cp build/wasm/headwise-core.wasm web/build/headwise-core.wasm
echo "wasm module: web/build/headwise-core.js + headwise-core.wasm ($(stat -c %s web/build/headwise-core.wasm) bytes)"
