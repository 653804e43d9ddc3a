// Hand-built NSA byte vectors. Every expected value is worked out by hand in the
// comments from the corrected formulas (../shared/specs/morpheme.md §8, §16):
// deq = extent * q + min (plus min, also for rotations), MRP map, q = init (x) delta,
// 11:11:10 words MSB first, rotation rows padded to 4 bytes, quaternions (x, y, z, w).
#include <gtest/gtest.h>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "core/math.hpp"
#include <bit>
#include <cmath>
#include <random>
#include "formats/morpheme/nsa.hpp"
#include "formats/morpheme/rotation_run.hpp"
#include "test_builder.hpp"

using namespace rigrip;
using namespace rigrip::morpheme;
using morpheme_test::builder;

namespace {

nsa_file parse(const std::vector<std::uint8_t>& b) { return parse_nsa(core::byte_reader(b)); }

void expect_vec(const vec3& v, float x, float y, float z, float tol = 1e-4f) {
  EXPECT_NEAR(v[0], x, tol);
  EXPECT_NEAR(v[1], y, tol);
  EXPECT_NEAR(v[2], z, tol);
}
void expect_quat(const quat& q, float x, float y, float z, float w, float tol = 1e-5f) {
  EXPECT_NEAR(q[0], x, tol);
  EXPECT_NEAR(q[1], y, tol);
  EXPECT_NEAR(q[2], z, tol);
  EXPECT_NEAR(q[3], w, tol);
}

// Dynamic translation: per-axis factor sets and 8-bit init values.
//   init factors min (100,200,300) extent (1,2,4); info init (10,20,30) -> init = (110, 240, 420)
//   set0 min (1,2,3) extent (0.5,0.25,0.125); set1 min (-10,-20,-30) extent (2,4,8)
//   factor_index (1,0,1): x from set1.x, y from set0.y, z from set1.z
//   sample 0 word 0x00A02003 = x5 y8 z3:  x = 2*5-10+110 = 110, y = .25*8+2+240 = 244, z = 8*3-30+420 = 414
//   sample 1 x2047 y0 z1023:               x = 4094-10+110 = 4194, y = 242, z = 8184-30+420 = 8574
std::vector<std::uint8_t> translation_vector() {
  builder b(0x170);
  b.nsa_header(1.0f / 30, 30, 2, 1);
  b.u64(0x40, 0xC0);  // dynamic translation indices
  b.u16(0xC0, 1);
  b.u16(0xC2, 1);     // channel 1
  b.factors(0x58, 100, 200, 300, 1, 2, 4);
  b.u32(0x78, 2);     // two translation factor sets
  b.u64(0x88, 0xD0);
  b.factors(0xD0, 1, 2, 3, 0.5f, 0.25f, 0.125f);
  b.factors(0xE8, -10, -20, -30, 2, 4, 8);
  b.u64(0xA8, 0x100);  // dynamic segment
  b.u32(0x100, 2);     // samples
  b.u32(0x104, 1);     // T
  b.u64(0x110, 0x40);  // data, segment relative
  b.u64(0x118, 0x50);  // info
  b.u32(0x140, 0x00A02003);
  b.u32(0x144, (2047u << 21) | (0u << 10) | 1023u);
  for (int k = 0; k < 4; ++k) b.info(0x150 + 6 * k, 10, 20, 30, 1, 0, 1);  // padded to 4 entries
  return b.b;
}

TEST(NsaVectors, DynamicTranslationPerAxisFactorSetsAndInit) {
  auto f = parse(translation_vector());
  ASSERT_TRUE(f.dynamic_segment);
  EXPECT_EQ(f.dynamic_segment->translation_info.size(), 4u);
  auto d = decode_nsa(f);
  ASSERT_EQ(d.channels.size(), 2u);
  EXPECT_TRUE(d.channels[0].translation.empty());
  ASSERT_EQ(d.channels[1].translation.size(), 2u);
  expect_vec(d.channels[1].translation[0], 110, 244, 414);
  expect_vec(d.channels[1].translation[1], 4194, 242, 8574);
}

// Dynamic rotation with ONE channel: rows are 6 bytes of data + 2 bytes padding (0xEE here,
// which must be skipped; warpgate's stride formula reads 6-byte rows here).
//   set0 min (-0.1,-0.2,0) extent (0.001,0.002,0.0005)
//   init bytes (128,128,192) -> v = (0,0,0.5) -> n = .25 -> init = (0,0,0.8, 0.6)
//   row 0 q (100,150,200) -> v = (0,0.1,0.1) -> delta = (0,10/51,10/51,49/51)
//     init (x) delta: w = .6*49/51 - .8*10/51 = 107/255, x = -.8*10/51 = -40/255,
//     y = .6*10/51 = 30/255, z = .6*10/51 + .8*49/51 = 226/255
//   row 1 q (100,200,0) -> v = (0,0.2,0) -> delta = (0,5/13,0,12/13)
//     w = 36/65, x = -4/13, y = 3/13, z = 48/65
std::vector<std::uint8_t> rotation_vector() {
  builder b(0x180);
  b.nsa_header(1.0f / 30, 30, 1, 1);
  b.u64(0x48, 0xC0);  // dynamic rotation indices
  b.u16(0xC0, 1);
  b.u16(0xC2, 0);
  b.u32(0x7C, 1);
  b.u64(0x90, 0xD0);
  b.factors(0xD0, -0.1f, -0.2f, 0.0f, 0.001f, 0.002f, 0.0005f);
  b.u64(0xA8, 0x100);
  b.u32(0x100, 2);
  b.u32(0x108, 1);      // R
  b.u64(0x120, 0x40);   // rows
  b.u64(0x128, 0x50);   // info: gap 0x10 = 2 rows x 8 bytes
  b.u16(0x140, 100); b.u16(0x142, 150); b.u16(0x144, 200); b.u16(0x146, 0xEEEE);
  b.u16(0x148, 100); b.u16(0x14A, 200); b.u16(0x14C, 0);   b.u16(0x14E, 0xEEEE);
  for (int k = 0; k < 4; ++k) b.info(0x150 + 6 * k, 128, 128, 192, 0, 0, 0);
  return b.b;
}

TEST(NsaVectors, DynamicRotationMrpInitTimesDeltaPaddedRows) {
  auto f = parse(rotation_vector());
  EXPECT_EQ(f.dynamic_segment->rotation_row_stride, 8u);
  auto d = decode_nsa(f);
  ASSERT_EQ(d.channels[0].rotation.size(), 2u);
  expect_quat(d.channels[0].rotation[0], -40.0f / 255, 30.0f / 255, 226.0f / 255, 107.0f / 255);
  expect_quat(d.channels[0].rotation[1], -4.0f / 13, 3.0f / 13, 48.0f / 65, 36.0f / 65);
}

// Static segment, fixed layout (factor sets at 0x0C / 0x24, pointers at 0x48):
//   translation min (1,2,3) extent (.5,.5,.5), q (2,4,6) -> (2, 4, 6)
//   rotation    min (0,0,0) extent (.5,.5,.5), q (0,0,1) -> v (0,0,.5) -> (0,0,0.8,0.6)
// The same two rotations stored as unpadded 6-byte rows with the info array right behind
// them: accepted as a fallback (with a note) because padded rows cannot fit the gap.
TEST(NsaVectors, UnpaddedRotationRowsFallback) {
  auto v = rotation_vector();
  builder b(0);
  b.b = v;
  b.u16(0x146, 100); b.u16(0x148, 200); b.u16(0x14A, 0);
  b.u64(0x128, 0x4C);
  for (int k = 0; k < 4; ++k) b.info(0x14C + 6 * k, 128, 128, 192, 0, 0, 0);
  auto f = parse(b.b);
  EXPECT_EQ(f.dynamic_segment->rotation_row_stride, 6u);
  EXPECT_FALSE(f.dynamic_segment->note.empty());
  auto d = decode_nsa(f);
  expect_quat(d.channels[0].rotation[1], -4.0f / 13, 3.0f / 13, 48.0f / 65, 36.0f / 65);
}

TEST(NsaVectors, StaticFixedLayout) {
  builder b(0x140);
  b.nsa_header(0, 30, 3, 0);
  b.u64(0x28, 0xC0); b.u16(0xC0, 1); b.u16(0xC2, 2);  // static translation: channel 2
  b.u64(0x30, 0xC4); b.u16(0xC4, 1); b.u16(0xC6, 0);  // static rotation: channel 0
  b.u64(0xA0, 0xD0);
  b.u32(0xD0, 1); b.u32(0xD4, 1); b.u32(0xD8, 0);
  b.factors(0xD0 + 0x0C, 1, 2, 3, 0.5f, 0.5f, 0.5f);
  b.factors(0xD0 + 0x24, 0, 0, 0, 0.5f, 0.5f, 0.5f);
  b.u64(0xD0 + 0x48, 0x60);
  b.u64(0xD0 + 0x50, 0x68);
  b.u16(0x130, 2); b.u16(0x132, 4); b.u16(0x134, 6);
  b.u16(0x138, 0); b.u16(0x13A, 0); b.u16(0x13C, 1);
  auto f = parse(b.b);
  EXPECT_EQ(f.static_segment->layout, "fixed");
  auto d = decode_nsa(f);
  ASSERT_EQ(d.channels[2].translation.size(), 1u);
  expect_vec(d.channels[2].translation[0], 2, 4, 6);
  ASSERT_EQ(d.channels[0].rotation.size(), 1u);
  expect_quat(d.channels[0].rotation[0], 0, 0, 0.8f, 0.6f);
  EXPECT_TRUE(d.channels[1].translation.empty() && d.channels[1].rotation.empty());
}

// Static segment with T = 0 written the compact way (rotation set at 0x0C, pointers at
// 0x30): the fixed reading's pointers do not check out, so the compact one is taken.
TEST(NsaVectors, StaticCompactLayoutWhenACountIsZero) {
  builder b(0x120);
  b.nsa_header(0, 30, 1, 0);
  b.u64(0x30, 0xC0); b.u16(0xC0, 1); b.u16(0xC2, 0);
  b.u64(0xA0, 0xD0);
  b.u32(0xD0, 0); b.u32(0xD4, 1); b.u32(0xD8, 0);
  b.factors(0xD0 + 0x0C, 0, 0, 0, 0.5f, 0.5f, 0.5f);
  b.u64(0xD0 + 0x28, 0x7777777777777777ull);  // the compact layout's unknown u64
  b.u64(0xD0 + 0x38, 0x48);                   // rotation data
  b.u16(0xD0 + 0x48, 0); b.u16(0xD0 + 0x4A, 0); b.u16(0xD0 + 0x4C, 1);
  auto f = parse(b.b);
  EXPECT_EQ(f.static_segment->layout, "compact");
  auto d = decode_nsa(f);
  expect_quat(d.channels[0].rotation.at(0), 0, 0, 0.8f, 0.6f);
}

// Trajectory, factor form: translation min 0 extent 1, word x3 y4 z5 -> (3,4,5);
// rotation min 0 extent .5, q (0,1,0) -> v (0,.5,0) -> (0,0.8,0,0.6).
TEST(NsaVectors, TrajectoryFactorForm) {
  builder b(0x140);
  b.nsa_header(0, 30, 0, 0);
  b.u64(0xB0, 0xC0);
  b.u32(0xC0 + 0x10, 0x80); b.u32(0xC0 + 0x14, 16);
  b.f32(0xC0 + 0x18, 30); b.u32(0xC0 + 0x1C, 1);
  b.factors(0xC0 + 0x20, 0, 0, 0, 1, 1, 1);
  b.factors(0xC0 + 0x38, 0, 0, 0, 0.5f, 0.5f, 0.5f);
  b.u64(0xC0 + 0x50, 0x60);
  b.u64(0xC0 + 0x58, 0x70);
  b.u32(0xC0 + 0x60, (3u << 21) | (4u << 10) | 5u);
  b.u16(0xC0 + 0x70, 0); b.u16(0xC0 + 0x72, 1); b.u16(0xC0 + 0x74, 0);
  auto f = parse(b.b);
  EXPECT_FALSE(f.trajectory->constant_rotation);
  auto d = decode_nsa(f);
  ASSERT_TRUE(d.has_trajectory);
  expect_vec(d.trajectory_translation.at(0), 3, 4, 5);
  expect_quat(d.trajectory_rotation.at(0), 0, 0.8f, 0, 0.6f);
}

// Trajectory, constant-quaternion form: quaternion stored x,y,z,w at 0x38 and applied;
// null translation pointer = the origin.
TEST(NsaVectors, TrajectoryConstantQuaternionAndNullTranslation) {
  builder b(0x120);
  b.nsa_header(0, 30, 0, 0);
  b.u64(0xB0, 0xC0);
  b.f32(0xC0 + 0x18, 30); b.u32(0xC0 + 0x1C, 5);
  b.f32(0xC0 + 0x38, 0); b.f32(0xC0 + 0x3C, 0); b.f32(0xC0 + 0x40, 0.6f); b.f32(0xC0 + 0x44, 0.8f);
  auto f = parse(b.b);
  EXPECT_TRUE(f.trajectory->constant_rotation);
  auto d = decode_nsa(f);
  expect_vec(d.trajectory_translation.at(0), 0, 0, 0);
  expect_quat(d.trajectory_rotation.at(0), 0, 0, 0.6f, 0.8f);
}

TEST(NsaVectors, CrcIsBigEndianAndOverTheRestOfThePayload) {
  auto v = translation_vector();
  std::uint32_t c = crc32(std::span<const std::uint8_t>(v).subspan(4));
  builder b(0);
  b.b = v;
  b.u32be(0, c);
  auto f = parse(b.b);
  EXPECT_EQ(f.crc, c);
  EXPECT_EQ(f.computed_crc, c);
}

// crc32 folds eight bytes per step (slicing-by-8); it must equal the bitwise CRC-32 on every
// length from 0 to 300 at every start offset 0..7 (all tail lengths and alignments), on
// random bytes, plus the standard check value.
TEST(NsaVectors, CrcSlicingEqualsTheBitwiseCrc) {
  auto bitwise = [](const std::uint8_t* p, std::size_t n) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
  };
  const std::string check = "123456789";
  EXPECT_EQ(crc32(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(check.data()), check.size())),
            0xCBF43926u);
  std::mt19937 rng(11);
  std::vector<std::uint8_t> buf(320);
  for (int round = 0; round < 4; ++round) {
    for (auto& x : buf) x = static_cast<std::uint8_t>(round == 3 ? 0xFF : rng());
    for (std::size_t off = 0; off < 8; ++off)
      for (std::size_t n = 0; n + off <= 308; ++n)
        ASSERT_EQ(crc32(std::span<const std::uint8_t>(buf.data() + off, n)), bitwise(buf.data() + off, n))
            << "offset " << off << " length " << n;
  }
}

