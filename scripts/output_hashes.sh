#!/usr/bin/env bash
# Prints one line per (input, operation): "sha256  operation  path" for every file under
# examples/ and ../shared/samples/ (or the folders given): `dump`, `dump --raw`,
# `rewrite` and `convert` to .glb. A refactor must leave this list unchanged:
#   scripts/output_hashes.sh build/rigrip > before.txt   (on the old commit)
#   scripts/output_hashes.sh build/rigrip > after.txt    (on the new one)
#   diff before.txt after.txt
# Failures hash their one-line message (file paths stripped), so an error that stays the
# same error also compares equal.
set -uo pipefail
rigrip=$(realpath "${1:?usage: output_hashes.sh RIGRIP [DIR...]}")
shift
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(examples ../shared/samples)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hash_cmd() {  # label path command...
  local label=$1 path=$2; shift 2
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    echo "$(sha256sum <"$tmp/out" | cut -c1-16)  $label  $path"
  else
    echo "$(sed "s#$tmp/[^ ]*#OUT#g" "$tmp/err" | sha256sum | cut -c1-16)  $label(failed)  $path"
  fi
}
hash_file() {  # label path output command... (hashes the file the command writes to output)
  local label=$1 path=$2 out=$3; shift 3
  rm -f "$out"
  if "$@" >/dev/null 2>"$tmp/err" && [ -f "$out" ]; then
    echo "$(sha256sum <"$out" | cut -c1-16)  $label  $path"
  else
    echo "$(sed "s#$tmp/[^ ]*#OUT#g" "$tmp/err" | sha256sum | cut -c1-16)  $label(failed)  $path"
  fi
}

for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  find "$d" -type f ! -name '*.md' ! -name '*.txt' | LC_ALL=C sort | while read -r f; do
    hash_cmd dump "$f" "$rigrip" dump "$f"
    hash_cmd dump-raw "$f" "$rigrip" dump --raw "$f"
    hash_file rewrite "$f" "$tmp/o" "$rigrip" rewrite "$f" -o "$tmp/o"
    hash_file glb "$f" "$tmp/o.glb" "$rigrip" convert "$f" -o "$tmp/o.glb"
  done
done
