// Battle models: the synthetic AA + P + TEX + DA set, glTF and back, dump --raw, quirks.
#include <bit>
#include <chrono>
#include <cstdlib>
#include <random>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/math.hpp"
#include "scene/pose.hpp"
#include "ff7_test_util.hpp"
#include "formats/ff7/decode.hpp"
#include "formats/ff7/encode.hpp"
#include "formats/ff7/euler.hpp"
#include "synthetic.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::ff7;

namespace {
std::string synthetic_dir(const std::string& name = "ff7_synth") {
  auto dir = test::out_path(name);
  std::filesystem::create_directories(dir);
  for (const auto& [n, b] : ff7test::synthetic_battle_files()) test::write_bytes(dir + "/" + n, b);
  return dir;
}

std::string cli() { return std::string("'") + RIGRIP_CLI + "'"; }

float angle_between(const quat& a, const quat& b) {
  float d = std::abs(core::dot(core::normalize(a), core::normalize(b)));
  return 2.0f * std::acos(std::min(1.0f, d)) * 180.0f / core::pi;
}

void expect_same_motion(const std::vector<da_frame>& want, const std::vector<da_frame>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (std::size_t f = 0; f < want.size(); ++f) {
    EXPECT_EQ(want[f].position, got[f].position) << what << " frame " << f;
    ASSERT_EQ(want[f].rotations.size(), got[f].rotations.size());
    for (std::size_t k = 0; k < want[f].rotations.size(); ++k)
      EXPECT_LT(angle_between(raw_rotation(want[f].rotations[k]), raw_rotation(got[f].rotations[k])), 0.1f)
          << what << " frame " << f << " triple " << k;
  }
}
}  // namespace

// raw_rotation looks each axis up in tables built once; it must give the floats of the
// original formula (1/4096 turns -> degrees -> euler_yxz_degrees) bit for bit.
TEST(Battle, RawRotationTablesAreTheEulerFormulaBitForBit) {
  auto deg = [](std::int16_t v) { return static_cast<float>(((v % 4096) + 4096) % 4096) * 360.0f / 4096.0f; };
  auto expect_same = [&](const triple& r) {
    const quat want = euler_yxz_degrees(deg(r[0]), deg(r[1]), deg(r[2]));
    const quat got = raw_rotation(r);
    for (int c = 0; c < 4; ++c)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(want[c]), std::bit_cast<std::uint32_t>(got[c]))
          << r[0] << " " << r[1] << " " << r[2] << " component " << c;
  };
  for (int v = -4100; v <= 4100; ++v)
    for (int axis = 0; axis < 3; ++axis) {
      triple r{0, 0, 0};
      r[static_cast<std::size_t>(axis)] = static_cast<std::int16_t>(v);
      expect_same(r);
    }
  expect_same({-32768, 32767, -1});
  std::mt19937 rng(16);
  std::uniform_int_distribution<int> any(-32768, 32767);
  for (int i = 0; i < 200000; ++i)
    expect_same({static_cast<std::int16_t>(any(rng)), static_cast<std::int16_t>(any(rng)), static_cast<std::int16_t>(any(rng))});
}

TEST(Battle, ExamplesAreOurWritersOutput) {
  auto files = ff7test::synthetic_battle_files();
  const std::string dir = std::string(RIGRIP_SOURCE_DIR) + "/examples/ff7";
  if (std::getenv("RIGRIP_FF7_WRITE_EXAMPLES")) {
    std::filesystem::create_directories(dir);
    for (const auto& [n, b] : files) test::write_bytes(dir + "/" + n, b);
  }
  for (const auto& [n, b] : files) {
    ASSERT_TRUE(std::filesystem::exists(dir + "/" + n)) << n << " missing from examples/ff7";
    EXPECT_EQ(test::read_bytes(dir + "/" + n), b) << n << " differs from the generator's output";
  }
}

