#!/usr/bin/env python3
"""Google Benchmark JSON (from scripts/bench.sh) -> a Markdown table of the median rows."""
import json
import sys


def si(v, unit="B/s"):
    for p, f in (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10)):
        if v >= f:
            return f"{v / f:.3g} {p}{unit}"
    return f"{v:.3g} {unit}"


doc = json.load(open(sys.argv[1]))
rows = [b for b in doc["benchmarks"] if b.get("aggregate_name", "median") == "median"]
print("| benchmark | CPU ms/iter | decoded poses | input | output | vs memcpy |")
print("|---|---:|---:|---:|---:|---:|")
for b in rows:
    name = b.get("run_name", b["name"]).replace("|", "/")
    if b.get("error_occurred"):
        print(f"| {name} | skipped: {b.get('error_message', '')} | | | | |")
        continue
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
    cpu = b["cpu_time"] * scale
    print(f"| {name} | {cpu:.3f} | {si(b.get('pose_B/s', 0))} | {si(b.get('in_B/s', 0))} | "
          f"{si(b.get('out_B/s', 0))} | {b.get('vs_memcpy', 0) * 100:.2f} % |")
print()
print("Units: binary (1 MB/s = 2^20 B/s). 'decoded poses' = bones x 40 bytes x frames at the source rate;")
print("'vs memcpy' = that rate over memcpy's rate on the same number of bytes, measured in the same run.")