TEST(NsaVectors, MrpRoundTrip) {
  quat q = core::normalize(quat{0.3f, -0.5f, 0.1f, -0.8f});
  auto v = quat_to_mrp(q);
  auto back = mrp_to_quat(v);
  EXPECT_NEAR(std::fabs(core::dot(q, back)), 1.0f, 1e-6f);
  EXPECT_EQ(unpack_111110(pack_111110(2047, 5, 1023)), (std::array<std::uint32_t, 3>{2047, 5, 1023}));
}

std::uint64_t error_offset(const std::vector<std::uint8_t>& b, code* c = nullptr) {
  try {
    (void)parse(b);
  } catch (const core::failure& e) {
    if (c) *c = e.error().code;
    return e.error().offset;
  }
  return 0;
}

TEST(NsaDamage, SampleCountFFFFFFFFFailsCleanly) {
  auto v = translation_vector();
  builder b(0);
  b.b = v;
  b.u32(0x100, 0xFFFFFFFFu);
  code c{};
  auto off = error_offset(b.b, &c);
  EXPECT_EQ(c, code::bad_count);
  EXPECT_NE(off, no_offset);
}

TEST(NsaDamage, FactorIndexOutOfRange) {
  auto v = translation_vector();
  v[0x150 + 3] = 7;
  code c{};
  (void)error_offset(v, &c);
  EXPECT_EQ(c, code::bad_value);
}

