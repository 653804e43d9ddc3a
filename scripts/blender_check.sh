#!/usr/bin/env bash
# Blender 3.4 (Debian) imports every .glb of a main-job output folder headless and checks it
# against `rigrip info --json` of its source (tools/blender_check.py): bones, actions, frame
# ranges, armature scale 1, real-world height, importer errors, quaternion sign flips.
# Usage: scripts/blender_check.sh RIGRIP OUTDIR   (OUTDIR holds the convert reports)
# Writes OUTDIR/blender-report.json; exit 1 when a file fails a check.
# Budget: RIGRIP_BLENDER_SECONDS (default 300); files not reached within it are listed as not
# checked (the report's "not_checked_budget"), and Blender is killed at twice the budget.
set -euo pipefail
cd "$(dirname "$0")/.."
rigrip=$1
out=$2
if ! command -v blender >/dev/null; then
  echo "blender check: blender is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
reports=()
# examples/ are synthetic test files of arbitrary size: every check but the height.
[ -f "$out/examples-report.json" ] && reports+=(--no-height "$out/examples-report.json")
[ -f "$out/samples-report.json" ] && reports+=(--report "$out/samples-report.json")
# Files that hold standing human characters (Cloud; SF3 X8PC00A, its X8AN00 clips, X8PC41X's
# models side by side): 1-3 m tall (docs/gltf-output.md).
characters=(--character aafe.a --character X8PC00A.BIN --character X8AN00.BIN --character X8PC41X.BIN)
budget=${RIGRIP_BLENDER_SECONDS:-300}
start=$(date +%s)
timeout $((2 * budget + 60)) blender -b --factory-startup --python-exit-code 1 --python tools/blender_check.py -- \
  --rigrip "$rigrip" "${reports[@]}" "${characters[@]}" --budget "$budget" --json "$out/blender-report.json" \
  > "$out/blender-check.log" 2>&1 || { grep -E "^(FAIL|blender check)|Error|Traceback" "$out/blender-check.log" | head -50; exit 1; }
grep -E "^(NOT CHECKED|blender check)" "$out/blender-check.log"
echo "blender check took $(( $(date +%s) - start )) s"
