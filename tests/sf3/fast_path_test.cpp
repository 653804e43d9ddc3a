// SF3 fast paths that must equal the plain formulas: the unchecked LZSS block reader and
// the RGB555 row conversion.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "formats/sf3/decode.hpp"
#include "formats/sf3/lzss.hpp"
#include "formats/sf3/x8an.hpp"
#include "formats/sf3/x8pc_mesh.hpp"
#include "synthetic.hpp"

using namespace rigrip;
using namespace rigrip::sf3;

namespace {
// lzss_decompress as it was: every word through the checked reader.
bytes reference_lzss(const core::byte_reader& in, std::size_t max_bytes, std::size_t* consumed) {
  core::byte_reader r = in;
  std::vector<std::uint16_t> out;
  const std::size_t max_words = max_bytes / 2;
  bool done = false;
  while (!done) {
    std::uint16_t ctrl = r.u16();
    for (int bit = 15; bit >= 0 && !done; --bit) {
      std::uint64_t at = r.abs();
      std::uint16_t w = r.u16();
      if (!(ctrl & (1u << bit))) {
        if (out.size() >= max_words) core::fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
        out.push_back(w);
        continue;
      }
      if (w == 0) {
        done = true;
        break;
      }
      std::size_t back = w >> 5, len = (w & 0x1Fu) + 2;
      if (back == 0 || back > out.size())
        core::fail(code::bad_value, "texture LZSS copy reaches " + std::to_string(back) + " words back, only " +
                                        std::to_string(out.size()) + " decoded", at);
      if (out.size() + len > max_words)
        core::fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
      for (std::size_t k = 0; k < len; ++k) out.push_back(out[out.size() - back]);
    }
  }
  if (consumed) *consumed = r.tell();
  bytes b(out.size() * 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    b[2 * i] = static_cast<std::uint8_t>(out[i] >> 8);
    b[2 * i + 1] = static_cast<std::uint8_t>(out[i]);
  }
  return b;
}

template <class F>
std::string outcome(F&& f, bytes& out) {
  try {
    out = f();
    return "ok";
  } catch (const core::failure& e) {
    return e.error().to_string();
  }
}
}  // namespace

namespace {
// The shape of random LZSS input: the most blocks, each control word, each copy's distance
// (given the words decoded so far), one end marker in `end_odds` copies, then the odds (one in
// N) of an end block, of a truncation and of little-endian words, and the reader's base.
struct lzss_shape {
  unsigned max_blocks;
  std::uint16_t (*ctrl)(std::mt19937&);
  std::size_t (*back)(std::mt19937&, std::size_t words);
  unsigned end_odds, no_end_block_odds, truncate_odds, little_odds;
  std::uint64_t base;
};

// 5,000 random inputs of `shape`: lzss_decompress and the checked reader give the same outcome,
// bytes and consumed size; returns how many decoded without error.
int decode_random_like_reference(std::uint32_t seed, const lzss_shape& shape) {
  std::mt19937 rng(seed);
  int ok = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    bytes in;
    const int blocks = 1 + static_cast<int>(rng() % shape.max_blocks);
    std::size_t words = 0;
    for (int b = 0; b < blocks; ++b) {
      const std::uint16_t ctrl = shape.ctrl(rng);
      in.push_back(static_cast<std::uint8_t>(ctrl >> 8));
      in.push_back(static_cast<std::uint8_t>(ctrl));
      for (int bit = 15; bit >= 0; --bit) {
        std::uint16_t w;
        if (ctrl & (1u << bit)) {
          const std::size_t back = shape.back(rng, words);
          w = static_cast<std::uint16_t>((back << 5) | (rng() % 32));
          if (rng() % shape.end_odds == 0) w = 0;  // end marker
          words += (w & 31u) + 2;
        } else {
          w = static_cast<std::uint16_t>(rng());
          ++words;
        }
        in.push_back(static_cast<std::uint8_t>(w >> 8));
        in.push_back(static_cast<std::uint8_t>(w));
      }
    }
    if (rng() % shape.no_end_block_odds) in.insert(in.end(), {0x80, 0x00, 0x00, 0x00});  // end
    if (rng() % shape.truncate_odds == 0) in.resize(rng() % (in.size() + 1));
    const std::size_t max_bytes = rng() % 3 == 0 ? 2 * (rng() % (words + 1)) : 1u << 20;
    const auto order = rng() % shape.little_odds == 0 ? core::endian::little : core::endian::big;
    core::byte_reader r(in, order, shape.base);
    bytes a, b;
    std::size_t ua = 0, ub = 0;
    const auto ea = outcome([&] { return lzss_decompress(r, max_bytes, &ua); }, a);
    const auto eb = outcome([&] { return reference_lzss(r, max_bytes, &ub); }, b);
    EXPECT_EQ(ea, eb) << iter;
    EXPECT_EQ(a, b) << iter;
    EXPECT_EQ(ua, ub) << iter;
    if (ea != eb || a != b || ua != ub) return -1;
    ok += ea == "ok";
  }
  return ok;
}
}  // namespace

