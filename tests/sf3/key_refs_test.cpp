// The scene readers take keys straight from the file bytes (key_table_ref, parse without
// copies) and convert texture rows straight into the atlas: these must equal the copying parse
// and the per-texture formula, failures included.
#include <cstring>
#include <limits>
#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "formats/sf3/decode.hpp"
#include "formats/sf3/key_table.hpp"
#include "formats/sf3/x8an.hpp"
#include "formats/sf3/x8pc.hpp"
#include "synthetic.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::sf3;

namespace {

template <typename T>
T at(const std::uint8_t* p, core::endian e) {
  std::uint32_t v = 0;
  if (e == core::endian::big)
    for (std::size_t i = 0; i < sizeof(T); ++i) v = (v << 8) | p[i];
  else
    for (std::size_t i = sizeof(T); i-- > 0;) v = (v << 8) | p[i];
  return static_cast<T>(v);
}

template <typename T, typename V>
void expect_array(const std::uint8_t* data, core::endian e, std::uint32_t off, std::uint32_t n, const V& copied) {
  ASSERT_EQ(copied.size(), n);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(at<T>(data + off + sizeof(T) * i, e), copied[i]) << i;
}

// Every array a ref points at holds what the copying parse read.
void expect_refs_match(const key_table_ref& ref, const std::uint8_t* data, const key_table& t) {
  ASSERT_EQ(ref.bones.size(), t.bones.size());
  EXPECT_EQ(ref.canonical, t.canonical);
  EXPECT_EQ(ref.end, t.end);
  for (std::size_t b = 0; b < ref.bones.size(); ++b) {
    const auto& r = ref.bones[b];
    const auto& k = t.bones[b];
    expect_array<std::uint16_t>(data, ref.order, r.off[0], r.n[0], k.t_frames);
    expect_array<std::uint16_t>(data, ref.order, r.off[1], r.n[1], k.r_frames);
    expect_array<std::uint16_t>(data, ref.order, r.off[2], r.n[2], k.s_frames);
    for (std::size_t c = 0; c < 3; ++c) expect_array<std::int32_t>(data, ref.order, r.off[3 + c], r.n[0], k.t[c]);
    for (std::size_t c = 0; c < 4; ++c) expect_array<std::int16_t>(data, ref.order, r.off[6 + c], r.n[1], k.r[c]);
    for (std::size_t c = 0; c < 3; ++c) expect_array<std::int32_t>(data, ref.order, r.off[10 + c], r.n[2], k.s[c]);
  }
  EXPECT_EQ(frame_range(ref, data), frame_range(t));
}

template <class F>
std::string outcome(F&& f) {
  try {
    f();
    return "ok";
  } catch (const core::failure& e) {
    return e.error().to_string();
  }
}


}  // namespace

// Random tables in both byte orders, intact and with flipped bytes in the records (counts and
// offsets out of range, overlapping arrays, lost terminators): the scan fails exactly when the
// copying parse fails, and where both succeed the refs point at the copied values.
TEST(KeyTableRef, ScanPointsAtWhatTheParseCopiesAndFailsAlike) {
  std::mt19937 rng(316);
  int ok = 0, failed = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    const auto order = iter % 2 ? core::endian::little : core::endian::big;
    auto file = synthetic::random_table_file(rng, rng() % 7, order);
    const std::uint32_t table = file.table;
    bytes& b = file.b;
    if (iter % 3) synthetic::damage(rng, b, table, false);
    if (iter % 11 == 0) b.resize(rng() % (b.size() + 1));
    core::byte_reader r(b, order, 0x40);
    key_table_ref ref;
    key_table copy;
    const std::string a = outcome([&] { ref = scan_key_table(r, table, 4); });
    const std::string c = outcome([&] { copy = parse_key_table(r, table, 4); });
    ASSERT_EQ(a, c) << iter;
    if (a != "ok") {
      ++failed;
      continue;
    }
    ++ok;
    expect_refs_match(ref, b.data(), copy);
  }
  EXPECT_GT(ok, 300);
  EXPECT_GT(failed, 100);
}

