# Imports every .glb that rigrip wrote into Blender, headless, and checks it against
# `rigrip info --json` of its source file (issue 15):
#   blender -b --factory-startup --python tools/blender_check.py -- \
#       --rigrip build/rigrip --report out/examples-report.json [--report ...] \
#       --json out/blender-report.json
# The convert reports (--report of `rigrip convert`) pair each .glb with its source.
# Per file: armature bone count = source bone count (no extra nodes as bones), action
# count = clip count, each action's frame range = the clip's duration at the scene's
# frame rate, armature object scale 1, model height within the documented range for the
# family (docs/gltf-output.md), no importer error, no quaternion sign flip between
# consecutive rotation keys. Exit code 1 when any file fails a check.
import json
import math
import os
import subprocess
import sys

# Debian's Blender 3.4.1 glTF importer calls numpy.bool, an alias NumPy 1.24 removed:
# without this every file with a mesh fails to import (AttributeError in the importer).
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = numpy.bool_

import bpy  # noqa: E402  (only inside Blender)

# Height range (metres) of what a family's files hold at rigrip's default size; the
# same table is in docs/gltf-output.md. Props and fish included, so the ranges are wide
# where the family has more than characters; characters are checked in `character`.
HEIGHT_RANGE = {
    "bfres": (0.05, 10.0),
    "ff7": (0.2, 10.0),
    "sf3": (0.2, 10.0),
    "telltale": (0.05, 10.0),
    "morpheme": (0.05, 10.0),
    "scene-json": (0.05, 10.0),
}
CHARACTER = (1.0, 3.0)  # a human character's standing height


def family_of(fmt):
    for k in HEIGHT_RANGE:
        if fmt.startswith(k):
            return k
    return None


def args():
    a = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    out = {"rigrip": "build/rigrip", "reports": [], "json": None, "characters": [], "no_height": []}
    i = 0
    while i < len(a):
        if a[i] == "--rigrip":
            out["rigrip"] = a[i + 1]
        elif a[i] == "--report":
            out["reports"].append(a[i + 1])
        elif a[i] == "--json":
            out["json"] = a[i + 1]
        elif a[i] == "--no-height":  # a report of synthetic test files: no real-world size
            out["no_height"].append(a[i + 1])
            out["reports"].append(a[i + 1])
        elif a[i] == "--character":  # a source file name that holds one human character
            out["characters"].append(a[i + 1])
        i += 2
    return out


