# BFRES CLI tests (names start with bfres_ so that ctest -R bfres selects them).
set(BF ${SAMPLES}/bfres)
rigrip_cli_test(bfres_info_bass_anim ARGS info ${BF}/Animal_Bass_Animation.bfres
  EXPECT "skeleton 'Bass': 6 bones.*animation 'Wait_Ground'.*W_MISSING_BONE: bone 'Arm_1_L' is animated in 7 of 7")
rigrip_cli_test(bfres_info_dog ARGS info ${BF}/Animal_Dog_Animation.bfres
  EXPECT "skeleton 'Skeleton': 32 bones.*W_FALLBACK: using the FSKL 'Skeleton' that the animation file itself carries")
rigrip_cli_test(bfres_info_dog_json ARGS info --json ${BF}/Animal_Dog_Animation.bfres EXPECT "\"bones\": 32")
rigrip_cli_test(bfres_info_sbfres ARGS info ${BF}/Animal_Bass.sbfres EXPECT "skeleton 'Bass': 6 bones.*skeleton 'Bass_Boneless': 1 bones")
rigrip_cli_test(bfres_skeleton_option ARGS info ${BF}/Animal_Bass_Animation.bfres --skeleton ${BF}/Animal_Bass.sbfres
  EXPECT "skeleton_file\":\"Animal_Bass.sbfres")
foreach(s Animal_Bass.bfres Animal_Bass.sbfres Animal_Bass_Animation.bfres Animal_Dog_Animation.bfres)
  rigrip_cli_test(bfres_convert_${s} ARGS convert ${BF}/${s} -o ${OUT}/bfres/${s}.glb VALIDATE ${OUT}/bfres/${s}.glb)
  rigrip_cli_test(bfres_rewrite_${s} ARGS rewrite ${BF}/${s} -o ${OUT}/bfres/rw_${s} EXPECT_FILE ${OUT}/bfres/rw_${s})
endforeach()
rigrip_cli_test(bfres_convert_fps ARGS info ${BF}/Animal_Bass_Animation.bfres --fps 60 EXPECT "animation 'Dead': 0.500 s, fps 60")
rigrip_cli_test(bfres_dump_scene ARGS dump ${BF}/Animal_Bass_Animation.bfres
  EXPECT "\"interpolation\": \"CUBICSPLINE\".*\"fps\": 30")
rigrip_cli_test(bfres_dump_raw ARGS dump --raw ${BF}/Animal_Bass_Animation.bfres
  EXPECT "\"bone_animations\".*\"curves\".*\"format\": \"bfres\"")
rigrip_cli_test(bfres_damaged ARGS info ${CMAKE_SOURCE_DIR}/tests/bfres/data/damaged_dict_count.bfres EXIT 1
  EXPECT "damaged_dict_count.bfres @ 0x70: E_BAD_COUNT \\[bfres\\]: dictionary entry count 4294967295")
rigrip_cli_test(bfres_switch_refused ARGS info ${CMAKE_SOURCE_DIR}/tests/bfres/data/switch_header.bfres EXIT 1
  EXPECT "E_UNSUPPORTED_VERSION \\[bfres\\]: Switch FRES byte-order mark")
# glTF -> pack into the original -> read back (depends on the convert test's glb).
rigrip_cli_test(bfres_pack ARGS pack ${OUT}/bfres/Animal_Bass_Animation.bfres.glb --format bfres
  --template ${BF}/Animal_Bass_Animation.bfres -o ${OUT}/bfres/New_Bass_Animation.bfres
  EXPECT_FILE ${OUT}/bfres/New_Bass_Animation.bfres)
set_tests_properties(cli.bfres_pack PROPERTIES DEPENDS cli.bfres_convert_Animal_Bass_Animation.bfres)
rigrip_cli_test(bfres_pack_readback ARGS info ${OUT}/bfres/New_Bass_Animation.bfres
  EXPECT "skeleton 'Skeleton': 6 bones.*animation 'Dead': 1.000 s.*animation 'Wait_Ground'")