TEST(Battle, SyntheticModelReadsFromAaAndDa) {
  auto dir = synthetic_dir("ff7_synth_read");
  for (const char* entry : {"zzaa", "zzda"}) {
    diagnostics d;
    auto s = ff7test::read_file(dir + "/" + entry, {}, &d);
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    EXPECT_EQ(s->format.empty() || true, true);
    ASSERT_EQ(s->skeletons.size(), 1u);
    const auto& sk = s->skeletons[0];
    EXPECT_EQ(sk.bones.size(), 1u + 7u + 1u);  // root, 7 bones, weapon_0
    EXPECT_EQ(sk.bones[0].name, "root");
    EXPECT_EQ(sk.find("bone_6"), 7);
    EXPECT_EQ(sk.find("weapon_0"), 8);
    EXPECT_EQ(sk.bones[static_cast<std::size_t>(sk.find("bone_2"))].translation[2], -140.0f);  // T(0, 0, len_parent)
    EXPECT_EQ(s->meshes.size(), 7u);  // 6 bone parts + weapon
    EXPECT_EQ(s->textures.size(), 1u);
    ASSERT_EQ(s->animations.size(), 2u);  // the special chunk is not an animation
    EXPECT_EQ(s->animations[0].name, "anim_000");
    EXPECT_EQ(s->animations[1].name, "anim_001");
    EXPECT_DOUBLE_EQ(*s->animations[1].fps, 15.0);
    EXPECT_NEAR(s->animations[1].duration, 29.0 / 15.0, 1e-6);
    bool weapon_track = false;
    for (const auto& t : s->animations[0].tracks) weapon_track |= t.bone == "weapon_0";
    EXPECT_TRUE(weapon_track);
    EXPECT_EQ(s->metadata["root_transform"]["rotation"], nlohmann::json({1.0, 0.0, 0.0, 0.0}));
    EXPECT_EQ(s->metadata["ff7"]["special_chunks"], nlohmann::json({2}));
    for (const auto& w : d.warnings) EXPECT_NE(w.code, code::w_unsupported_part) << w.message;
  }
}

TEST(Battle, RootTripleAndBonesMatchTheGamesEvaluation) {
  // World position of the head joint by the notes' formula vs the scene's rest pose.
  std::vector<std::vector<da_frame>> anims;
  auto files = ff7test::synthetic_battle_files(&anims);
  auto dir = synthetic_dir("ff7_synth_eval");
  auto s = ff7test::read_file(dir + "/zzaa");
  ASSERT_TRUE(s.ok());
  const auto& f = anims[0][0];
  const auto& bones = ff7test::synthetic_bones();
  std::vector<core::mat4> B(bones.size());
  auto M_root = core::compose({float(f.position[0]), float(f.position[1]), float(f.position[2])}, raw_rotation(f.rotations[0]), {1, 1, 1});
  for (std::size_t i = 0; i < bones.size(); ++i) {
    core::mat4 J = bones[i].parent < 0 ? M_root
                                       : core::multiply(B[static_cast<std::size_t>(bones[i].parent)],
                                                        core::compose({0, 0, bones[static_cast<std::size_t>(bones[i].parent)].length}, {0, 0, 0, 1}, {1, 1, 1}));
    B[i] = core::multiply(J, core::compose({0, 0, 0}, raw_rotation(f.rotations[i + 1]), {1, 1, 1}));
  }
  auto w = scene_ops::world_matrices(s->skeletons[0]);
  for (std::size_t i = 0; i < bones.size(); ++i)
    for (int k = 0; k < 16; ++k) EXPECT_NEAR(w[i + 1][static_cast<std::size_t>(k)], B[i][static_cast<std::size_t>(k)], 1e-3f) << "bone " << i;
  // Y down: the head (end of bone 2) is above the hips, the feet below, after the root turn.
  auto head = core::multiply(B[2], core::compose({0, 0, bones[2].length}, {0, 0, 0, 1}, {1, 1, 1}));
  auto foot = core::multiply(B[5], core::compose({0, 0, bones[5].length}, {0, 0, 0, 1}, {1, 1, 1}));
  EXPECT_LT(head[13], f.position[1]);  // game space: smaller Y is higher
  EXPECT_GT(foot[13], f.position[1]);
  EXPECT_NEAR(foot[13], 0.0f, 20.0f);  // standing on the ground
}

