#!/usr/bin/env bash
# Fails when a C++ file differs from clang-format's output (.clang-format), a JS/TS file from
# Prettier's (.prettierrc.json), or any source line is over 120 characters. `npm run format` fixes
# the first two.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/format-files.sh

mapfile -t cpp < <(cpp_files)
mapfile -t js < <(js_files)
status=0
clang-format --dry-run --Werror "${cpp[@]}" ||
  { echo "check-format: C++ not formatted (npm run format)" >&2; status=1; }
npx --no-install prettier --check --log-level warn "${js[@]}" ||
  { echo "check-format: JS not formatted (npm run format)" >&2; status=1; }

mapfile -t all < <(project_files '*.cpp' '*.hpp' '*.js' '*.mjs' '*.ts' '*.sh' '*.py' '*.html' '*.css' \
  'CMakeLists.txt' '*/CMakeLists.txt' | grep -v '/node_modules/')
long=$(awk 'length > 120 { printf "%s:%d: %d characters\n", FILENAME, FNR, length }' "${all[@]}")
if [[ -n $long ]]; then
  echo "$long" >&2
  echo "check-format: lines over 120 characters" >&2
  status=1
fi
exit $status
