# CLI tests of the sf3 family (Shining Force III battle meshes). Samples are read in place.
set(SF3 ${SAMPLES}/sf3)
set(SF3_OUT ${OUT}/sf3)
file(MAKE_DIRECTORY ${SF3_OUT}/alone)

rigrip_cli_test(sf3_formats ARGS formats EXPECT "sf3-x8pc.*sf3-x8an")
rigrip_cli_test(sf3_info ARGS info ${SF3}/X8PC00A.BIN EXPECT "format: sf3-x8pc.*skeleton 'X8PC00A': 26 bones")
rigrip_cli_test(sf3_convert_x8pc ARGS convert ${SF3}/X8PC00A.BIN -o ${SF3_OUT}/X8PC00A.glb --textures
  EXPECT_FILE ${SF3_OUT}/X8PC00A_tex0_X8PC00A_atlas.png VALIDATE ${SF3_OUT}/X8PC00A.glb)
rigrip_cli_test(sf3_convert_container ARGS convert ${SF3}/X8PC41X.BIN -o ${SF3_OUT}/X8PC41X.glb
  EXPECT "W_OPAQUE_DATA" VALIDATE ${SF3_OUT}/X8PC41X.glb)
rigrip_cli_test(sf3_convert_x8an ARGS convert ${SF3}/X8AN00.BIN -o ${SF3_OUT}/X8AN00.glb VALIDATE ${SF3_OUT}/X8AN00.glb)
rigrip_cli_test(sf3_dump_raw ARGS dump --raw ${SF3}/X8PC00A.BIN
  EXPECT "\"format\": \"sf3-x8pc\".*\"bones\": 22.*\"keyframes\".*\"meshes\": 20.*\"textures\": 108")
rigrip_cli_test(sf3_dump_raw_x8an ARGS dump --raw ${SF3}/X8AN00.BIN EXPECT "\"format\": \"sf3-x8an\"")
rigrip_cli_test(sf3_rewrite ARGS rewrite ${SF3}/X8PC41X.BIN -o ${SF3_OUT}/X8PC41X.rewrite.bin EXPECT "identical")
rigrip_cli_test(sf3_rewrite_x8an ARGS rewrite ${SF3}/X8AN00.BIN -o ${SF3_OUT}/X8AN00.rewrite.bin EXPECT "identical")
rigrip_cli_test(sf3_pack ARGS pack ${SF3_OUT}/X8PC00A.glb --format sf3-x8pc --template ${SF3}/X8PC00A.BIN
  -o ${SF3_OUT}/X8PC00A.packed.bin EXPECT "packed: .*sf3-x8pc")
set_tests_properties(cli.sf3_pack PROPERTIES DEPENDS cli.sf3_convert_x8pc)
rigrip_cli_test(sf3_pack_no_template ARGS pack ${SF3_OUT}/X8PC00A.glb --format sf3-x8pc -o ${SF3_OUT}/none.bin
  EXIT 1 EXPECT "--template" ABSENT ${SF3_OUT}/none.bin)
set_tests_properties(cli.sf3_pack_no_template PROPERTIES DEPENDS cli.sf3_convert_x8pc)

if(EXISTS ${SF3}/X8PC00A.BIN AND EXISTS ${SF3}/X8AN00.BIN)
  # A damaged model (cut inside the texture chunk) and an x8an without its model next to it.
  execute_process(COMMAND head -c 9000 ${SF3}/X8PC00A.BIN OUTPUT_FILE ${SF3_OUT}/X8PC00A_cut.BIN)
  configure_file(${SF3}/X8AN00.BIN ${SF3_OUT}/alone/X8AN00.BIN COPYONLY)
  rigrip_cli_test(sf3_truncated ARGS convert ${SF3_OUT}/X8PC00A_cut.BIN -o ${SF3_OUT}/cut.glb EXIT 1
    EXPECT "X8PC00A_cut.BIN @ 0x[0-9A-F]+: E_[A-Z_]+ \\[sf3-x8pc\\]" ABSENT ${SF3_OUT}/cut.glb)
  rigrip_cli_test(sf3_x8an_alone ARGS convert ${SF3_OUT}/alone/X8AN00.BIN -o ${SF3_OUT}/alone.glb EXIT 1
    EXPECT "E_MISSING_SKELETON.*X8PC00A.BIN" ABSENT ${SF3_OUT}/alone.glb)
  rigrip_cli_test(sf3_x8an_skeleton ARGS convert ${SF3_OUT}/alone/X8AN00.BIN --skeleton ${SF3}/X8PC00A.BIN
    -o ${SF3_OUT}/alone_skel.glb VALIDATE ${SF3_OUT}/alone_skel.glb)
  add_test(NAME tools.sf3_snapshot
    COMMAND ${NODE_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/snapshot.mjs ${SF3_OUT}/X8PC00A.glb ${SF3_OUT}/X8PC00A.png
      --time 0.5 --clip 1)
  set_tests_properties(tools.sf3_snapshot PROPERTIES DEPENDS cli.sf3_convert_x8pc
    PASS_REGULAR_EXPRESSION "clip X8PC00A_anim00_idle.*[0-9]+ triangles")
endif()

# The synthetic example (own writers, no game data) runs everywhere.
set(SF3_EX ${EXAMPLES}/sf3/X8PC90A.BIN)
rigrip_cli_test(sf3_example_convert ARGS convert ${SF3_EX} -o ${SF3_OUT}/X8PC90A.glb --textures
  EXPECT_FILE ${SF3_OUT}/X8PC90A_tex0_X8PC90A_atlas.png VALIDATE ${SF3_OUT}/X8PC90A.glb)
rigrip_cli_test(sf3_example_rewrite ARGS rewrite ${SF3_EX} -o ${SF3_OUT}/X8PC90A.rewrite.bin EXPECT "identical")
rigrip_cli_test(sf3_example_pack ARGS pack ${SF3_OUT}/X8PC90A.glb --format sf3-x8pc --template ${SF3_EX}
  -o ${SF3_OUT}/X8PC90A.packed.bin EXPECT "packed: .*sf3-x8pc")
set_tests_properties(cli.sf3_example_pack PROPERTIES DEPENDS cli.sf3_example_convert)
# Issue 15: --split-models writes one glb per model of an X8PCnnX container.
rigrip_cli_test(sf3_split_models ARGS convert ${SF3}/X8PC41X.BIN -o ${SF3_OUT}/split/X8PC41X.glb --split-models
  EXPECT_FILE ${SF3_OUT}/split/X8PC41X_1.glb VALIDATE ${SF3_OUT}/split/X8PC41X_0.glb|${SF3_OUT}/split/X8PC41X_1.glb)
# Issue 15: info on a glb we wrote counts what is in it (it said 0, 0 and 0 here).
rigrip_cli_test(sf3_info_glb_counts ARGS info ${SF3_OUT}/X8PC00A.glb
  EXPECT "meshes: 23 \\(2070 vertices\\), textures: 1, materials: 2")
set_tests_properties(cli.sf3_info_glb_counts PROPERTIES DEPENDS cli.sf3_convert_x8pc)
