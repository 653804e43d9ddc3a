// Runtime-5 QSA raw layer, writing side: a hand-built file (both pointer sizes) goes
// raw -> bytes -> raw -> bytes unchanged and decodes to the values it was built from; edits of a
// sample's raw structure come back as made (free bytes kept, counts and sizes recomputed); a
// damaged sample fails cleanly or writes back what it read. Samples are read in place from
// ../shared/samples/morpheme/sdk; those tests are skipped when they are absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "core/failure.hpp"
#include "formats/morpheme/anim_source.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::morpheme;
namespace fs = std::filesystem;

namespace {

// Three channels: 0 has an unchanging position and a sampled rotation, 1 an unchanging rotation,
// 2 a sampled position and rotation; two frame sections sharing frame 2 (4 frames in all).
qsa_file hand_built(bool x64) {
  qsa_file f;
  f.h.x64 = x64;
  f.h.type = source_type_qsa;
  f.h.duration = 0.1f;
  f.h.sample_rate = 30.0f;
  f.h.channel_count = 3;
  f.h.frame_sections = 2;
  f.h.unknown = 1;
  f.lists = {std::vector<std::uint16_t>{0}, {1}, {2}, {0, 2}, {}, {}};
  f.unchanging_head = {0, 0, 0, 1};
  f.unchanging_counts = {0xFFFF, 3, 2, 1, 1, 1};
  f.unchanging_position_range = {0, 0, 0, 65535, 65535, 65535};  // q -> q
  f.unchanging_rotation_range = {-1, -1, -1, 1, 1, 1};
  f.unchanging_positions = {{1, 2, 3}};
  f.unchanging_rotations = {{32768, 32768, 32768}};
  const std::uint16_t starts[2] = {0, 2}, samples[2] = {3, 2};
  for (int k = 0; k < 2; ++k) {
    qsa_section s;
    s.words[1] = 3;
    s.words[2] = starts[k];
    s.words[3] = samples[k];
    s.words[4] = 1;   // sampled positions
    s.words[5] = 2;   // sampled rotations
    s.words[9] = 3;   // position row bytes: 8 + 8 + 8 bits
    s.words[10] = 8;  // rotation row bytes: 2 x (10 + 10 + 10) bits
    s.position_init = {0, 0, 0, 255, 255, 255};  // init byte -> its value
    s.position_sets = {{0, 0, 0, 255, 255, 255}};
    s.rotation_sets = {{0, 0, 0, 0, 0, 0}};       // every level -> 0: identity
    s.position_info.resize(4);
    s.position_info[0] = {{8, 8, 8}, {1, 2, 3}, {0, 0, 0}};
    s.rotation_info.resize(4);
    for (int j = 0; j < 2; ++j) s.rotation_info[j] = {{10, 10, 10}, {128, 128, 128}, {0, 0, 0}};
    for (std::uint16_t t = 0; t < samples[k]; ++t) {
      const int frame = starts[k] + t;
      for (int c = 0; c < 3; ++c) s.position_rows.push_back(static_cast<std::uint8_t>(10 * (c + 1) + frame));
      for (int b = 0; b < 8; ++b) s.rotation_rows.push_back(static_cast<std::uint8_t>(0x11 * (b + frame)));
    }
    f.sections.push_back(std::move(s));
    f.section_info.push_back({starts[k], 0});
  }
  source5_trajectory t;
  t.type = source_type_qsa;
  t.alignment = 16;
  t.sample_rate = 30.0f;
  t.sample_count = 4;
  t.flags[0] = 1;
  t.flags[1] = 1;
  t.translation = {1, 1, 1, 0, 0, 0};
  t.rotation = {1, 1, 1, 0, 0, 0};
  t.constant_rotation = false;
  t.translations = {0, 1, 2, 3};
  t.rotations = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}};
  f.trajectory = t;
  return f;
}