TEST(Lzss, BlockFastPathDecodesLikeTheCheckedReader) {
  const lzss_shape shape{
      40, [](std::mt19937& rng) { return static_cast<std::uint16_t>(rng() % 3 == 0 ? rng() : rng() & rng()); },
      [](std::mt19937& rng, std::size_t words) -> std::size_t { return 1 + rng() % (words + 2); },  // sometimes too far
      600, 2, 4, 5, 100};
  EXPECT_GT(decode_random_like_reference(5, shape), 200);
}

// The decoder's own fast cases: blocks of 16 literals (one 32-byte copy, also when the limit
// falls inside the block) and copies 1-3 words back (period 2, 4 or 6 bytes, repeated 8 bytes at
// a time after the first period multiple), in both byte orders, against the checked reader.
TEST(Lzss, LiteralBlocksAndShortPeriodCopiesDecodeLikeTheCheckedReader) {
  const lzss_shape shape{
      12,
      [](std::mt19937& rng) {
        const unsigned kind = rng() % 4;
        return kind == 0 ? std::uint16_t{0} : kind == 1 ? std::uint16_t{0xFFFF} : static_cast<std::uint16_t>(rng());
      },
      [](std::mt19937& rng, std::size_t words) -> std::size_t {
        return rng() % 8 == 0 ? 1 + rng() % (words + 2) : 1 + rng() % 4;
      },
      900, 4, 6, 3, 7};
  EXPECT_GT(decode_random_like_reference(16, shape), 300);
}

TEST(Texture, Rgb555RowsEqualThePerPixelFormulaForEveryPixel) {
  bytes src;
  for (unsigned p = 0; p < 65536; ++p) {
    src.push_back(static_cast<std::uint8_t>(p >> 8));
    src.push_back(static_cast<std::uint8_t>(p));
  }
  bytes dst(65536 * 4, 0xEE);
  rgb555_pixels(src.data(), 65536, dst.data());
  for (unsigned p = 0; p < 65536; ++p) {
    const auto px = rgb555_reference(static_cast<std::uint16_t>(p));
    for (int c = 0; c < 4; ++c) ASSERT_EQ(dst[4 * p + static_cast<unsigned>(c)], px[static_cast<std::size_t>(c)]) << p;
  }
}

// The eight-pixel blocks and the one-pixel tail: every length 0..40 at odd and even source
// offsets, random pixels (zeros and 0x8000 included), against the per-pixel formula.
TEST(Texture, Rgb555RowsOfAnyLengthAndOffsetEqualThePerPixelFormula) {
  std::mt19937 rng(16);
  for (std::size_t n = 0; n <= 40; ++n)
    for (std::size_t off = 0; off < 3; ++off) {
      bytes src(off + 2 * n);
      for (auto& b : src) b = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0 : rng());
      if (n > 2) src[off + 2] = 0x80, src[off + 3] = 0;
      bytes dst(4 * n + 8, 0xEE);
      rgb555_pixels(src.data() + off, n, dst.data() + 1);
      ASSERT_EQ(dst[0], 0xEE);
      for (std::size_t i = 4 * n + 1; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0xEE) << n << " " << off;
      for (std::size_t i = 0; i < n; ++i) {
        const auto px = rgb555_reference(static_cast<std::uint16_t>(src[off + 2 * i] << 8 | src[off + 2 * i + 1]));
        for (std::size_t c = 0; c < 4; ++c) ASSERT_EQ(dst[1 + 4 * i + c], px[c]) << n << " " << off << " " << i;
      }
    }
}

namespace {
void expect_same_record(const key_record& a, const key_record& b) {
  ASSERT_EQ(a.t_frames, b.t_frames);
  ASSERT_EQ(a.r_frames, b.r_frames);
  ASSERT_EQ(a.s_frames, b.s_frames);
  for (std::size_t c = 0; c < 3; ++c) ASSERT_EQ(a.t[c], b.t[c]);
  for (std::size_t c = 0; c < 4; ++c) ASSERT_EQ(a.r[c], b.r[c]);
  for (std::size_t c = 0; c < 3; ++c) ASSERT_EQ(a.s[c], b.s[c]);
}
}  // namespace

