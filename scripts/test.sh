#!/usr/bin/env bash
# Second command of the README (and what .ci/run calls): installs what is missing,
# builds everything with AddressSanitizer + UndefinedBehaviorSanitizer, runs the whole
# CTest suite (unit, CLI, glTF validation, hostile-input), then every fuzz target for a
# short budget.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

echo "== building with ASan+UBSan (build-test/)"
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIGRIP_SANITIZE=ON >/dev/null
cmake --build build-test -j"$(nproc)"

echo "== ctest"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-test -j"$(nproc)" --output-on-failure --timeout 900

if [ -x scripts/fuzz.sh ]; then
  echo "== fuzzing (short budget: ${RIGRIP_FUZZ_SECONDS:-45} s per target)"
  scripts/fuzz.sh "${RIGRIP_FUZZ_SECONDS:-45}"
fi