set_tests_properties(cli.bfres_pack_readback PROPERTIES DEPENDS cli.bfres_pack)
rigrip_cli_test(bfres_pack_no_template ARGS pack ${OUT}/bfres/Animal_Bass_Animation.bfres.glb --format bfres
  -o ${OUT}/bfres/never.bfres EXIT 1 EXPECT "needs --template" ABSENT ${OUT}/bfres/never.bfres)
set_tests_properties(cli.bfres_pack_no_template PROPERTIES DEPENDS cli.bfres_convert_Animal_Bass_Animation.bfres)
# Segment scale compensation under a non-uniformly scaled parent: helper node in the glb,
# flag in the scene JSON, and the packed file keeps the SSC bit (dump --raw).
set(BX ${CMAKE_SOURCE_DIR}/examples/bfres)
foreach(s ssc_nonuniform_parent softimage_scale_mode)
  # The exact helper-node form (the pack round trip below keeps the SSC flag through it).
  rigrip_cli_test(bfres_convert_${s} ARGS convert ${BX}/${s}.bfres -o ${OUT}/bfres/${s}.glb --ssc helpers VALIDATE ${OUT}/bfres/${s}.glb)
  # The default: baked into plain locals.
  rigrip_cli_test(bfres_convert_${s}_baked ARGS convert ${BX}/${s}.bfres -o ${OUT}/bfres/${s}_baked.glb VALIDATE ${OUT}/bfres/${s}_baked.glb)
endforeach()
rigrip_cli_test(bfres_dump_ssc ARGS dump ${BX}/ssc_nonuniform_parent.bfres
  EXPECT "\"name\": \"Child\",[^}]*\"segment_scale_compensate\": true")
rigrip_cli_test(bfres_pack_ssc ARGS pack ${OUT}/bfres/ssc_nonuniform_parent.glb --format bfres
  --template ${BX}/ssc_nonuniform_parent.bfres -o ${OUT}/bfres/ssc_packed.bfres EXPECT_FILE ${OUT}/bfres/ssc_packed.bfres)
set_tests_properties(cli.bfres_pack_ssc PROPERTIES DEPENDS cli.bfres_convert_ssc_nonuniform_parent)
rigrip_cli_test(bfres_pack_ssc_readback ARGS dump --raw ${OUT}/bfres/ssc_packed.bfres
  EXPECT "\"name\": \"Child\",[\n ]*\"segment_scale_compensate\": true")
set_tests_properties(cli.bfres_pack_ssc_readback PROPERTIES DEPENDS cli.bfres_pack_ssc)
# Issue 15: info reports the worst world error of the default SSC bake per clip.
rigrip_cli_test(bfres_info_ssc_bake_error ARGS info ${BX}/ssc_nonuniform_parent.bfres
  EXPECT "segment scale compensation baked \\(default glTF\\): worst world error [0-9.e-]+ units, [0-9.e-]+ degrees")
# Issue 15: a --skeleton that binds less than half of the animated bones is an error naming the
# count (the Bass's rig has 5 of the Dog's 32 animated bones); --force converts anyway.
rigrip_cli_test(bfres_wrong_skeleton ARGS convert ${BF}/Animal_Dog_Animation.bfres
  --skeleton ${BF}/Animal_Bass.bfres -o ${OUT}/bfres/wrong_rig.glb EXIT 1
  EXPECT "binds only 5 of 32 animated bones \\(27 are not in it\\).*--force" ABSENT ${OUT}/bfres/wrong_rig.glb)
rigrip_cli_test(bfres_wrong_skeleton_force ARGS convert ${BF}/Animal_Dog_Animation.bfres
  --skeleton ${BF}/Animal_Bass.bfres --force -o ${OUT}/bfres/wrong_rig_forced.glb
  EXPECT "W_MISSING_BONE" VALIDATE ${OUT}/bfres/wrong_rig_forced.glb)
# The default bake under a non-uniformly scaled parent names each clip's worst world error
# (console and the --report's warnings); info --json has the source frame rate per clip.
rigrip_cli_test(bfres_convert_ssc_bake_error ARGS convert ${BX}/ssc_nonuniform_parent.bfres
  -o ${OUT}/bfres/ssc_bake_err.glb --report ${OUT}/bfres/ssc_bake_err.json
  EXPECT "W_LOSSY: animation 'Grow': segment scale compensation baked with up to [0-9.e-]+ units and [0-9.e-]+ degrees"
  EXPECT_FILE ${OUT}/bfres/ssc_bake_err.json)
