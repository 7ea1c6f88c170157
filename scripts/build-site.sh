#!/usr/bin/env bash
# `npm run site`: one static folder, build/site/, that any static host serves as it is (vercel.json
# points Vercel at it): the explorer and embed.html (web/), the reveal.js deck (examples/reveal,
# bundled by Vite) and the Slidev deck (examples/slidev, `slidev build`), laid out as in the
# repository so the decks' relative links to ../../web/embed.html hold, and an index linking them.
# Needs the module and the explorer bundle first: build-wasm.sh, then build-explorer.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f web/build/explorer/explorer.js ]] || {
  echo "build-site: run scripts/build-wasm.sh and scripts/build-explorer.sh first" >&2
  exit 1
}
SITE=build/site
rm -rf "$SITE"
mkdir -p "$SITE/web/build"

# The explorer and embed.html: build/explorer (the classic script with the wasm inside, the pool worker
# it starts for training, the trained checkpoints it loads after the first render).
cp web/index.html web/embed.html "$SITE/web/"
cp -r web/build/explorer "$SITE/web/build/explorer"

# The reveal.js deck: its modules, reveal.js and the package's element bundled, the wasm beside them.
echo "site: bundling the reveal.js deck (Vite)..."
npx --no-install vite build examples/reveal --base ./ --outDir ../../"$SITE"/examples/reveal \
  --emptyOutDir --logLevel warn

# The Slidev deck (hash routes: no server rewrites needed).
echo "site: building the Slidev deck (slidev build, 15-60 s)..."
npx --no-install slidev build examples/slidev/slides.md --base ./ --out ../../"$SITE"/examples/slidev >/dev/null

cat >"$SITE/index.html" <<'HTML'
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" href="data:,">
  <title>headwise: multi-head attention, live</title>
  <style>
    :root { color-scheme: light dark; font: 18px/1.5 system-ui, sans-serif; }
    body { max-width: 40rem; margin: 3rem auto; padding: 0 1rem; background: Canvas; color: CanvasText; }
  </style>
</head>
<body>
  <h1>headwise</h1>
  <p>Multi-head causal self-attention you can see, run, time and train in a browser.</p>
  <ul>
    <li><a href="web/">The explorer</a>: every panel on one page</li>
    <li><a href="web/embed.html?panel=heads">embed.html</a>: one panel, for an iframe in a slide</li>
    <li><a href="examples/reveal/">A reveal.js deck</a> with live panels</li>
    <li><a href="examples/slidev/">A Slidev deck</a> with live panels</li>
  </ul>
</body>
</html>
HTML
echo "site: $SITE ($(du -sh "$SITE" | cut -f1), $(find "$SITE" -type f | wc -l) files)"
