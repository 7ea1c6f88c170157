#!/usr/bin/env bash
# Installs what the project needs, only when it is missing: Debian packages, then npm packages.
# Safe to run again and again, and several at once: `npm start` and `npm test` both begin with it.
# Two setups started together take turns (a machine-wide lock, $HEADWISE_SETUP_LOCK), the second
# one finding the work done; apt-get itself waits for Debian's locks held by anything else.
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
LOCK=${HEADWISE_SETUP_LOCK:-/tmp/headwise-setup.lock}
WAIT_SECONDS=${HEADWISE_SETUP_WAIT_SECONDS:-1800} # for another setup, and for Debian's locks

missing_packages() {
  missing=()
  for package in "${APT_PACKAGES[@]}"; do
    [[ $package == \#* ]] && continue
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
      missing+=("$package")
    fi
  done
}

# npm ci only when node_modules is missing or older than the lockfile; never through a link (a
# worktree sharing another checkout's node_modules: npm ci would empty that one).
npm_needed() {
  [[ ! -L node_modules ]] &&
    [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]
}

missing_packages
if ((${#missing[@]} == 0)) && ! npm_needed; then
  [[ -L node_modules ]] && echo "setup: node_modules is a link to $(readlink node_modules): not reinstalling through it"
  exit 0
fi

# Something to install: one setup at a time on this machine, then look again (the one before may
# have installed it).
exec 9>>"$LOCK"
chmod a+rw "$LOCK" 2>/dev/null || true
if ! flock -n 9; then
  echo "setup: another setup is installing (it holds $LOCK): waiting up to $WAIT_SECONDS s"
  flock -w "$WAIT_SECONDS" 9 || { echo "setup: $LOCK still held after $WAIT_SECONDS s" >&2; exit 1; }
fi

missing_packages
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  # Debian's own locks may be held by something else, such as unattended-upgrades: wait for them
  # rather than fail. apt-get install waits for dpkg's locks with DPkg::Lock::Timeout; apt-get
  # update (apt 2.6) does not wait for the package lists' lock, so it is asked again.
  wait_for_locks=(-o "DPkg::Lock::Timeout=$WAIT_SECONDS")
  waited=0
  until output=$($SUDO apt-get "${wait_for_locks[@]}" update -qq 2>&1 9>&-); do
    if [[ $output != *"Could not get lock"* ]] || ((waited >= WAIT_SECONDS)); then
      echo "$output" >&2
      exit 1
    fi
    ((waited == 0)) && echo "setup: waiting for the package lists' lock: ${output%%$'\n'*}"
    sleep 5
    waited=$((waited + 5))
  done
  [[ -z $output ]] || echo "$output"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${wait_for_locks[@]}" install -y -qq "${missing[@]}" >/dev/null 9>&-
fi

if npm_needed; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error 9>&-
fi
