#!/usr/bin/env bash
# Regenerates docs/gallery/: `rigrip preview` pictures of the bundled examples/ only (files the
# project makes with its own encoders). Renders of real game files (../shared/samples) never go
# into the repository: pass --samples to draw those into out/gallery-samples/ instead.
# Usage: scripts/gallery.sh [RIGRIP_BINARY] [--samples]
set -euo pipefail
cd "$(dirname "$0")/.."
rigrip=${1:-build/rigrip}
[ -x "$rigrip" ] || { echo "no rigrip binary at $rigrip (build it, or pass its path)"; exit 1; }
out=docs/gallery
mkdir -p "$out"
# png|gif FILE NAME SIZE [preview options]
png() { "$rigrip" preview "$1" -o "$out/$2.png" --size "$3" "${@:4}"; }
gif() { "$rigrip" preview "$1" -o "$out/$2.gif" --size "$3" "${@:4}"; }

png examples/sf3/X8PC90A.BIN sf3_X8PC90A 256x256
png examples/bfres/seed_linear.bfres bfres_seed_linear 256x256 --time 0.5
png examples/bfres/ssc_nonuniform_parent.bfres bfres_ssc_nonuniform_parent 256x256
png examples/ff7/zzda ff7_zzda 256x256
png examples/morpheme/Male_Wave.nsa morpheme_Male_Wave 256x256 --time 1
png examples/telltale/sk99_demo_wave.anm telltale_sk99_demo_wave 256x256 --time 0.5
png examples/scene/waving_arm.json scene_waving_arm 128x128 --frames 6
gif examples/sf3/X8PC90A.BIN sf3_X8PC90A 160x160 --frames 16
gif examples/telltale/sk99_demo_wave.anm telltale_sk99_demo_wave 160x160 --frames 16
ls -l "$out"

if [ "${2:-}" = "--samples" ]; then
  samples=../shared/samples
  dst=out/gallery-samples
  mkdir -p "$dst"
  for s in bfres/Animal_Bass.bfres bfres/Animal_Bass_Animation.bfres ff7/field/aafe.a sf3/X8PC00A.BIN \
           sf3/X8PC41X.BIN telltale/sk62_clementine_hoodDown.d3dmesh \
           telltale/sk62_action_clementine400DropsTheTool.anm \
           morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb; do
    [ -f "$samples/$s" ] || { echo "sample absent: $s"; continue; }
    name=$(echo "$s" | tr '/' '_')
    "$rigrip" preview "$samples/$s" -o "$dst/$name.png" --size 384x384 || true
    "$rigrip" preview "$samples/$s" -o "$dst/$name.gif" --size 192x192 || true
  done
  ls -l "$dst"
fi
