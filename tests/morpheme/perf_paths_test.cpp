// Fast paths added for decode speed must equal the checked readers they bypass: strings read
// straight from the character block versus core::byte_reader::cstring_at, errors included.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/failure.hpp"
#include "formats/morpheme/nmb.hpp"
#include "formats/morpheme/nsa.hpp"

using namespace rigrip;
using namespace rigrip::morpheme;
using bytes = std::vector<std::uint8_t>;

namespace {

// {u32 count, u32 size, u64 offsets_ptr, u64 chars_ptr} + offsets + chars (x64 layout).
bytes string_table(const std::vector<std::uint32_t>& offs, const bytes& chars, std::uint32_t size) {
  bytes b(24, 0);
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  put32(0, static_cast<std::uint32_t>(offs.size()));
  put32(4, size);
  put32(8, 24);
  put32(16, static_cast<std::uint32_t>(24 + 4 * offs.size()));
  for (auto o : offs) {
    b.resize(b.size() + 4);
    put32(b.size() - 4, o);
  }
  b.insert(b.end(), chars.begin(), chars.end());
  return b;
}

// The reference: each string through the checked reader (the code before the fast path).
std::vector<std::string> reference(const bytes& b, const std::vector<std::uint32_t>& offs, std::uint32_t size) {
  core::byte_reader r(b);
  std::vector<std::string> out;
  std::uint64_t chars = 24 + 4 * offs.size();
  for (auto o : offs) {
    if (o >= size) core::fail(code::bad_offset, "offset");
    out.push_back(r.sub(chars, size).cstring_at(o, 4096));
  }
  return out;
}

struct outcome {
  std::vector<std::string> strings;
  int code = -1;
  std::uint64_t offset = 0;
};
template <class F>
outcome run(F f) {
  outcome o;
  try {
    o.strings = f();
  } catch (const core::failure& e) {
    o.code = static_cast<int>(e.error().code);
    o.offset = e.error().offset;
  }
  return o;
}

}  // namespace

TEST(PerfPaths, StringTableMatchesCheckedReader) {
  std::mt19937 rng(16);
  int failures = 0, successes = 0;
  for (int iter = 0; iter < 400; ++iter) {
    // Lengths around the 4096 limit and near the block end, with and without terminators.
    std::uint32_t size = (iter % 4 == 0) ? 4090 + rng() % 20 : 1 + rng() % 64;
    bytes chars(size + (rng() % 3));  // sometimes bytes past `size` inside the packet
    for (auto& c : chars) c = static_cast<std::uint8_t>(rng() % 5 == 0 ? 0 : 'a' + rng() % 26);
    if (iter % 7 == 0) std::fill(chars.begin(), chars.end(), 'x');            // no NUL at all
    if (iter % 11 == 0 && size > 4) chars[size - 1] = 0, chars[0] = 'q';       // NUL at the very end
    if (iter % 4 == 0 && iter % 8 == 0 && size > 4096) {
      std::fill(chars.begin(), chars.end(), 'y');
      chars[std::min<std::size_t>(4096 + iter % 3, size - 1)] = 0;            // lengths 4096..4098
    }
    std::vector<std::uint32_t> offs;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k)
      offs.push_back(iter % 13 == 0 && k == 0 ? size + rng() % 3 : rng() % size);
    auto b = string_table(offs, chars, size);
    auto want = run([&] { return reference(b, offs, size); });
    auto got = run([&] { return read_sdk_string_table(sized_reader{core::byte_reader(b), 8}, 0); });
    ASSERT_EQ(want.code, got.code) << "iteration " << iter;
    if (want.code >= 0 && want.code != static_cast<int>(code::bad_offset)) EXPECT_EQ(want.offset, got.offset) << iter;
    ASSERT_EQ(want.strings, got.strings) << "iteration " << iter;
    (want.code >= 0 ? failures : successes)++;
  }
  EXPECT_GT(failures, 20);
  EXPECT_GT(successes, 100);
}

// parse_nsa reads little-endian sample words straight from the checked blocks; the same bytes read
// big-endian go through the byte_reader (the reference). Both must give the same words, byte-swapped.
TEST(PerfPaths, NsaSampleWordsMatchCheckedReader) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int iter = 0; iter < 12; ++iter) {
    nsa_input in;
    in.sample_count = 2 + rng() % 40;
    in.channels.resize(1 + rng() % 9);
    for (auto& ch : in.channels) {
      for (std::uint32_t s = 0; s < in.sample_count; ++s) {
        ch.translation.push_back({u(rng) * 5, u(rng), u(rng)});
        quat q{u(rng), u(rng), u(rng), 1.0f};
        ch.rotation.push_back(q);
      }
    }
    auto raw = serialise_nsa(encode_nsa(in));
    auto f = parse_nsa(core::byte_reader(raw));
    ASSERT_TRUE(f.dynamic_segment);
    const auto& d = *f.dynamic_segment;
    // Reference: every word through byte_reader at the offsets the serialiser wrote.
    core::byte_reader r(raw);
    std::uint64_t dp = r.u64_at(0xA8);
    std::uint64_t tp = dp + r.u64_at(dp + 0x10), rp = dp + r.u64_at(dp + 0x20);
    for (std::size_t i = 0; i < d.translations.size(); ++i) ASSERT_EQ(d.translations[i], r.u32_at(tp + 4 * i)) << iter;
    for (std::uint32_t s = 0; s < d.sample_count; ++s)
      for (std::uint32_t c = 0; c < d.rotation_count; ++c)
        for (int k = 0; k < 3; ++k)
          ASSERT_EQ(d.rotations[s * d.rotation_count + c][static_cast<std::size_t>(k)],
                    r.u16_at(rp + s * d.rotation_row_stride + 6ull * c + 2ull * k)) << iter;
    EXPECT_EQ(serialise_nsa(f), raw);
  }
}
