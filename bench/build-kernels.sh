#!/usr/bin/env bash
# Builds bench/build/kernels.mjs: the core's kernels with plain C entry points (bench/wasm/), for
# timing one kernel at a time in Node. Same flags as the module: -O3 -msimd128 -msse4.2.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # emcc's optimiser needs Debian's acorn (see README)
mkdir -p bench/build/xsimd-include
ln -sfn /usr/include/xsimd bench/build/xsimd-include/xsimd
em++ -std=c++17 -O3 -DNDEBUG -msimd128 -msse4.2 -Iwasm/core -isystem bench/build/xsimd-include \
  bench/wasm/kernel_bench.cpp wasm/core/gemm_f32.cpp wasm/core/attention_*.cpp \
  -sMODULARIZE=1 -sEXPORT_ES6=0 -sENVIRONMENT=node -sSINGLE_FILE=1 -sFILESYSTEM=0 \
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB \
  -sEXPORTED_FUNCTIONS=_malloc,_free,_bench_gemm,_bench_gemm_many,_bench_attend,_bench_head_scratch_floats \
  -sEXPORTED_RUNTIME_METHODS=HEAPF32 \
  -o bench/build/kernels.cjs
