#!/usr/bin/env bash
# patched-build.sh OUT_DIR: prepares OUT_DIR/build, a copy of this module whose FerretDB
# v1.24.2 is a copy with one line changed (OUT_DIR/FerretDB, through a go.mod `replace`);
# `go build` there builds our ferretdb. The module cache itself is left untouched.
#
# Why: the SQLite backend's `_id` index is built on `_ferretdb_sjson->"_id"`, but its
# pushed-down `_id` lookups ask for `_ferretdb_sjson->'$._id'`. The two mean the same JSON
# path, yet SQLite only uses an expression index for the same expression, so every lookup,
# update and delete by `_id` scanned the whole table (EXPLAIN: `SCAN`), and its cost grew
# with the collection. Writing the lookup as `->'_id'` (the label form, the one the
# PostgreSQL backend writes) makes it `SEARCH ... USING INDEX`, on new and existing
# databases alike. Nothing else changes: same results, same files. See docs/ferretdb.md.
set -euo pipefail
out="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
mod_dir="$(go mod download -json github.com/FerretDB/FerretDB | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d "$mod_dir" ]] || { echo "patched-build.sh: FerretDB's module was not downloaded" >&2; exit 1; }
mkdir -p "$out/build"
cp -R "$mod_dir" "$out/FerretDB"
chmod -R u+w "$out/FerretDB"
file="$out/FerretDB/internal/backends/sqlite/metadata/metadata.go"
sed -i "s|IDColumn = DefaultColumn + \"->'\$._id'\"|IDColumn = DefaultColumn + \"->'_id'\"|" "$file"
grep -q "IDColumn = DefaultColumn + \"->'_id'\"" "$file" ||
  { echo "patched-build.sh: the _id lookup line of $file was not found; FerretDB changed?" >&2; exit 1; }
cp go.mod go.sum main.go "$out/build/"
(cd "$out/build" && go mod edit -replace "github.com/FerretDB/FerretDB=$out/FerretDB")
