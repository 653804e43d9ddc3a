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
import contextlib
import io
import json
import math
import os
import struct
import subprocess
import sys
import time

# Debian's Blender 3.4.1 glTF importer calls numpy.bool, an alias NumPy 1.24 removed:
# without this every file with a mesh fails to import (AttributeError in the importer).
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = numpy.bool_

import bpy  # noqa: E402  (only inside Blender)
import mathutils  # noqa: E402

# Height range (metres) of what a family's files hold at rigrip's default size; the
# same table is in docs/gltf-output.md. Props and fish included, so the ranges are wide
# where the family has more than characters; characters are checked in `character`.
HEIGHT_RANGE = {
    "bfres": (0.02, 10.0),  # Animal_Bass: a 4.5-6.5 cm fish
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
    out = {"rigrip": "build/rigrip", "reports": [], "json": None, "characters": [], "no_height": [],
           "budget": 0.0}
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
        elif a[i] == "--budget":  # seconds; files not reached in time are listed, not checked
            out["budget"] = float(a[i + 1])
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
    # Vertical extent in metres of the meshes as deformed in the pose shown and of the joints
    # (bone heads): a file may hold only some of the model's parts (FF7's waist alone). Bone
    # tails are not used: Blender invents them (bone length heuristics), the file has none.
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
    if True:
        for o in objs:
            if o.type != "ARMATURE":
                continue
            mw = o.matrix_world
            for pb in o.pose.bones:
                z = (mw @ pb.head).z
                lo, hi = min(lo, z), max(hi, z)
    return 0.0 if lo > hi else hi - lo


def is_flat_card(objs):
    # A rig-less mesh with no depth along one axis is a card (Telltale's ui_* screens,
    # billboards): it is sized for the screen, not the world, so it has no real-world height.
    if any(o.type == "ARMATURE" for o in objs):
        return False
    ext = [math.inf, -math.inf] * 3
    found = False
    for o in objs:
        if o.type != "MESH":
            continue
        for c in o.bound_box:
            w = o.matrix_world @ mathutils.Vector(c)
            for k in range(3):
                ext[2 * k], ext[2 * k + 1] = min(ext[2 * k], w[k]), max(ext[2 * k + 1], w[k])
            found = True
    return found and min(ext[2 * k + 1] - ext[2 * k] for k in range(3)) < 1e-6


def glb_sign_flips(path):
    # Rotation samplers of the .glb itself (Blender's importer negates antipodal neighbours on
    # import, so the actions alone would always pass): consecutive keys with dot < 0.
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"glTF":
        return 0, []
    jlen = struct.unpack_from("<I", data, 12)[0]
    g = json.loads(data[20:20 + jlen])
    off = 20 + jlen
    blen = struct.unpack_from("<I", data, off)[0] if off + 8 <= len(data) else 0
    binary = data[off + 8: off + 8 + blen]
    flips, where = 0, []
    for anim in g.get("animations", []):
        for ch in anim.get("channels", []):
            if ch.get("target", {}).get("path") != "rotation":
                continue
            smp = anim["samplers"][ch["sampler"]]
            acc = g["accessors"][smp["output"]]
            if acc.get("componentType") != 5126 or "bufferView" not in acc:
                continue  # normalized-integer rotations: not written by rigrip
            bv = g["bufferViews"][acc["bufferView"]]
            base = bv.get("byteOffset", 0) + acc.get("byteOffset", 0)
            stride = bv.get("byteStride", 16)
            q = [struct.unpack_from("<4f", binary, base + i * stride) for i in range(acc["count"])]
            if smp.get("interpolation") == "CUBICSPLINE":
                q = q[1::3]
            n = sum(1 for a, b in zip(q, q[1:]) if sum(x * y for x, y in zip(a, b)) < 0)
            if n:
                flips += n
                where.append("%s/node %d" % (anim.get("name", "?"), ch["target"].get("node", -1)))
    return flips, where


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
    log = io.StringIO()  # the importer prints its messages (gltf2_io_debug.print_console)
    try:
        with contextlib.redirect_stdout(log):
            res = bpy.ops.import_scene.gltf(filepath=glb)
        if "FINISHED" not in res:
            err.append("importer returned %s" % sorted(res))
    except Exception as e:  # the operator raises on an importer error report
        err.append("importer error: %s" % str(e).strip().splitlines()[-1][:300])
        return row
    printed = [l for l in log.getvalue().splitlines() if "ERROR" in l or "Traceback" in l]
    if printed:
        err.append("importer printed: %s" % printed[0][:300])
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
    # A camera clip becomes one action per camera it moves.
    for c in info.get("camera_animations", []):
        if c.get("tracks", 0) > 0:
            clips += [c] * max(1, len(c.get("cameras", [])))
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
    gflips, gwhere = glb_sign_flips(glb)
    row["frame_ranges"] = ranges
    row["sign_flips"] = gflips + flips
    if flips:
        err.append("%d quaternion sign flips between consecutive keys in Blender" % flips)
    if gflips:
        err.append("%d quaternion sign flips between consecutive keys in the file (%s)" %
                   (gflips, ", ".join(gwhere[:3])))
    # Cameras: one camera object each; an animated one moves between its action's first and
    # last frame.
    cams = [o for o in objs if o.type == "CAMERA"]
    want_cams = len(info.get("cameras", []))
    row["cameras"], row["source_cameras"] = len(cams), want_cams
    if len(cams) != want_cams:
        err.append("camera objects %d != source cameras %d" % (len(cams), want_cams))
    # Cameras whose position the source changes (info's "moving_cameras", by name).
    moving = set(n for c in info.get("camera_animations", []) for n in c.get("moving_cameras", []))
    moved = {}
    for o in cams:
        act = o.animation_data.action if o.animation_data else None
        if not act:
            continue
        f0, f1 = act.frame_range
        bpy.context.scene.frame_set(int(round(f0)))
        p0 = o.matrix_world.translation.copy()
        bpy.context.scene.frame_set(int(round(f1)))
        p1 = o.matrix_world.translation.copy()
        moved[o.name] = round((p1 - p0).length, 4)
    row["camera_moves_m"] = moved
    for n in sorted(moving):
        if moved.get(n, 0) <= 1e-4:
            err.append("camera '%s' moves in the source but not in Blender (%s)" % (n, moved.get(n)))
    # An aim camera (extras "target", the look-at point at its first key, source axes: glTF's
    # Y-up, Blender's Z-up) must look at it in its first frame: checks the -Z convention end to end.
    for o in cams:
        if "target" not in o.keys() or not o.animation_data or not o.animation_data.action:
            continue
        t = o["target"]
        bpy.context.scene.frame_set(int(round(o.animation_data.action.frame_range[0])))
        mw = o.matrix_world
        want = (mathutils.Vector((t[0], -t[2], t[1])) - mw.translation).normalized()
        fwd = (mw.to_quaternion() @ mathutils.Vector((0, 0, -1))).normalized()
        deg = math.degrees(fwd.angle(want))
        row.setdefault("camera_aim_error_deg", []).append(round(deg, 4))
        if deg > 0.5:
            err.append("camera '%s' looks %.2f degrees away from its target" % (o.name, deg))
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
    # Converted without its skeleton file (Telltale: "no skeleton"; BFRES: "no FSKL ... no
    # --skeleton", bones made from the animations' names as roots at the origin).
    no_rig = any(w.get("code") == "W_PAIRING" and
                 any(k in w.get("message", "") for k in ("no skeleton", "no --skeleton", "no FSKL"))
                 for w in info.get("warnings", []))
    if not measure_height:
        row["height_check"] = "skipped: synthetic example file"
    elif cams and not any(o.type in ("MESH", "ARMATURE") for o in objs):
        row["height_check"] = "skipped: cameras only"
    elif no_rig:  # unparented symbol nodes: the file alone has no rest pose to measure
        row["height_check"] = "skipped: converted without its skeleton file"
    elif is_flat_card(objs):
        row["height_check"] = "skipped: a flat card without a rig (UI / billboard), screen-sized"
    elif not (lo <= h <= hi):
        err.append("height %.3f m outside %s..%s m" % (h, lo, hi))
    return row


def main():
    a = args()
    fps = 30
    rows = []
    unchecked = []
    start = time.monotonic()
    for rep in a["reports"]:
        with open(rep) as f:
            entries = json.load(f)["inputs"]
        for e in entries:
            out = e.get("output", "")
            if e.get("status") != "ok" or not out.endswith(".glb"):
                continue
            if a["budget"] and time.monotonic() - start > a["budget"]:
                unchecked.append(out)
                continue
            info = source_info(a["rigrip"], e["input"])
            if info is None:
                rows.append({"file": out, "errors": ["rigrip info failed on " + e["input"]]})
                continue
            character = os.path.basename(e["input"]) in a["characters"]
            row = check(out, info, fps, character, rep not in a["no_height"])
            rows.append(row)
            print("%-6s %s bones %s/%s actions %s/%s cameras %s/%s height %s m %s" % (
                "FAIL" if row["errors"] else "ok", out, row.get("bones"), row.get("source_bones"),
                row.get("actions"), row.get("clips"), row.get("cameras"), row.get("source_cameras"),
                row.get("height_m"), "; ".join(row["errors"])), flush=True)
    failed = sum(1 for r in rows if r["errors"])
    seconds = round(time.monotonic() - start, 1)
    if a["json"]:
        with open(a["json"], "w") as f:
            json.dump({"scene_fps": fps, "blender": bpy.app.version_string, "files": rows,
                       "passed": len(rows) - failed, "failed": failed, "seconds": seconds,
                       "not_checked_budget": unchecked}, f, indent=1)
    for u in unchecked:
        print("NOT CHECKED (budget of %g s spent) %s" % (a["budget"], u), flush=True)
    print("blender check: %d passed, %d failed, %d not checked (budget), %.1f s" % (
        len(rows) - failed, failed, len(unchecked), seconds), flush=True)
    sys.exit(1 if failed or not rows else 0)


main()
