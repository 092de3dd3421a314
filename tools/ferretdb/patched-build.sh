#!/usr/bin/env bash
# patched-build.sh OUT_DIR: prepares OUT_DIR/build, a copy of this module whose FerretDB
# v1.24.2 is a copy with two changes (OUT_DIR/FerretDB, through a go.mod `replace`);
# `go build` there builds our ferretdb. The module cache itself is left untouched.
#
# 1. `_id` lookups served by the index. Why: the SQLite backend's `_id` index is built on
# `_ferretdb_sjson->"_id"`, but its pushed-down `_id` lookups ask for
# `_ferretdb_sjson->'$._id'`. The two mean the same JSON path, yet SQLite only uses an
# expression index for the same expression, so every lookup, update and delete by `_id`
# scanned the whole table (EXPLAIN: `SCAN`), and its cost grew with the collection.
# Writing the lookup as `->'_id'` (the label form, the one the PostgreSQL backend writes)
# makes it `SEARCH ... USING INDEX`, on new and existing databases alike. Nothing else
# changes: same results, same files. See docs/ferretdb.md.
#
# 2. No leak tracking of internal objects. FerretDB's `resource.Track` records every
# transaction, row set and iterator in a pprof profile (a stack walk each) and arms a
# finalizer that panics the server if one is never released: a development aid that cost
# 6% of its CPU under the actions load. Our build returns early from `Track` and `Untrack`
# (the argument checks stay). See docs/ferretdb.md.
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
resource="$out/FerretDB/internal/util/resource/resource.go"
python3 - "$resource" <<'PATCH' ||
import sys
path = sys.argv[1]
text = open(path).read()
heads = [f"func {name}(obj any, token *Token) {{\n\tcheckArgs(obj, token)\n" for name in ("Track", "Untrack")]
if not all(text.count(head) == 1 for head in heads):
    sys.exit(1)
for head in heads:
    text = text.replace(head, head + "\n\tif !trackingEnabled {\n\t\treturn\n\t}\n")
text = text.replace("// profilesM protects", "// trackingEnabled is off in our build (tools/ferretdb/patched-build.sh).\nconst trackingEnabled = false\n\n// profilesM protects", 1)
open(path, "w").write(text)
PATCH
  { echo "patched-build.sh: Track/Untrack of $resource were not found; FerretDB changed?" >&2; exit 1; }
cp go.mod go.sum main.go lazy_attrs.go "$out/build/"
(cd "$out/build" && go mod edit -replace "github.com/FerretDB/FerretDB=$out/FerretDB")
