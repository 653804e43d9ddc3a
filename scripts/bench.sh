#!/usr/bin/env bash
# Issue 16 benchmarks, one command: builds Release in build-bench/ and prints a Markdown table
# (CPU-time medians of 3 repetitions) of every benchmark in bench/ - per format decode/encode,
# GLB writer and scene-JSON writer on the shared samples and on generated 500 x 2,000 inputs.
#   scripts/bench.sh                    # everything (a few minutes)
#   scripts/bench.sh 'decode/telltale'  # a regex over benchmark names
# Extra Google Benchmark flags can be given after the filter. Raw JSON: build-bench/bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-.}
shift || true
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
[ -f build-bench/CMakeCache.txt ] ||
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DRIGRIP_BENCH=ON -DRIGRIP_TESTS=OFF >/dev/null
cmake --build build-bench -j"$(nproc)" --target rigrip_bench >/dev/null
build-bench/bench/rigrip_bench --benchmark_filter="$filter" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
  --benchmark_out=build-bench/bench.json --benchmark_out_format=json "$@" >/dev/null
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end of the run"
echo
python3 scripts/bench_table.py build-bench/bench.json