// parse_x8pc without copies: the same refs, the same failures (byte flips and truncations of
// the synthetic model), keys left empty.
TEST(KeyTableRef, X8pcWithoutCopiesChecksTheSameAndPointsAtTheKeys) {
  const bytes base = synthetic::x8pc();
  std::mt19937 rng(317);
  int ok = 0;
  for (int iter = 0; iter < 1200; ++iter) {
    bytes b = base;
    if (iter > 0) {
      if (iter % 5 == 0) b.resize(rng() % b.size());
      else b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    }
    x8pc_file copy, refs;
    const std::string a = outcome([&] { copy = parse_x8pc(b, true); });
    const std::string c = outcome([&] { refs = parse_x8pc(b, false); });
    ASSERT_EQ(a, c) << iter;
    if (a != "ok") continue;
    ++ok;
    ASSERT_EQ(copy.models.size(), refs.models.size());
    for (std::size_t m = 0; m < copy.models.size(); ++m) {
      const auto& mc = copy.models[m];
      const auto& mr = refs.models[m];
      EXPECT_TRUE(mr.anim.keys.bones.empty());
      EXPECT_EQ(mr.anim.keys.canonical, mc.anim.keys.canonical);
      EXPECT_EQ(mr.anim.keys.end, mc.anim.keys.end);
      EXPECT_EQ(mr.anim.trailer, mc.anim.trailer);
      EXPECT_EQ(mr.anim.original, mc.anim.original);
      expect_refs_match(mr.anim.key_refs, mr.data[3].data(), mc.anim.keys);
      expect_refs_match(mc.anim.key_refs, mc.data[3].data(), mc.anim.keys);
    }
  }
  EXPECT_GT(ok, 100);
}

// parse_x8an without copies: per segment the refs point at the copied keys, `frames` is the
// copied table's frame_range, and damaged files fail alike.
TEST(KeyTableRef, X8anWithoutCopiesChecksTheSameAndPointsAtTheKeys) {
  std::mt19937 rng(318);
  int ok = 0;
  for (int iter = 0; iter < 300; ++iter) {
    core::byte_writer w(core::endian::big);
    const std::size_t segs = 1 + rng() % 6;
    for (std::size_t s = 0; s < segs; ++s) {
      key_table t;
      const std::size_t bones = 1 + rng() % 4;
      for (std::size_t b = 0; b < bones; ++b) t.bones.push_back(synthetic::random_record(rng, static_cast<std::uint16_t>(rng() % 3 * 10)));
      const std::size_t start = w.size();
      w.u32(0);
      const auto table = write_key_table(w, start, t);
      w.patch_u32(start, table);
      while (w.size() % 0x800) w.u8(0);
    }
    bytes b = w.take();
    if (iter % 2) {
      for (int f = 0; f < 3; ++f) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
      if (iter % 7 == 1) b.resize(rng() % b.size());
    }
    x8an_file copy, refs;
    const std::string a = outcome([&] { copy = parse_x8an(b, true); });
    const std::string c = outcome([&] { refs = parse_x8an(b, false); });
    ASSERT_EQ(a, c) << iter;
    if (a != "ok") continue;
    ++ok;
    ASSERT_EQ(copy.segments.size(), refs.segments.size());
    EXPECT_EQ(refs.source.data(), b.data());
    for (std::size_t s = 0; s < copy.segments.size(); ++s) {
      const auto& sc = copy.segments[s];
      const auto& sr = refs.segments[s];
      EXPECT_TRUE(sr.keys.bones.empty());
      EXPECT_EQ(sr.frames, frame_range(sc.keys));
      EXPECT_EQ(sc.frames, frame_range(sc.keys));
      EXPECT_EQ(sr.original, sc.original);
      EXPECT_EQ(sr.padding, sc.padding);
      expect_refs_match(sr.key_refs, b.data() + sr.offset, sc.keys);
    }
    EXPECT_EQ(x8an_index(refs).groups, x8an_index(copy).groups);
    EXPECT_EQ(x8an_index(refs).ranges, x8an_index(copy).ranges);
  }
  EXPECT_GT(ok, 100);
}

TEST(Texture, FlatColourTableEqualsTheFormulaBitForBit) {
  for (unsigned v = 0; v < 32; ++v) {
    const float a = flat_linear(v), b = flat_linear_reference(v);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << v;
  }
}

