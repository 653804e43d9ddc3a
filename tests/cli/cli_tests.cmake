# CLI tests of the core commands (families add tests/<family>/cli_tests.cmake).
set(WAVE ${EXAMPLES}/scene/waving_arm.json)
set(DATA ${CMAKE_SOURCE_DIR}/tests/data)

rigrip_cli_test(help ARGS --help EXPECT "convert.*rewrite.*pack")
rigrip_cli_test(help_convert ARGS convert --help EXPECT "Examples:.*--skip-existing")
rigrip_cli_test(version ARGS --version EXPECT "rigrip 0.1")
rigrip_cli_test(formats ARGS formats EXPECT "scene-json.*gltf")
rigrip_cli_test(formats_json ARGS formats --json EXPECT "\"detection\"")
rigrip_cli_test(diagnostics ARGS diagnostics EXPECT "E_TRUNCATED")
rigrip_cli_test(info ARGS info ${WAVE} EXPECT "skeleton 'waver': 6 bones.*animation 'wave': 1.000 s, fps 10")
rigrip_cli_test(info_json ARGS info --json ${WAVE} EXPECT "\"bones\": 6")
rigrip_cli_test(list ARGS list ${WAVE} EXPECT "^wave")
rigrip_cli_test(dump ARGS dump ${WAVE} EXPECT "\"interpolation\": \"CUBICSPLINE\"")
rigrip_cli_test(convert_glb ARGS convert ${WAVE} -o ${OUT}/cli/wave.glb VALIDATE ${OUT}/cli/wave.glb)
rigrip_cli_test(convert_gltf_options ARGS convert ${WAVE} -o ${OUT}/cli/wave.gltf --up z --scale 0.5 --resample 30
  EXPECT_FILE ${OUT}/cli/wave.bin VALIDATE ${OUT}/cli/wave.gltf)
rigrip_cli_test(convert_clip_none ARGS convert ${WAVE} -o ${OUT}/cli/noclip.glb --clip "run*" VALIDATE ${OUT}/cli/noclip.glb)
rigrip_cli_test(convert_json_out ARGS convert ${WAVE} -o ${OUT}/cli/wave.json EXPECT_FILE ${OUT}/cli/wave.json)
rigrip_cli_test(bad_file_truncated ARGS convert ${DATA}/truncated_scene.json -o ${OUT}/cli/bad.glb EXIT 1
  EXPECT "truncated_scene.json @ 0x[0-9A-F]+: E_BAD_VALUE \\[scene-json\\]: expected valid JSON" ABSENT ${OUT}/cli/bad.glb)
rigrip_cli_test(bad_file_invalid_scene ARGS convert ${DATA}/bad_parent_scene.json -o ${OUT}/cli/bad2.glb EXIT 1
  EXPECT "E_INVALID_SCENE.*parent 1 must precede" ABSENT ${OUT}/cli/bad2.glb)
rigrip_cli_test(bad_flag ARGS convert ${WAVE} -o ${OUT}/cli/x.glb --frobnicate EXIT 2 EXPECT "frobnicate")
rigrip_cli_test(bad_up ARGS convert ${WAVE} -o ${OUT}/cli/x.glb --up w EXIT 2)
rigrip_cli_test(missing_input ARGS info /nonexistent/file.bin EXIT 2 EXPECT "does not exist")
rigrip_cli_test(no_subcommand ARGS EXIT 2)
rigrip_cli_test(unknown_format ARGS info ${CMAKE_SOURCE_DIR}/.clang-format EXIT 1 EXPECT "E_UNKNOWN_FORMAT")
rigrip_cli_test(pack_unsupported ARGS pack ${WAVE} --format gltf -o ${OUT}/cli/p.bin EXIT 2 EXPECT "cannot be written")
rigrip_cli_test(rewrite_unsupported ARGS rewrite ${WAVE} -o ${OUT}/cli/r.json EXIT 1 EXPECT "E_UNSUPPORTED_FEATURE")