TEST(NsaDamage, RowsOverlappingTheInfoArray) {
  auto v = rotation_vector();
  builder b(0);
  b.b = v;
  b.u64(0x128, 0x48);  // info pointer inside the rows (8 bytes for 2 rows, even unpadded)
  code c{};
  (void)error_offset(b.b, &c);
  EXPECT_EQ(c, code::bad_offset);
}

}  // namespace

namespace {

// A constant trajectory (no data arrays) with sample count 0xFFFFFFFF decodes to one sample
// instead of allocating four billion.
TEST(NsaDamage, TrajectoryCountFFFFFFFFWithoutDataIsOneSample) {
  builder b(0x120);
  b.nsa_header(0, 30, 0, 0);
  b.u64(0xB0, 0xC0);
  b.f32(0xC0 + 0x18, 30);
  b.u32(0xC0 + 0x1C, 0xFFFFFFFFu);
  b.f32(0xC0 + 0x44, 1.0f);
  auto d = decode_nsa(parse(b.b));
  EXPECT_EQ(d.trajectory_translation.size(), 1u);
  EXPECT_EQ(d.trajectory_rotation.size(), 1u);
}

// Byte flips and truncations of every hand-built vector: a clean failure or a decode, never
// a crash or an unexpected exception type.
TEST(NsaDamage, MutationLoopOverHandBuiltVectors) {
  std::mt19937 rng(99);
  std::size_t errors = 0;
  for (const auto& v : {translation_vector(), rotation_vector()}) {
    for (std::size_t cut = 0; cut < v.size(); cut += 8) {
      std::vector<std::uint8_t> t(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(cut));
      auto r = core::guarded("t", "morpheme-nsa", [&] { return decode_nsa(parse(t)).channels.size(); });
      if (!r.ok()) {
        ++errors;
        EXPECT_NE(r.error().code, code::internal) << r.error().message;
      }
    }
    for (int i = 0; i < 2000; ++i) {
      auto m = v;
      for (int k = 0; k < 3; ++k) m[rng() % m.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      auto r = core::guarded("m", "morpheme-nsa", [&] { return decode_nsa(parse(m)).channels.size(); });
      if (!r.ok()) {
        ++errors;
        EXPECT_NE(r.error().code, code::internal) << r.error().message;
      }
    }
  }
  EXPECT_GT(errors, 50u);
}

}  // namespace

// decode_rotation_run (four samples per SSE step) must give the bits of the one-sample
// formula normalize(init (x) mrp_to_quat(extent * q + min)) on random factors, inits,
// strides and lengths (every tail length), including factors that overflow to inf/NaN and
// zero-length products (the identity fallback of normalize).
TEST(NsaVectors, RotationRunEqualsTheScalarFormula) {
  std::mt19937 rng(16);
  std::uniform_real_distribution<float> small(-1e-4f, 1e-4f), wide(-3.0f, 3.0f);
  std::vector<u16x3> rows(64 * 5);
  std::size_t compared = 0;
  for (int round = 0; round < 400; ++round) {
    for (auto& r : rows)
      for (auto& x : r) x = static_cast<std::uint16_t>(rng());
    float ex[3], mn[3];
    for (int c = 0; c < 3; ++c) {
      ex[c] = round % 5 == 0 ? small(rng) : wide(rng) / 65535.0f;
      mn[c] = wide(rng);
    }
    if (round % 37 == 1) ex[1] = 3e38f;   // v overflows: inf / NaN lanes
    if (round % 41 == 2) ex[0] = ex[1] = ex[2] = mn[0] = mn[1] = mn[2] = 0;
    quat init = round % 29 == 3 ? quat{0, 0, 0, 0} : mrp_to_quat({wide(rng), wide(rng), wide(rng)});
    const std::size_t stride = 1 + static_cast<std::size_t>(round % 5);
    const std::size_t n = static_cast<std::size_t>(round % 64);
    std::vector<quat> fast(n), ref(n);
    decode_rotation_run(rows.data(), stride, n, ex, mn, init, fast.data());
    for (std::size_t t = 0; t < n; ++t) {
      const u16x3& q = rows[t * stride];
      std::array<float, 3> v;
      for (std::size_t c = 0; c < 3; ++c) v[c] = ex[c] * q[c] + mn[c];
      ref[t] = core::normalize(core::multiply(init, mrp_to_quat(v)));
    }
    for (std::size_t t = 0; t < n; ++t, ++compared)
      for (int c = 0; c < 4; ++c)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(fast[t][c]), std::bit_cast<std::uint32_t>(ref[t][c]))
            << "round " << round << " sample " << t << " component " << c;
  }
  EXPECT_GT(compared, 10000u);
}

