# CLI tests of the telltale family (names start with telltale_ so `ctest -R telltale` runs them).
set(TT ${SAMPLES}/telltale)
set(TTX ${EXAMPLES}/telltale)
file(MAKE_DIRECTORY ${OUT}/telltale)
file(WRITE ${OUT}/telltale/old_mtre.anm "ERTM-not-a-modern-stream")

rigrip_cli_test(telltale_formats ARGS formats EXPECT "telltale-anm.*telltale-skl")
# The README's main job: the example pair converts, the skeleton found by the naming rule.
rigrip_cli_test(telltale_example_convert ARGS convert ${TTX}/sk99_demo_wave.anm -o ${OUT}/telltale/sk99_demo_wave.glb
  EXPECT "converted 1, failed 0" VALIDATE ${OUT}/telltale/sk99_demo_wave.glb)
rigrip_cli_test(telltale_example_info ARGS info ${TTX}/sk99_demo_wave.anm
  EXPECT "skeleton 'sk99_demo': 11 bones.*animation 'sk99_demo_wave'.*\"animation_name\":\"sk99_demo_wave\".*\"name_symbol_matches_file_name\":true")
rigrip_cli_test(telltale_skl_info ARGS info ${TTX}/sk99_demo.skl EXPECT "format: telltale-skl.*11 bones")
rigrip_cli_test(telltale_skl_rewrite ARGS rewrite ${TTX}/sk99_demo.skl -o ${OUT}/telltale/rw.skl EXPECT "identical")
rigrip_cli_test(telltale_pack ARGS pack ${TTX}/sk99_demo_source.json --format telltale-anm --skeleton ${TTX}/sk99_demo.skl
  -o ${OUT}/telltale/sk99_demo_walk.anm EXPECT "packed: .*telltale-anm")
rigrip_cli_test(telltale_pack_roundtrip ARGS convert ${OUT}/telltale/sk99_demo_walk.anm --skeleton ${TTX}/sk99_demo.skl
  -o ${OUT}/telltale/sk99_demo_walk.glb VALIDATE ${OUT}/telltale/sk99_demo_walk.glb)
set_tests_properties(cli.telltale_pack_roundtrip PROPERTIES DEPENDS cli.telltale_pack)
rigrip_cli_test(telltale_pack_glb ARGS pack ${OUT}/telltale/sk99_demo_wave.glb --format telltale-anm --skeleton ${TTX}/sk99_demo.skl
  -o ${OUT}/telltale/walk.anm EXPECT "packed: .*walk.anm")
set_tests_properties(cli.telltale_pack_glb PROPERTIES DEPENDS cli.telltale_example_convert)
rigrip_cli_test(telltale_pack_needs_skeleton ARGS pack ${TTX}/sk99_demo_source.json --format telltale-anm
  -o ${OUT}/telltale/noskel.anm EXIT 1 EXPECT "E_MISSING_SKELETON" ABSENT ${OUT}/telltale/noskel.anm)
rigrip_cli_test(telltale_old_stream ARGS info ${OUT}/telltale/old_mtre.anm EXIT 1
  EXPECT "E_UNSUPPORTED_VERSION \\[telltale-anm\\]: MetaStream MTRE")

# Real samples.
rigrip_cli_test(telltale_dump_raw ARGS dump --raw --compact ${TT}/sk54_idle_crawfordDocDead.anm
  EXPECT "\"bones\":\\[\"632fd7a5765ba466\".*\"format\":\"telltale-anm\".*\"keys\":\\[\\{\"bone\":0,\"kind\":\"(rotation|translation)\",\"time\":0.0,\"value\":\\[.*\"length\":1.0")
rigrip_cli_test(telltale_rewrite_sample ARGS rewrite ${TT}/sk62_action_clementine400KillZombieWithKnifeTwoHit05.anm
  -o ${OUT}/telltale/rw.anm EXPECT "identical")
rigrip_cli_test(telltale_no_skeleton ARGS convert ${TT}/sk62_clementine400StandA_talkWithHandsGestureB.anm
  -o ${OUT}/telltale/gestureB.glb EXPECT "W_PAIRING.*unscaled" VALIDATE ${OUT}/telltale/gestureB.glb)
rigrip_cli_test(telltale_in_place ARGS convert ${TT}/sk62_clementine400StandA_talkWithHandsGestureB.anm --in-place
  -o ${OUT}/telltale/gestureB_inplace.glb VALIDATE ${OUT}/telltale/gestureB_inplace.glb)
rigrip_cli_test(telltale_broken_time_range
  ARGS convert ${TT}/sk61_zombie400_sk62_action_clementine400StruggleZombieSuccessKillWithKnife02.anm -o ${OUT}/telltale/knife02.glb
  EXPECT "W_SUSPICIOUS_VALUE: CSPK2 rangeTime 236678.* 'root' keyframed track" VALIDATE ${OUT}/telltale/knife02.glb)
