#!/usr/bin/env bash
# Bundles the explorer into one classic script with the wasm inside (web/build/explorer/explorer.js),
# so web/index.html and web/embed.html work from file:// as well as from any static host.
# Needs the module first: scripts/build-wasm.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f web/build/headwise-core.wasm ]] || { echo "build-explorer: run scripts/build-wasm.sh first" >&2; exit 1; }
npx --no-install vite build --config scripts/explorer-bundle.config.js
bundle=web/build/explorer/explorer.js
echo "explorer bundle: $bundle ($(stat -c %s "$bundle") bytes, $(gzip -9c "$bundle" | wc -c) gzipped)"
# The checkpoints the Learn panel and the heads panel show, each as a classic script beside the bundle (a
# page opened from file:// cannot fetch the JSON files): web/explorer/standalone.js loads them.
node --input-type=module -e '
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
mkdirSync("web/build/explorer/checkpoints", { recursive: true });
for (const name of ["induction-1-layer", "induction-2-layers", "verb-noun-1-head", "verb-noun-2-heads"]) {
  const json = readFileSync(`web/checkpoints/${name}.json`, "utf8");
  JSON.parse(json); // a checkpoint file that is not JSON fails the build here
  const detail = `{ detail: ${json.trim()} }`;
  writeFileSync(
    `web/build/explorer/checkpoints/${name}.js`,
    `// Built by scripts/build-explorer.sh from web/checkpoints/${name}.json.\n` +
      `document.currentScript.dispatchEvent(new CustomEvent("headwise-checkpoint", ${detail}));\n`,
  );
}
'
echo "explorer checkpoints: $(ls web/build/explorer/checkpoints | tr '\n' ' ')"
