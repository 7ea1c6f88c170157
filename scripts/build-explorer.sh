#!/usr/bin/env bash
# Bundles the explorer into one classic script with the wasm inside (web/build/explorer/explorer.js),
# so web/index.html and web/embed.html work from file:// as well as from any static host; beside it
# the checkpoints and the pool's worker, as classic scripts loaded when needed.
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
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
mkdirSync("web/build/explorer/checkpoints", { recursive: true });
const names = readdirSync("web/checkpoints").filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5));
for (const name of names) {
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
# The pool's classic worker beside the bundle (the bundle does not carry it), loaded only when
# training starts one (web/explorer/standalone.js). Started as a worker from the page's origin, it
# serves; loaded as a page script (file://, where a file cannot be a worker), it hands the page its
# own text for a Blob URL: Function.prototype.toString gives a function's source text as written.
node --input-type=module -e '
import { writeFileSync } from "node:fs";
const { default: code } = await import("./web/build/pool/worker-source.js");
writeFileSync(
  "web/build/explorer/pool-worker.js",
  [
    "// Built by scripts/build-explorer.sh from web/build/pool/worker-source.js (web/pool/worker-classic.js).",
    "function headwiseWorker() {",
    code.trim(),
    "}",
    "if (typeof document === \"undefined\") headwiseWorker();",
    "else document.currentScript.dispatchEvent(",
    "  new CustomEvent(\"headwise-worker-source\", { detail: `(${headwiseWorker})();` }),",
    ");",
    "",
  ].join("\n"),
);
'
worker=web/build/explorer/pool-worker.js
echo "explorer worker: $worker ($(stat -c %s "$worker") bytes, $(gzip -9c "$worker" | wc -c) gzipped)"
