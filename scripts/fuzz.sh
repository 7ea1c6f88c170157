#!/usr/bin/env bash
# Fuzzes the core for a fixed time with libFuzzer, ASan and UBSan (clang from Debian).
#   bash scripts/fuzz.sh [seconds]      (default 120 per native target; then as long again for each JS fuzz)
# New crashes land in build/fuzz/crashes/; copy each into tests/fuzz/regressions/ once fixed, so
# the ordinary test build replays it forever.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}

for package in clang libclang-rt-14-dev libgtest-dev libxsimd-dev cmake; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null
  fi
done

sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHEADWISE_FUZZ=ON -DCMAKE_CXX_FLAGS="$sanitizers" >/dev/null
cmake --build build/fuzz --target attention_fuzz stack_fuzz -j"$(nproc)"

# Each target for the given time: the attention layer (tests/fuzz/corpus), the layer stack's
# forward and backward against the double reference (tests/fuzz/corpus-stack).
for target in attention_fuzz stack_fuzz; do
  corpus=corpus regressions=regressions
  [[ $target == stack_fuzz ]] && corpus=corpus-stack regressions=regressions-stack
  mkdir -p "build/fuzz/$corpus" build/fuzz/crashes
  cp -n tests/fuzz/"$corpus"/* "build/fuzz/$corpus/" 2>/dev/null || true
  echo "== $target for $seconds s"
  ./build/fuzz/tests/fuzz/$target "build/fuzz/$corpus" "tests/fuzz/$regressions" \
    -max_total_time="$seconds" -max_len=256 -rss_limit_mb=2048 -timeout=20 \
    -artifact_prefix=build/fuzz/crashes/ -print_final_stats=1 2>&1 | tail -25
done

# The same time again for the wasm module through the JS API, if it is built, each file with its
# time flag: layers (32-bit sizes, argument kinds, re-entrancy), trainers, mutated checkpoints
# (loadCheckpoint) and random requests to the pool worker's handler (web/pool/serve.js).
if [[ -f web/build/headwise-core.wasm ]]; then
  HEADWISE_FUZZ_SECONDS="$seconds" npx --no-install vitest run tests/js/hardening-fuzz.test.js \
    tests/js/hardening-fuzz-trainers.test.js tests/js/hardening-fuzz-checkpoints.test.js \
    tests/js/hardening-fuzz-protocol.test.js
fi