std::vector<std::string> sample_qsa(const std::string& root) {
  std::vector<std::string> v;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".qsa") v.push_back(it->path().string());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(QsaWrite, HandBuiltFileRoundTripsAndDecodes) {
  for (bool x64 : {true, false}) {
    SCOPED_TRACE(x64 ? "x64" : "win32");
    bytes a = serialise_qsa(hand_built(x64));
    ASSERT_EQ(a.size() % 16, 0u);
    auto p = probe_source5(a);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->x64, x64);
    EXPECT_EQ(p->type, source_type_qsa);
    qsa_file f;
    ASSERT_NO_THROW(f = parse_qsa(core::byte_reader(a)));
    EXPECT_EQ(serialise_qsa(f), a);
    // Computed on writing: resident size = first section, section sizes in both places, set counts.
    ASSERT_EQ(f.sections.size(), 2u);
    EXPECT_EQ(f.h.resident_size, f.sections[0].offset);
    EXPECT_EQ(f.h.frame_sections, 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(f.section_info[k][1], f.sections[k].size());
      EXPECT_EQ(f.sections[k].size() % 16, 0u);
      EXPECT_EQ(f.sections[k].position_set_count(), 1u);
      EXPECT_EQ(f.sections[k].rotation_set_count(), 1u);
    }
    EXPECT_EQ(f.sections[1].offset, f.sections[0].offset + f.sections[0].size());
    ASSERT_TRUE(f.trajectory.has_value());
    EXPECT_EQ(f.trajectory->rotations.size(), 4u);
    EXPECT_EQ(f.trajectory->flags[1], 1);
    // Free bytes the writer chose are zeros (0xFF in channel lists).
    for (const auto* pad : {&f.unchanging_lead_pad, &f.unchanging_struct_pad, &f.unchanging_data_pad,
                            &f.resident_pad, &f.sections[0].rows_pad, &f.sections[0].end_pad})
      for (auto b : *pad) EXPECT_EQ(b, 0);
    EXPECT_EQ(f.list_pads[2], bytes(8, 0xFF));  // one channel: 3 spare entries + 2 bytes
    EXPECT_EQ(f.unchanging_struct_pad.size(), x64 ? 4u : 0u);

    auto d = decode_qsa(f);
    ASSERT_EQ(d.sample_count, 4u);
    ASSERT_EQ(d.channels.size(), 3u);
    ASSERT_EQ(d.channels[0].translation.size(), 1u);
    EXPECT_FLOAT_EQ(d.channels[0].translation[0][0], 1.0f);
    EXPECT_FLOAT_EQ(d.channels[0].translation[0][2], 3.0f);
    ASSERT_EQ(d.channels[2].translation.size(), 4u);
    for (int frame = 0; frame < 4; ++frame)
      for (int c = 0; c < 3; ++c)  // init (1, 2, 3) + level 10(c + 1) + frame
        EXPECT_NEAR(d.channels[2].translation[frame][c], (c + 1) + 10 * (c + 1) + frame, 1e-4) << frame;
    ASSERT_EQ(d.channels[0].rotation.size(), 4u);
    for (const auto& q : d.channels[0].rotation) EXPECT_NEAR(std::fabs(q[3]), 1.0f, 1e-6f);
  }
}

TEST(QsaWrite, InconsistentRawStructuresAreRefused) {
  auto f = hand_built(true);
  f.sections[0].position_rows.pop_back();
  EXPECT_THROW((void)serialise_qsa(f), core::failure);
  f = hand_built(false);
  f.sections[1].rotation_info.resize(2);
  EXPECT_THROW((void)serialise_qsa(f), core::failure);
  f = hand_built(true);
  f.section_info.pop_back();
  EXPECT_THROW((void)serialise_qsa(f), core::failure);
  f = hand_built(false);
  f.unchanging_rotations.clear();
  EXPECT_THROW((void)serialise_qsa(f), core::failure);
}