// The atlas rows are converted straight from VRAM: every texture's rectangle holds rgb555 of
// its pixels, the white block and the gaps stay as before (synthetic model and, when present,
// the shared samples).
TEST(Texture, AtlasRectanglesHoldThePerPixelFormula) {
  std::vector<bytes> inputs{synthetic::x8pc()};
  for (const char* n : {"sf3/X8PC00A.BIN", "sf3/X8PC41X.BIN"}) {
    const std::string p = std::string(RIGRIP_SAMPLES_DIR) + "/" + n;
    if (std::filesystem::exists(p)) inputs.push_back(test::read_bytes(p));
  }
  for (const auto& in : inputs) {
    const x8pc_file f = parse_x8pc(in, false);
    read_context ctx;
    ctx.data = in;
    ctx.path = "X8PC99Z.BIN";
    diagnostics d;
    ctx.diags = &d;
    const scene s = read_x8pc_scene(ctx);
    ASSERT_EQ(s.textures.size(), f.models.size());
    for (std::size_t m = 0; m < f.models.size(); ++m) {
      const auto tex = decode_textures(f.models[m]);
      const texture& atlas = s.textures[m];
      const auto& rects = atlas.extras["sf3_texture_rects"];
      ASSERT_EQ(rects.size(), tex.images.size());
      std::vector<bool> covered(std::size_t{atlas.width} * atlas.height, false);
      for (std::size_t i = 0; i < tex.images.size(); ++i) {
        const auto& t = tex.images[i];
        const std::size_t x0 = rects[i][0], y0 = rects[i][1];
        for (std::uint32_t y = 0; y < t.height; ++y)
          for (std::uint32_t x = 0; x < t.width; ++x) {
            const std::size_t src = t.start + 2 * (std::size_t{y} * t.width + x);
            const auto px = rgb555_reference(static_cast<std::uint16_t>(tex.vram[src] << 8 | tex.vram[src + 1]));
            const std::size_t dst = (y0 + y) * atlas.width + x0 + x;
            covered[dst] = true;
            for (std::size_t c = 0; c < 4; ++c) ASSERT_EQ(atlas.rgba[4 * dst + c], px[c]) << m << " " << i;
          }
      }
      for (std::size_t p = 0; p < covered.size(); ++p) {
        if (covered[p]) continue;
        const bool white = p / atlas.width < 4 && p % atlas.width < 4;
        for (std::size_t c = 0; c < 4; ++c) ASSERT_EQ(atlas.rgba[4 * p + c], white ? 255 : 0) << p;
      }
    }
  }
}

// u16_min_max (frame_range's loop, SSE2 blocks of eight plus a tail) against the plain loop:
// every length 0..40 at odd and even offsets, both byte orders, extremes 0 and 0xFFFF included.
TEST(KeyTableRef, U16MinMaxEqualsThePlainLoop) {
  std::mt19937 rng(319);
  for (int iter = 0; iter < 4000; ++iter) {
    const std::size_t n = iter % 41, off = iter % 3;
    const bool big = iter % 2 == 0;
    bytes b(off + 2 * n + 1);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng() % 5 == 0 ? (rng() % 2 ? 0xFF : 0) : rng());
    unsigned lo = 0x10000, hi = 0;
    if (iter % 7 == 0) lo = rng() % 0x10000, hi = rng() % 0x10000;
    unsigned rlo = lo, rhi = hi;
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned v = big ? (unsigned{b[off + 2 * i]} << 8 | b[off + 2 * i + 1]) : (unsigned{b[off + 2 * i + 1]} << 8 | b[off + 2 * i]);
      rlo = std::min(rlo, v);
      rhi = std::max(rhi, v);
    }
    u16_min_max(b.data() + off, n, big, lo, hi);
    ASSERT_EQ(lo, rlo) << iter;
    ASSERT_EQ(hi, rhi) << iter;
  }
}