rigrip_cli_test(bfres_info_json_fps ARGS info --json ${BF}/Animal_Bass_Animation.bfres --fps 60
  EXPECT "\"fps\": 60.0")
# Models (FMDL/FMAT + FTEX from the sibling .Tex1.sbfres): meshes, materials, textures.
rigrip_cli_test(bfres_info_model ARGS info ${BF}/Animal_Bass.bfres EXPECT "meshes: 4 \\(752 vertices\\), textures: 4, materials: 4")
rigrip_cli_test(bfres_convert_lod1 ARGS convert ${BF}/Animal_Bass.bfres --lod 1 -o ${OUT}/bfres/bass_lod1.glb
  VALIDATE ${OUT}/bfres/bass_lod1.glb)
rigrip_cli_test(bfres_dump_model ARGS dump ${BF}/Animal_Bass.bfres
  EXPECT "\"name\": \"Model__Mt_Body\".*\"textures\"")
rigrip_cli_test(bfres_texture_file_missing ARGS info ${BF}/Animal_Bass.bfres --texture-file ${BF}/no_such.Tex1.sbfres EXIT 1
  EXPECT "no_such.Tex1.sbfres")
# The texture file alone: its FTEX headers in dump --raw, rewrite byte-identical.
rigrip_cli_test(bfres_rewrite_tex1 ARGS rewrite ${BF}/Animal_Bass.Tex1.sbfres -o ${OUT}/bfres/rw_Animal_Bass.Tex1.sbfres
  EXPECT_FILE ${OUT}/bfres/rw_Animal_Bass.Tex1.sbfres)
# The animation file brings its model (meshes, textures) by the naming rule: one command.
rigrip_cli_test(bfres_info_anim_with_model ARGS info ${BF}/Animal_Bass_Animation.bfres
  EXPECT "meshes: 2 \\(376 vertices\\), textures: 4, materials: 2")

# SARC packs through the CLI (issue 18): the real Yaz0-compressed Switch event pack lists its
# inner files and rewrites byte-identically (the compressed stream kept when nothing changed).
set(BFRES_EVENTPACK ${SAMPLES}/bfres/switch/Demo344_1.sbeventpack)
rigrip_cli_test(bfres_sarc_list_eventpack ARGS list ${BFRES_EVENTPACK}
  EXPECT "sarc in yaz0 archive, [0-9]+ entries.*Model/Demo344_1.sbfres")
rigrip_cli_test(bfres_sarc_rewrite_eventpack ARGS rewrite ${BFRES_EVENTPACK} -o ${OUT}/bfres/Demo344_1.sbeventpack
  EXPECT "identical: .*sarc in yaz0 archive")
# Switch FRES 0.5 (issue 20): the event pack's model file opens, converts to a valid glb,
# and dumps its raw layer as a Switch file.
rigrip_cli_test(bfres_switch_info ARGS info ${BFRES_EVENTPACK}/Model/Demo344_1.sbfres
  EXPECT "animation 'Demo344_1-C05-DgnObj_Faucet_A-A-1'.*\"platform\":\"switch\"")
rigrip_cli_test(bfres_switch_convert ARGS convert ${BFRES_EVENTPACK}/Model/Demo344_1.sbfres
  -o ${OUT}/bfres/Demo344_1.glb VALIDATE ${OUT}/bfres/Demo344_1.glb)
rigrip_cli_test(bfres_switch_dump_raw ARGS dump --raw ${BFRES_EVENTPACK}/Model/Demo344_1.sbfres
  EXPECT "\"platform\": \"switch\".*\"version\": \"0.5.0.3\"")
# A texture file on its own (issue 19's preview of every sample): its 8 FTEX decode into the
# scene, and preview draws them as a sheet; convert has nothing to put in a glb (with --textures: PNGs only).
rigrip_cli_test(bfres_info_tex1 ARGS info ${BF}/Animal_Bass.Tex1.sbfres EXPECT "textures: 8")
rigrip_cli_test(bfres_preview_tex1 ARGS preview ${BF}/Animal_Bass.Tex1.sbfres -o ${OUT}/bfres/Animal_Bass.Tex1.png
  EXPECT "preview: wrote .*Animal_Bass.Tex1.png \\(255x255, 8 frames")