def source_info(rigrip, path):
    r = subprocess.run([rigrip, "info", "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)[0]


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def height_of(objs):
    # The meshes as deformed (else the bones) in the pose shown: vertical extent in metres.
    lo, hi = math.inf, -math.inf
    deps = bpy.context.evaluated_depsgraph_get()
    meshes = [o for o in objs if o.type == "MESH"]
    for o in meshes:
        ev = o.evaluated_get(deps)
        me = ev.to_mesh()
        mw = ev.matrix_world
        for v in me.vertices:
            z = (mw @ v.co).z
            lo, hi = min(lo, z), max(hi, z)
        ev.to_mesh_clear()
    if True:  # bones too: a file may hold only some of the model's parts (FF7's waist alone)
        for o in objs:
            if o.type != "ARMATURE":
                continue
            mw = o.matrix_world
            for pb in o.pose.bones:
                for p in (pb.head, pb.tail):
                    z = (mw @ p).z
                    lo, hi = min(lo, z), max(hi, z)
    return 0.0 if lo > hi else hi - lo


def sign_flips(action):
    # rotation_quaternion curves per bone: w,x,y,z channels with keys at the same frames.
    groups = {}
    for fc in action.fcurves:
        if fc.data_path.endswith("rotation_quaternion"):
            groups.setdefault(fc.data_path, {})[fc.array_index] = fc
    flips = 0
    for path, chans in groups.items():
        if len(chans) != 4:
            continue
        keys = [list(chans[i].keyframe_points) for i in range(4)]
        n = min(len(k) for k in keys)
        for k in range(1, n):
            d = sum(keys[i][k].co[1] * keys[i][k - 1].co[1] for i in range(4))
            if d < 0:
                flips += 1
    return flips


def check(glb, info, fps, character, measure_height=True):
    row = {"file": glb, "source": info.get("file"), "format": info.get("format"), "errors": []}
    err = row["errors"]
    reset()
    bpy.context.scene.render.fps = fps
    try:
        res = bpy.ops.import_scene.gltf(filepath=glb)
        if "FINISHED" not in res:
            err.append("importer returned %s" % sorted(res))
    except Exception as e:  # the operator raises on an importer error report
        err.append("importer error: %s" % str(e).strip().splitlines()[-1][:300])
        return row
    objs = list(bpy.context.scene.objects)
    arms = [o for o in objs if o.type == "ARMATURE"]
    bones = sum(len(a.data.bones) for a in arms)
    want_bones = sum(s["bones"] for s in info.get("skeletons", []))
    row["bones"], row["source_bones"] = bones, want_bones
    if bones != want_bones:
        err.append("armature bones %d != source bones %d" % (bones, want_bones))
    for a in arms:
        sc = a.matrix_world.to_scale()
        if any(abs(c - 1) > 1e-4 for c in sc) or any(abs(c - 1) > 1e-4 for c in a.scale):
            err.append("armature '%s' scale %s (world %s), expected 1" % (a.name, tuple(a.scale), tuple(sc)))
    clips = [c for c in info.get("animations", []) if c.get("tracks", 0) > 0]
    actions = list(bpy.data.actions)
    row["actions"], row["clips"] = len(actions), len(clips)
    if len(actions) != len(clips):
        err.append("actions %d != clips %d" % (len(actions), len(clips)))
    ranges = []
    flips = 0
    want = sorted(max(c["duration"], 1.0 / (c["fps"] or 30)) * fps for c in clips)
    got = sorted(act.frame_range[1] - act.frame_range[0] for act in actions)
    for g, w in zip(got, want):
        ranges.append([round(g, 3), round(w, 3)])
        if abs(g - w) > max(0.51, 0.002 * w):  # the importer rounds key frames to 1/100
            err.append("action frame range %.3f != clip duration %.3f frames at %d fps" % (g, w, fps))
    for act in actions:
        flips += sign_flips(act)
    row["frame_ranges"] = ranges
    if flips:
        err.append("%d quaternion sign flips between consecutive keys" % flips)
    # Height in the first frame of the first clip (FF7's rest pose is every bone along one
    # axis, not a standing figure), else in the bind pose.
    first = None
    for a in arms:
        if a.animation_data and a.animation_data.action:
            first = a.animation_data.action
    bpy.context.scene.frame_set(int(first.frame_range[0]) if first else 0)
    bpy.context.view_layer.update()
    h = height_of(objs)
    row["height_m"] = round(h, 4)
    fam = family_of(info.get("format", ""))
    lo, hi = CHARACTER if character else HEIGHT_RANGE.get(fam, (0.01, 100.0))
    row["height_range_m"] = [lo, hi]
    no_rig = any(w.get("code") == "W_PAIRING" and "no skeleton" in w.get("message", "")
                 for w in info.get("warnings", []))
    if not measure_height:
        row["height_check"] = "skipped: synthetic example file"
    elif no_rig:  # unparented symbol nodes: the file alone has no rest pose to measure
        row["height_check"] = "skipped: converted without its skeleton file"
    elif not (lo <= h <= hi):
        err.append("height %.3f m outside %s..%s m" % (h, lo, hi))
    return row


def main():
    a = args()
    fps = 30
    rows = []
    for rep in a["reports"]:
        with open(rep) as f:
            entries = json.load(f)["inputs"]
        for e in entries:
            out = e.get("output", "")
            if e.get("status") != "ok" or not out.endswith(".glb"):
                continue
            info = source_info(a["rigrip"], e["input"])
            if info is None:
                rows.append({"file": out, "errors": ["rigrip info failed on " + e["input"]]})
                continue
            character = os.path.basename(e["input"]) in a["characters"]
            row = check(out, info, fps, character, rep not in a["no_height"])
            rows.append(row)
            print("%-6s %s bones %s/%s actions %s/%s height %s m %s" % (
                "FAIL" if row["errors"] else "ok", out, row.get("bones"), row.get("source_bones"),
                row.get("actions"), row.get("clips"), row.get("height_m"), "; ".join(row["errors"])), flush=True)
    failed = sum(1 for r in rows if r["errors"])
    if a["json"]:
        with open(a["json"], "w") as f:
            json.dump({"scene_fps": fps, "blender": bpy.app.version_string, "files": rows,
                       "passed": len(rows) - failed, "failed": failed}, f, indent=1)
    print("blender check: %d passed, %d failed" % (len(rows) - failed, failed), flush=True)
    sys.exit(1 if failed or not rows else 0)


main()