// parse_key_table reads each array in one pass (no zero-fill, records without the checked
// reader): random tables in both byte orders read back as written.
TEST(KeyTable, RandomTablesReadBackInBothByteOrders) {
  std::mt19937 rng(77);
  for (int iter = 0; iter < 300; ++iter) {
    const std::size_t bones = rng() % 9;
    const auto order = iter % 2 ? core::endian::little : core::endian::big;
    const auto f = synthetic::random_table_file(rng, bones, order);
    core::byte_reader r(f.b, order);
    const key_table back = parse_key_table(r, f.table, 4);
    EXPECT_TRUE(back.canonical);
    ASSERT_EQ(back.bones.size(), bones);
    for (std::size_t i = 0; i < bones; ++i) expect_same_record(back.bones[i], f.t.bones[i]);
    EXPECT_EQ(back.end, f.b.size());
  }
}

// x8an_index (groups and frame ranges once per read) against the per-segment formulas.
TEST(X8an, IndexEqualsGroupsAndFrameRangesOfEverySegment) {
  std::mt19937 rng(78);
  for (int iter = 0; iter < 40; ++iter) {
    core::byte_writer w(core::endian::big);
    const std::size_t segs = 1 + rng() % 12;
    for (std::size_t s = 0; s < segs; ++s) {
      key_table t;
      const std::size_t bones = 1 + rng() % (rng() % 3 == 0 ? 4 : 2);
      const auto first = static_cast<std::uint16_t>(rng() % 3 * 10);
      for (std::size_t b = 0; b < bones; ++b) t.bones.push_back(synthetic::random_record(rng, first));
      const std::size_t start = w.size();
      w.u32(0);
      const auto table = write_key_table(w, start, t);
      w.patch_u32(start, table);
      while (w.size() % 0x800) w.u8(0);
    }
    const x8an_file f = parse_x8an(w.take());
    ASSERT_EQ(f.segments.size(), segs);
    const x8an_layout l = x8an_index(f);
    ASSERT_EQ(l.groups.size(), segs);
    ASSERT_EQ(l.ranges.size(), segs);
    int group = 0;
    for (std::size_t i = 0; i < segs; ++i) {
      EXPECT_TRUE(f.segments[i].original.empty());  // canonical: no copy kept
      ASSERT_EQ(l.ranges[i], frame_range(f.segments[i].keys));
      if (i > 0 && (f.segments[i].keys.bones.size() != f.segments[i - 1].keys.bones.size() ||
                    frame_range(f.segments[i].keys).first == frame_range(f.segments[0].keys).first))
        ++group;
      ASSERT_EQ(l.groups[i], group);
    }
    EXPECT_EQ(x8an_groups(f), l.groups);
  }
}

// Mesh tables are read from spans checked once per table: a bad vertex index and a point
// count past the chunk still fail with the same code, message and absolute offset.
TEST(MeshTables, BadVertexAndShortPointTableFailAtTheirOffsets) {
  const bytes good = synthetic::x8pc();
  core::byte_reader fr(good, core::endian::big);
  const std::uint32_t mc = fr.u32_at(32);          // mesh chunk offset (entry 2)
  const std::uint32_t list = fr.u32_at(mc + 8);    // body list (offsets inside the chunk)
  const std::uint32_t pnt = fr.u32_at(mc + list), plt = fr.u32_at(mc + list + 8);
  EXPECT_NO_THROW((void)parse_geometry(parse_x8pc(good).models[0]));
  auto failure_of = [](const bytes& b) -> rigrip::error {
    try {
      (void)parse_geometry(parse_x8pc(b).models[0]);
    } catch (const core::failure& e) {
      return e.error();
    }
    return {};
  };
  bytes bad = good;
  bad[mc + plt + 12 + 2 * 2] = 0;
  bad[mc + plt + 12 + 2 * 2 + 1] = 9;  // third vertex of polygon 0: 9 of 4 points
  auto e = failure_of(bad);
  EXPECT_EQ(e.code, code::bad_value);
  EXPECT_NE(e.message.find("body mesh 0 polygon 0: vertex 9 of 4 points"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, mc + plt + 12 + 2 * 2);
  bad = good;
  bad[mc + list + 4 + 3] = 200;  // 200 points: past the chunk's end
  e = failure_of(bad);
  EXPECT_EQ(e.code, code::bad_count);
  EXPECT_NE(e.message.find("body mesh 0 points: count 200 x 12 bytes exceeds"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, mc + pnt);
}
