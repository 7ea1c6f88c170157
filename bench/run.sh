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

# PyTorch is optional: Debian's python3-torch, OpenBLAS behind it (Debian's torch calls whatever
# libblas.so.3 is installed; the reference BLAS alone is ~10x slower), and jemalloc to compare it
# fairly (large eager tensors re-fault their pages every forward otherwise).
torch_packages=(python3-torch libopenblas0-pthread libjemalloc2)
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || ! dpkg -s "${torch_packages[@]}" >/dev/null 2>&1; then
  echo "== installing ${torch_packages[*]} (optional, for the PyTorch rows)"
  if ! { apt-get install -y --no-install-recommends "${torch_packages[@]}" >/dev/null 2>&1 ||
         { apt-get update >/dev/null 2>&1 &&
           apt-get install -y --no-install-recommends "${torch_packages[@]}" >/dev/null 2>&1; }; }; then
    echo "PyTorch may be skipped: apt-get install ${torch_packages[*]} failed"
  fi
fi

node bench/main.mjs
node bench/train.mjs  # training: ours vs PyTorch vs TensorFlow.js wasm (docs/benchmarks-training.md)
