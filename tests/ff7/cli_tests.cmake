# FF7 CLI tests (names start with ff7_ so that ctest -R ff7 selects them).
set(FF7EX ${EXAMPLES}/ff7)
set(FF7F ${SAMPLES}/ff7/field)

# The synthetic battle model (our own writers' output) and the field samples convert.
rigrip_cli_test(ff7_convert_example_aa ARGS convert ${FF7EX}/zzaa -o ${OUT}/ff7/zzaa.glb VALIDATE ${OUT}/ff7/zzaa.glb)
rigrip_cli_test(ff7_convert_example_da ARGS convert ${FF7EX}/zzda -o ${OUT}/ff7/zzda.glb VALIDATE ${OUT}/ff7/zzda.glb)
rigrip_cli_test(ff7_convert_examples_dir ARGS convert ${FF7EX} -o ${OUT}/ff7/examples
  EXPECT "converted 10, failed 0" VALIDATE ${OUT}/ff7/examples/zzaa.glb|${OUT}/ff7/examples/zzac.glb|${OUT}/ff7/examples/zzam.glb)
rigrip_cli_test(ff7_info_example ARGS info ${FF7EX}/zzaa
  EXPECT "format: ff7-aa.*skeleton 'ff7_battle': 9 bones.*animation 'anim_000'.*fps 15.*animation 'anim_001'")
rigrip_cli_test(ff7_convert_cloud_a ARGS convert ${FF7F}/aafe.a -o ${OUT}/ff7/aafe.glb VALIDATE ${OUT}/ff7/aafe.glb)
rigrip_cli_test(ff7_convert_cloud_hrc ARGS convert ${FF7F}/aaaa.hrc -o ${OUT}/ff7/aaaa.glb VALIDATE ${OUT}/ff7/aaaa.glb
  EXPECT "W_UNSUPPORTED_PART: bone 'chest': resource AAAD.rsd not found")
rigrip_cli_test(ff7_convert_tex ARGS convert ${FF7F}/aabc.tex -o ${OUT}/ff7/aabc.glb VALIDATE ${OUT}/ff7/aabc.glb)

# dump --raw: the public JSON shape.
rigrip_cli_test(ff7_dump_raw ARGS dump --raw ${FF7EX}/zzda
  EXPECT "\"animations\": \\[.*\"frames\": \\[.*\"position\": \\[[^]]*0,[^]]*-230,[^]]*0[^]]*\\].*\"index\": 0,.*\"kind\": \"body\".*\"frames\": \\[\\],.*\"kind\": \"special\".*\"kind\": \"weapon\".*\"format\": \"ff7-da\"")
file(MAKE_DIRECTORY ${OUT}/ff7-lonely)
configure_file(${FF7EX}/zzda ${OUT}/ff7-lonely/zzda COPYONLY)
rigrip_cli_test(ff7_dump_raw_missing_skeleton ARGS dump --raw ${OUT}/ff7-lonely/zzda EXIT 1
  EXPECT "zzda @ 0x0: E_MISSING_SKELETON \\[ff7-da\\]: .*zzaa was not found next to it: pass --skeleton")
rigrip_cli_test(ff7_dump_raw_skeleton_option ARGS dump --raw ${OUT}/ff7-lonely/zzda --skeleton ${FF7EX}/zzaa
  EXPECT "\"kind\": \"special\".*\"format\": \"ff7-da\"")
rigrip_cli_test(ff7_convert_missing_skeleton ARGS convert ${OUT}/ff7-lonely/zzda -o ${OUT}/ff7-lonely/x.glb EXIT 1
  EXPECT "E_MISSING_SKELETON" ABSENT ${OUT}/ff7-lonely/x.glb)

