#!/usr/bin/env bash
# Formats the project's C++ (clang-format) and JS/TS (Prettier) in place.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/format-files.sh
mapfile -t cpp < <(cpp_files)
mapfile -t js < <(js_files)
clang-format -i "${cpp[@]}"
npx --no-install prettier --write --log-level warn "${js[@]}"
