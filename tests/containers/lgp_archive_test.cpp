// LGP archives through the registry: entries read as files, pairing inside the archive,
// the same glbs as the loose files, and writing one entry back (pack --into).
#include <gtest/gtest.h>

#include <filesystem>

#include "../ff7/synthetic.hpp"
#include "containers/lgp.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

namespace {
using namespace rigrip;
namespace fs = std::filesystem;
namespace lgp = rigrip::containers::lgp;

// The synthetic battle model (zz*) plus the field samples when present (aaaa.hrc ...).
std::map<std::string, bytes> archive_files(bool* with_field = nullptr) {
  auto files = ff7test::synthetic_battle_files();
  bool field = false;
  if (auto dir = test::sample("ff7/field")) {
    for (const auto& e : fs::directory_iterator(*dir)) {
      auto name = e.path().filename().string();
      if (name == "readme.txt") continue;
      files[name] = test::read_bytes(e.path().string());
      field = true;
    }
  }
  if (with_field) *with_field = field;
  return files;
}

bytes build_archive(const std::map<std::string, bytes>& files) {
  std::vector<lgp::file> list;
  for (const auto& [name, data] : files) list.push_back({name, data});
  return lgp::build(list);
}

// Scene -> glb bytes, or the error's code for a file that does not convert.
std::string glb_or_code(const result<scene>& s) {
  if (!s) return std::string(info(s.error().code).id);
  diagnostics d;
  auto g = gltf::write(s.value(), {}, d);
  if (!g) return "write failed: " + g.error().message;
  return std::string(g->main.begin(), g->main.end());
}

TEST(LgpArchive, EntriesConvertToTheSameGlbsAsLooseFiles) {
  bool field = false;
  auto files = archive_files(&field);
  if (!field) std::printf("note: field samples absent, the archive holds the synthetic battle model only\n");
  const std::string loose = test::out_path("lgp_loose");
  fs::remove_all(loose);
  fs::create_directories(loose);
  for (const auto& [name, data] : files) test::write_bytes(loose + "/" + name, data);
  const std::string lgp_path = test::out_path("lgp_models.lgp");
  auto data = build_archive(files);
  test::write_bytes(lgp_path, data);

  diagnostics ad;
  auto a = open_archive(data, lgp_path, ad);
  ASSERT_TRUE(a) << a.error().to_string();
  EXPECT_TRUE(ad.warnings.empty()) << ad.warnings[0].to_string();
  ASSERT_EQ(a->entries.size(), files.size());
  std::size_t models = 0, animated = 0;
  for (std::size_t i = 0; i < a->entries.size(); ++i) {
    const auto& name = a->entries[i].name;
    diagnostics d1, d2;
    auto from_file = read_scene(loose + "/" + name, {}, d1);
    auto from_archive = read_scene(a.value(), i, {}, d2);
    ASSERT_EQ(from_file.ok(), from_archive.ok()) << name;
    EXPECT_EQ(glb_or_code(from_file), glb_or_code(from_archive)) << name;
    ASSERT_EQ(d1.warnings.size(), d2.warnings.size()) << name;
    for (std::size_t w = 0; w < d1.warnings.size(); ++w) EXPECT_EQ(d1.warnings[w].code, d2.warnings[w].code) << name;
    if (from_archive) {
      ++models;
      animated += from_archive->animations.empty() ? 0 : 1;
      EXPECT_EQ(d2.file, a->entry_path(i));
    }
  }
  // Pairing worked inside the archive: the skeleton found its parts and DA, the DA its skeleton,
  // the field animation its HRC.
  auto idx = [&](const std::string& n) {
    for (std::size_t i = 0; i < a->entries.size(); ++i)
      if (a->entries[i].name == n) return i;
    return a->entries.size();
  };
  diagnostics d;
  auto zz = read_scene(a.value(), idx("zzaa"), {}, d);
  ASSERT_TRUE(zz) << zz.error().to_string();
  EXPECT_EQ(zz->animations.size(), 2u);
  EXPECT_GE(zz->meshes.size(), 6u);
  EXPECT_EQ(zz->textures.size(), 1u);
  auto da = read_scene(a.value(), idx("zzda"), {}, d);
  ASSERT_TRUE(da) << da.error().to_string();
  EXPECT_EQ(da->animations.size(), 2u);
  if (field) {
    auto anim = read_scene(a.value(), idx("aafe.a"), {}, d);
    ASSERT_TRUE(anim) << anim.error().to_string();
    EXPECT_EQ(anim->animations.size(), 1u);
    EXPECT_FALSE(anim->meshes.empty());
  }
  EXPECT_GE(models, field ? 11u : 6u);
  EXPECT_GE(animated, field ? 3u : 2u);
}

TEST(LgpArchive, SiblingsOutsideTheArchiveComeFromDisk) {
  auto files = ff7test::synthetic_battle_files();
  auto data = build_archive({{"zzda", files["zzda"]}});
  diagnostics d;
  auto a = open_archive(data, test::out_path("only_da.lgp"), d);
  ASSERT_TRUE(a);
  auto s = read_scene(a.value(), 0, {}, d);
  ASSERT_FALSE(s);  // no zzaa in the archive: the clear missing-skeleton message
  EXPECT_EQ(s.error().code, code::missing_skeleton);
  EXPECT_NE(s.error().file.find("only_da.lgp/zzda"), std::string::npos);
  const std::string aa = test::out_path("zzaa_outside");
  test::write_bytes(aa, files["zzaa"]);
  read_options o;
  o.skeleton_path = aa;
  auto with = read_scene(a.value(), 0, o, d);
  ASSERT_TRUE(with) << with.error().to_string();
  EXPECT_EQ(with->animations.size(), 2u);
}

const track* find_track(const animation& a, const std::string& bone, path p) {
  for (const auto& t : a.tracks)
    if (t.bone == bone && t.path == p) return &t;
  return nullptr;
}

TEST(LgpArchive, PackIntoReplacesOneEntryAndKeepsTheOthers) {
  auto files = ff7test::synthetic_battle_files();
  auto data = build_archive(files);
  const std::string path = test::out_path("pack_into.lgp");
  diagnostics d;
  auto a = open_archive(data, path, d);
  ASSERT_TRUE(a);
  std::size_t da_index = 0;
  while (a->entries[da_index].name != "zzda") ++da_index;
  auto s = read_scene(a.value(), da_index, {}, d);
  ASSERT_TRUE(s) << s.error().to_string();
  // The edit: anim_0's root moves 50 units along X.
  auto& anim = s->animations[0];
  auto* root = const_cast<track*>(find_track(anim, "root", path::translation));
  ASSERT_NE(root, nullptr);
  std::vector<float> before = root->values;
  for (std::size_t k = 0; k < root->values.size(); k += 3) root->values[k] += 50;
  const format* f = find_format("ff7-da");
  ASSERT_NE(f, nullptr);
  pack_context ctx;  // no --skeleton: zzaa comes from the archive
  ctx.diags = &d;
  auto out = pack_into(s.value(), *f, ctx, a.value(), data, "zzda");
  ASSERT_TRUE(out) << out.error().to_string();

  diagnostics d2;
  auto b = open_archive(out.value(), path, d2);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_TRUE(d2.warnings.empty()) << d2.warnings[0].to_string();
  ASSERT_EQ(b->entries.size(), a->entries.size());
  for (const auto& e : a->entries) {
    const auto* now = b->find(e.name);
    ASSERT_NE(now, nullptr) << e.name;
    if (e.name != "zzda") EXPECT_EQ(now->data, e.data) << e.name;  // byte for byte
  }
  EXPECT_NE(b->find("zzda")->data, a->find("zzda")->data);
  // The same bytes `pack --skeleton zzaa` writes for a loose file.
  pack_context loose;
  loose.output_path = "zzda";
  loose.skeleton_file = files["zzaa"];
  auto direct = pack(s.value(), *f, loose);
  ASSERT_TRUE(direct);
  EXPECT_EQ(b->find("zzda")->data, direct.value());
  // Read back: the new motion.
  std::size_t i = 0;
  while (b->entries[i].name != "zzda") ++i;
  auto back = read_scene(b.value(), i, {}, d2);
  ASSERT_TRUE(back) << back.error().to_string();
  const track* moved = find_track(back->animations[0], "root", path::translation);
  ASSERT_NE(moved, nullptr);
  ASSERT_EQ(moved->values.size(), before.size());
  for (std::size_t k = 0; k < before.size(); k += 3) {
    EXPECT_NEAR(moved->values[k], before[k] + 50, 1e-3) << k;
    EXPECT_NEAR(moved->values[k + 1], before[k + 1], 1e-3) << k;
  }
  // Adding an entry that was not there.
  auto added = pack_into(s.value(), *f, ctx, a.value(), data, "yyda");
  ASSERT_FALSE(added);  // yyaa is not in the archive: the writer says what it needs
  EXPECT_EQ(added.error().code, code::missing_skeleton);
  pack_context with_skel = ctx;
  with_skel.skeleton_file = files["zzaa"];
  auto added2 = pack_into(s.value(), *f, with_skel, a.value(), data, "yyda");
  ASSERT_TRUE(added2) << added2.error().to_string();
  diagnostics d3;
  auto c = open_archive(added2.value(), path, d3);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->entries.size(), a->entries.size() + 1);
  ASSERT_NE(c->find("yyda"), nullptr);
  EXPECT_EQ(c->find("yyda")->data, b->find("zzda")->data);
  EXPECT_EQ(c->find("zzda")->data, a->find("zzda")->data);
}

TEST(LgpArchive, DumpRawAndRewriteOfTheArchive) {
  auto files = ff7test::synthetic_battle_files();
  auto data = build_archive(files);
  diagnostics d;
  auto j = dump_raw(data, "x.lgp", {}, d);
  ASSERT_TRUE(j) << j.error().to_string();
  EXPECT_EQ(j.value()["container"], "lgp");
  EXPECT_EQ(j.value()["creator"], "SQUARESOFT");
  EXPECT_EQ(j.value()["terminator"], "FINAL FANTASY7");
  EXPECT_EQ(j.value()["toc"].size(), files.size());
  EXPECT_TRUE(j.value()["lookup_table"]["present"]);
  auto r = rewrite(data, "x.lgp", {}, d);
  ASSERT_TRUE(r);
  EXPECT_EQ(r.value(), data);
  auto s = read_scene(data, "x.lgp", {}, d);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("`rigrip list`"), std::string::npos);
}

}  // namespace
