// Whole archives through the command line (issue 23 for LGP, the SARC part of issue 18):
// `list`, `convert ARCHIVE -o dir` (the same glbs as the loose files of a folder), `--only`,
// `convert`/`info` of ARCHIVE/inner, `rewrite` byte-identical, `pack --into` replacing or
// adding one entry with every other kept byte for byte, and damaged archives.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "../ff7/synthetic.hpp"
#include "containers/lgp.hpp"
#include "containers/sarc.hpp"
#include "containers/yaz0.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

namespace {
using namespace rigrip;
namespace fs = std::filesystem;
namespace lgp = rigrip::containers::lgp;
namespace sarc = rigrip::containers::sarc;

std::string q(const std::string& s) { return "'" + s + "'"; }
std::string cli() { return q(RIGRIP_CLI); }

// Runs rigrip with `args`; returns the exit code, output in *out.
int rr(const std::string& args, std::string* out = nullptr) {
  std::string o;
  int rc = test::run(cli() + " " + args, &o);
  if (out) *out = o;
  return rc;
}

// Every file under `dir` (relative path -> bytes).
std::map<std::string, bytes> tree(const std::string& dir) {
  std::map<std::string, bytes> t;
  if (!fs::exists(dir)) return t;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) t[fs::relative(e.path(), dir).generic_string()] = test::read_bytes(e.path().string());
  return t;
}

// The synthetic battle model (our FF7 writers) plus the field samples when present.
std::map<std::string, bytes> ff7_files(bool* field_present) {
  auto files = ff7test::synthetic_battle_files();
  *field_present = false;
  if (auto dir = test::sample("ff7/field")) {
    for (const auto& e : fs::directory_iterator(*dir)) {
      auto name = e.path().filename().string();
      if (name == "readme.txt" || !e.is_regular_file()) continue;
      files[name] = test::read_bytes(e.path().string());
      *field_present = true;
    }
  }
  return files;
}

bytes build_lgp(const std::map<std::string, bytes>& files) {
  std::vector<lgp::file> list;
  for (const auto& [name, data] : files) list.push_back({name, data});
  return lgp::build(list);
}