// Edits of a sample's raw structure: free bytes of the same length are written as given; an extra
// factor set moves everything after it, recomputing counts, sizes and pointers; the clip decodes
// the same (no channel uses the new set).
TEST(QsaWrite, EditedSampleWritesWhatWasEdited) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_qsa(root);
  ASSERT_FALSE(files.empty());
  for (const auto& path : {files.front(), files.back()}) {
    SCOPED_TRACE(path);
    auto data = test::read_bytes(path);
    auto raw = parse_qsa(core::byte_reader(data));
    auto edited = raw;
    std::fill(edited.resident_pad.begin(), edited.resident_pad.end(), 0x5A);
    std::fill(edited.sections[0].end_pad.begin(), edited.sections[0].end_pad.end(), 0x33);
    edited.list_pads[1].assign(edited.list_pads[1].size(), 0xEE);
    auto b = serialise_qsa(edited);
    ASSERT_EQ(b.size(), data.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < b.size(); ++i) differ += b[i] != data[i];
    EXPECT_GT(differ, 0u);
    EXPECT_LE(differ, edited.resident_pad.size() + edited.sections[0].end_pad.size() + edited.list_pads[1].size());
    auto back = parse_qsa(core::byte_reader(b));
    EXPECT_EQ(back.resident_pad, edited.resident_pad);
    EXPECT_EQ(back.sections[0].end_pad, edited.sections[0].end_pad);
    EXPECT_EQ(back.list_pads[1], edited.list_pads[1]);

    auto grown = raw;
    grown.sections[0].position_sets.push_back({-1, -1, -1, 1, 1, 1});
    auto g = serialise_qsa(grown);
    auto gb = parse_qsa(core::byte_reader(g));
    EXPECT_EQ(gb.sections[0].position_set_count(), raw.sections[0].position_set_count() + 1u);
    EXPECT_GE(gb.sections[0].size(), raw.sections[0].size() + 24u);
    EXPECT_EQ(gb.section_info[0][1], gb.sections[0].size());
    EXPECT_EQ(serialise_qsa(gb), g);
    auto d0 = decode_qsa(raw), d1 = decode_qsa(gb);
    ASSERT_EQ(d0.channels.size(), d1.channels.size());
    for (std::size_t c = 0; c < d0.channels.size(); ++c) {
      EXPECT_EQ(d0.channels[c].translation, d1.channels[c].translation) << c;
      EXPECT_EQ(d0.channels[c].rotation, d1.channels[c].rotation) << c;
    }
    EXPECT_EQ(d0.trajectory_translation, d1.trajectory_translation);
  }
}

// A damaged sample through what `rewrite` runs: a clean error (never E_INTERNAL), or the very bytes it read.
TEST(QsaWrite, DamagedSamplesFailCleanlyOrWriteBackWhatTheyRead) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_qsa(root);
  ASSERT_FALSE(files.empty());
  std::mt19937 rng(17);
  std::size_t ok = 0, failed = 0;
  for (const auto& path : {files.front(), files.back()}) {
    auto data = test::read_bytes(path);
    auto check = [&](const bytes& b) {
      // What the registry's rewrite runs (register.cpp), with its error guard.
      auto r = core::guarded(path, "morpheme-qsa", [&] {
        auto out = serialise_qsa(parse_qsa(core::byte_reader(b)));
        if (out != b) core::fail(code::roundtrip_mismatch, "QSA did not write back byte for byte");
        return out;
      });
      if (r) {
        EXPECT_TRUE(r.value() == b) << path;
        ++ok;
      } else {
        EXPECT_NE(r.error().code, code::internal) << r.error().to_string();
        ++failed;
      }
    };
    for (std::size_t cut = 0; cut < data.size(); cut += 97) check(bytes(data.begin(), data.begin() + cut));
    for (int i = 0; i < 200; ++i) {
      auto b = data;
      for (int k = 0; k < 3; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
      check(b);
    }
  }
  std::printf("[ info ] damaged QSA: %zu written back, %zu refused\n", ok, failed);
  EXPECT_GT(ok, 0u);
  EXPECT_GT(failed, 0u);
}