namespace {
// scan_key_table as it was: every array checked and charged to the budget one by one, the
// layout followed along.
key_table_ref reference_scan(const core::byte_reader& r, std::uint32_t table_offset, std::uint32_t data_start,
                             work_budget* budget) {
  key_table_ref t;
  t.order = r.byte_order();
  if (table_offset > r.size())
    core::fail(code::bad_offset, "keyframe table offset " + hex(table_offset) + " past the end (" +
                                     std::to_string(r.size()) + " bytes)", r.base());
  std::size_t max_bones = r.checked_count_at(table_offset, (r.size() - table_offset) / 64, 64, "keyframe table");
  std::uint32_t pos = data_start, at = table_offset;
  const std::uint8_t* bytes = r.data().data();
  while (true) {
    if (r.u32_at(at) == end_marker) break;
    if (t.bones.size() >= max_bones)
      core::fail(code::truncated, "keyframe table at " + hex(r.base() + table_offset) + " has no 0xFFFFFFFF end marker",
                 r.base() + at);
    key_record_ref k;
    for (int i = 0; i < 3; ++i) k.n[i] = r.u32_at(at + 4 * i);
    for (int i = 0; i < 13; ++i) k.off[i] = r.u32_at(at + 12 + 4 * i);
    const std::size_t bone = t.bones.size();
    auto expect = [&](int i, std::uint32_t n) {
      if (k.off[i] != pos) t.canonical = false;
      pos = k.off[i] + n;
    };
    auto count = [&](std::uint32_t c, std::uint32_t elem, int field) {
      std::size_t n = r.checked_count_at(k.off[field], c, elem, ("keyframes of bone " + std::to_string(bone)).c_str());
      budget->spend(std::uint64_t{n} * elem, r.base() + at, "keyframe table");
    };
    auto pad_zero = [&]() {
      std::uint32_t aligned = align_up(pos, 4);
      for (std::uint32_t p = pos; p < aligned && p < r.size(); ++p)
        if (bytes[p] != 0) t.canonical = false;
      pos = aligned;
    };
    for (int c = 0; c < 3; ++c) count(k.n[c], 2, c), expect(c, k.n[c] * 2);
    pad_zero();
    for (int c = 0; c < 3; ++c) count(k.n[0], 4, 3 + c), expect(3 + c, k.n[0] * 4);
    for (int c = 0; c < 4; ++c) count(k.n[1], 2, 6 + c), expect(6 + c, k.n[1] * 2);
    pad_zero();
    for (int c = 0; c < 3; ++c) count(k.n[2], 4, 10 + c), expect(10 + c, k.n[2] * 4);
    t.bones.push_back(k);
    at += 64;
  }
  if (pos != table_offset) t.canonical = false;
  t.end = at + 4;
  return t;
}

// scan_key_table and reference_scan on the same bytes and budget: the same outcome, and on
// success the same budget left, records and layout. Returns the outcome ("ok" or the error).
std::string expect_scans_agree(const core::byte_reader& r, std::uint32_t table, std::uint64_t left, int iter) {
  work_budget fast{left}, slow{left};
  key_table_ref a, c;
  const std::string ea = outcome([&] { a = scan_key_table(r, table, 4, &fast); });
  const std::string ec = outcome([&] { c = reference_scan(r, table, 4, &slow); });
  EXPECT_EQ(ea, ec) << iter;
  if (ea != "ok" || ec != "ok") return ea;
  EXPECT_EQ(fast.left, slow.left) << iter;
  EXPECT_EQ(a.bones.size(), c.bones.size()) << iter;
  EXPECT_EQ(a.canonical, c.canonical) << iter;
  EXPECT_EQ(a.end, c.end) << iter;
  for (std::size_t i = 0; i < std::min(a.bones.size(), c.bones.size()); ++i) {
    EXPECT_EQ(std::memcmp(a.bones[i].n, c.bones[i].n, sizeof a.bones[i].n), 0) << iter;
    EXPECT_EQ(std::memcmp(a.bones[i].off, c.bones[i].off, sizeof a.bones[i].off), 0) << iter;
  }
  return ea;
}
}  // namespace

// The scan charges a record's 13 arrays at once when all lie inside the bytes and the budget
// holds them: with damaged records (counts and offsets out of range, lost terminators) and
// budgets from nothing to plenty it fails with the same error, leaves the same budget and finds
// the same records and layout as the array-by-array check.
TEST(KeyTableRef, ScanChargingARecordAtOnceEqualsTheArrayByArrayCheck) {
  std::mt19937 rng(1602);
  int ok = 0, failed = 0, budget_failed = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const auto order = iter % 2 ? core::endian::little : core::endian::big;
    auto file = synthetic::random_table_file(rng, rng() % 7, order);
    const std::uint32_t table = file.table;
    bytes& b = file.b;
    if (iter % 3) synthetic::damage(rng, b, table, true);
    if (iter % 5 == 0 && table >= 8) {  // a record pointing at an earlier bone's arrays (non-canonical)
      const std::size_t p = table + 12 + 4 * (rng() % 13);
      if (p + 4 <= b.size()) b[p + (order == core::endian::big ? 3 : 0)] ^= 4;
    }
    if (iter % 11 == 0) b.resize(rng() % (b.size() + 1));
    core::byte_reader r(b, order, 0x40);
    const std::uint64_t left = iter % 4 == 0 ? rng() % (b.size() + 1) : 2 * b.size() + 4096;
    const std::string ea = expect_scans_agree(r, table, left, iter);
    if (ea != "ok") {
      ++failed;
      budget_failed += ea.find("overlapping arrays") != std::string::npos;
      continue;
    }
    ++ok;
  }
  EXPECT_GT(ok, 500);
  EXPECT_GT(failed, 300);
  EXPECT_GT(budget_failed, 50);
}