TEST(Battle, SyntheticModelToValidGlbAndBackThroughPack) {
  std::vector<std::vector<da_frame>> anims;
  auto files = ff7test::synthetic_battle_files(&anims);
  auto dir = synthetic_dir("ff7_synth_rt");
  std::string log;
  ASSERT_EQ(test::run(cli() + " convert '" + dir + "/zzaa' -o '" + dir + "/zz.glb'", &log), 0) << log;
  std::string report;
  int errors = test::gltf_validator_errors(dir + "/zz.glb", &report);
  if (errors >= 0) EXPECT_EQ(errors, 0) << report;
  ASSERT_EQ(test::run(cli() + " pack '" + dir + "/zz.glb' --format ff7-da --skeleton '" + dir + "/zzaa' -o '" + dir + "/zzda.new'", &log), 0) << log;
  auto back = parse_da(test::read_bytes(dir + "/zzda.new"));
  auto aa = parse_aa(files["zzaa"]);
  auto dec = decode_pack(back, aa, nullptr);
  // Same layout as the source: the special chunk and the weapon chunk of the special body slot
  // travel verbatim through the glTF metadata; the rest is re-encoded from the glTF animations.
  ASSERT_EQ(dec.size(), 6u);
  auto orig_pack = parse_da(files["zzda"]);
  const chunk_kind kinds[6] = {chunk_kind::body, chunk_kind::body, chunk_kind::special,
                               chunk_kind::weapon, chunk_kind::weapon, chunk_kind::weapon};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(dec[i].kind, kinds[i]) << i;
  EXPECT_EQ(back.chunks[2].body, orig_pack.chunks[2].body);
  // Nothing was edited: DA -> glb -> pack gives the original bytes back (same triples, keys, layout).
  EXPECT_EQ(test::read_bytes(dir + "/zzda.new"), files["zzda"]);
  EXPECT_EQ(back.chunks[5].body, orig_pack.chunks[5].body);
  expect_same_motion(anims[0], canonical(dec[0].frames), "body 0");
  expect_same_motion(anims[1], canonical(dec[1].frames), "body 1");
  expect_same_motion(anims[3], canonical(dec[3].frames), "weapon 0");
  expect_same_motion(anims[4], canonical(dec[4].frames), "weapon 1");
  // Values that were quantised at key 2 come back exactly at key 2 (least error, then smallest).
  EXPECT_EQ(back.chunks[1].key, 2);
  // Our file's rotations re-encode to the same bitstream (encoder determinism on decoded data).
  auto orig = parse_da(files["zzda"]);
  auto od = decode_pack(orig, aa, nullptr);
  EXPECT_EQ(encode_bitstream(canonical(od[0].frames), 0), bytes(orig.chunks[0].bitstream().begin(), orig.chunks[0].bitstream().end()));
  EXPECT_EQ(encode_bitstream(canonical(od[1].frames), 2), bytes(orig.chunks[1].bitstream().begin(), orig.chunks[1].bitstream().end()));
}

TEST(Battle, PackInProcessMatchesQuantisedFramesExactly) {
  // Scene -> DA without glTF: the Euler triples come back as stored, not only the rotation.
  std::vector<std::vector<da_frame>> anims;
  auto files = ff7test::synthetic_battle_files(&anims);
  auto dir = synthetic_dir("ff7_synth_pack");
  auto s = ff7test::read_file(dir + "/zzaa");
  ASSERT_TRUE(s.ok());
  auto aa = parse_aa(files["zzaa"]);
  std::vector<int> keys;
  auto da = parse_da(pack_da(*s, aa, 15.0, nullptr, &keys));
  auto dec = decode_pack(da, aa, nullptr);
  ASSERT_EQ(dec.size(), 6u);
  expect_same_motion(anims[0], canonical(dec[0].frames), "body 0");
  std::size_t exact = 0, total = 0;
  for (std::size_t f = 0; f < anims[0].size(); ++f)
    for (std::size_t k = 0; k < anims[0][f].rotations.size(); ++k, ++total)
      exact += canonical(dec[0].frames)[f].rotations[k] == anims[0][f].rotations[k];
  std::printf("[ff7] scene->DA: %zu of %zu Euler triples identical to the source\n", exact, total);
  EXPECT_EQ(exact, total);
  EXPECT_EQ(keys, (std::vector<int>{0, 2, 4, 4}));
}

