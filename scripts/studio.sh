#!/usr/bin/env bash
# Builds the studio's page (buril-mcp/studio/) into buril-mcp/studio/dist/, which the binary embeds:
# type-checks the TypeScript (strict) with tsc, bundles it with esbuild, minifies the style
# sheet. `--check` builds into a temporary folder and fails when the committed dist/ differs
# (the assets are stale). Needs `npm ci --prefix interop`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=interop/node_modules/.bin
studio=buril-mcp/studio
out=$studio/dist
if [ "${1:-}" = "--check" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
# The page's npm packages (ext-apps for MCP Apps) are interop's: found through a link.
ln -sfn ../../interop/node_modules "$studio/node_modules"
"$bin/tsc" -p "$studio/tsconfig.json"
"$bin/esbuild" "$studio/src/main.ts" --bundle --minify --format=esm --target=es2022 \
  --legal-comments=none --log-level=warning --external:./apps.js --outfile="$out/studio.js"
# The apps' host (ext-apps' AppBridge), loaded by the page only when it shows an app.
"$bin/esbuild" "$studio/src/apps.ts" --bundle --minify --format=esm --target=es2022 \
  --platform=browser --legal-comments=none --log-level=warning --outfile="$out/apps.js"
"$bin/esbuild" "$studio/studio.css" --minify --log-level=warning --outfile="$out/studio.css"
cp "$studio/index.html" "$out/index.html"
if [ "${1:-}" = "--check" ]; then
  if ! diff -r "$out" "$studio/dist" >/dev/null; then
    echo "the studio's built assets in $studio/dist are stale: run scripts/studio.sh and commit them" >&2
    diff -r "$out" "$studio/dist" | head -20 >&2 || true
    exit 1
  fi
  echo "studio assets: current"
fi
