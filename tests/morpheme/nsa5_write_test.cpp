// Runtime-5 NSA writing: the raw layer writes every SDK sample back byte for byte (x64 and
// win32), and the encoder (scene -> NSA) round trips within the format's quantisation.
// Samples are read in place from ../shared/samples/morpheme/sdk; skipped when absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/failure.hpp"
#include "formats/morpheme/anim_source.hpp"
#include "formats/morpheme/decode_sdk.hpp"
#include "formats/morpheme/encode_nsa5.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::morpheme;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> sample_nsa5(const std::string& root) {
  std::vector<std::string> v;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".nsa") v.push_back(it->path().string());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(Nsa5Write, EverySampleWritesBackByteForByte) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_nsa5(root);
  ASSERT_GE(files.size(), 2u);
  std::size_t x64 = 0, win32 = 0;
  for (const auto& f : files) {
    auto data = test::read_bytes(f);
    auto raw = parse_nsa5(core::byte_reader(data));
    (raw.h.x64 ? x64 : win32)++;
    auto out = serialise_nsa5(raw);
    EXPECT_EQ(out.size(), data.size()) << f;
    if (out.size() != data.size()) continue;
    auto diff = std::mismatch(out.begin(), out.end(), data.begin());
    EXPECT_TRUE(diff.first == out.end()) << f << ": first difference at byte 0x" << std::hex
                                         << (diff.first - out.begin());
  }
  std::printf("[ info ] %zu NSA written back (%zu x64, %zu win32)\n", files.size(), x64, win32);
  EXPECT_GT(x64, 0u);
  EXPECT_GT(win32, 0u);
}

// ---------------------------------------------------------------- encoder

namespace {

nsa_input input_of(const nsa_decoded& d) {
  nsa_input in;
  in.sample_rate = d.sample_rate;
  in.sample_count = std::max<std::uint32_t>(d.sample_count, 1);
  in.channels = d.channels;
  in.has_trajectory = d.has_trajectory;
  in.trajectory_translation = d.trajectory_translation;
  in.trajectory_rotation = d.trajectory_rotation;
  return in;
}

// Rotation angle between two unit quaternions: 4 asin(|a - b| / 2) on the nearer sign
// (well conditioned near zero, where 2 acos |a.b| is not).
double angle(const quat& a, const quat& b) {
  double dot = 0, dm = 0, dp = 0;
  for (int k = 0; k < 4; ++k) {
    dot += static_cast<double>(a[k]) * b[k];
    dm += (static_cast<double>(a[k]) - b[k]) * (static_cast<double>(a[k]) - b[k]);
    dp += (static_cast<double>(a[k]) + b[k]) * (static_cast<double>(a[k]) + b[k]);
  }
  double d = std::sqrt(dot >= 0 ? dm : dp);
  return 4.0 * std::asin(std::min(1.0, d / 2));
}

// Worst translation (native units) and rotation (radians) difference of two decodes.
std::pair<double, double> worst(const nsa_decoded& a, const nsa_decoded& b) {
  double t = 0, r = 0;
  EXPECT_EQ(a.channels.size(), b.channels.size());
  for (std::size_t c = 0; c < a.channels.size() && c < b.channels.size(); ++c) {
    const auto &A = a.channels[c], &B = b.channels[c];
    EXPECT_EQ(A.translation.empty(), B.translation.empty());
    EXPECT_EQ(A.rotation.empty(), B.rotation.empty());
    std::size_t nt = std::max(A.translation.size(), B.translation.size());
    for (std::size_t i = 0; i < nt && !A.translation.empty() && !B.translation.empty(); ++i) {
      const auto& x = A.translation[std::min(i, A.translation.size() - 1)];
      const auto& y = B.translation[std::min(i, B.translation.size() - 1)];
      for (int k = 0; k < 3; ++k) t = std::max(t, static_cast<double>(std::fabs(x[k] - y[k])));
    }
    std::size_t nr = std::max(A.rotation.size(), B.rotation.size());
    for (std::size_t i = 0; i < nr && !A.rotation.empty() && !B.rotation.empty(); ++i)
      r = std::max(r, angle(A.rotation[std::min(i, A.rotation.size() - 1)], B.rotation[std::min(i, B.rotation.size() - 1)]));
  }
  for (std::size_t i = 0; i < a.trajectory_translation.size() && i < b.trajectory_translation.size(); ++i)
    for (int k = 0; k < 3; ++k)
      t = std::max(t, static_cast<double>(std::fabs(a.trajectory_translation[i][k] - b.trajectory_translation[i][k])));
  for (std::size_t i = 0; i < a.trajectory_rotation.size() && i < b.trajectory_rotation.size(); ++i)
    r = std::max(r, angle(a.trajectory_rotation[i], b.trajectory_rotation[i]));
  return {t, r};
}

// The quantisation bound of an encoded file: half the largest step of any factor set (and of
// the static and trajectory sets), translation in units; rotation as the angle that half an
// MRP step can turn (|d angle / d mrp| <= 4 per axis, three axes).
std::pair<double, double> bound(const nsa5_file& f) {
  double t = 0, r = 0;
  auto upd = [](double& m, const factors& fa) {
    for (float e : fa.extent) m = std::max(m, 0.5 * std::fabs(e));
  };
  for (const auto& fa : f.translation_factors) upd(t, fa);
  upd(t, f.static_translation_factors);
  for (const auto& fa : f.rotation_factors) upd(r, fa);
  upd(r, f.static_rotation_factors);
  if (f.trajectory) {
    for (int k = 3; k < 6; ++k) t = std::max(t, 0.5 * std::fabs(f.trajectory->translation[k]));
    if (!f.trajectory->constant_rotation)
      for (int k = 3; k < 6; ++k) r = std::max(r, 0.5 * std::fabs(f.trajectory->rotation[k]));
  }
  return {t * 1.001 + 1e-6, 4.0 * std::sqrt(3.0) * r * 1.001 + 2e-6};
}

}  // namespace

