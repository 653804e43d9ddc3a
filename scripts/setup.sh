#!/usr/bin/env bash
# First command of the README: install dependencies, build rigrip (release), and run
# the main job: convert the bundled examples (and the shared samples when present)
# to .glb files in out/, then check them with gltf-validator and assimp.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

echo "== building (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRIGRIP_TESTS=OFF -DRIGRIP_BENCH=ON >/dev/null
cmake --build build -j"$(nproc)"

echo "== converting examples/ -> out/examples/"
rm -rf out
./build/rigrip convert examples -o out/examples -j"$(nproc)" --report out/examples-report.json
if [ -d ../shared/samples ]; then
  echo "== converting ../shared/samples -> out/samples/ (real game files, read in place)"
  ./build/rigrip convert ../shared/samples -o out/samples -j"$(nproc)" --report out/samples-report.json || \
    echo "   (some samples failed: see out/samples-report.json)"
fi

echo "== gltf-validator"
node tools/gltf_validate.mjs out
echo "== assimp info"
find out -name '*.glb' | sort | while read -r f; do
  if assimp info "$f" >/dev/null 2>&1; then echo "assimp ok: $f"; else echo "assimp FAILED: $f"; exit 1; fi
done
echo "== Blender import check (out/blender-report.json)"
scripts/blender_check.sh ./build/rigrip out
echo "== done: open the .glb files under out/ in Blender or https://gltf-viewer.donmccurdy.com/"
