#!/usr/bin/env bash
# `npm start`: install what is missing, build the module, serve the page on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-wasm.sh
bash scripts/build-explorer.sh
echo "The explorer: http://127.0.0.1:${PORT:-5173}/" \
  "(or open web/index.html from disk; slides: web/embed.html?panel=heads)"
exec npx --no-install vite web --host 127.0.0.1 --port "${PORT:-5173}" --strictPort
