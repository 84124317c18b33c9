#!/usr/bin/env bash
# Compiles the C# and TypeScript generated from a sample of the codegen fuzz corpus: the fuzz
# loop only checks that the writers answer; this checks that what they write compiles.
#   bash fuzz/compile_sample.sh [SAMPLE_SIZE]   (default 20)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
size="${1:-20}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mapfile -t files < <(find "$here/corpus/codegen" -type f | shuf -n "$size")
cargo run --quiet --release --manifest-path "$here/Cargo.toml" --bin codegen_sample -- "$out" "${files[@]}"
tsc="$root/interop/node_modules/.bin/tsc"
newtonsoft=/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll
failed=0
for dir in "$out"/*/; do
  if ! mcs -target:library -nologo -warnaserror -out:"$dir/t.dll" -r:"$newtonsoft" \
      -r:System.Numerics.dll -r:System.Runtime.Serialization.dll "$dir"csharp/*.cs; then
    echo "C# from sample $dir does not compile"; failed=1
  fi
  if ! "$tsc" --strict --noEmit --target es2020 --module commonjs --skipLibCheck \
      "$dir"typescript/*.ts; then
    echo "TypeScript from sample $dir does not compile"; failed=1
  fi
done
exit "$failed"