rigrip_cli_test(telltale_lipsync ARGS info ${TT}/a371405036.anm EXPECT "KeyframedValue<PhonemeKey>.*W_NAME_MISMATCH")
rigrip_cli_test(telltale_batch_samples ARGS convert ${TT} -o ${OUT}/telltale/batch -j 2
  EXPECT "converted 20, failed 0")
rigrip_cli_test(telltale_mesh_forced ARGS info --input-format telltale-anm ${TT}/ui_boot_title.d3dmesh EXIT 1
  EXPECT "this is a D3DMesh: read it as telltale-d3dmesh")
# The issue's command line verbatim: --format with the family name picks .anm from the output name.
rigrip_cli_test(telltale_pack_family_name ARGS pack ${OUT}/telltale/sk99_demo_wave.glb --format telltale
  --skeleton ${TTX}/sk99_demo.skl -o ${OUT}/telltale/walk2.anm EXPECT "packed: .*walk2.anm.*telltale-anm")
set_tests_properties(cli.telltale_pack_family_name PROPERTIES DEPENDS cli.telltale_example_convert)
rigrip_cli_test(telltale_pack_skl_from_glb ARGS pack ${OUT}/telltale/sk99_demo_wave.glb --format telltale
  -o ${OUT}/telltale/sk99_rig.skl EXPECT "packed: .*telltale-skl")
set_tests_properties(cli.telltale_pack_skl_from_glb PROPERTIES DEPENDS cli.telltale_example_convert)

# A lip-sync-only .anm decodes, but holds nothing a glTF can carry: a clear message, no empty .glb.
rigrip_cli_test(telltale_lipsync_convert ARGS convert ${TT}/a371405036.anm -o ${OUT}/telltale/lipsync.glb EXIT 1
  EXPECT "E_UNSUPPORTED_FEATURE \\[telltale-anm\\]: nothing to convert: no skeleton, animation or mesh"
  ABSENT ${OUT}/telltale/lipsync.glb)
rigrip_cli_test(telltale_lipsync_json ARGS convert ${TT}/a371405036.anm -o ${OUT}/telltale/lipsync.json
  EXPECT_FILE ${OUT}/telltale/lipsync.json)
# Issue 15: a skeleton that binds less than half of the animated bones is an error, not a success.
rigrip_cli_test(telltale_wrong_skeleton ARGS convert ${TT}/sk62_clementine400StandA_talkWithHandsGestureB.anm
  --skeleton ${TTX}/sk99_demo.skl -o ${OUT}/telltale/wrong_rig.glb EXIT 1
  EXPECT "binds only [0-9]+ of [0-9]+ animated bones.*--force" ABSENT ${OUT}/telltale/wrong_rig.glb)
rigrip_cli_test(telltale_wrong_skeleton_force ARGS convert ${TT}/sk62_clementine400StandA_talkWithHandsGestureB.anm
  --skeleton ${TTX}/sk99_demo.skl --force -o ${OUT}/telltale/wrong_rig_forced.glb
  EXPECT "are not in skeleton" VALIDATE ${OUT}/telltale/wrong_rig_forced.glb)

# Meshes and textures (.d3dmesh, .d3dtx).
rigrip_cli_test(telltale_mesh_formats ARGS formats EXPECT "telltale-d3dmesh.*telltale-d3dtx")
rigrip_cli_test(telltale_mesh_convert ARGS convert ${TT}/sk62_clementine_hoodDown.d3dmesh -o ${OUT}/telltale/clem.glb
  EXPECT "converted 1, failed 0" VALIDATE ${OUT}/telltale/clem.glb)
rigrip_cli_test(telltale_mesh_info ARGS info ${TT}/sk62_clementine_hoodDown.d3dmesh
  EXPECT "format: telltale-d3dmesh.*20 bones.*meshes: 3 \\(2849 vertices\\).*\"version\":37")
rigrip_cli_test(telltale_mesh_textured ARGS convert ${TT}/obj_flashlightMaglite.d3dmesh -o ${OUT}/telltale/flashlight.glb
  EXPECT "W_FALLBACK: 1 diffuse textures are not next to the mesh.*82657719d825c2f0" VALIDATE ${OUT}/telltale/flashlight.glb)
rigrip_cli_test(telltale_mesh_inner_name ARGS info ${TT}/ui_boot_title.d3dmesh EXPECT "textures: 1, materials: 1")
rigrip_cli_test(telltale_mesh_rewrite ARGS rewrite ${TT}/sk62_clementine_hoodDown.d3dmesh -o ${OUT}/telltale/rw.d3dmesh
  EXPECT "identical")
rigrip_cli_test(telltale_mesh_dump_raw ARGS dump --raw --compact ${TT}/obj_flashlightMaglite.d3dmesh
  EXPECT "\"format\":\"telltale-d3dmesh\".*\"position_w_scale\":\\[0.0,0.0,0.225")