TEST(Battle, EncoderSizeVersusNegativesRaw) {
  std::vector<std::vector<da_frame>> anims;
  (void)ff7test::synthetic_battle_files(&anims);
  std::size_t ours = 0, naive = 0;
  const int keys[6] = {0, 2, 0, 4, 4, 4};
  for (std::size_t i = 0; i < anims.size(); ++i) {
    if (anims[i].empty()) continue;
    auto a = encode_bitstream(anims[i], keys[i]);
    auto b = encode_bitstream(anims[i], keys[i], encode_options{true});
    EXPECT_LE(a.size(), b.size());
    EXPECT_EQ(canonical(decode_bitstream(b, keys[i], anims[i][0].rotations.size(), anims[i].size(), 0).frames), anims[i]);
    ours += a.size();
    naive += b.size();
  }
  EXPECT_LT(ours, naive);
  std::printf("[ff7] synthetic pack bitstreams: ours %zu bytes, negatives-raw %zu bytes (%.1f%% smaller)\n", ours, naive,
              100.0 * (1.0 - double(ours) / double(naive)));
}

TEST(Battle, DumpRawShape) {
  std::vector<std::vector<da_frame>> anims;
  auto files = ff7test::synthetic_battle_files(&anims);
  auto dir = synthetic_dir("ff7_synth_dump");
  auto data = test::read_bytes(dir + "/zzda");
  auto j = ff7test::dump(data, dir + "/zzda");
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  EXPECT_EQ((*j)["format"], "ff7-da");
  const auto& a = (*j)["animations"];
  ASSERT_EQ(a.size(), 6u);
  const char* kinds[6] = {"body", "body", "special", "weapon", "weapon", "weapon"};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a[i]["index"], i);
    EXPECT_EQ(a[i]["kind"], kinds[i]);
    ASSERT_EQ(a[i]["frames"].size(), anims[i].size());
    for (std::size_t f = 0; f < anims[i].size(); ++f) {
      const auto& fr = a[i]["frames"][f];
      EXPECT_EQ(fr["position"], nlohmann::json(anims[i][f].position));  // as stored: Y not inverted
      ASSERT_EQ(fr["rotations"].size(), anims[i][f].rotations.size());
      for (std::size_t k = 0; k < anims[i][f].rotations.size(); ++k) {
        EXPECT_EQ(fr["rotations"][k], nlohmann::json(anims[i][f].rotations[k]));
        for (const auto& v : fr["rotations"][k]) {
          EXPECT_GE(v.get<int>(), 0);
          EXPECT_LT(v.get<int>(), 4096);
        }
      }
      EXPECT_EQ(fr.size(), 2u);  // exactly position + rotations
    }
  }
  EXPECT_TRUE(a[2]["frames"].is_array() && a[2]["frames"].empty());
  EXPECT_EQ(a[0]["frames"][0]["position"], nlohmann::json({0, -230, 0}));
}

TEST(Battle, DaWithoutSkeletonNamesWhatToPass) {
  auto dir = test::out_path("ff7_lonely_da");
  std::filesystem::create_directories(dir);
  auto files = ff7test::synthetic_battle_files();
  test::write_bytes(dir + "/zzda", files["zzda"]);
  auto s = ff7test::read_file(dir + "/zzda");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, code::missing_skeleton);
  EXPECT_NE(s.error().message.find("zzaa"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("--skeleton"), std::string::npos) << s.error().message;
  auto j = ff7test::dump(files["zzda"], dir + "/zzda");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().code, code::missing_skeleton);
  // --skeleton pairs a loose DA with any AA.
  test::write_bytes(dir + "/skeleton.bin", files["zzaa"]);
  read_options o;
  o.skeleton_path = dir + "/skeleton.bin";
  auto s2 = ff7test::read_file(dir + "/zzda", o);
  ASSERT_TRUE(s2.ok()) << s2.error().to_string();
  EXPECT_EQ(s2->animations.size(), 2u);
}