# BotW cameras (issue 20): each .bcamanim of the event pack holds one .brtcamera that becomes an
# animated glTF camera (validator: 0 errors; the unit tests also require 0 warnings).
foreach(c C51-0 C52-0 C53-0)
  rigrip_cli_test(bfres_switch_camera_${c} ARGS convert ${BFRES_EVENTPACK}/Camera/Demo344_1/${c}.bcamanim
    -o ${OUT}/bfres/camera_${c}.glb VALIDATE ${OUT}/bfres/camera_${c}.glb)
endforeach()
rigrip_cli_test(bfres_switch_camera_info ARGS info ${BFRES_EVENTPACK}/Camera/Demo344_1/C51-0.bcamanim
  EXPECT "camera 'C51-0': perspective.*camera animation 'C51-0': 7.000 s")
rigrip_cli_test(bfres_switch_camera_dump_raw ARGS dump --raw ${BFRES_EVENTPACK}/Camera/Demo344_1/C52-0.bcamanim
  EXPECT "\"external_files\".*\"end_frame\": 380.0.*\"name\": \"C52-0.brtcamera\"")
rigrip_cli_test(bfres_switch_camera_dump ARGS dump ${BFRES_EVENTPACK}/Camera/Demo344_1/C53-0.bcamanim
  EXPECT "\"camera_animations\".*\"lens\".*\"cameras\".*\"projection\": \"perspective\"")
# BNTX (Switch textures, issue 20): files made by tests/bfres/bntx_builder.hpp (test
# Bntx.CommittedFilesMatchTheBuilder keeps them in step): RGBA8 with a mip and BC1 in a .bntx;
# BC1 sRGB and BC5 in a Switch texture FRES's embedded textures.bntx.
set(BNTX_TINY ${CMAKE_SOURCE_DIR}/examples/bfres/tiny_textures.bntx)
rigrip_cli_test(bfres_bntx_info ARGS info ${BNTX_TINY} EXPECT "format: bntx.*textures: 2")
rigrip_cli_test(bfres_bntx_convert_textures ARGS convert ${BNTX_TINY} --textures -o ${OUT}/bfres/bntx/tiny.glb
  EXPECT "PNG file\\(s\\) \\(textures only, no glTF\\).*converted 1, failed 0" EXPECT_FILE ${OUT}/bfres/bntx/tiny_tex0_Tiny_Alb_mip1.png
  ABSENT ${OUT}/bfres/bntx/tiny.glb)
rigrip_cli_test(bfres_bntx_no_textures_flag ARGS convert ${BNTX_TINY} -o ${OUT}/bfres/bntx/never.glb EXIT 1
  EXPECT "nothing to convert" ABSENT ${OUT}/bfres/bntx/never.glb)
rigrip_cli_test(bfres_bntx_rewrite ARGS rewrite ${BNTX_TINY} -o ${OUT}/bfres/bntx/rw_tiny.bntx EXPECT "identical")
rigrip_cli_test(bfres_bntx_dump_raw ARGS dump --raw ${BNTX_TINY}
  EXPECT "\"format\": \"BC1_UNORM\".*\"name\": \"Tiny_Nrm\"")
rigrip_cli_test(bfres_bntx_preview ARGS preview ${BNTX_TINY} -o ${OUT}/bfres/bntx/tiny.png
  EXPECT "preview: wrote .*tiny.png \\(256x256, 2 frames")
rigrip_cli_test(bfres_bntx_damaged ARGS info ${CMAKE_SOURCE_DIR}/tests/bfres/data/damaged_size.bntx EXIT 1
  EXPECT "damaged_size.bntx @ 0x1C: E_BAD_VALUE \\[bntx\\]: BNTX header file size 4184 differs from the data's 4176 bytes")
rigrip_cli_test(bfres_bntx_switch_fres ARGS convert ${CMAKE_SOURCE_DIR}/examples/bfres/switch_textures.bfres --textures
  -o ${OUT}/bfres/bntx/switch_textures.glb EXPECT "converted 1, failed 0"
  EXPECT_FILE ${OUT}/bfres/bntx/switch_textures_tex1_Tiny_Nrm.png)
