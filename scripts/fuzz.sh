#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time (docs/fuzzing.md).
#
#   scripts/fuzz.sh SECONDS      every target for SECONDS (CI: scripts/test.sh passes 30)
#   scripts/fuzz.sh --long [S]   long campaign: S seconds per target (default 3600)
#
# Environment:
#   RIGRIP_FUZZ_TARGETS="bfres yaz0 ..."  only these targets (default: every format id
#                                         the registry lists, plus detect, yaz0 and lgp)
#   RIGRIP_FUZZ_JOBS=N                    targets fuzzed at the same time (default: nproc)
#   RIGRIP_FUZZ_SEEDS="dir ..."           extra seed folders (default: build-test/test-output,
#                                         the files the test suite's writers produced)
#
# Builds with clang in build-fuzz/ (ASan + UBSan + libFuzzer). Seed corpora are made at
# fuzz time from ../shared/samples, examples/ and the extra seed folders, sorted by detected
# format; what our own writers make from them is added. The growing corpora live in
# build-fuzz/corpus/<target>/ (kept between runs), crash inputs in build-fuzz/artifacts/.
# Exit status 1 when any target found a crash, a timeout, a memory-limit breach or a
# sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

seconds=45
if [ "${1:-}" = "--long" ]; then
  seconds=${2:-3600}
elif [ -n "${1:-}" ]; then
  seconds=$1
fi
case "$seconds" in ''|*[!0-9]*) echo "usage: scripts/fuzz.sh SECONDS | --long [SECONDS]" >&2; exit 2;; esac

if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found: cannot build the libFuzzer targets" >&2
  exit 1
fi

build=build-fuzz
echo "== fuzz: building ($build/, clang, ASan+UBSan+libFuzzer)"
t0=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DRIGRIP_FUZZ=ON -DRIGRIP_TESTS=OFF -DRIGRIP_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target rigrip_fuzz_reader rigrip_fuzz_yaz0 rigrip_fuzz_lgp rigrip_fuzz_sarc rigrip_fuzz_json rigrip_fuzz_zstd
echo "   built in $(( $(date +%s) - t0 )) s"

reader=$build/fuzz/rigrip_fuzz_reader
yaz0=$build/fuzz/rigrip_fuzz_yaz0
lgp=$build/fuzz/rigrip_fuzz_lgp
sarc=$build/fuzz/rigrip_fuzz_sarc
zstdfz=$build/fuzz/rigrip_fuzz_zstd
jsonfz=$build/fuzz/rigrip_fuzz_json
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# ---- seed corpora ---------------------------------------------------------------------
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds" "$build/corpus" "$build/artifacts" "$build/logs"
list=$build/seed-files.txt
: > "$list"
extra=${RIGRIP_FUZZ_SEEDS:-build-test/test-output}
for d in ../shared/samples examples tests/hostile/regressions $extra; do
  # (not the hostile tests' own mutated copies: thousands of near-duplicates)
  [ -d "$d" ] && find "$d" -type f -size -8M -not -path "*/test-output/hostile*" | sort >> "$list"
done
RIGRIP_FUZZ_SEED_LIST=$list RIGRIP_FUZZ_SEED_OUT=$seeds "$reader" 2>&1 | tail -1
# Yaz0 seeds: every Yaz0 stream among the seed files (the .sbfres samples, our encoder's output).
mkdir -p "$seeds/yaz0"
while read -r f; do
  if [ "$(head -c 4 "$f" 2>/dev/null | tr -d '\0')" = "Yaz0" ]; then cp "$f" "$seeds/yaz0/"; fi
done < "$list"
# LGP seeds: every archive with the 'SQUARESOFT' creator (the reference sample, the tests' archives).
mkdir -p "$seeds/lgp"
while read -r f; do
  if [ "$(head -c 12 "$f" 2>/dev/null | tr -d '\0')" = "SQUARESOFT" ]; then cp "$f" "$seeds/lgp/"; fi
done < "$list"

