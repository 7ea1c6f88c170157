#!/usr/bin/env bash
# Trains the shipped models with headwise's own trainer (native build, fixed seeds) and writes
# web/checkpoints/*.json. Bit for bit reproducible with the same compiler and flags (the default
# generic x86-64 build, not HEADWISE_NATIVE_ARCH): `git diff web/checkpoints` after a run is empty.
set -euo pipefail
cd "$(dirname "$0")/.."

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target make_checkpoints >/dev/null
mkdir -p web/checkpoints
build/native/tests/native/make_checkpoints write web/checkpoints
du -k web/checkpoints/*.json
