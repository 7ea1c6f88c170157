#!/usr/bin/env bash
# `npm run bench`: builds what the benchmark needs (our wasm module, the kernel timing module, the
# native build), installs the peers (bench/package.json; PyTorch from Debian if it can), then
# runs bench/main.mjs. BENCH_CASES=toy,gpt2-T128 runs only those cases.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-wasm.sh
(cd bench && npm ci --no-audit --no-fund --loglevel=error)
bash bench/build-kernels.sh

echo "== native build (-march=native)"
cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DHEADWISE_NATIVE_ARCH=ON \
  -DHEADWISE_BENCH=ON -DHEADWISE_TESTS=OFF >/dev/null
cmake --build build/bench-native -j"$(nproc)" --target headwise_bench

# PyTorch is optional: Debian's python3-torch, and jemalloc to compare it fairly (see bench/README).
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || [[ ! -e /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ]]; then
  echo "== installing python3-torch and libjemalloc2 (optional)"
  if ! { apt-get install -y --no-install-recommends python3-torch libjemalloc2 >/dev/null 2>&1 ||
         { apt-get update >/dev/null 2>&1 &&
           apt-get install -y --no-install-recommends python3-torch libjemalloc2 >/dev/null 2>&1; }; }; then
    echo "PyTorch will be skipped: apt-get install python3-torch libjemalloc2 failed"
  fi
fi

node bench/main.mjs
