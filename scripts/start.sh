#!/usr/bin/env bash
# `npm start`: install what is missing, build the module and the static site (build/site/: the
# explorer, embed.html and both example decks), serve it on localhost as any static host would.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-wasm.sh
bash scripts/build-explorer.sh
bash scripts/build-site.sh
url="http://127.0.0.1:${PORT:-5173}"
echo "The explorer: $url/web/   embed: $url/web/embed.html?panel=heads"
echo "The decks:    $url/examples/reveal/   $url/examples/slidev/"
exec npx --no-install vite preview --outDir build/site --host 127.0.0.1 --port "${PORT:-5173}" --strictPort