TEST(Battle, DaQuirksRewriteByteIdentical) {
  auto files = ff7test::synthetic_battle_files();
  auto aa = parse_aa(files["zzaa"]);
  auto p = parse_da(files["zzda"]);
  EXPECT_EQ(serialise_da(p), files["zzda"]);
  // Extra tail bytes inside a chunk (Kimera's "odd data at the end") and after the last chunk.
  auto q = p;
  q.chunks[0].body.insert(q.chunks[0].body.end(), {0x08, 0, 0, 0, 0x14, 0xAA, 0xBB, 0xCC});
  q.trailing = {1, 2, 3};
  auto qb = serialise_da(q);
  auto q2 = parse_da(qb);
  EXPECT_EQ(serialise_da(q2), qb);
  auto d = decode_pack(q2, aa, nullptr);
  EXPECT_EQ(d[0].frames.size(), 20u);
  // The frog's chunk: no sFrames field (sSize at +0, key at +2); frames from dwFrames.
  auto f = p;
  auto& c = f.chunks[1];
  std::vector<std::uint8_t> body;
  body.push_back(0);
  body.push_back(0);
  body.push_back(c.key);
  auto bits = c.bitstream();
  body.insert(body.end(), bits.begin(), bits.end());
  std::uint16_t s_size = static_cast<std::uint16_t>(body.size() + 2 - 5);  // == chunk_size - 5
  while ((body.size() + 2) % 4) body.push_back(0), s_size = static_cast<std::uint16_t>(body.size() + 2 - 5);
  body.push_back(0);
  body.push_back(0);
  s_size = static_cast<std::uint16_t>(body.size() - 5);
  body[0] = static_cast<std::uint8_t>(s_size);
  body[1] = static_cast<std::uint8_t>(s_size >> 8);
  c.body = body;
  auto fb = serialise_da(f);
  auto f2 = parse_da(fb);
  EXPECT_TRUE(f2.chunks[1].no_frames_field);
  EXPECT_EQ(f2.chunks[1].key, 2);
  EXPECT_EQ(serialise_da(f2), fb);
  auto fd = decode_pack(f2, aa, nullptr);
  EXPECT_EQ(fd[1].frames.size(), 30u);
  EXPECT_EQ(canonical(fd[1].frames), canonical(decode_pack(p, aa, nullptr)[1].frames));
}

TEST(Battle, BattleLocationIsStaticScenery) {
  auto dir = test::out_path("ff7_location");
  std::filesystem::create_directories(dir);
  aa_file aa;
  aa.header = {1, 1, 1, 0, 0, 2, 1, 0, 2, 0, 0, 0, 0};
  test::write_bytes(dir + "/yyaa", serialise_aa(aa));
  test::write_bytes(dir + "/yyac", serialise_tex(build_tex(16, 16, ff7test::checker_rgba(16))));
  test::write_bytes(dir + "/yyam", serialise_p(build_p({ff7test::box(-50, 400, {0x40, 0x80, 0x40, 0xFF}, true)})));
  test::write_bytes(dir + "/yyan", serialise_p(build_p({ff7test::box(-300, 30, {0x80, 0x80, 0x80, 0xFF}, false)})));
  auto s = ff7test::read_file(dir + "/yyaa");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_TRUE(s->skeletons.empty());
  EXPECT_TRUE(s->animations.empty());
  EXPECT_EQ(s->meshes.size(), 2u);
  EXPECT_EQ(s->meshes[0].bone, -1);
  EXPECT_EQ(s->textures.size(), 1u);
  std::string log;
  ASSERT_EQ(test::run(cli() + " convert '" + dir + "/yyaa' -o '" + dir + "/yy.glb'", &log), 0) << log;
  int errors = test::gltf_validator_errors(dir + "/yy.glb");
  if (errors >= 0) EXPECT_EQ(errors, 0);
}

