#!/usr/bin/env bash
# Vendor Mermaid's ESM build into the default theme (site_builder/themes/default/vendor/mermaid/): its entry module
# and the chunks it loads on demand (a diagram type's code only when a page draws one), in one folder (the entry's
# `./chunks/mermaid.esm.min/` imports rewritten to `./`: package data is matched by depth), with its license.
# Published to `js/mermaid/` only by a build whose posts draw a diagram (write/static.py).
# usage: tools/vendor_mermaid.sh [VERSION]   (needs npm; default: the version in the folder's VERSION file)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dest="$here/site_builder/themes/default/vendor/mermaid"
version=${1:-$(cat "$dest/VERSION" 2>/dev/null || echo 11)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "mermaid@$version" >/dev/null && tar xzf mermaid-*.tgz)
rm -rf "$dest" && mkdir -p "$dest"
sed 's#"\./chunks/mermaid\.esm\.min/#"./#g' "$work/package/dist/mermaid.esm.min.mjs" > "$dest/mermaid.esm.min.mjs"
cp "$work"/package/dist/chunks/mermaid.esm.min/*.mjs "$dest/"
cp "$work/package/LICENSE" "$dest/LICENSE"
node -e 'process.stdout.write(require(process.argv[1]).version)' "$work/package/package.json" > "$dest/VERSION"
echo "mermaid $(cat "$dest/VERSION"): $(ls "$dest" | wc -l) files, $(du -sh "$dest" | cut -f1) in $dest"