// frame_range of a scanned table (one accumulator for the table, reduced once; the last SSE2
// block of an array overlapping the one before) against the copied table's plain loop: arrays
// of every length 0..40, both byte orders, values up to 0xFFFF.
TEST(KeyTableRef, FrameRangeOfLongAndShortArraysEqualsThePlainLoop) {
  std::mt19937 rng(1603);
  for (int iter = 0; iter < 600; ++iter) {
    key_table t;
    const std::size_t bones = 1 + rng() % 4;
    for (std::size_t b = 0; b < bones; ++b) {
      key_record k;
      const std::size_t n[3] = {rng() % 41, rng() % 41, rng() % 41};
      const unsigned span = rng() % 3 == 0 ? 0x10000u : 1u + rng() % 500;
      const unsigned first = rng() % (0x10000u - std::min(span, 0xFFFFu));
      auto frame = [&] { return static_cast<std::uint16_t>(std::min<unsigned>(0xFFFFu, first + static_cast<unsigned>(rng() % span))); };
      for (std::size_t i = 0; i < n[0]; ++i) {
        k.t_frames.push_back(frame());
        for (auto& c : k.t) c.push_back(0);
      }
      for (std::size_t i = 0; i < n[1]; ++i) {
        k.r_frames.push_back(frame());
        for (auto& c : k.r) c.push_back(0);
      }
      for (std::size_t i = 0; i < n[2]; ++i) {
        k.s_frames.push_back(frame());
        for (auto& c : k.s) c.push_back(0);
      }
      t.bones.push_back(std::move(k));
    }
    const auto order = iter % 2 ? core::endian::little : core::endian::big;
    core::byte_writer w(order);
    w.u32(0);
    const auto table = write_key_table(w, 0, t);
    w.patch_u32(0, table);
    const bytes b = w.take();
    core::byte_reader r(b, order, 0);
    const key_table_ref ref = scan_key_table(r, table, 4);
    ASSERT_EQ(frame_range(ref, b.data()), frame_range(t)) << iter;
  }
}

// load_at (one load plus a byte swap) equals the byte-by-byte form for every element type the
// key tables use, both byte orders, at odd and even addresses.
TEST(KeyTableRef, LoadAtEqualsTheByteByByteFormInBothOrders) {
  std::mt19937 rng(1610);
  std::vector<std::uint8_t> buf(4096);
  for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
  for (std::size_t i = 0; i + 4 <= buf.size(); ++i) {
    const std::uint8_t* p = buf.data() + i;
    for (auto e : {core::endian::big, core::endian::little}) {
      ASSERT_EQ(load_at<std::uint8_t>(p, e), at<std::uint8_t>(p, e)) << i;
      ASSERT_EQ(load_at<std::uint16_t>(p, e), at<std::uint16_t>(p, e)) << i;
      ASSERT_EQ(load_at<std::int16_t>(p, e), at<std::int16_t>(p, e)) << i;
      ASSERT_EQ(load_at<std::uint32_t>(p, e), at<std::uint32_t>(p, e)) << i;
      ASSERT_EQ(load_at<std::int32_t>(p, e), at<std::int32_t>(p, e)) << i;
    }
  }
}