# Directory batch with one broken input: the rest converts, exit 1, summary and report list it.
file(MAKE_DIRECTORY ${OUT}/batch-in/sub)
configure_file(${WAVE} ${OUT}/batch-in/a.json COPYONLY)
configure_file(${WAVE} ${OUT}/batch-in/sub/b.json COPYONLY)
configure_file(${DATA}/truncated_scene.json ${OUT}/batch-in/sub/broken.json COPYONLY)
file(WRITE ${OUT}/batch-in/readme.txt "not a game file\n")
rigrip_cli_test(batch_dir ARGS convert ${OUT}/batch-in -o ${OUT}/batch-out -j 2 --report ${OUT}/batch-report.json
  EXIT 1 EXPECT "converted 2, failed 1, skipped 1.*failed: .*broken.json"
  EXPECT_FILE ${OUT}/batch-out/sub/b.glb VALIDATE ${OUT}/batch-out/a.glb|${OUT}/batch-out/sub/b.glb
  ABSENT ${OUT}/batch-out/sub/broken.glb)
rigrip_cli_test(batch_skip_existing ARGS convert ${WAVE} -o ${OUT}/cli/wave.glb --skip-existing EXPECT "skipped 1")
set_tests_properties(cli.batch_skip_existing PROPERTIES DEPENDS cli.convert_glb)