std::string fresh_dir(const std::string& name) {
  const std::string d = test::out_path(name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(ArchiveCli, LgpConvertsInOneCommandLikeTheLooseFolder) {
  bool field = false;
  const auto files = ff7_files(&field);
  if (!field) std::printf("note: ff7/field samples absent: the archive holds the synthetic battle model only\n");
  const std::string base = fresh_dir("archive_cli_lgp");
  const std::string loose = base + "/loose";
  fs::create_directories(loose);
  for (const auto& [name, data] : files) test::write_bytes(loose + "/" + name, data);
  const std::string lgp_path = base + "/battle.lgp";
  test::write_bytes(lgp_path, build_lgp(files));

  std::string out_a, out_b;
  ASSERT_EQ(rr("convert " + q(lgp_path) + " -o " + q(base + "/from_lgp") + " -j 2", &out_a), 0) << out_a;
  ASSERT_EQ(rr("convert " + q(loose) + " -o " + q(base + "/from_folder") + " -j 2", &out_b), 0) << out_b;
  const auto a = tree(base + "/from_lgp"), b = tree(base + "/from_folder");
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size()) << out_a << "\n----\n" << out_b;
  for (const auto& [rel, data] : b) {
    ASSERT_TRUE(a.count(rel)) << rel;
    EXPECT_TRUE(a.at(rel) == data) << rel << " differs between the archive and the folder";
  }
  // The same tally: every entry converted or skipped as its loose file was.
  auto tally = [](const std::string& o) { return o.substr(o.find("converted ")); };
  EXPECT_EQ(tally(out_a).substr(0, tally(out_a).find('\n')), tally(out_b).substr(0, tally(out_b).find('\n')));
  EXPECT_TRUE(a.count("zzaa.glb"));
  EXPECT_TRUE(a.count("zzda.glb"));
  if (field) EXPECT_TRUE(a.count("aafe.glb"));
  EXPECT_EQ(test::gltf_validator_errors(base + "/from_lgp/zzaa.glb"), 0);

  // --only selects entries by inner path.
  std::string o;
  ASSERT_EQ(rr("convert " + q(lgp_path) + " -o " + q(base + "/only") + " --only 'zzd*' --only 'zzaa'", &o), 0) << o;
  const auto only = tree(base + "/only");
  EXPECT_EQ(only.size(), 2u) << o;
  EXPECT_TRUE(only.count("zzaa.glb") && only.count("zzda.glb")) << o;
  EXPECT_TRUE(only.at("zzda.glb") == b.at("zzda.glb"));

  // One entry as ARCHIVE/inner: its skeleton still comes from the archive.
  ASSERT_EQ(rr("convert " + q(lgp_path + "/zzda") + " -o " + q(base + "/one.glb"), &o), 0) << o;
  EXPECT_TRUE(test::read_bytes(base + "/one.glb") == b.at("zzda.glb"));
  ASSERT_EQ(rr("info " + q(lgp_path + "/zzaa"), &o), 0) << o;
  EXPECT_NE(o.find("format: ff7-aa"), std::string::npos) << o;
  EXPECT_NE(o.find("animation 'anim_001'"), std::string::npos) << o;
  EXPECT_EQ(rr("info " + q(lgp_path + "/nosuch"), &o), 1) << o;
  EXPECT_NE(o.find("no entry 'nosuch'"), std::string::npos) << o;
  // dump of an entry: the same scene JSON and raw structures as the loose file's.
  for (const std::string flag : {"", "--raw "}) {
    std::string from_lgp, from_file;
    ASSERT_EQ(rr("dump --compact " + flag + q(lgp_path + "/zzda") + " 2>/dev/null", &from_lgp), 0) << from_lgp;
    ASSERT_EQ(rr("dump --compact " + flag + q(loose + "/zzda") + " 2>/dev/null", &from_file), 0) << from_file;
    EXPECT_EQ(from_lgp, from_file) << flag;
  }
  // An archive cannot become one .glb.
  EXPECT_EQ(rr("convert " + q(lgp_path) + " -o " + q(base + "/all.glb"), &o), 2) << o;
  EXPECT_FALSE(fs::exists(base + "/all.glb"));

  // list: every entry with its size and kind.
  ASSERT_EQ(rr("list " + q(lgp_path), &o), 0) << o;
  EXPECT_NE(o.find("lgp archive, " + std::to_string(files.size()) + " entries"), std::string::npos) << o;
  for (const auto& [name, data] : files) EXPECT_NE(o.find(name), std::string::npos) << name;
  EXPECT_NE(o.find(std::to_string(files.at("zzda").size()) + "  ff7-da"), std::string::npos) << o;
  ASSERT_EQ(rr("list --json " + q(lgp_path) + " 2>/dev/null", &o), 0);
  auto j = nlohmann::json::parse(o);
  EXPECT_EQ(j["container"], "lgp");
  ASSERT_EQ(j["entries"].size(), files.size());
  for (const auto& e : j["entries"]) EXPECT_EQ(e["size"].get<std::size_t>(), files.at(e["path"]).size());

  // rewrite: byte-identical.
  ASSERT_EQ(rr("rewrite " + q(lgp_path) + " -o " + q(base + "/copy.lgp"), &o), 0) << o;
  EXPECT_NE(o.find("identical"), std::string::npos) << o;
  EXPECT_TRUE(test::read_bytes(base + "/copy.lgp") == test::read_bytes(lgp_path));
}

// A game folder with archives in it converts in one command: each archive's entries go to a
// folder named after the archive, the same files as converting the archive on its own.
TEST(ArchiveCli, FolderWalkOpensTheArchivesInside) {
  bool field = false;
  const auto files = ff7_files(&field);
  const std::string base = fresh_dir("archive_cli_walk");
  const std::string game = base + "/game";
  fs::create_directories(game + "/data/battle");
  test::write_bytes(game + "/data/battle/battle.lgp", build_lgp(files));
  test::write_bytes(game + "/data/zzaa", files.at("zzaa"));
  std::string o, alone;
  ASSERT_EQ(rr("convert " + q(game) + " -o " + q(base + "/out") + " -j 2", &o), 0) << o;
  ASSERT_EQ(rr("convert " + q(game + "/data/battle/battle.lgp") + " -o " + q(base + "/alone"), &alone), 0) << alone;
  const auto walked = tree(base + "/out"), single = tree(base + "/alone");
  ASSERT_FALSE(single.empty());
  for (const auto& [rel, data] : single) {
    const std::string in_walk = "data/battle/battle.lgp/" + rel;
    ASSERT_TRUE(walked.count(in_walk)) << in_walk << "\n" << o;
    EXPECT_TRUE(walked.at(in_walk) == data) << in_walk;
  }
  EXPECT_EQ(walked.size(), single.size() + 1) << o;  // + the loose file (zzaa.glb)
  EXPECT_TRUE(walked.count("data/zzaa.glb")) << o;
  // A damaged archive in the folder fails on its own line; the rest still converts.
  auto broken = build_lgp(files);
  broken.resize(broken.size() / 3);
  test::write_bytes(game + "/data/broken.lgp", broken);
  EXPECT_EQ(rr("convert " + q(game) + " -o " + q(base + "/out2") + " -j 2", &o), 1) << o;
  EXPECT_NE(o.find("broken.lgp"), std::string::npos) << o;
  EXPECT_TRUE(fs::exists(base + "/out2/data/battle/battle.lgp/zzaa.glb")) << o;
}

TEST(ArchiveCli, LgpPackIntoReplacesOneEntry) {
  bool field = false;
  const auto files = ff7_files(&field);
  const std::string base = fresh_dir("archive_cli_pack");
  const std::string lgp_path = base + "/battle.lgp";
  const bytes original = build_lgp(files);
  test::write_bytes(lgp_path, original);
  test::write_bytes(base + "/zzaa", files.at("zzaa"));
  std::string o;
  // The edit: the battle model's animations, from the glb of its skeleton (zzaa carries both
  // body animations), written into the DA entry.
  ASSERT_EQ(rr("convert " + q(lgp_path + "/zzaa") + " -o " + q(base + "/edited.glb"), &o), 0) << o;
  ASSERT_EQ(rr("pack " + q(base + "/edited.glb") + " --format ff7-da --into " + q(lgp_path) +
                   " --entry zzda -o " + q(base + "/battle-new.lgp"),
               &o),
            0)
      << o;
  EXPECT_NE(o.find("entry 'zzda' replaced"), std::string::npos) << o;
  // The same bytes a loose `pack --skeleton zzaa` writes.
  ASSERT_EQ(rr("pack " + q(base + "/edited.glb") + " --format ff7-da --skeleton " + q(base + "/zzaa") + " -o " +
                   q(base + "/zzda.loose"),
               &o),
            0)
      << o;
  const bytes out = test::read_bytes(base + "/battle-new.lgp");
  diagnostics d1, d2;
  auto before = open_archive(original, lgp_path, d1);
  auto after = open_archive(out, base + "/battle-new.lgp", d2);
  ASSERT_TRUE(before && after);
  EXPECT_TRUE(d2.warnings.empty());
  ASSERT_EQ(after->entries.size(), before->entries.size());
  for (const auto& e : before->entries) {
    const auto* now = after->find(e.name);
    ASSERT_NE(now, nullptr) << e.name;
    if (e.name != "zzda") EXPECT_TRUE(now->data == e.data) << e.name << " changed";
  }
  EXPECT_TRUE(after->find("zzda")->data == test::read_bytes(base + "/zzda.loose"));
  // Read back through the new archive: the DA finds its skeleton there and has both animations.
  ASSERT_EQ(rr("list " + q(base + "/battle-new.lgp/zzda"), &o), 0) << o;
  EXPECT_NE(o.find("anim_000"), std::string::npos) << o;
  EXPECT_NE(o.find("anim_001"), std::string::npos) << o;
  // The rebuilt archive rewrites byte-identically (its tables are consistent).
  ASSERT_EQ(rr("rewrite " + q(base + "/battle-new.lgp") + " -o " + q(base + "/again.lgp"), &o), 0) << o;
  EXPECT_NE(o.find("identical"), std::string::npos) << o;

  // Adding an entry.
  ASSERT_EQ(rr("pack " + q(base + "/edited.glb") + " --format ff7-da --skeleton " + q(base + "/zzaa") + " --into " +
                   q(lgp_path) + " --entry yyda -o " + q(base + "/added.lgp"),
               &o),
            0)
      << o;
  EXPECT_NE(o.find("entry 'yyda' added"), std::string::npos) << o;
  diagnostics d3;
  auto added = open_archive(test::read_bytes(base + "/added.lgp"), base + "/added.lgp", d3);
  ASSERT_TRUE(added);
  EXPECT_EQ(added->entries.size(), files.size() + 1);

  // Usage and data errors leave no output.
  const std::string none = base + "/none.lgp";
  EXPECT_EQ(rr("pack " + q(base + "/edited.glb") + " --format ff7-da --into " + q(lgp_path) + " -o " + q(none), &o), 2);
  EXPECT_NE(o.find("--entry"), std::string::npos) << o;
  EXPECT_EQ(rr("pack " + q(base + "/edited.glb") + " --format ff7-da --into " + q(base + "/zzaa") +
                   " --entry zzda -o " + q(none),
               &o),
            1);
  EXPECT_NE(o.find("not an archive"), std::string::npos) << o;
  EXPECT_FALSE(fs::exists(none));
}

TEST(ArchiveCli, DamagedLgpNamesTheEntryAndNeverCrashes) {
  auto files = ff7test::synthetic_battle_files();
  const std::string base = fresh_dir("archive_cli_bad");
  bytes good = build_lgp(files);
  const auto parsed = lgp::parse(good);
  // Entry 1's data runs past the end: its header's size field made huge.
  bytes past = good;
  const std::uint32_t at = parsed.toc[1].offset + lgp::name_size;
  past[at] = past[at + 1] = past[at + 2] = 0xFF;
  past[at + 3] = 0x7F;
  test::write_bytes(base + "/past.lgp", past);
  const std::string victim = parsed.toc[1].name;
  std::string o;
  EXPECT_EQ(rr("list " + q(base + "/past.lgp"), &o), 1) << o;
  EXPECT_NE(o.find(victim), std::string::npos) << o;
  EXPECT_NE(o.find("run past the end"), std::string::npos) << o;
  EXPECT_EQ(rr("convert " + q(base + "/past.lgp") + " -o " + q(base + "/past_out"), &o), 1) << o;
  EXPECT_NE(o.find("failed: " + base + "/past.lgp/" + victim), std::string::npos) << o;
  EXPECT_NE(o.find("converted "), std::string::npos) << o;  // the others still convert
  EXPECT_FALSE(fs::exists(base + "/past_out/" + victim + ".glb"));
  ASSERT_EQ(rr("convert " + q(std::string(RIGRIP_SOURCE_DIR) + "/examples/ff7/zzaa") + " -o " + q(base + "/zzaa.glb"), &o), 0)
      << o;
  EXPECT_EQ(rr("pack " + q(base + "/zzaa.glb") + " --format ff7-da --into " + q(base + "/past.lgp") +
                   " --entry zzda -o " + q(base + "/past_new.lgp"),
               &o),
            1) << o;
  EXPECT_NE(o.find(victim), std::string::npos) << o;  // the broken entry, named
  EXPECT_FALSE(fs::exists(base + "/past_new.lgp"));

  // Two TOC entries with the same name: a warning naming it.
  bytes dup = good;
  std::memcpy(dup.data() + lgp::header_size + lgp::toc_entry_size * 1, dup.data() + lgp::header_size, lgp::name_size);
  test::write_bytes(base + "/dup.lgp", dup);
  int rc = rr("list " + q(base + "/dup.lgp"), &o);
  EXPECT_TRUE(rc == 0 || rc == 1) << o;
  EXPECT_NE(o.find("has the same name as entry 0"), std::string::npos) << o;

  // Not an archive at all / cut short: clear errors.
  bytes cut(good.begin(), good.begin() + 40);
  test::write_bytes(base + "/cut.lgp", cut);
  rc = rr("list " + q(base + "/cut.lgp"), &o);
  EXPECT_EQ(rc, 1) << o;
  EXPECT_NE(o.find("error: "), std::string::npos) << o;
}

// A SARC of a BFRES example, the same inside Yaz0, and a file rigrip does not read.
struct sarc_fixture {
  std::string base, loose, pack, szs;
  bytes bfres;
};

sarc_fixture make_sarc(const std::string& name) {
  sarc_fixture f;
  f.base = fresh_dir(name);
  f.bfres = test::read_bytes(std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/seed_linear.bfres");
  const bytes note{'h', 'e', 'l', 'l', 'o', '\n'};
  std::vector<sarc::build_file> list{{"Anim/seed_linear.bfres", f.bfres, 0},
                                     {"Anim/seed_linear.Yaz0.sbfres", containers::yaz0_compress(f.bfres, 0), 0},
                                     {"Actor/notes.txt", note, 0}};
  const bytes s = sarc::build(list, false);
  f.pack = f.base + "/Thing.sarc";
  f.szs = f.base + "/Thing.sbactorpack";
  test::write_bytes(f.pack, s);
  test::write_bytes(f.szs, containers::yaz0_compress(s, 0));
  f.loose = f.base + "/loose";
  fs::create_directories(f.loose + "/Anim");
  fs::create_directories(f.loose + "/Actor");
  for (const auto& b : list) test::write_bytes(f.loose + "/" + b.name, b.data);
  return f;
}

TEST(ArchiveCli, SarcListsConvertsRewritesAndPacksInto) {
  const auto f = make_sarc("archive_cli_sarc");
  for (const std::string& path : {f.pack, f.szs}) {
    SCOPED_TRACE(path);
    std::string o;
    ASSERT_EQ(rr("list " + q(path), &o), 0) << o;
    EXPECT_NE(o.find("3 entries"), std::string::npos) << o;
    EXPECT_NE(o.find("Anim/seed_linear.bfres"), std::string::npos) << o;
    EXPECT_NE(o.find(std::to_string(f.bfres.size()) + "  bfres"), std::string::npos) << o;
    EXPECT_NE(o.find("Actor/notes.txt"), std::string::npos) << o;
    if (path == f.szs) EXPECT_NE(o.find("sarc in yaz0"), std::string::npos) << o;

    const std::string out = f.base + "/out_" + fs::path(path).extension().string().substr(1);
    ASSERT_EQ(rr("convert " + q(path) + " -o " + q(out), &o), 0) << o;
    EXPECT_NE(o.find("skipped: " + path + "/Actor/notes.txt"), std::string::npos) << o;
    const auto t = tree(out);
    ASSERT_TRUE(t.count("Anim/seed_linear.glb")) << o;
    EXPECT_TRUE(t.count("Anim/seed_linear.Yaz0.glb")) << o;
    EXPECT_EQ(t.size(), 2u) << o;

    ASSERT_EQ(rr("rewrite " + q(path) + " -o " + q(path + ".rw"), &o), 0) << o;
    EXPECT_NE(o.find("identical"), std::string::npos) << o;
    EXPECT_TRUE(test::read_bytes(path + ".rw") == test::read_bytes(path));

    // pack --into: the BFRES entry rewritten from its glb (the old entry is the template).
    const std::string glb = out + "/Anim/seed_linear.glb";
    const std::string packed = path + ".new";
    ASSERT_EQ(rr("pack " + q(glb) + " --format bfres --into " + q(path) + " --entry Anim/seed_linear.bfres -o " +
                     q(packed),
                 &o),
              0)
        << o;
    const bytes nb = test::read_bytes(packed);
    if (path == f.szs) EXPECT_EQ(std::memcmp(nb.data(), "Yaz0", 4), 0);
    const bytes inner = path == f.szs ? containers::yaz0_decompress(nb) : nb;
    const bytes old_inner = path == f.szs ? containers::yaz0_decompress(test::read_bytes(path)) : test::read_bytes(path);
    diagnostics d1, d2;
    auto a = open_archive(old_inner, path, d1);
    auto b = open_archive(inner, packed, d2);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(b->entries.size(), 3u);
    for (const auto& e : a->entries)
      if (e.name != "Anim/seed_linear.bfres") EXPECT_TRUE(b->find(e.name)->data == e.data) << e.name;
    // The same bytes as a loose pack with the old entry as template; it reads back.
    ASSERT_EQ(rr("pack " + q(glb) + " --format bfres --template " + q(f.loose + "/Anim/seed_linear.bfres") + " -o " +
                     q(f.base + "/loose_packed.bfres"),
                 &o),
              0)
        << o;
    EXPECT_TRUE(b->find("Anim/seed_linear.bfres")->data == test::read_bytes(f.base + "/loose_packed.bfres"));
    ASSERT_EQ(rr("info " + q(packed + "/Anim/seed_linear.bfres"), &o), 0) << o;
    EXPECT_NE(o.find("format: bfres"), std::string::npos) << o;
  }
  // The archive's glbs equal the loose folder's.
  std::string o;
  ASSERT_EQ(rr("convert " + q(f.loose) + " -o " + q(f.base + "/out_loose"), &o), 0) << o;
  const auto loose = tree(f.base + "/out_loose"), packed = tree(f.base + "/out_sarc");
  ASSERT_EQ(loose.size(), packed.size());
  for (const auto& [rel, data] : loose) EXPECT_TRUE(packed.count(rel) && packed.at(rel) == data) << rel;
}

TEST(ArchiveCli, RealSamplesList) {
  if (auto ref = test::sample("ff7/lgp/reference.lgp")) {
    std::string o;
    ASSERT_EQ(rr("list " + q(*ref), &o), 0) << o;
    EXPECT_NE(o.find("2 entries"), std::string::npos) << o;
    ASSERT_EQ(rr("rewrite " + q(*ref) + " -o " + q(test::out_path("reference_copy.lgp")), &o), 0) << o;
    EXPECT_TRUE(test::read_bytes(test::out_path("reference_copy.lgp")) == test::read_bytes(*ref));
  } else {
    std::printf("note: ff7/lgp/reference.lgp absent: skipped\n");
  }
  if (auto ev = test::sample("bfres/switch/Demo344_1.sbeventpack")) {
    std::string o;
    ASSERT_EQ(rr("list " + q(*ev), &o), 0) << o;
    EXPECT_NE(o.find("sarc in yaz0"), std::string::npos) << o;
    EXPECT_NE(o.find("Model/Demo344_1.sbfres"), std::string::npos) << o;
    ASSERT_EQ(rr("rewrite " + q(*ev) + " -o " + q(test::out_path("Demo344_1.sbeventpack")), &o), 0) << o;
    EXPECT_TRUE(test::read_bytes(test::out_path("Demo344_1.sbeventpack")) == test::read_bytes(*ev));
  } else {
    std::printf("note: bfres/switch/Demo344_1.sbeventpack absent: skipped\n");
  }
}

}  // namespace
