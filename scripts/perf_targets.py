#!/usr/bin/env python3
"""Issue 16 whole-process targets: CPU time (user + sys, medians of N runs) of `rigrip convert`
and `rigrip dump` on the shared samples named by the issue, and the -j 1 / -j 2 batch.

  scripts/perf_targets.py BUILD_DIR [--runs N] [--batch]     # e.g. build-rel
Prints a Markdown table and the load average before and after. The samples are read in place
from ../shared/samples; outputs go to a temporary folder."""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.environ.get("RIGRIP_SAMPLES_DIR", os.path.join(os.path.dirname(ROOT), "shared", "samples"))
TT = os.path.join(SAMPLES, "telltale")
LARGEST_ANM = os.path.join(TT, "sk61_zombie400_sk62_action_clementine400StruggleZombieSuccessKillWithKnife02.anm")
DOG = os.path.join(SAMPLES, "bfres", "Animal_Dog_Animation.bfres")


def cpu_run(cmd):
    """(CPU seconds user+sys, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def median_cpu(cmd, runs):
    cpu, wall = zip(*(cpu_run(cmd) for _ in range(runs)))
    return statistics.median(cpu), statistics.median(wall)


def make_batch(dst, n=1000):
    """n files: copies of the skeletal Telltale .anm (with their .skl), a BFRES and an SF3 pack."""
    anms = sorted(f for f in os.listdir(TT) if f.endswith(".anm") and f.startswith("sk"))
    skls = [f for f in os.listdir(TT) if f.endswith(".skl")]
    extra = [os.path.join(SAMPLES, "bfres", "Animal_Bass_Animation.bfres"), os.path.join(SAMPLES, "sf3", "X8PC00A.BIN")]
    per = len(anms) + len(extra)
    count = 0
    folder = 0
    while count < n:
        d = os.path.join(dst, f"f{folder:03d}")
        os.makedirs(d)
        for s in skls:
            shutil.copy(os.path.join(TT, s), d)
        for f in [os.path.join(TT, a) for a in anms] + extra:
            if count >= n:
                break
            shutil.copy(f, d)
            count += 1
        folder += 1
    return count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--batch", action="store_true")
    a = ap.parse_args()
    exe = os.path.join(a.build, "rigrip")
    out = tempfile.mkdtemp(prefix="rigrip-perf-")
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}", file=sys.stderr)
    rows = []
    if os.path.exists(LARGEST_ANM):
        c, w = median_cpu([exe, "convert", LARGEST_ANM, "-o", os.path.join(out, "a.glb")], a.runs)
        rows.append(("convert largest Telltale .anm", c, w, "<= 12 ms"))
    if os.path.exists(DOG):
        c, w = median_cpu([exe, "convert", DOG, "-o", os.path.join(out, "dog.glb")], a.runs)
        rows.append(("convert BFRES Dog", c, w, "<= 100 ms"))
        c, w = median_cpu([exe, "dump", DOG, "-o", os.path.join(out, "dog.json")], a.runs)
        size = os.path.getsize(os.path.join(out, "dog.json"))
        rows.append((f"dump BFRES Dog ({size / 2**20:.1f} MiB, {size / 2**20 / c:.0f} MiB/s)", c, w, "<= 200 ms"))
    c, w = median_cpu([exe, "formats"], a.runs)
    rows.append(("`rigrip formats` (process start-up, nothing read)", c, w, ""))
    if a.batch:
        src = os.path.join(out, "batch")
        n = make_batch(src)
        for j in (1, 2):
            dst = os.path.join(out, f"out{j}")
            walls = []
            for _ in range(3):
                shutil.rmtree(dst, ignore_errors=True)
                cpu, wall = cpu_run([exe, "convert", src, "-o", dst, "-j", str(j)])
                walls.append((wall, cpu))
            wall, cpu = sorted(walls)[1]
            rows.append((f"batch of {n} files, -j {j} (wall s; CPU s)", cpu, wall, ""))
    print("| run | CPU (median) | wall (median) | target |")
    print("|---|---:|---:|---|")
    for name, c, w, t in rows:
        print(f"| {name} | {c * 1000:.1f} ms | {w * 1000:.1f} ms | {t} |")
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}", file=sys.stderr)
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
