#!/usr/bin/env bash
# `npm run bench`: builds what the benchmark needs (our wasm module, the kernel timing module, the
# native build), installs the peers (bench/package.json, local to bench/; PyTorch from Debian only
# when the user agrees, see below), then runs bench/main.mjs. BENCH_CASES=toy,gpt2-T128 runs only
# those cases.
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
# fairly (large eager tensors re-fault their pages every forward otherwise). Installing them changes
# the whole machine: libopenblas0-pthread becomes the system's libblas.so.3 alternative for every
# program. So they are installed only when the user says so (a prompt, default no, or
# BENCH_INSTALL_OPENBLAS=1); otherwise the PyTorch rows are left out with the reason.
torch_packages=(python3-torch libopenblas0-pthread libjemalloc2)
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || ! dpkg -s "${torch_packages[@]}" >/dev/null 2>&1; then
  missing=()
  for p in "${torch_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  echo "== the PyTorch rows need ${missing[*]:-python3-torch} from Debian, installed system-wide"
  if [[ " ${missing[*]} " == *" libopenblas0-pthread "* ]]; then
    echo "   (libopenblas0-pthread switches the machine's libblas.so.3 alternative to OpenBLAS for every program)"
  fi
  install=no
  if [[ "${BENCH_INSTALL_OPENBLAS:-}" == 1 ]]; then
    install=yes
  elif [[ -t 0 ]]; then
    read -r -p "   Install them with apt-get now? [y/N] " answer || answer=
    [[ "$answer" =~ ^[Yy]([Ee][Ss])?$ ]] && install=yes
  fi
  if [[ "$install" == yes ]]; then
    echo "== installing ${torch_packages[*]}"
    if apt-get install -y --no-install-recommends "${torch_packages[@]}" >/dev/null 2>&1 ||
       { apt-get update >/dev/null 2>&1 &&
         apt-get install -y --no-install-recommends "${torch_packages[@]}" >/dev/null 2>&1; }; then
      echo "   installed; to undo: apt-get remove ${missing[*]:-python3-torch}" \
        "(or pick another BLAS: update-alternatives --config libblas.so.3-x86_64-linux-gnu)"
    else
      export BENCH_SKIP_PYTORCH="apt-get install ${torch_packages[*]} failed"
    fi
  else
    export BENCH_SKIP_PYTORCH="${missing[*]:-python3-torch} not installed (installing changes the system;
answer y or set BENCH_INSTALL_OPENBLAS=1 to install)"
    BENCH_SKIP_PYTORCH="${BENCH_SKIP_PYTORCH//$'\n'/ }"
  fi
  [[ -n "${BENCH_SKIP_PYTORCH:-}" ]] && echo "   PyTorch rows left out: ${BENCH_SKIP_PYTORCH}"
fi

node bench/main.mjs
node bench/train.mjs  # training: ours vs PyTorch vs TensorFlow.js wasm (docs/benchmarks-training.md)
node bench/pool.mjs   # the worker pool vs onnxruntime-web threads vs one instance (docs/benchmarks-pool.md)
# the 2-layer induction model in Chromium: one whole-trainer worker vs data-parallel over 2 (ms/step, 400 steps)
node bench/train/induction-chromium.mjs 400 3e-3 worker dp:2 worker dp:2