rigrip_cli_test(telltale_tex_convert ARGS convert ${TT}/d3dtx/fx_fallingLeaf.d3dtx --textures -o ${OUT}/telltale/leaf.glb
  VALIDATE ${OUT}/telltale/leaf.glb EXPECT_FILE ${OUT}/telltale/leaf_tex0_fx_fallingLeaf.png)
rigrip_cli_test(telltale_tex_rewrite ARGS rewrite ${TT}/d3dtx/obj_flashlightMagLiteLens.d3dtx -o ${OUT}/telltale/rw.d3dtx
  EXPECT "identical")
rigrip_cli_test(telltale_tex_dump_raw ARGS dump --raw --compact ${TT}/d3dtx/color_7F7F7F.d3dtx
  EXPECT "\"surface_format_name\":\"DXT1 \\(BC1\\)\".*\"width\":4")
# The whole character: a .skl our writer makes from the bind-pose glb, then mesh + skeleton + animations.
rigrip_cli_test(telltale_character_skl ARGS pack ${OUT}/telltale/clem.glb --format telltale-skl -o ${OUT}/telltale/sk62_clementine400.skl
  EXPECT "packed: .*telltale-skl")
set_tests_properties(cli.telltale_character_skl PROPERTIES DEPENDS cli.telltale_mesh_convert)
rigrip_cli_test(telltale_character ARGS convert ${TT}/sk62_clementine_hoodDown.d3dmesh --skeleton ${OUT}/telltale/sk62_clementine400.skl
  --anim "${TT}/sk62_clementine400StandA_talkWithHandsGestureB*.anm" -o ${OUT}/telltale/clem_character.glb
  EXPECT "converted 1, failed 0" VALIDATE ${OUT}/telltale/clem_character.glb)
set_tests_properties(cli.telltale_character PROPERTIES DEPENDS cli.telltale_character_skl)
rigrip_cli_test(telltale_character_info ARGS info ${TT}/sk62_clementine_hoodDown.d3dmesh --skeleton ${OUT}/telltale/sk62_clementine400.skl
  --anim "${TT}/sk62_clementine400StandA_talkWithHandsGestureB*.anm" EXPECT "animation 'sk62_clementine400StandA_talkWithHandsGestureB'.*animation 'sk62_clementine400StandA_talkWithHandsGestureB_add'")
set_tests_properties(cli.telltale_character_info PROPERTIES DEPENDS cli.telltale_character_skl)
# Written back: the bind-pose glb into the original as template, and read again.
rigrip_cli_test(telltale_mesh_pack ARGS pack ${OUT}/telltale/clem.glb --format telltale-d3dmesh
  --template ${TT}/sk62_clementine_hoodDown.d3dmesh -o ${OUT}/telltale/clem_packed.d3dmesh EXPECT "packed: .*telltale-d3dmesh")
set_tests_properties(cli.telltale_mesh_pack PROPERTIES DEPENDS cli.telltale_mesh_convert)
rigrip_cli_test(telltale_mesh_pack_read ARGS convert ${OUT}/telltale/clem_packed.d3dmesh -o ${OUT}/telltale/clem_packed.glb
  EXPECT "converted 1, failed 0" VALIDATE ${OUT}/telltale/clem_packed.glb)
set_tests_properties(cli.telltale_mesh_pack_read PROPERTIES DEPENDS cli.telltale_mesh_pack)
rigrip_cli_test(telltale_mesh_pack_needs_template ARGS pack ${OUT}/telltale/clem.glb --format telltale-d3dmesh
  -o ${OUT}/telltale/notemplate.d3dmesh EXIT 1 EXPECT "needs --template" ABSENT ${OUT}/telltale/notemplate.d3dmesh)
set_tests_properties(cli.telltale_mesh_pack_needs_template PROPERTIES DEPENDS cli.telltale_mesh_convert)
# --lod N: a coarser LOD of the mesh becomes the geometry (Clementine: 4 LODs, 2849 / 853 / ... vertices).
rigrip_cli_test(telltale_mesh_lod1 ARGS info ${TT}/sk62_clementine_hoodDown.d3dmesh --lod 1
  EXPECT "meshes: 3 \\(853 vertices\\).*\"lod\":1.*LOD 1 is converted")
rigrip_cli_test(telltale_mesh_lod_beyond ARGS info ${TT}/sk62_clementine_hoodDown.d3dmesh --lod 9
  EXPECT "W_FALLBACK: --lod 9 is beyond the mesh's 4 LODs; LOD 3 is used")
rigrip_cli_test(telltale_mesh_convert_lod2 ARGS convert ${TT}/sk62_clementine_hoodDown.d3dmesh --lod 2
  -o ${OUT}/telltale/clem_lod2.glb VALIDATE ${OUT}/telltale/clem_lod2.glb)