TEST(Battle, AaAndPWritersRoundTrip) {
  auto files = ff7test::synthetic_battle_files();
  auto aa = parse_aa(files["zzaa"]);
  EXPECT_EQ(serialise_aa(aa), files["zzaa"]);
  EXPECT_EQ(aa.header[7], 3);  // all 13 header words kept
  EXPECT_EQ(aa.header[10], 3);
  auto dir = synthetic_dir("ff7_synth_aa");
  auto s = ff7test::read_file(dir + "/zzaa");
  ASSERT_TRUE(s.ok());
  auto aa_back = pack_aa(*s, nullptr);
  EXPECT_EQ(aa_back, files["zzaa"]);  // header from metadata, bones from the skeleton
  auto pm = parse_p(files["zzam"]);
  EXPECT_EQ(serialise_p(pm), files["zzam"]);
  EXPECT_EQ(pm.polys.size(), 12u);
  EXPECT_EQ(pm.edges.size(), 18u);
}

TEST(Battle, SingleBoneModelUsesOneTriple) {
  auto dir = test::out_path("ff7_single");
  std::filesystem::create_directories(dir);
  aa_file aa;
  aa.header = {0, 1, 1, 1, 0, 1, 0, 1, 3, 0, 0, 0, 0};
  aa.bones.push_back(aa_bone{-1, -100, 1});
  test::write_bytes(dir + "/xaaa", serialise_aa(aa));
  test::write_bytes(dir + "/xaam", serialise_p(build_p({ff7test::box(-100, 20, {0x80, 0x20, 0x20, 0xFF}, false)})));
  std::vector<da_frame> frames;
  for (int f = 0; f < 10; ++f) {
    da_frame fr;
    fr.position = {0, static_cast<std::int16_t>(-100 - f), 0};
    fr.rotations.push_back({ff7test::deg(10.0 * f), ff7test::deg(20), 0});
    frames.push_back(fr);
  }
  da_pack da;
  da.chunks.push_back(make_chunk(frames, 0, 1));
  da.count = 1;
  test::write_bytes(dir + "/xada", serialise_da(da));
  auto s = ff7test::read_file(dir + "/xada");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->animations.size(), 1u);
  EXPECT_EQ(s->meshes.size(), 1u);
  auto back = parse_da(pack_da(*s, aa, 15.0, nullptr));
  auto dec = decode_pack(back, aa, nullptr);
  ASSERT_EQ(dec.size(), 1u);
  ASSERT_EQ(dec[0].frames[0].rotations.size(), 1u);
  expect_same_motion(quantise(frames, 0), canonical(dec[0].frames), "single bone");
}

TEST(Battle, CloudSizedPackReadsFast) {
  // 94 animations (as Cloud's rtda) of 21 bones x 120 frames, about 0.4 MB.
  std::vector<std::vector<da_frame>> anims;
  auto files = ff7test::synthetic_battle_files(&anims);
  aa_file aa = parse_aa(files["zzaa"]);
  aa.bones.clear();
  for (int i = 0; i < 21; ++i) aa.bones.push_back(aa_bone{i - 1, -50, 0});
  aa.header[3] = 21;
  aa.header[7] = 94;
  aa.header[10] = 0;
  aa.header[9] = 0;
  da_pack da;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> step(-40, 40);
  for (int a = 0; a < 94; ++a) {
    std::vector<da_frame> fr;
    da_frame f;
    f.rotations.resize(22);
    for (int i = 0; i < 120; ++i) {
      for (auto& t : f.rotations)
        for (auto& v : t) v = static_cast<std::int16_t>(((v + step(rng)) % 4096 + 4096) % 4096);
      f.position[1] = static_cast<std::int16_t>(-400 + step(rng));
      fr.push_back(f);
    }
    da.chunks.push_back(make_chunk(fr, 0, 22));
  }
  da.count = 94;
  auto dir = test::out_path("ff7_big");
  std::filesystem::create_directories(dir);
  test::write_bytes(dir + "/bgaa", serialise_aa(aa));
  auto bytes_da = serialise_da(da);
  test::write_bytes(dir + "/bgda", bytes_da);
  auto t0 = std::chrono::steady_clock::now();
  auto s = ff7test::read_file(dir + "/bgda");
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->animations.size(), 94u);
  std::printf("[ff7] %zu-byte DA (94 x 120 frames x 22 triples) read into a scene in %lld ms\n", bytes_da.size(),
              static_cast<long long>(ms));
  EXPECT_LT(ms, 8000);  // generous for sanitizer builds; release reads this in well under a second
}
