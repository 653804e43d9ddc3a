#include <gtest/gtest.h>

#include "core/bit_reader.hpp"
#include "core/byte_reader.hpp"

using namespace rigrip;
using namespace rigrip::core;

TEST(ByteReader, ReadsBothEndiansAndReportsAbsoluteOffsetOnTruncation) {
  std::vector<std::uint8_t> d = {0x12, 0x34, 0x56, 0x78, 0x9A};
  byte_reader le(d);
  EXPECT_EQ(le.u32(), 0x78563412u);
  byte_reader be(d, endian::big);
  EXPECT_EQ(be.u16(), 0x1234u);
  auto sub = be.sub(2, 3);
  EXPECT_EQ(sub.u16(), 0x5678u);
  try {
    (void)sub.u16();
    FAIL() << "expected truncation";
  } catch (const failure& f) {
    EXPECT_EQ(f.error().code, code::truncated);
    EXPECT_EQ(f.error().offset, 4u);  // absolute offset in the parent data
  }
}

TEST(ByteReader, CheckedCountRejectsCountsLargerThanTheData) {
  std::vector<std::uint8_t> d(16);
  byte_reader r(d);
  EXPECT_EQ(r.checked_count(4, 4, "floats"), 4u);
  EXPECT_THROW((void)r.checked_count(0xFFFFFFFFull, 4, "floats"), failure);
}

TEST(BitReader, MsbFirstAndSignExtension) {
  std::vector<std::uint8_t> d = {0b10110000, 0xFF};
  bit_reader r(d, bit_order::msb_first);
  EXPECT_EQ(r.read(1), 1u);
  EXPECT_EQ(r.read(3), 0b011u);
  EXPECT_EQ(r.read_signed(4), 0);
  EXPECT_EQ(r.read_signed(8), -1);
  EXPECT_THROW((void)r.read(1), failure);
}

TEST(BitWriter, RoundTripsBothOrders) {
  for (auto order : {bit_order::msb_first, bit_order::lsb_first}) {
    bit_writer w(order);
    w.write(5, 3);
    w.write_signed(-7, 6);
    w.write(0xABCDE, 20);
    auto bytes = w.take();
    bit_reader r(bytes, order);
    EXPECT_EQ(r.read(3), 5u);
    EXPECT_EQ(r.read_signed(6), -7);
    EXPECT_EQ(r.read(20), 0xABCDEu);
  }
}

// bit_reader::read takes a word-sized fast path away from the end of the data; it must
// read what the bit-by-bit definition reads, in both bit orders, at every offset and width.
TEST(BitReader, FastPathMatchesBitByBitDefinition) {
  std::vector<std::uint8_t> data(64);
  std::uint32_t x = 0x12345678u;
  for (auto& b : data) b = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  auto bit_at = [&](std::uint64_t p, bit_order o) {
    const std::uint8_t byte = data[static_cast<std::size_t>(p / 8)];
    return o == bit_order::msb_first ? (byte >> (7 - p % 8)) & 1u : (byte >> (p % 8)) & 1u;
  };
  for (auto o : {bit_order::msb_first, bit_order::lsb_first})
    for (unsigned n = 0; n <= 32; ++n)
      for (std::uint64_t start = 0; start + n <= data.size() * 8; ++start) {
        bit_reader r(data, o);
        r.seek_bit(start);
        std::uint32_t want = 0;
        for (unsigned i = 0; i < n; ++i) {
          const std::uint32_t b = bit_at(start + i, o);
          want = o == bit_order::msb_first ? (want << 1) | b : want | (b << i);
        }
        ASSERT_EQ(r.read(n), want) << "n " << n << " start " << start;
        ASSERT_EQ(r.bit_pos(), start + n);
      }
}