// Records in the canonical layout are checked as one span: with budgets around the exact
// need, pad bytes made nonzero, files cut anywhere in the arrays or the table, and one offset
// or count nudged (a record that no longer follows), the scan fails alike, leaves the same
// budget and finds the same records and layout as the array-by-array check.
TEST(KeyTableRef, ScanOfCanonicalRecordsAsOneSpanEqualsTheArrayByArrayCheck) {
  std::mt19937 rng(1612);
  int ok = 0, failed = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const auto order = iter % 2 ? core::endian::little : core::endian::big;
    auto file = synthetic::random_table_file(rng, 1 + rng() % 6, order);
    const std::uint32_t table = file.table;
    bytes& b = file.b;
    const std::uint64_t need = table - 4;  // the arrays and pads of the canonical layout
    std::uint64_t left = 2 * b.size() + 4096;
    switch (iter % 6) {
      case 0: left = need + (rng() % 9) - 4; break;  // around the need (pads are not charged)
      case 1:
        if (table > 4) b[4 + rng() % (table - 4)] ^= static_cast<std::uint8_t>(1 + rng() % 255);  // data or pad
        break;
      case 2: b.resize(rng() % (b.size() + 1)); break;
      case 3: {  // an offset or count one element off
        const std::size_t p = table + 4 * (rng() % 16);
        if (p + 4 <= b.size()) b[p + (order == core::endian::big ? 3 : 0)] += static_cast<std::uint8_t>(rng() % 2 ? 2 : 1);
        break;
      }
      default: break;
    }
    core::byte_reader r(b, order, 0x40);
    const std::string ea = expect_scans_agree(r, table, left, iter);
    if (ea != "ok") {
      ++failed;
      continue;
    }
    ++ok;
  }
  EXPECT_GT(ok, 1000);
  EXPECT_GT(failed, 300);
}

// A bone whose three frame arrays follow each other is taken as one run: with arrays adjacent,
// apart, empty (their offsets anywhere) and in other orders, frame_range equals the plain loop
// over the arrays with keys.
TEST(KeyTableRef, FrameRangeOfAdjacentAndScatteredArraysEqualsThePlainLoop) {
  std::mt19937 rng(1614);
  for (int iter = 0; iter < 4000; ++iter) {
    const bool big = iter % 2 == 0;
    std::vector<std::uint8_t> data(2048);
    for (auto& v : data) v = static_cast<std::uint8_t>(rng());
    key_table_ref t;
    t.order = big ? core::endian::big : core::endian::little;
    unsigned lo = 0x10000, hi = 0;
    bool any = false;
    const std::size_t bones = rng() % 4;
    for (std::size_t b = 0; b < bones; ++b) {
      key_record_ref k;
      std::uint32_t pos = static_cast<std::uint32_t>(rng() % 512);
      for (int c = 0; c < 3; ++c) {
        k.n[c] = rng() % 4 == 0 ? 0 : static_cast<std::uint32_t>(rng() % 40);
        const unsigned how = rng() % 4;  // 0, 1: adjacent; 2: a gap; 3: anywhere
        k.off[c] = how < 2 ? pos : how == 2 ? pos + 2 * (1 + rng() % 8) : static_cast<std::uint32_t>(rng() % 1024);
        pos = k.off[c] + 2 * k.n[c];
        if (k.n[c] == 0 && rng() % 2) k.off[c] = static_cast<std::uint32_t>(rng());  // unchecked, unused
        for (std::uint32_t i = 0; i < k.n[c]; ++i) {
          const std::uint8_t* p = data.data() + k.off[c] + 2 * i;
          const unsigned v = big ? (unsigned{p[0]} << 8 | p[1]) : (unsigned{p[1]} << 8 | p[0]);
          lo = std::min(lo, v);
          hi = std::max(hi, v);
          any = true;
        }
      }
      t.bones.push_back(k);
    }
    const auto expect = any ? std::pair<int, int>{static_cast<int>(lo), static_cast<int>(hi)} : std::pair<int, int>{-1, -1};
    ASSERT_EQ(frame_range(t, data.data()), expect) << iter;
  }
}

// The mesh vertex check uses the inline core::all_finite: it agrees with core::finite on
// vertices with NaN, infinities, huge, tiny and ordinary components in every position.
TEST(MeshTables, VertexCheckInlineEqualsCoreFinite) {
  const float vals[] = {0.0f, -0.0f, 1.5f, -3e38f, 1e-45f, std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
  for (float a : vals)
    for (float b : vals)
      for (float c : vals) {
        const vec3 v{a, b, c};
        EXPECT_EQ(core::all_finite(v), core::finite(v));
      }
}