TEST(Nsa5Encode, EverySampleRoundTripsWithinItsQuantisation) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_nsa5(root);
  ASSERT_GE(files.size(), 2u);
  double wt = 0, wr = 0, wt_rel = 0, wr_rel = 0;
  std::string wt_file, wr_file;
  for (const auto& f : files) {
    auto data = test::read_bytes(f);
    auto raw = parse_nsa5(core::byte_reader(data));
    auto a = decode_nsa5(raw);
    nsa5_encode_options o;
    o.x64 = raw.h.x64;
    auto enc = encode_nsa5(input_of(a), o);
    auto bytes = serialise_nsa5(enc.file);
    auto again = parse_nsa5(core::byte_reader(bytes));
    EXPECT_EQ(again.h.x64, raw.h.x64) << f;
    EXPECT_EQ(again.h.channel_count, raw.h.channel_count) << f;
    EXPECT_FLOAT_EQ(again.h.duration, raw.h.duration) << f;
    EXPECT_FLOAT_EQ(again.h.sample_rate, raw.h.sample_rate) << f;
    auto b = decode_nsa5(again);
    EXPECT_EQ(b.sample_count, a.sample_count) << f;
    auto [t, r] = worst(a, b);
    auto [bt, br] = bound(again);
    EXPECT_LE(t, bt) << f;
    EXPECT_LE(r, br) << f;
    if (t > wt) wt = t, wt_file = f;
    if (r > wr) wr = r, wr_file = f;
    wt_rel = std::max(wt_rel, t / bt);
    wr_rel = std::max(wr_rel, r / br);
  }
  std::printf("[ info ] %zu NSA decode->encode->decode: worst translation %.3g units (%s), worst rotation %.3g deg (%s); "
              "at most %.2f / %.2f of the bound\n",
              files.size(), wt, fs::path(wt_file).filename().c_str(), wr * 180 / 3.14159265358979,
              fs::path(wr_file).filename().c_str(), wt_rel, wr_rel);
}