# Byte-identical raw layers.
rigrip_cli_test(ff7_rewrite_da ARGS rewrite ${FF7EX}/zzda -o ${OUT}/ff7/zzda.rw EXPECT "identical")
rigrip_cli_test(ff7_rewrite_aa ARGS rewrite ${FF7EX}/zzaa -o ${OUT}/ff7/zzaa.rw EXPECT "identical")
rigrip_cli_test(ff7_rewrite_p_sample ARGS rewrite ${FF7F}/aaac.p -o ${OUT}/ff7/aaac.p EXPECT "identical")
rigrip_cli_test(ff7_rewrite_tex_sample ARGS rewrite ${FF7F}/aabc.tex -o ${OUT}/ff7/aabc.tex EXPECT "identical")
rigrip_cli_test(ff7_rewrite_a_sample ARGS rewrite ${FF7F}/aafe.a -o ${OUT}/ff7/aafe.a EXPECT "identical")

# glTF -> DA for a skeleton, and that DA read back.
rigrip_cli_test(ff7_pack_da ARGS pack ${OUT}/ff7/zzaa.glb --format ff7-da --skeleton ${FF7EX}/zzaa -o ${OUT}/ff7-pack/zzda
  EXPECT "packed: .*ff7-da")
set_tests_properties(cli.ff7_pack_da PROPERTIES DEPENDS cli.ff7_convert_example_aa)
rigrip_cli_test(ff7_pack_da_no_skeleton ARGS pack ${OUT}/ff7/zzaa.glb --format ff7-da -o ${OUT}/ff7-pack/nope
  EXIT 1 EXPECT "E_MISSING_SKELETON.*--skeleton" ABSENT ${OUT}/ff7-pack/nope)
set_tests_properties(cli.ff7_pack_da_no_skeleton PROPERTIES DEPENDS cli.ff7_convert_example_aa)
rigrip_cli_test(ff7_pack_da_readback ARGS dump --raw ${OUT}/ff7-pack/zzda --skeleton ${FF7EX}/zzaa
  EXPECT "\"kind\": \"body\".*\"format\": \"ff7-da\"")
set_tests_properties(cli.ff7_pack_da_readback PROPERTIES DEPENDS cli.ff7_pack_da)

# Damaged input: clear error with the offset.
file(MAKE_DIRECTORY ${OUT}/ff7-bad)
if(EXISTS ${FF7F}/aaaa.hrc)
  file(READ ${FF7F}/aaaa.hrc ff7_hrc_head LIMIT 120)
  file(WRITE ${OUT}/ff7-bad/cut.hrc "${ff7_hrc_head}")
endif()
rigrip_cli_test(ff7_damaged_hrc ARGS convert ${OUT}/ff7-bad/cut.hrc -o ${OUT}/ff7-bad/cut.glb EXIT 1
  EXPECT "cut.hrc @ 0x[0-9A-F]+: E_BAD_COUNT \\[ff7-hrc\\]: HRC declares 21 bones but has lines for" ABSENT ${OUT}/ff7-bad/cut.glb)

# LGP archives through the CLI (issue 23): the public two-entry reference archive lists its
# entries (one with a 20-character name) and rewrites byte-identically.
set(FF7LGP ${SAMPLES}/ff7/lgp/reference.lgp)
rigrip_cli_test(ff7_lgp_list_reference ARGS list ${FF7LGP}
  EXPECT "lgp archive, 2 entries.*Filename 1 +24  -.*max length filename! +8  -")
rigrip_cli_test(ff7_lgp_list_reference_json ARGS list --json ${FF7LGP}
  EXPECT "\"container\": \"lgp\".*\"path\": \"Filename 1\",[^}]*\"size\": 24.*\"path\": \"max length filename!\",[^}]*\"size\": 8")
rigrip_cli_test(ff7_lgp_rewrite_reference ARGS rewrite ${FF7LGP} -o ${OUT}/ff7/reference.lgp
  EXPECT "identical: .*2 entries")
rigrip_cli_test(ff7_lgp_convert_reference ARGS convert ${FF7LGP} -o ${OUT}/ff7/reference_out
  EXPECT "converted 0, failed 0, skipped 2.*skipped: .*reference.lgp/Filename 1: not a recognised game file")
rigrip_cli_test(ff7_lgp_pack_into_needs_entry ARGS pack ${FF7EX}/zzaa --format ff7-da --into ${FF7LGP}
  -o ${OUT}/ff7/never.lgp EXIT 2 EXPECT "--into ARCHIVE and --entry NAME go together" ABSENT ${OUT}/ff7/never.lgp)