# The headless three.js look (tools/snapshot.mjs) poses the converted example and renders it.
add_test(NAME tools.snapshot_example
  COMMAND ${NODE_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/snapshot.mjs ${OUT}/cli/wave.glb ${OUT}/cli/wave.png --time 0.25)
set_tests_properties(tools.snapshot_example PROPERTIES DEPENDS cli.convert_glb
  PASS_REGULAR_EXPRESSION "clip wave.*[0-9]+ triangles")

# Inputs that differ only by extension keep distinct outputs (named after the whole file name).
file(MAKE_DIRECTORY ${OUT}/collide-in)
configure_file(${WAVE} ${OUT}/collide-in/wave.json COPYONLY)
configure_file(${WAVE} ${OUT}/collide-in/wave.txt COPYONLY)
rigrip_cli_test(batch_name_collision ARGS convert ${OUT}/collide-in/wave.json ${OUT}/collide-in/wave.txt -o ${OUT}/collide-out
  EXPECT "converted 2, failed 0" ABSENT ${OUT}/collide-out/wave.glb
  VALIDATE ${OUT}/collide-out/wave.json.glb|${OUT}/collide-out/wave.txt.glb)
rigrip_cli_test(help_diagnostics ARGS diagnostics --help EXPECT "Examples:.*--markdown")

# `pack --format <family>`: the output's name picks the family's writable format, as the issues
# write the commands (walk.anm -> telltale-anm, rtda -> ff7-da); ambiguous names are a usage error.
set(TT_EX ${EXAMPLES}/telltale)
rigrip_cli_test(pack_family_convert ARGS convert ${TT_EX}/sk99_demo_wave.anm -o ${OUT}/cli/tt_wave.glb VALIDATE ${OUT}/cli/tt_wave.glb)
rigrip_cli_test(pack_family_name ARGS pack ${OUT}/cli/tt_wave.glb --format telltale --skeleton ${TT_EX}/sk99_demo.skl -o ${OUT}/cli/tt_wave.anm
  EXPECT "packed: .*telltale-anm" EXPECT_FILE ${OUT}/cli/tt_wave.anm)
rigrip_cli_test(pack_family_ambiguous ARGS pack ${OUT}/cli/tt_wave.glb --format telltale -o ${OUT}/cli/tt_wave.bin
  EXIT 2 EXPECT "writes several formats \\(telltale-anm, telltale-skl, telltale-d3dmesh\\)" ABSENT ${OUT}/cli/tt_wave.bin)
set_tests_properties(cli.pack_family_name cli.pack_family_ambiguous PROPERTIES DEPENDS cli.pack_family_convert)

# --shard I/N: disjoint deterministic shares of the sorted inputs (a, b, c -> 0/2: a c, 1/2: b).
file(MAKE_DIRECTORY ${OUT}/shard-in)
foreach(n a b c)
  configure_file(${WAVE} ${OUT}/shard-in/${n}.json COPYONLY)
endforeach()
rigrip_cli_test(shard_0_of_2 ARGS convert ${OUT}/shard-in -o ${OUT}/shard-out0 --shard 0/2 -j 1
  --report ${OUT}/shard-0.json
  EXPECT "converted 2, failed 0" EXPECT_FILE ${OUT}/shard-out0/c.glb ABSENT ${OUT}/shard-out0/b.glb
  VALIDATE ${OUT}/shard-out0/a.glb)
rigrip_cli_test(shard_1_of_2 ARGS convert ${OUT}/shard-in -o ${OUT}/shard-out1 --shard 1/2
  --report ${OUT}/shard-1.json
  EXPECT "converted 1, failed 0" EXPECT_FILE ${OUT}/shard-out1/b.glb ABSENT ${OUT}/shard-out1/a.glb)
rigrip_cli_test(shard_empty ARGS convert ${OUT}/shard-in -o ${OUT}/shard-out7 --shard 7/8 EXPECT "converted 0, failed 0")
rigrip_cli_test(shard_bad ARGS convert ${OUT}/shard-in -o ${OUT}/shard-outx --shard 2/2 EXIT 2 EXPECT "--shard takes")
# report merge: the shards' reports become one (3 inputs); a report merged with itself overlaps.
rigrip_cli_test(report_merge ARGS report merge ${OUT}/shard-0.json ${OUT}/shard-1.json -o ${OUT}/shard-all.json
  EXPECT "merged 2 reports: converted 3, failed 0, skipped 0" EXPECT_FILE ${OUT}/shard-all.json)
rigrip_cli_test(report_merge_overlap ARGS report merge ${OUT}/shard-0.json ${OUT}/shard-0.json -o ${OUT}/shard-dup.json
  EXIT 1 EXPECT "shards overlap" ABSENT ${OUT}/shard-dup.json)
rigrip_cli_test(report_merge_not_a_report ARGS report merge ${WAVE} -o ${OUT}/shard-bad.json
  EXIT 1 EXPECT "not a rigrip convert report" ABSENT ${OUT}/shard-bad.json)
set_tests_properties(cli.report_merge cli.report_merge_overlap PROPERTIES DEPENDS "cli.shard_0_of_2;cli.shard_1_of_2")

# Issue 14: faults mid-batch, outputs that stay inside -o, temporaries, special outputs
# (tests/cli/hostile_cli.sh: one case per row of the issue's table that needs the real binary).
foreach(c symlink_tree dotdot_input batch_deep_json report_unwritable own_gltf long_name special_outputs signals huge_unknown full_disk read_only_dir two_writers)
  add_test(NAME cli.hostile_${c}
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli/hostile_cli.sh ${c} $<TARGET_FILE:rigrip_cli> ${WAVE} ${OUT}/hostile-cli)
  set_tests_properties(cli.hostile_${c} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" TIMEOUT 120)
endforeach()

# Issue 14: structured glTF / scene-JSON mutants through the real `info`, `convert` and `pack`
# (tools/json_campaign.mjs). CI runs 150 mutants (450 runs) under the sanitizers; the long
# campaign is RIGRIP_JSON_CAMPAIGN=N (docs/fuzzing.md records the counts).
if(NODE_EXECUTABLE)
  set(RIGRIP_JSON_CAMPAIGN_N 150)
  if(DEFINED ENV{RIGRIP_JSON_CAMPAIGN})
    set(RIGRIP_JSON_CAMPAIGN_N $ENV{RIGRIP_JSON_CAMPAIGN})
  endif()
  add_test(NAME cli.hostile_json_campaign
    COMMAND ${NODE_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/json_campaign.mjs $<TARGET_FILE:rigrip_cli>
            ${CMAKE_SOURCE_DIR}/examples ${OUT}/json-campaign ${RIGRIP_JSON_CAMPAIGN_N} --jobs 2)
  set_tests_properties(cli.hostile_json_campaign PROPERTIES
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" TIMEOUT 900 PASS_REGULAR_EXPRESSION "findings 0:")
endif()
