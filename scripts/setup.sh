#!/usr/bin/env bash
# Installs what the project needs, only when it is missing: Debian packages, then npm packages.
# Safe to run again and again; `npm start` and `npm test` both begin with it.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake g++ make        # native build
  clang-format          # C++ formatting, checked by npm test
  libgtest-dev          # native tests (GoogleTest)
  libxsimd-dev          # SIMD, header-only, used natively and in wasm
  emscripten            # em++ 3.1.6 with Embind
  chromium              # the explorer's browser tests (driven by playwright-core)
)

missing=()
for package in "${APT_PACKAGES[@]}"; do
  [[ $package == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm ci only when node_modules is missing or older than the lockfile; never through a link (a
# worktree sharing another checkout's node_modules: npm ci would empty that one).
if [[ -L node_modules ]]; then
  echo "setup: node_modules is a link to $(readlink node_modules): not reinstalling through it"
elif [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
fi