// Long inputs take the carry-less-multiply CRC where the CPU has it (64 bytes and up): every
// length from 300 to 1,200 at four offsets against the bitwise CRC.
TEST(NsaVectors, CrcOfLongInputsEqualsTheBitwiseCrc) {
  auto bitwise = [](const std::uint8_t* p, std::size_t n) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
  };
  std::mt19937 rng(23);
  std::vector<std::uint8_t> buf(1300);
  for (int round = 0; round < 3; ++round) {
    for (auto& x : buf) x = static_cast<std::uint8_t>(round == 2 ? 0xFF : rng());
    for (std::size_t off = 0; off < 4; ++off)
      for (std::size_t n = 0; n <= 1200; n += (n < 300 ? 1 : 1))
        ASSERT_EQ(crc32(std::span<const std::uint8_t>(buf.data() + off, n)), bitwise(buf.data() + off, n))
            << "offset " << off << " length " << n;
  }
}

// decode_translation_run (four samples per SSE step, rows re-interleaved by shuffles) must give
// the bits of the one-sample formula (extent * q + min) + init for every tail length and stride.
TEST(NsaVectors, TranslationRunEqualsTheScalarFormula) {
  std::mt19937 rng(61);
  std::uniform_real_distribution<float> wide(-50.0f, 50.0f);
  std::vector<std::uint32_t> words(64 * 5);
  std::size_t compared = 0;
  for (int round = 0; round < 400; ++round) {
    for (auto& w : words) w = static_cast<std::uint32_t>(rng());
    float ex[3], mn[3];
    for (int c = 0; c < 3; ++c) {
      ex[c] = wide(rng) / 2047.0f;
      mn[c] = wide(rng);
    }
    if (round % 31 == 1) ex[2] = 3e38f;  // overflow to inf in some lanes
    vec3 init{wide(rng), wide(rng), wide(rng)};
    const std::size_t stride = 1 + static_cast<std::size_t>(round % 5);
    const std::size_t n = static_cast<std::size_t>(round % 64);
    std::vector<vec3> fast(n + 1, vec3{-7, -7, -7}), ref(n);
    decode_translation_run(words.data(), stride, n, ex, mn, init, fast.data());
    for (std::size_t t = 0; t < n; ++t) {
      auto q = unpack_111110(words[t * stride]);
      for (std::size_t c = 0; c < 3; ++c) ref[t][c] = (ex[c] * static_cast<float>(q[c]) + mn[c]) + init[c];
    }
    for (std::size_t t = 0; t < n; ++t, ++compared)
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(fast[t][c]), std::bit_cast<std::uint32_t>(ref[t][c]))
            << "round " << round << " sample " << t << " component " << c;
    EXPECT_EQ(fast[n], (vec3{-7, -7, -7})) << "wrote past the run";
  }
  EXPECT_GT(compared, 10000u);
}
