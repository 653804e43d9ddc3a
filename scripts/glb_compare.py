#!/usr/bin/env python3
"""Compares two .glb files in meaning: the same JSON (numbers within a relative tolerance) and,
accessor by accessor, the same BIN values within a tolerance (a quaternion q equals -q).
Prints the largest differences; exit status 1 when anything is beyond the tolerance.

  scripts/glb_compare.py OLD.glb NEW.glb [--tol 1e-5]"""
import argparse
import json
import math
import struct
import sys

COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
FORMATS = {5120: "b", 5121: "B", 5122: "h", 5123: "H", 5125: "I", 5126: "f"}


def load(path):
    data = open(path, "rb").read()
    magic, _, length = struct.unpack_from("<III", data, 0)
    assert magic == 0x46546C67, f"{path}: not a GLB"
    off, doc, binary = 12, None, b""
    while off < length:
        size, kind = struct.unpack_from("<II", data, off)
        chunk = data[off + 8: off + 8 + size]
        if kind == 0x4E4F534A:
            doc = json.loads(chunk)
        elif kind == 0x004E4942:
            binary = chunk
        off += 8 + size
    return doc, binary


def accessor_values(doc, binary, i):
    a = doc["accessors"][i]
    if "bufferView" not in a:
        return []
    v = doc["bufferViews"][a["bufferView"]]
    n = COMPONENTS[a["type"]]
    fmt = FORMATS[a["componentType"]]
    size = struct.calcsize(fmt)
    stride = v.get("byteStride", n * size)
    base = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    return [struct.unpack_from("<" + fmt * n, binary, base + k * stride) for k in range(a["count"])]


def compare_json(x, y, tol, where, worst):
    if isinstance(x, dict) and isinstance(y, dict):
        if x.keys() != y.keys():
            worst.append((math.inf, where + f": keys {sorted(x.keys() ^ y.keys())}"))
        for k in x.keys() & y.keys():
            compare_json(x[k], y[k], tol, f"{where}.{k}", worst)
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            worst.append((math.inf, where + f": length {len(x)} vs {len(y)}"))
        for k, (p, q) in enumerate(zip(x, y)):
            compare_json(p, q, tol, f"{where}[{k}]", worst)
    elif isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        d = abs(x - y) / max(1.0, abs(x), abs(y))
        if d > 0:
            worst.append((d, where))
    elif x != y:
        worst.append((math.inf, f"{where}: {x!r} vs {y!r}"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--tol", type=float, default=1e-5)
    a = ap.parse_args()
    d0, b0 = load(a.old)
    d1, b1 = load(a.new)
    worst = []
    compare_json(d0, d1, a.tol, "json", worst)
    rotation_outputs = set()
    for an in d0.get("animations", []):
        for c in an["channels"]:
            if c["target"].get("path") == "rotation":
                rotation_outputs.add(an["samplers"][c["sampler"]]["output"])
    differing = 0
    for i in range(len(d0.get("accessors", []))):
        v0, v1 = accessor_values(d0, b0, i), accessor_values(d1, b1, i)
        if v0 == v1:
            continue
        differing += 1
        if len(v0) != len(v1):
            worst.append((math.inf, f"accessor {i}: count {len(v0)} vs {len(v1)}"))
            continue
        for k, (p, q) in enumerate(zip(v0, v1)):
            d = max(abs(s - t) for s, t in zip(p, q))
            if i in rotation_outputs:
                d = min(d, max(abs(s + t) for s, t in zip(p, q)))
            if d > 0:
                worst.append((d, f"accessor {i}[{k}]"))
    worst.sort(reverse=True)
    bad = [w for w in worst if w[0] > a.tol]
    print(f"{len(worst)} differing numbers ({differing} accessors differ), largest:")
    for d, where in worst[:8]:
        print(f"  {d:.3g}  {where}")
    print("OK within", a.tol if not bad else f"NOT OK: {len(bad)} beyond {a.tol}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
