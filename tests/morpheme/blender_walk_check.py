# Blender check of a converted morpheme 5 bundle: the glb imports, the armature has the rig's
# bones, and the Walk clip looks like a person walking (head above hips at standing height,
# feet near the ground, the body carried forward by root motion).
#   blender -b --factory-startup --python-exit-code 1 -P blender_walk_check.py -- FILE.glb BONES
import sys

import numpy

numpy.bool = numpy.bool_  # Debian's Blender 3.4.1 glTF importer still calls numpy.bool
import bpy

args = sys.argv[sys.argv.index("--") + 1:]
path, bones = args[0], int(args[1])
bpy.ops.wm.read_factory_settings(use_empty=True)
assert bpy.ops.import_scene.gltf(filepath=path) == {"FINISHED"}, "import failed"
arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
assert len(arms) == 1, f"{len(arms)} armatures"
arm = arms[0]
assert len(arm.data.bones) == bones, f"{len(arm.data.bones)} bones, expected {bones}"
walk = [a for a in bpy.data.actions if "Walk" in a.name]
assert walk, "no Walk action: " + ", ".join(a.name for a in bpy.data.actions)
arm.animation_data.action = walk[0]
scene = bpy.context.scene
start, end = (int(v) for v in walk[0].frame_range)
first = None
for frame in range(start, end + 1, 2):
    scene.frame_set(frame)
    world = lambda b: arm.matrix_world @ arm.pose.bones[b].head
    head, hips = world("Head"), world("Hips")
    feet = min(world("LeftAnkle").z, world("RightAnkle").z)
    assert head.z > hips.z + 0.4, f"frame {frame}: head {head.z:.2f} not above hips {hips.z:.2f}"
    assert 0.7 < hips.z < 1.2, f"frame {frame}: hips at {hips.z:.2f} m"
    assert -0.05 < feet < 0.2, f"frame {frame}: lower foot at {feet:.2f} m"
    first = first or hips.copy()
travel = (hips - first).length
assert travel > 1.0, f"the body moved {travel:.2f} m over the walk"
print(f"blender: {path}: {len(arm.data.bones)} bones, {len(bpy.data.actions)} actions, "
      f"'{walk[0].name}' frames {start}..{end} walks {travel:.2f} m")
