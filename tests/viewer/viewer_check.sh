#!/usr/bin/env bash
# CTest `viewer.chromium`: `rigrip view` in headless Chromium (tools/viewer_check.mjs) on one
# converted sample per family and the examples of each family, then `view --out` and the
# errors (unreadable input, port in use). Exit 77 (skipped, reason printed) without chromium
# or the npm packages; scripts/install-deps.sh installs both, so CI runs it.
# Usage: viewer_check.sh RIGRIP SOURCE_DIR OUT_DIR [SAMPLES_DIR]
set -uo pipefail
rigrip=$1 src=$2 out=$3
samples=${4:-$src/../shared/samples}
command -v chromium >/dev/null || { echo "SKIPPED: chromium is not installed (scripts/install-deps.sh)"; exit 77; }
[ -d "$src/node_modules/puppeteer-core" ] || { echo "SKIPPED: node_modules/puppeteer-core is missing (npm ci)"; exit 77; }
files=("$src/examples/bfres/seed_linear.bfres" "$src/examples/ff7/zzda" "$src/examples/morpheme/Male_Wave.nsa"
       "$src/examples/sf3/X8PC90A.BIN" "$src/examples/telltale/sk99_demo_wave.anm" "$src/examples/scene/waving_arm.json")
for s in bfres/Animal_Bass_Animation.bfres ff7/field/aafe.a sf3/X8PC00A.BIN telltale/sk62_clementine_hoodDown.d3dmesh \
         telltale/sk62_action_clementine400DropsTheTool.anm morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb; do
  if [ -f "$samples/$s" ]; then files+=("$samples/$s"); else echo "sample absent, not checked: $s"; fi
done
rm -rf "$out" && mkdir -p "$out"
rc=0
node "$src/tools/viewer_check.mjs" "$rigrip" "$out/screenshots" "${files[@]}" || rc=1

# --out: the same page as static files with the glb, which validates.
"$rigrip" view "$src/examples/telltale/sk99_demo_wave.anm" --out "$out/site" || rc=1
for f in index.html viewer.js three/build/three.module.js models.json models/0.glb; do
  [ -f "$out/site/$f" ] || { echo "FAIL view --out: $f missing"; rc=1; }
done
node "$src/tools/gltf_validate.mjs" "$out/site/models" | grep -q ": 0 errors" || { echo "FAIL: view --out glb does not validate"; rc=1; }

# A file rigrip cannot read: the usual one-line error, exit 1.
msg=$("$rigrip" view "$src/examples/sf3/README.md" 2>&1); code=$?
if [ $code -ne 1 ] || ! grep -q "E_UNKNOWN_FORMAT" <<<"$msg"; then echo "FAIL unreadable input: exit $code: $msg"; rc=1; fi

# A port in use: a clear error, exit 1 (the first viewer holds the port).
"$rigrip" view "$src/examples/telltale/sk99_demo_wave.anm" --port 0 > "$out/first.txt" 2>&1 &
first=$!
for _ in $(seq 100); do grep -q "http://" "$out/first.txt" && break; sleep 0.2; done
port=$(grep -o '127.0.0.1:[0-9]*' "$out/first.txt" | cut -d: -f2)
msg=$("$rigrip" view "$src/examples/telltale/sk99_demo_wave.anm" --port "$port" 2>&1); code=$?
kill -INT $first 2>/dev/null; wait $first
if [ $code -ne 1 ] || ! grep -q "cannot listen on 127.0.0.1:$port" <<<"$msg"; then echo "FAIL port in use: exit $code: $msg"; rc=1; fi
grep -q "viewer stopped" "$out/first.txt" || { echo "FAIL: Ctrl-C did not stop the viewer cleanly"; rc=1; }
[ $rc -eq 0 ] && echo "viewer check passed"
exit $rc