# SARC seeds: SARC images among the seed files, and the Yaz0-compressed packs (the harness
# opens a Yaz0 stream first, so .sbactorpack/.sbeventpack/.szs seed the archive reader too).
mkdir -p "$seeds/sarc"
while read -r f; do
  case "$(head -c 4 "$f" 2>/dev/null | tr -d '\0')" in
    SARC) cp "$f" "$seeds/sarc/" ;;
    Yaz0) case "$f" in *pack|*.szs|*.ssarc) cp "$f" "$seeds/sarc/" ;; esac ;;
  esac
done < "$list"

# zstd seeds: every zstd stream among the seed files (the zstd tests' own .zs files).
mkdir -p "$seeds/zstd"
while read -r f; do
  if [ "$(head -c 4 "$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = "28b52ffd" ]; then cp "$f" "$seeds/zstd/"; fi
done < "$list"

targets=${RIGRIP_FUZZ_TARGETS:-"$(RIGRIP_FUZZ_LIST=1 "$reader" 2>/dev/null) yaz0 lgp sarc zstd json-gltf json-glb json-scene"}
targets=$(echo $targets)
n_targets=$(echo "$targets" | wc -w)
jobs=${RIGRIP_FUZZ_JOBS:-$(nproc)}
echo "== fuzz: $n_targets targets x ${seconds} s, $jobs at a time: $targets"

# ---- one target ---------------------------------------------------------------------------
run_target() {
  local t=$1 corpus=$build/corpus/$1 log=$build/logs/$1.log seed=$seeds/$1
  mkdir -p "$corpus" "$seed"
  local bin=$reader
  [ "$t" = yaz0 ] && bin=$yaz0
  [ "$t" = lgp ] && bin=$lgp
  [ "$t" = sarc ] && bin=$sarc
  [ "$t" = zstd ] && bin=$zstdfz
  # Structure-aware glTF / scene-JSON targets, seeded from the gltf / scene-json seeds.
  local kind=""
  case "$t" in
    json-gltf) bin=$jsonfz; kind=gltf; seed=$seeds/gltf ;;
    json-glb) bin=$jsonfz; kind=glb; seed=$seeds/gltf ;;
    json-scene) bin=$jsonfz; kind=scene-json; seed=$seeds/scene-json ;;
  esac
  mkdir -p "$seed"
  local rc=0
  # Memory: -rss_limit_mb bounds the process, -malloc_limit_mb any single allocation
  # (a count-driven allocation of gigabytes is a finding even if it would succeed).
  RIGRIP_FUZZ_JSON_KIND=$kind RIGRIP_FUZZ_FORMAT=$t "$bin" "$corpus" "$seed" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -artifact_prefix="$build/artifacts/$t-" -print_final_stats=1 -close_fd_mask=1 \
    >"$log" 2>&1 || rc=$?
  local runs cov ft
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
  local files
  files=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    printf 'fuzz: %-14s ok     runs %-9s cov %-6s ft %-6s corpus %s\n' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$files"
  else
    local art
    art=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | sed 's/Test unit written to //' || true)
    local what
    what=$(grep -m1 -oE "ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)[^\n]*|runtime error:.*|rigrip_fuzz: .*|yaz0: .*" "$log" | head -1 || true)
    printf 'fuzz: %-14s FAILED runs %-9s cov %-6s exit %s: %s\n' "$t" "${runs:-?}" "${cov:-?}" "$rc" "${what:-see $log}"
    printf 'fuzz: %-14s        input: %s  log: %s\n' "$t" "${art:-?}" "$log"
    printf 'fuzz: %-14s        reproduce: RIGRIP_FUZZ_FORMAT=%s %s %s\n' "$t" "$t" "$bin" "${art:-<input>}"
    grep -m12 -E '^ +#[0-9]+ 0x' "$log" | sed "s/^/fuzz: $t   /" || true
    return 1
  fi
}

failed=0
pids=()
names=()
for t in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  run_target "$t" &
  pids+=($!)
  names+=("$t")
done
bad=()
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    failed=1
    bad+=("${names[$i]}")
  fi
done
echo "== fuzz: done in $(( $(date +%s) - t0 )) s"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED targets: ${bad[*]} (inputs in $build/artifacts/, logs in $build/logs/)" >&2
  exit 1
fi
echo "fuzz: all $n_targets targets clean"