TEST(Nsa5Encode, AnUnchangedClipOnItsOwnTemplateGivesBackTheSameBytes) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_nsa5(root);
  ASSERT_GE(files.size(), 2u);
  std::size_t same = 0;
  for (const auto& f : files) {
    auto data = test::read_bytes(f);
    auto raw = parse_nsa5(core::byte_reader(data));
    nsa5_encode_options o;
    o.x64 = raw.h.x64;
    o.tpl = &raw;
    auto enc = encode_nsa5(input_of(decode_nsa5(raw)), o);
    EXPECT_TRUE(enc.on_template_grid) << f << ": " << enc.note;
    auto out = serialise_nsa5(enc.file);
    if (out == data) {
      ++same;
      continue;
    }
    // Not identical: some factor sets step finer than a float quaternion's rounding, so the
    // stored level is not recoverable from the decoded value; the decode must still agree.
    EXPECT_EQ(out.size(), data.size()) << f;
    auto [t, r] = worst(decode_nsa5(raw), decode_nsa5(parse_nsa5(core::byte_reader(out))));
    EXPECT_LE(t, 1e-5) << f;
    EXPECT_LE(r, 1e-5) << f;
    auto diff = std::mismatch(out.begin(), out.end(), data.begin());
    std::printf("[ info ] %s: not identical from byte 0x%zx (decode differs by %.2g units, %.2g rad)\n",
                fs::path(f).filename().c_str(), static_cast<std::size_t>(diff.first - out.begin()), t, r);
  }
  std::printf("[ info ] %zu of %zu NSA re-encoded on their own grid are byte-identical\n", same, files.size());
  // 105 of the 110 samples are today; a regression in the requantiser shows here first.
  EXPECT_GE(same * 10, files.size() * 9);
}

// ---------------------------------------------------------------- scene -> NSA (pack)

namespace {

struct packed {
  result<bytes> out = make_error(code::internal, "unset");
  diagnostics diags;
};

result<scene> read_scene_of(const std::string& path, diagnostics& d) {
  auto data = test::read_bytes(path);
  read_context ctx;
  ctx.path = path;
  ctx.data = data;
  ctx.diags = &d;
  ctx.load = [](const std::string& p) -> result<bytes> {
    if (!fs::exists(p)) return make_error(code::io_error, "no such file: " + p);
    return test::read_bytes(p);
  };
  return core::guarded(path, "morpheme", [&] { return read_source5_scene(ctx); });
}

packed pack_with(const scene& s, const std::string& tpl, const std::string& bundle) {
  packed p;
  pack_context ctx;
  ctx.diags = &p.diags;
  if (!tpl.empty()) {
    ctx.template_file = test::read_bytes(tpl);
    ctx.template_path = tpl;
  }
  if (!bundle.empty()) {
    ctx.skeleton_file = test::read_bytes(bundle);
    ctx.skeleton_path = bundle;
  }
  p.out = core::guarded("pack", "morpheme", [&] { return pack_nsa5(s, ctx); });
  return p;
}

std::string bundle_beside(const std::string& nsa) {
  auto dir = fs::path(nsa).parent_path();
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".nmb") return it->path().string();
  return {};
}

}  // namespace

// Through the scene (bundle read for each file, ~0.1 s each in Debug): every 4th sample by
// default, all of them with RIGRIP_MORPHEME_ALL_PACKS=1 (110: 105 byte-identical, measured).
TEST(Nsa5Pack, SampleScenesOnTheirOwnTemplateAndBundle) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto all = sample_nsa5(root);
  ASSERT_GE(all.size(), 2u);
  std::vector<std::string> files;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (std::getenv("RIGRIP_MORPHEME_ALL_PACKS") || i % 4 == 0) files.push_back(all[i]);
  std::size_t same = 0;
  double wt = 0, wr = 0;
  for (const auto& f : files) {
    diagnostics d;
    auto s = read_scene_of(f, d);
    ASSERT_TRUE(s) << f << ": " << s.error().message;
    auto p = pack_with(s.value(), f, bundle_beside(f));
    ASSERT_TRUE(p.out) << f << ": " << p.out.error().message;
    auto data = test::read_bytes(f);
    for (const auto& w : p.diags.warnings) EXPECT_EQ(w.message.find("quantised afresh"), std::string::npos) << f << ": " << w.message;
    if (p.out.value() == data) {
      ++same;
      continue;
    }
    auto [t, r] = worst(decode_nsa5(parse_nsa5(core::byte_reader(data))),
                        decode_nsa5(parse_nsa5(core::byte_reader(p.out.value()))));
    wt = std::max(wt, t);
    wr = std::max(wr, r);
  }
  std::printf("[ info ] scene -> pack on own template: %zu of %zu byte-identical; others differ by at most %.2g units, "
              "%.2g rad\n", same, files.size(), wt, wr);
  EXPECT_LE(wt, 1e-5);
  EXPECT_LE(wr, 1e-5);
  EXPECT_GE(same * 10, files.size() * 9);
}