rigrip_cli_test(bfres_bntx_switch_fres_dump_raw ARGS dump --raw ${CMAKE_SOURCE_DIR}/examples/bfres/switch_textures.bfres
  EXPECT "\"external_files\".*\"bntx\".*\"format\": \"BC5_UNORM\"")
# Switch models (issue 20): the hand-built Switch FRES 0.5 model (examples/bfres/switch_model.bfres,
# written by tests/bfres/switch_model_builder.hpp) converts to a valid glb with its three meshes
# and skeleton, and rewrites byte for byte.
rigrip_cli_test(bfres_switch_model_convert ARGS convert ${BX}/switch_model.bfres -o ${OUT}/bfres/switch_model_cli.glb
  VALIDATE ${OUT}/bfres/switch_model_cli.glb)
rigrip_cli_test(bfres_switch_model_info ARGS info ${BX}/switch_model.bfres
  EXPECT "skeleton 'Sample': 3 bones.*meshes: 3 \\(10 vertices\\).*W_MISSING_TEXTURE: texture 'Body_Alb'")
rigrip_cli_test(bfres_switch_model_rewrite ARGS rewrite ${BX}/switch_model.bfres -o ${OUT}/bfres/rw_switch_model.bfres
  EXPECT "identical")
# Writing Switch files (issue 20): the event pack's model converted, packed back into the pack
# (the Yaz0 inner file re-compressed, the SARC and its Yaz0 rebuilt) and converted again.
rigrip_cli_test(bfres_switch_pack_eventpack ARGS pack ${OUT}/bfres/Demo344_1.glb --format bfres
  --into ${BFRES_EVENTPACK} --entry Model/Demo344_1.sbfres -o ${OUT}/bfres/Demo344_1_packed.sbeventpack
  EXPECT "packed: .*entry 'Model/Demo344_1.sbfres' replaced, bfres; sarc in yaz0 archive")
set_tests_properties(cli.bfres_switch_pack_eventpack PROPERTIES DEPENDS cli.bfres_switch_convert)
rigrip_cli_test(bfres_switch_pack_eventpack_convert ARGS convert
  ${OUT}/bfres/Demo344_1_packed.sbeventpack/Model/Demo344_1.sbfres -o ${OUT}/bfres/Demo344_1_repacked.glb
  VALIDATE ${OUT}/bfres/Demo344_1_repacked.glb)
set_tests_properties(cli.bfres_switch_pack_eventpack_convert PROPERTIES DEPENDS cli.bfres_switch_pack_eventpack)
# A Wii U file as the scene, a Switch file (the Switch test writer's example) as the template:
# Wii U -> Switch by our own writers; the result lists both its cameras and the Bass clips.
rigrip_cli_test(bfres_switch_pack_from_wiiu ARGS pack ${BF}/Animal_Bass_Animation.bfres --format bfres
  --template ${BX}/scene_cameras_switch.bfres -o ${OUT}/bfres/Bass_in_switch.bfres
  EXPECT "packed: .*Bass_in_switch.bfres \\([0-9]+ bytes, bfres\\)")
rigrip_cli_test(bfres_switch_pack_from_wiiu_info ARGS info ${OUT}/bfres/Bass_in_switch.bfres
  EXPECT "animation 'Dead': 1.000 s.*animation 'Wait_Ground': 1.400 s.*camera animation 'Cut01'.*\"platform\":\"switch\"")
set_tests_properties(cli.bfres_switch_pack_from_wiiu_info PROPERTIES DEPENDS cli.bfres_switch_pack_from_wiiu)
rigrip_cli_test(bfres_switch_pack_from_wiiu_convert ARGS convert ${OUT}/bfres/Bass_in_switch.bfres
  -o ${OUT}/bfres/Bass_in_switch.glb VALIDATE ${OUT}/bfres/Bass_in_switch.glb)
set_tests_properties(cli.bfres_switch_pack_from_wiiu_convert PROPERTIES DEPENDS cli.bfres_switch_pack_from_wiiu)