TEST(Nsa5Pack, WithoutTemplateTheBundleSetsThePointerSizeAndTheClipSurvives) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/ControlWithPrediction/win32/01002_Walk_untitled_ec5e45a7.nsa");
  diagnostics d;
  auto s = read_scene_of(f, d);
  ASSERT_TRUE(s) << s.error().message;
  auto p = pack_with(s.value(), "", bundle_beside(f));
  ASSERT_TRUE(p.out) << p.out.error().message;
  auto raw = parse_nsa5(core::byte_reader(p.out.value()));
  EXPECT_FALSE(raw.h.x64);
  auto orig = parse_nsa5(core::byte_reader(test::read_bytes(f)));
  auto [t, r] = worst(decode_nsa5(orig), decode_nsa5(raw));
  auto [bt, br] = bound(raw);
  EXPECT_LE(t, bt);
  EXPECT_LE(r, br);
}

TEST(Nsa5Pack, BonesOutsideTheRigAreNamedAndNothingIsWritten) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/ControlWithPrediction/x64/01002_Walk_untitled_33fb71f6.nsa");
  diagnostics d;
  auto s = read_scene_of(f, d);
  ASSERT_TRUE(s) << s.error().message;
  auto sc = s.value();
  auto t = sc.animations[0].tracks.front();
  t.bone = "NotARigBone";
  sc.animations[0].tracks.push_back(t);
  t.bone = "AlsoMissing";
  sc.animations[0].tracks.push_back(t);
  auto p = pack_with(sc, f, bundle_beside(f));
  ASSERT_FALSE(p.out);
  EXPECT_NE(p.out.error().message.find("AlsoMissing, NotARigBone"), std::string::npos) << p.out.error().message;
  // No bundle: a clear error rather than a guessed channel order.
  auto q = pack_with(s.value(), f, "");
  ASSERT_FALSE(q.out);
  EXPECT_EQ(q.out.error().code, code::missing_skeleton);
  EXPECT_NE(q.out.error().message.find("--skeleton"), std::string::npos);
}

// A section with no samples but several channels: its sample arrays are empty (no storage),
// and the decoder must not form pointers into them (UBSan caught `nullptr + j` here in fuzzing).
TEST(Nsa5Decode, AnEmptySectionBesideAFullOneDecodesTheFullOne) {
  nsa5_file f;
  f.h.channel_count = 4;
  f.h.duration = 0.1f;
  f.h.sample_rate = 30;
  f.dynamic_translation = {0, 1};
  f.dynamic_rotation = {2, 3};
  f.translation_factors = {factors{{0, 0, 0}, {1, 1, 1}}};
  f.rotation_factors = {factors{{-1, -1, -1}, {2.0f / 65535, 2.0f / 65535, 2.0f / 65535}}};
  f.section_frames = {0, 3, 3};
  nsa5_section full;
  full.sample_count = 3;
  full.translation_count = 2;
  full.rotation_count = 2;
  full.translations.assign(6, 0u);
  full.translation_info.assign(4, deq_info{});
  full.rotations.assign(6, u16x3{32768, 32768, 32768});
  full.rotation_info.assign(4, deq_info{{128, 128, 128}, {0, 0, 0}});
  nsa5_section empty = full;
  empty.sample_count = 0;
  empty.translations.clear();
  empty.translations.shrink_to_fit();
  empty.rotations.clear();
  empty.rotations.shrink_to_fit();
  f.sections = {full, empty};
  const auto d = decode_nsa5(f);
  ASSERT_EQ(d.sample_count, 3u);
  ASSERT_EQ(d.channels.size(), 4u);
  for (int c : {0, 1}) EXPECT_EQ(d.channels[static_cast<std::size_t>(c)].translation.size(), 3u);
  for (int c : {2, 3}) {
    ASSERT_EQ(d.channels[static_cast<std::size_t>(c)].rotation.size(), 3u);
    for (const auto& q : d.channels[static_cast<std::size_t>(c)].rotation) EXPECT_NEAR(q[3], 1.0f, 1e-3f);
  }
}
