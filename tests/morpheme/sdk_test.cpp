// morpheme 5 runtime files (the SDK's .nmb bundles, .nsa and .qsa, x64 and win32) read in place
// from ../shared/samples/morpheme/sdk, checked against the projects' .mcn, against each other and
// for plausible motion. Tests skip with a printed reason when the samples are absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <deque>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "core/bit_reader.hpp"
#include "core/failure.hpp"
#include "core/math.hpp"
#include "formats/morpheme/anim_source.hpp"
#include "formats/morpheme/common.hpp"
#include "formats/morpheme/decode_sdk.hpp"
#include "formats/morpheme/mrn.hpp"
#include "formats/morpheme/network.hpp"
#include "rigrip/gltf.hpp"
#include "scene/pose.hpp"
#include "test_builder.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::morpheme;
namespace fs = std::filesystem;

namespace {

const char* const projects[] = {"RuntimeBasic1", "MultipleNetworks2", "ControlWithPrediction"};

std::vector<std::string> files_in(const std::string& dir, const std::string& ext) {
  std::vector<std::string> v;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ext) v.push_back(it->path().string());
  std::sort(v.begin(), v.end());
  return v;
}

// Every sample file of one extension under morpheme/sdk (both pointer sizes).
std::vector<std::string> sample_files(const std::string& root, const std::string& ext) {
  std::vector<std::string> v;
  for (auto p : projects)
    for (auto arch : {"x64", "win32"}) {
      auto f = files_in(root + "/" + p + "/" + arch, ext);
      v.insert(v.end(), f.begin(), f.end());
    }
  return v;
}

std::string text_of(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct read_out {
  result<scene> s = make_error(code::internal, "unset");
  diagnostics diags;
};

read_out read_file(const std::string& path, scene (*reader)(const read_context&), read_options o = {}) {
  read_out out;
  auto data = test::read_bytes(path);
  read_context ctx;
  ctx.path = path;
  ctx.data = data;
  ctx.options = o;
  ctx.diags = &out.diags;
  ctx.load = [](const std::string& p) -> result<bytes> {
    if (!fs::exists(p)) return make_error(code::io_error, "no such file: " + p);
    return test::read_bytes(p);
  };
  out.s = core::guarded(path, "morpheme", [&]() -> scene {
    auto s = reader(ctx);
    auto v = s.validate();
    if (!v) core::fail(v.error().code, v.error().message);
    return s;
  });
  return out;
}

bool has_warning(const diagnostics& d, code c, const std::string& text = "") {
  for (const auto& w : d.warnings)
    if (w.code == c && w.message.find(text) != std::string::npos) return true;
  return false;
}

nsa_decoded decode_file(const std::string& path) {
  auto d = test::read_bytes(path);
  core::byte_reader r(d);
  auto p = probe_source5(d);
  if (!p) throw std::runtime_error("not a source: " + path);
  return p->type == source_type_nsa ? decode_nsa5(parse_nsa5(r)) : decode_qsa(parse_qsa(r));
}

std::size_t decode_file_bytes(const bytes& d) {
  core::byte_reader r(d);
  auto p = probe_source5(d);
  if (!p) core::fail(code::bad_magic, "not a source");
  auto x = p->type == source_type_nsa ? decode_nsa5(parse_nsa5(r)) : decode_qsa(parse_qsa(r));
  return x.channels.size();
}

double quat_angle_deg(const quat& a, const quat& b) {
  double d = std::min(1.0, std::fabs(static_cast<double>(core::dot(a, b))));
  return 2.0 * std::acos(d) * 180.0 / 3.14159265358979;
}

// Largest difference between two decodes of the same clip (quaternion sign ignored).
double max_difference(const nsa_decoded& a, const nsa_decoded& b) {
  double m = 0;
  for (std::size_t c = 0; c < a.channels.size() && c < b.channels.size(); ++c) {
    const auto& A = a.channels[c];
    const auto& B = b.channels[c];
    for (std::size_t i = 0; i < A.translation.size() && i < B.translation.size(); ++i)
      for (int k = 0; k < 3; ++k) m = std::max(m, static_cast<double>(std::fabs(A.translation[i][k] - B.translation[i][k])));
    for (std::size_t i = 0; i < A.rotation.size() && i < B.rotation.size(); ++i) {
      double e1 = 0, e2 = 0;
      for (int k = 0; k < 4; ++k) {
        e1 = std::max(e1, static_cast<double>(std::fabs(A.rotation[i][k] - B.rotation[i][k])));
        e2 = std::max(e2, static_cast<double>(std::fabs(A.rotation[i][k] + B.rotation[i][k])));
      }
      m = std::max(m, std::min(e1, e2));
    }
  }
  return m;
}

std::string same_clip(const std::string& dir, const std::string& prefix, const std::string& ext) {
  for (const auto& f : files_in(dir, ext))
    if (fs::path(f).filename().string().rfind(prefix, 0) == 0) return f;
  return {};
}

// The rig's channel names as the .mcn lists them (RigChannelNames).
std::vector<std::string> mcn_rig_names(const std::string& mcn) {
  std::vector<std::string> v;
  auto t = text_of(mcn);
  auto a = t.find("<RigChannelNames");
  if (a == std::string::npos) return v;
  auto b = t.find("</RigChannelNames>", a);
  std::regex e("<e>([^<]*)</e>");
  std::string block = t.substr(a, b - a);
  for (std::sregex_iterator it(block.begin(), block.end(), e), end; it != end; ++it) v.push_back((*it)[1]);
  return v;
}

}  // namespace

// ---------------------------------------------------------------- the bundles' packet layer

TEST(SdkBundle, EveryBundleRewritesByteForByte) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_files(root, ".nmb");
  ASSERT_GE(files.size(), 8u);
  for (const auto& f : files) {
    auto data = test::read_bytes(f);
    auto m = parse_mrn(data);
    EXPECT_NE(m.variant, bundle_variant::forgelight_x64) << f;
    EXPECT_EQ(m.pointer_size(), f.find("/x64/") != std::string::npos ? 8u : 4u) << f;
    EXPECT_TRUE(m.tail.empty()) << f;
    EXPECT_EQ(serialise_mrn(m), data) << f;
    std::set<std::uint32_t> types;
    for (const auto& p : m.packets) types.insert(p.type);
    for (std::uint32_t t : {1u, 2u, 10u, 12u, 13u}) EXPECT_TRUE(types.count(t)) << f << " lacks packet type " << t;
  }
}

TEST(SdkBundle, DumpRawListsEveryPacketWithWhatIsDecoded) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/win32/Network_RuntimeBasic1.nmb");
  auto j = nmb_to_json(parse_mrn(test::read_bytes(f)));
  EXPECT_EQ(j["format"], "morpheme-nmb");
  EXPECT_EQ(j["pointer_size"], 4);
  EXPECT_EQ(j["packet_count"], j["packets"].size());
  std::map<std::string, int> decoded;
  for (const auto& p : j["packets"]) {
    EXPECT_TRUE(p.contains("type") && p.contains("data_length") && p.contains("decoded"));
    EXPECT_FALSE(p.contains("decode_error")) << p.dump();
    if (!p["decoded"].is_null()) decoded[p["type_name"]]++;
  }
  EXPECT_EQ(decoded["rig"], 1);
  EXPECT_EQ(decoded["rig_to_anim_map"], 1);
  EXPECT_EQ(decoded["file_name_lookup_table"], 1);
  EXPECT_EQ(decoded["network"], 1);
}

// ---------------------------------------------------------------- rigs

TEST(SdkRig, BoneCountsNamesAndHierarchyMatchTheMcn) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  for (auto proj : projects) {
    auto mcns = files_in(root + "/" + proj, ".mcn");
    ASSERT_FALSE(mcns.empty());
    auto names = mcn_rig_names(mcns.front());
    ASSERT_FALSE(names.empty()) << mcns.front();
    for (auto arch : {"x64", "win32"})
      for (const auto& f : files_in(root + "/" + proj + "/" + arch, ".nmb")) {
        auto b = load_sdk_bundle(test::read_bytes(f));
        ASSERT_EQ(b.rigs.size(), 1u) << f;
        const auto& r = b.rigs[0].second;
        EXPECT_EQ(r.bone_count, names.size()) << f;
        EXPECT_EQ(r.names, names) << f;
        EXPECT_EQ(r.buffer_length, r.bone_count) << f;
        EXPECT_EQ(r.element_count, 2u) << f;
        for (std::uint32_t i = 0; i < r.bone_count; ++i) {
          EXPECT_LT(r.parents[i], static_cast<std::int32_t>(i)) << f << " bone " << i;
          const auto& q = r.bind_rotation[i];
          EXPECT_NEAR(std::sqrt(core::dot(q, q)), 1.0f, 1e-4f) << f << " bone " << i;
        }
        EXPECT_EQ(r.names[r.trajectory_bone], "Trajectory");
        // The map: every animation channel drives one rig bone; bone 0 is driven by none.
        ASSERT_EQ(b.maps.size(), 1u);
        const auto& m = b.maps[0].second;
        EXPECT_EQ(m.type, 1u);
        EXPECT_EQ(m.used_bits, r.bone_count);
        EXPECT_EQ(m.anim_to_rig.size(), r.bone_count - 1);
        EXPECT_FALSE(msb_bit(m.used_words, 0));
        for (auto bone : m.anim_to_rig) EXPECT_TRUE(msb_bit(m.used_words, bone));
      }
  }
}

TEST(SdkRig, X64AndWin32RigsAreIdentical) {
  RIGRIP_REQUIRE_SAMPLE(a, "morpheme/sdk/ControlWithPrediction/x64/ControlWithPrediction.nmb");
  RIGRIP_REQUIRE_SAMPLE(b, "morpheme/sdk/ControlWithPrediction/win32/ControlWithPrediction.nmb");
  auto x = load_sdk_bundle(test::read_bytes(a));
  auto y = load_sdk_bundle(test::read_bytes(b));
  const auto& r = x.rigs[0].second;
  const auto& s = y.rigs[0].second;
  EXPECT_EQ(r.parents, s.parents);
  EXPECT_EQ(r.names, s.names);
  EXPECT_EQ(r.bind_translation, s.bind_translation);
  EXPECT_EQ(r.bind_rotation, s.bind_rotation);
  EXPECT_EQ(x.maps[0].second.anim_to_rig, y.maps[0].second.anim_to_rig);
  EXPECT_EQ(x.names->sources, y.names->sources);
}

// ---------------------------------------------------------------- animation sources

TEST(SdkSources, EveryNsaAndQsaDecodesWithUnitQuaternionsAndNoSpikes) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_files(root, ".nsa");
  auto q = sample_files(root, ".qsa");
  files.insert(files.end(), q.begin(), q.end());
  ASSERT_GE(files.size(), 120u);
  for (const auto& f : files) {
    nsa_decoded d;
    ASSERT_NO_THROW(d = decode_file(f)) << f;
    EXPECT_EQ(d.channels.size(), 67u) << f;
    EXPECT_GT(d.sample_count, 1u) << f;
    EXPECT_NEAR(d.duration, (d.sample_count - 1) / d.sample_rate, 1e-3) << f;
    for (std::size_t c = 0; c < d.channels.size(); ++c) {
      const auto& R = d.channels[c].rotation;
      for (std::size_t i = 0; i < R.size(); ++i) ASSERT_NEAR(std::sqrt(core::dot(R[i], R[i])), 1.0f, 1e-4f) << f;
      // A decoding slip shows as a one-frame spike: far from both neighbours, which are close to
      // each other, while the frames around them hardly move. A fast joint at a turning point
      // (a running knee straightening at foot contact: 51, 31, 52 degrees) also comes back to
      // its neighbours, but moves as fast on the frames before and after.
      for (std::size_t i = 1; i + 1 < R.size(); ++i) {
        double in = quat_angle_deg(R[i - 1], R[i]), out = quat_angle_deg(R[i], R[i + 1]);
        if (in <= 20.0 || out <= 20.0) continue;
        const double around = std::max(i >= 2 ? quat_angle_deg(R[i - 2], R[i - 1]) : 0.0,
                                       i + 2 < R.size() ? quat_angle_deg(R[i + 1], R[i + 2]) : 0.0);
        if (around > 0.5 * std::min(in, out)) continue;
        ASSERT_GT(quat_angle_deg(R[i - 1], R[i + 1]), 0.25 * std::min(in, out)) << f << " channel " << c << " frame " << i;
      }
      const auto& T = d.channels[c].translation;
      for (std::size_t i = 1; i + 1 < T.size(); ++i) {
        float across = 0, in = 0, out = 0;
        for (int k = 0; k < 3; ++k) {
          across = std::max(across, std::fabs(T[i + 1][k] - T[i - 1][k]));
          in = std::max(in, std::fabs(T[i][k] - T[i - 1][k]));
          out = std::max(out, std::fabs(T[i + 1][k] - T[i][k]));
        }
        if (in > 0.05f && out > 0.05f) ASSERT_GT(across, 0.25f * std::min(in, out)) << f << " channel " << c << " frame " << i;
      }
    }
    ASSERT_TRUE(d.has_trajectory) << f;
  }
}

TEST(SdkSources, CyclicClipsEndNearTheirFirstPose) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  int checked = 0;
  for (const auto& f : sample_files(root, ".nsa")) {
    auto n = fs::path(f).filename().string();
    if (n.rfind("01002_Walk_", 0) && n.rfind("01005_Jog_", 0) && n.rfind("01008_Run_", 0)) continue;
    auto d = decode_file(f);
    for (const auto& ch : d.channels)
      if (ch.rotation.size() > 1) EXPECT_LT(quat_angle_deg(ch.rotation.front(), ch.rotation.back()), 0.5) << f;
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

TEST(SdkSources, X64AndWin32DecodeTheSame) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  int pairs = 0;
  for (auto proj : projects)
    for (const auto& ext : {std::string(".nsa"), std::string(".qsa")})
      for (const auto& f : files_in(root + "/" + proj + "/x64", ext)) {
        auto clip = fs::path(f).filename().string().substr(0, 12);
        auto g = same_clip(root + "/" + proj + "/win32", clip, ext);
        ASSERT_FALSE(g.empty()) << f;
        // The two builds were compiled separately: factors differ in the last float bits.
        EXPECT_LT(max_difference(decode_file(f), decode_file(g)), 1e-4) << f;
        ++pairs;
      }
  EXPECT_GE(pairs, 60);
}

TEST(SdkSources, NsaAndQsaOfTheSameClipAgreeWithinQuantisation) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  for (auto clip : {"01002_Walk", "01005_Jog", "01008_Run"})
    for (auto arch : {"x64", "win32"}) {
      auto n = same_clip(root + "/ControlWithPrediction/" + arch, clip, ".nsa");
      auto q = same_clip(root + "/RuntimeBasic1/" + arch, clip, ".qsa");
      ASSERT_FALSE(n.empty() || q.empty());
      EXPECT_LT(max_difference(decode_file(n), decode_file(q)), 5e-4) << clip << " " << arch;
    }
  // Two frame sections in the QSA, one in the NSA; compiled in different projects (the hips
  // differ by about 0.1 degree throughout, not at the section boundary).
  auto n = same_clip(root + "/ControlWithPrediction/x64", "02019_", ".nsa");
  auto q = same_clip(root + "/MultipleNetworks2/x64", "02019_", ".qsa");
  ASSERT_FALSE(n.empty() || q.empty());
  auto dq = decode_file(q);
  auto qbytes = test::read_bytes(q);
  EXPECT_EQ(parse_qsa(core::byte_reader(qbytes)).sections.size(), 2u);
  EXPECT_LT(max_difference(decode_file(n), dq), 3e-3);
}

// The QSA raw layer writes every sample back byte for byte (x64 and win32); `rigrip rewrite`
// runs the same (cli.morpheme_sdk_qsa_rewrite*).
TEST(SdkSources, EveryQsaRewritesByteForByte) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto files = sample_files(root, ".qsa");
  ASSERT_FALSE(files.empty());
  std::size_t same = 0, x64 = 0;
  for (const auto& f : files) {
    auto data = test::read_bytes(f);
    qsa_file raw;
    ASSERT_NO_THROW(raw = parse_qsa(core::byte_reader(data))) << f;
    x64 += raw.h.x64;
    bytes out;
    ASSERT_NO_THROW(out = serialise_qsa(raw)) << f;
    auto diff = std::mismatch(out.begin(), out.end(), data.begin(), data.end());
    EXPECT_TRUE(diff.first == out.end() && diff.second == data.end())
        << f << ": " << out.size() << " bytes written for " << data.size() << ", first difference at 0x" << std::hex
        << (diff.first - out.begin());
    same += out == data;
  }
  std::printf("[ info ] %zu/%zu QSA rewrite byte-identically (%zu x64, %zu win32)\n", same, files.size(), x64,
              files.size() - x64);
  EXPECT_EQ(same, files.size());
  EXPECT_GT(x64, 0u);
  EXPECT_LT(x64, files.size());
}

// ---------------------------------------------------------------- scenes

TEST(SdkScene, BundleConvertsToSkeletonAndClipsAndAValidGlb) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  for (auto proj : projects)
    for (auto arch : {"x64", "win32"})
      for (const auto& f : files_in(root + "/" + proj + "/" + arch, ".nmb")) {
        auto r = read_file(f, read_nmb_scene);
        ASSERT_TRUE(r.s.ok()) << r.s.error().to_string();
        const auto& s = r.s.value();
        ASSERT_EQ(s.skeletons.size(), 1u);
        EXPECT_EQ(s.skeletons[0].bones.size(), 68u);
        auto listed = load_sdk_bundle(test::read_bytes(f)).names->files.size();
        EXPECT_EQ(s.animations.size(), listed) << f;
        EXPECT_EQ(s.metadata["animation_sources_skipped"], 0) << f;
        for (const auto& a : s.animations) EXPECT_EQ(a.extras["root_motion"][0], "CharacterWorldSpaceTM");
        if (std::string(arch) == "win32" && std::string(proj) != "RuntimeBasic1") continue;  // keep the test fast
        gltf::write_options o;
        diagnostics d;
        auto w = gltf::write(s, o, d);
        ASSERT_TRUE(w.ok()) << w.error().to_string();
        auto out = test::out_path("morpheme_sdk_" + fs::path(f).stem().string() + "_" + arch + ".glb");
        test::write_bytes(out, w->main);
        std::string report;
        int errors = test::gltf_validator_errors(out, &report);
        if (errors < 0) continue;  // validator absent: the CLI tests report it
        EXPECT_EQ(errors, 0) << report;
      }
}

TEST(SdkScene, WalkLooksLikeAWalkingPerson) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb");
  auto r = read_file(f, read_nmb_scene);
  ASSERT_TRUE(r.s.ok()) << r.s.error().to_string();
  const auto& s = r.s.value();
  const auto& sk = s.skeletons[0];
  const animation* walk = nullptr;
  for (const auto& a : s.animations)
    if (a.name == "01002_Walk") walk = &a;
  ASSERT_TRUE(walk);
  int head = sk.find("Head"), hips = sk.find("Hips"), la = sk.find("LeftAnkle"), ra = sk.find("RightAnkle");
  ASSERT_TRUE(head >= 0 && hips >= 0 && la >= 0 && ra >= 0);
  float start_z = 0, end_z = 0;
  for (int i = 0; i <= 32; ++i) {
    float t = static_cast<float>(walk->duration * i / 32);
    auto w = scene_ops::world_matrices(sk, scene_ops::sample_pose(sk, *walk, t));
    auto y = [&](int b) { return w[static_cast<std::size_t>(b)][13]; };
    EXPECT_GT(y(head), y(hips) + 0.4f) << "t=" << t;
    EXPECT_GT(y(hips), 0.8f) << "t=" << t;
    EXPECT_LT(std::min(y(la), y(ra)), 0.2f) << "t=" << t;  // one foot is on the ground
    EXPECT_GT(std::min(y(la), y(ra)), -0.05f) << "t=" << t;
    if (i == 0) start_z = w[static_cast<std::size_t>(hips)][14];
    if (i == 32) end_z = w[static_cast<std::size_t>(hips)][14];
  }
  EXPECT_GT(std::fabs(end_z - start_z), 1.0f);  // root motion carries the body forward
}

TEST(SdkScene, StandaloneSourcesFindTheirBundle) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto nsa = same_clip(root + "/ControlWithPrediction/win32", "01001_StandingIdle", ".nsa");
  auto r = read_file(nsa, read_source5_scene);
  ASSERT_TRUE(r.s.ok()) << r.s.error().to_string();
  EXPECT_EQ(r.s.value().animations.at(0).name, "01001_StandingIdle");
  EXPECT_NEAR(r.s.value().animations[0].duration, 2.0, 1e-6);
  EXPECT_EQ(r.s.value().metadata["skeleton_pairing"], "bundle listing the file");
  auto qsa = same_clip(root + "/MultipleNetworks2/x64", "01008_Run", ".qsa");
  auto q = read_file(qsa, read_source5_scene);
  ASSERT_TRUE(q.s.ok()) << q.s.error().to_string();
  EXPECT_EQ(q.s.value().animations.at(0).name, "01008_Run");
}

// ---------------------------------------------------------------- networks

TEST(SdkNetwork, StateMachinesMatchTheMcn) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk/ControlWithPrediction");
  auto mcn = text_of(root + "/ControlWithPrediction.mcn");
  std::set<std::string> states, transitions;
  std::regex st("<StateMachineNode name=\"([^\"]+)\""), tr("<TransitionEdge name=\"([^\"]+)\"");
  for (std::sregex_iterator it(mcn.begin(), mcn.end(), st), e; it != e; ++it) states.insert((*it)[1]);
  for (std::sregex_iterator it(mcn.begin(), mcn.end(), tr), e; it != e; ++it) transitions.insert((*it)[1]);
  ASSERT_EQ(states.size(), 7u);
  ASSERT_EQ(transitions.size(), 16u);
  for (auto arch : {"x64", "win32"}) {
    auto b = test::read_bytes(root + "/" + arch + "/ControlWithPrediction.nmb");
    auto m = parse_mrn(b);
    std::optional<network_def> net;
    for (const auto& p : m.packets)
      if (p.type == 10)
        net = read_network(sized_reader{core::byte_reader(p.payload, core::endian::little, p.payload_offset()), m.pointer_size()});
    ASSERT_TRUE(net);
    ASSERT_EQ(net->state_machines.size(), 1u);
    const auto& sm = net->state_machines[0];
    std::set<std::string> got_states, got_transitions;
    for (auto s : sm.states) got_states.insert(state_name(*net, sm.node, s));
    for (const auto& t : sm.transitions) got_transitions.insert(state_name(*net, sm.node, t.node));
    EXPECT_EQ(got_states, states) << arch;
    EXPECT_EQ(got_transitions, transitions) << arch;
    auto j = network_to_json(*net);
    EXPECT_EQ(j["control_parameters"].size(), 4u);
    EXPECT_EQ(j["requests"].size(), 5u);
  }
}

TEST(SdkNetwork, BlendTreeNodesMatchTheMcn) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk/RuntimeBasic1");
  auto mcn = text_of(root + "/Network_RuntimeBasic1.mcn");
  std::set<std::string> nodes;
  std::regex bt("<BlendTreeNode name=\"([^\"]+)\"");
  for (std::sregex_iterator it(mcn.begin(), mcn.end(), bt), e; it != e; ++it)
    if ((*it)[1] != "RootBlendTree") nodes.insert((*it)[1]);
  ASSERT_EQ(nodes.size(), 4u);  // three animations and BlendN1
  auto b = test::read_bytes(root + "/x64/Network_RuntimeBasic1.nmb");
  auto m = parse_mrn(b);
  for (const auto& p : m.packets) {
    if (p.type != 10) continue;
    auto net = read_network(sized_reader{core::byte_reader(p.payload, core::endian::little, p.payload_offset()), 8});
    std::set<std::string> got;
    for (const auto& n : net.nodes)
      if (n.type != 9 && n.name.rfind("ControlParameters|", 0) != 0) got.insert(n.name);
    EXPECT_EQ(got, nodes);
    EXPECT_EQ(net.nodes[5].children, (std::vector<std::uint16_t>{2, 3, 4}));
    ASSERT_EQ(net.nodes[5].inputs.size(), 1u);
    EXPECT_EQ(net.nodes[net.nodes[5].inputs[0].first].name, "ControlParameters|speed");
  }
}

// ---------------------------------------------------------------- hostile input

TEST(SdkDamage, TruncatedAndCorruptedBundlesFailCleanly) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/win32/Network_RuntimeBasic1.nmb");
  auto data = test::read_bytes(f);
  // A packet whose length runs past the file.
  {
    auto b = data;
    morpheme_test::builder bb(0);
    bb.b = b;
    bb.u32(0x20, 0x7FFFFFF0u);
    auto m = core::guarded("x", "morpheme-nmb", [&] { return parse_mrn(bb.b); });
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().code, code::bad_count);
  }
  // A rig pointer outside its packet.
  {
    auto m = parse_mrn(data);
    std::size_t rig = 0;
    while (m.packets[rig].type != 1) ++rig;
    morpheme_test::builder bb(0);
    bb.b = data;
    bb.u32(static_cast<std::size_t>(m.packets[rig].payload_offset()) + 0x2C, 0x00FFFFF0u);  // bone-name table
    auto s = core::guarded("x", "morpheme-nmb", [&] { return load_sdk_bundle(bb.b); });
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, code::bad_offset);
  }
  // Truncation at every 97th byte and random byte flips: errors or scenes, never a crash.
  std::mt19937 rng(17);
  for (std::size_t cut = 1; cut < data.size(); cut += 97) {
    bytes b(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(cut));
    (void)core::guarded("x", "morpheme-nmb", [&] { return load_sdk_bundle(b).rigs.size(); });
  }
  for (int i = 0; i < 300; ++i) {
    auto b = data;
    for (int k = 0; k < 4; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    (void)core::guarded("x", "morpheme-nmb", [&] {
      auto sb = load_sdk_bundle(b);
      return sb.rigs.size() + nmb_to_json(parse_mrn(b)).size();
    });
  }
}

TEST(SdkDamage, NetworkCycleIsAnError) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb");
  auto data = test::read_bytes(f);
  auto m = parse_mrn(data);
  for (const auto& p : m.packets) {
    if (p.type != 10) continue;
    // Node 5 (BlendN1) gets node 2 as its parent while node 2's parent is 5.
    core::byte_reader r(p.payload);
    std::uint64_t node5 = r.u64_at(r.u64_at(0xB0) + 5 * 8);
    morpheme_test::builder bb(0);
    bb.b = data;
    bb.u16(static_cast<std::size_t>(p.payload_offset() + node5 + 8), 2);
    auto m2 = parse_mrn(bb.b);
    for (const auto& q : m2.packets)
      if (q.type == 10) {
        auto n = core::guarded("x", "morpheme-nmb", [&] {
          return read_network(sized_reader{core::byte_reader(q.payload, core::endian::little, q.payload_offset()), 8}).nodes.size();
        });
        ASSERT_FALSE(n.ok());
        EXPECT_NE(n.error().message.find("cycle"), std::string::npos) << n.error().message;
      }
  }
}

TEST(SdkDamage, MissingSourceIsAWarningNamingTheFile) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb");
  auto dir = test::out_path("morpheme_sdk_missing");
  fs::create_directories(dir);
  auto copy = dir + "/Network_RuntimeBasic1.nmb";
  test::write_bytes(copy, test::read_bytes(f));
  auto r = read_file(copy, read_nmb_scene);
  ASSERT_TRUE(r.s.ok()) << r.s.error().to_string();
  EXPECT_EQ(r.s.value().animations.size(), 0u);
  EXPECT_EQ(r.s.value().skeletons.at(0).bones.size(), 68u);
  EXPECT_TRUE(has_warning(r.diags, code::w_unsupported_part, "01002_Walk_untitled_71cf1f83.qsa"));
  EXPECT_EQ(r.s.value().metadata["animation_sources_skipped"], 3);
}

TEST(SdkDamage, SourcesSurviveTruncationAndFlips) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  std::mt19937 rng(5);
  for (auto path : {same_clip(root + "/MultipleNetworks2/x64", "02019_", ".qsa"),
                    same_clip(root + "/ControlWithPrediction/win32", "01002_Walk", ".nsa")}) {
    ASSERT_FALSE(path.empty());
    auto data = test::read_bytes(path);
    for (std::size_t cut = 0; cut < data.size(); cut += 61) {
      bytes b(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(cut));
      (void)core::guarded("x", "morpheme", [&] { return decode_file_bytes(b); });
    }
    for (int i = 0; i < 300; ++i) {
      auto b = data;
      for (int k = 0; k < 3; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
      (void)core::guarded("x", "morpheme", [&] { return decode_file_bytes(b); });
    }
  }
}

// Every bundle against the .mcn it was compiled from (same stem): every blend-tree node, state
// and transition the .mcn names is a node of the decoded network, and the state machines hold
// as many states and transitions as the .mcn draws.
TEST(SdkNetwork, EveryBundleMatchesItsMcn) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  int bundles = 0;
  for (auto proj : projects)
    for (const auto& mcn : files_in(root + "/" + proj, ".mcn")) {
      const auto text = text_of(mcn);
      std::set<std::string> names;
      std::size_t states = 0, transitions = 0;
      std::regex e("<(BlendTreeNode|StateMachineNode|TransitionEdge) name=\"([^\"]+)\"");
      for (std::sregex_iterator it(text.begin(), text.end(), e), end; it != end; ++it) {
        const std::string kind = (*it)[1], name = (*it)[2];
        if (kind == "StateMachineNode") ++states;
        if (kind == "TransitionEdge") ++transitions;
        if (name != "RootBlendTree") names.insert(name);
      }
      ASSERT_FALSE(names.empty()) << mcn;
      std::size_t anim_sets = 0;
      for (auto at = text.find("<AnimationSet name="); at != std::string::npos; at = text.find("<AnimationSet name=", at + 1))
        ++anim_sets;
      for (auto arch : {"x64", "win32"}) {
        const auto f = root + "/" + proj + "/" + arch + "/" + fs::path(mcn).stem().string() + ".nmb";
        ASSERT_TRUE(fs::exists(f)) << f;
        auto data = test::read_bytes(f);
        auto m = parse_mrn(data);
        std::optional<network_def> net;
        for (const auto& p : m.packets)
          if (p.type == 10)
            net = read_network(sized_reader{core::byte_reader(p.payload, core::endian::little, p.payload_offset()), m.pointer_size()});
        ASSERT_TRUE(net) << f;
        std::set<std::string> got;
        // Node names are paths ("StateMachine1|Idle|BlendN1"): every component names a node of
        // the .mcn (a state is named by the path of the nodes inside it).
        for (const auto& n : net->nodes) {
          std::stringstream parts(n.name);
          for (std::string part; std::getline(parts, part, '|');) got.insert(part);
        }
        for (const auto& n : names) EXPECT_TRUE(got.count(n)) << f << " lacks the .mcn's node " << n;
        std::size_t s = 0, t = 0;
        for (const auto& sm : net->state_machines) {
          s += sm.states.size();
          t += sm.transitions.size();
        }
        EXPECT_EQ(s, states) << f;
        EXPECT_EQ(t, transitions) << f;
        EXPECT_EQ(net->animation_set_count, anim_sets) << f;
        // The dump is the same network: node and state-machine counts agree.
        auto j = network_to_json(*net);
        EXPECT_EQ(j["node_count"], net->nodes.size());
        EXPECT_EQ(j["state_machines"].size(), net->state_machines.size());
        ++bundles;
      }
    }
  EXPECT_EQ(bundles, 8);
}

namespace {
// The naming rules as first written (O(n^2) count, ordered set, find_last_of stem): the
// hashed animation_names and the scanning stem_of must give the same names.
std::string old_stem(std::string_view path) {
  std::string s(path);
  auto slash = s.find_last_of("/\\");
  if (slash != std::string::npos) s = s.substr(slash + 1);
  auto dot = s.rfind('.');
  if (dot != std::string::npos && dot > 0) s.resize(dot);
  return s;
}
std::vector<std::string> old_names(const sdk_file_names& fn) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < fn.files.size(); ++i) {
    std::string n = i < fn.sources.size() && !fn.sources[i].empty() ? old_stem(fn.sources[i]) : old_stem(fn.files[i]);
    out.push_back(n.empty() ? "animation_" + std::to_string(i) : n);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    bool dup = std::count(out.begin(), out.end(), out[i]) > 1;
    if (dup && i < fn.takes.size()) out[i] += "_" + std::string(fn.takes[i]);
  }
  std::set<std::string> used;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (used.count(out[i])) out[i] = old_stem(fn.files[i]);
    if (used.count(out[i])) out[i] += "_" + std::to_string(i);
    used.insert(out[i]);
  }
  return out;
}
}  // namespace

TEST(SdkNames, HashedNamingEqualsTheQuadraticRules) {
  std::mt19937 rng(7);
  const std::vector<std::string> parts = {"a", "b", "Walk", ".", "/", "\\", "x.y", "", "_1", ".fbx", "c:", "A"};
  auto word = [&](int n) {
    std::string s;
    for (int k = 0; k < n; ++k) s += parts[rng() % parts.size()];
    return s;
  };
  std::deque<std::string> kept;  // the names view these (a deque's elements stay put)
  auto keep = [&](std::string x) -> std::string_view { return kept.emplace_back(std::move(x)); };
  for (int round = 0; round < 3000; ++round) {
    const std::string s = word(static_cast<int>(rng() % 6));
    ASSERT_EQ(stem_of(s), old_stem(s)) << s;
    sdk_file_names fn;
    const std::size_t n = rng() % 12;
    for (std::size_t i = 0; i < n; ++i) {
      fn.files.push_back(keep(word(static_cast<int>(rng() % 3))));
      if (rng() % 4) fn.sources.push_back(keep(word(static_cast<int>(rng() % 3))));
      if (rng() % 3) fn.takes.push_back(keep(rng() % 2 ? "untitled" : word(1)));
    }
    ASSERT_EQ(animation_names(fn), old_names(fn)) << "round " << round;
  }
}

TEST(SdkNames, NmbNameFollowsTheFilesystemExtensionRule) {
  for (std::string n : {"x.nmb", "X.NMB", ".nmb", "..nmb", "a.b.Nmb", "nmb", "a.nmbx", "a.nm", "..", ".", "a.", ".a.nmb"}) {
    std::string ext = std::filesystem::path(n).extension().string();
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(nmb_name(n), ext == ".nmb") << n;
  }
}

// ---------------------------------------------------------------- decode-speed paths

// animation_name(fn, i) skips the renaming rules only when no entry would be renamed: it must
// equal the rules' name for every entry, with duplicates (the rules run) and without (skipped).
TEST(SdkNames, SingleNameEqualsTheRules) {
  std::mt19937 rng(11);
  const std::vector<std::string> parts = {"a", "b", "Walk", ".", "/", "\\", "x.y", "", "_1", ".fbx", "c:", "A", "_untitled"};
  auto word = [&](int n) {
    std::string s;
    for (int k = 0; k < n; ++k) s += parts[rng() % parts.size()];
    return s;
  };
  int fast = 0;
  std::deque<std::string> kept;  // the names view these (a deque's elements stay put)
  auto keep = [&](std::string x) -> std::string_view { return kept.emplace_back(std::move(x)); };
  for (int round = 0; round < 3000; ++round) {
    sdk_file_names fn;
    const std::size_t n = 1 + rng() % 12;
    const bool distinct = round % 2 == 0;  // half the rounds: distinct stems (the fast path)
    for (std::size_t i = 0; i < n; ++i) {
      fn.files.push_back(keep(distinct ? "dir/f" + std::to_string(i) + word(1) + ".nsa" : word(static_cast<int>(rng() % 3))));
      if (rng() % 4) fn.sources.push_back(keep(distinct ? "c:\\src\\s" + std::to_string(i) + ".xmd" : word(static_cast<int>(rng() % 3))));
      if (rng() % 3) fn.takes.push_back(keep(rng() % 2 ? "untitled" : word(1)));
    }
    const auto all = old_names(fn);
    std::set<std::string> first;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(animation_name(fn, i), all[i]) << "round " << round << " entry " << i;
      first.insert(i < fn.sources.size() && !fn.sources[i].empty() ? old_stem(fn.sources[i]) : old_stem(fn.files[i]));
    }
    fast += first.size() == n && !first.count("");
  }
  EXPECT_GT(fast, 1000);
  // A take suffix that makes a later, distinct stem a duplicate: the rules must run.
  sdk_file_names fn;
  fn.files = {"a.nsa", "a.qsa", "a_t.nsa"};
  fn.takes = {"t", "u", "v"};
  EXPECT_EQ(animation_name(fn, 2), old_names(fn)[2]);
  EXPECT_EQ(animation_name(fn, 2), "a_t_v");  // not its stem "a_t"
}

// scan_mrn (views) and parse_mrn (copies) are one walk: the same packets, parts and tail, and
// the same error (code and offset) on damaged bundles.
TEST(SdkBundle, ScanEqualsParse) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  auto same = [](std::span<const std::uint8_t> d) {
    auto p = core::guarded("x", "morpheme-nmb", [&] { return parse_mrn(d); });
    auto v = core::guarded("x", "morpheme-nmb", [&] { return scan_mrn(d); });
    ASSERT_EQ(p.ok(), v.ok());
    if (!p.ok()) {
      EXPECT_EQ(p.error().code, v.error().code);
      EXPECT_EQ(p.error().offset, v.error().offset);
      EXPECT_EQ(p.error().message, v.error().message);
      return;
    }
    const auto& f = p.value();
    const auto& g = v.value();
    ASSERT_EQ(f.packets.size(), g.packets.size());
    EXPECT_EQ(f.variant, g.variant);
    EXPECT_TRUE(std::ranges::equal(f.tail, g.tail));
    for (std::size_t i = 0; i < f.packets.size(); ++i) {
      const auto& a = f.packets[i];
      const auto& b = g.packets[i];
      EXPECT_EQ(a.offset, b.offset);
      EXPECT_EQ(a.type, b.type);
      EXPECT_EQ(a.index, b.index);
      EXPECT_EQ(a.unknown, b.unknown);
      EXPECT_EQ(a.alignment, b.alignment);
      EXPECT_EQ(a.header_extra, b.header_extra);
      EXPECT_EQ(a.payload_offset(), b.payload_offset());
      EXPECT_TRUE(std::ranges::equal(a.header_pad, b.header_pad));
      EXPECT_TRUE(std::ranges::equal(a.payload, b.payload));
      EXPECT_TRUE(std::ranges::equal(a.fill, b.fill));
      // The views lie in the walked bytes.
      EXPECT_EQ(b.payload.data(), d.data() + b.payload_offset());
    }
  };
  std::mt19937 rng(5);
  int files = 0;
  for (const auto& f : sample_files(root, ".nmb")) {
    ++files;
    auto data = test::read_bytes(f);
    same(data);
    for (std::size_t cut = 1; cut < data.size(); cut += 211) same(std::span(data).first(cut));
    for (int i = 0; i < 40; ++i) {
      auto b = data;
      for (int k = 0; k < 3; ++k) b[rng() % std::min<std::size_t>(b.size(), 4096)] = static_cast<std::uint8_t>(rng());
      same(b);
    }
  }
  EXPECT_EQ(files, 8);
}

// A bundle loaded from moved-in bytes owns them: its packet views stay valid after moves.
TEST(SdkBundle, OwnedBytesKeepTheViewsValid) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb");
  const auto data = test::read_bytes(f);
  auto b = load_sdk_bundle(bytes(data));
  sdk_bundle moved = std::move(b);
  ASSERT_FALSE(moved.raw.packets.empty());
  for (const auto& p : moved.raw.packets) {
    EXPECT_EQ(p.payload.data(), moved.owned.data() + p.payload_offset());
    EXPECT_TRUE(std::equal(p.payload.begin(), p.payload.end(), data.begin() + static_cast<std::ptrdiff_t>(p.payload_offset())));
  }
}

// The file-name table is read as views of the bundle's bytes: every name lies inside the
// owned buffer (kept across a move) and equals the copying string-table reader's entry; a
// damaged table fails with the same error from both readers.
TEST(SdkBundle, FileNamesViewTheOwnedBytes) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  int tables = 0, damaged = 0;
  for (auto proj : projects)
    for (auto arch : {"x64", "win32"})
      for (const auto& f : files_in(root + "/" + proj + "/" + arch, ".nmb")) {
        auto b = load_sdk_bundle(test::read_bytes(f));
        sdk_bundle moved = std::move(b);
        ASSERT_TRUE(moved.names.has_value()) << f;
        const auto* lo = reinterpret_cast<const char*>(moved.owned.data());
        const auto* hi = lo + moved.owned.size();
        const auto& fn = *moved.names;
        for (const auto* t : {&fn.files, &fn.formats, &fn.sources, &fn.takes})
          for (auto v : *t) EXPECT_TRUE(v.data() >= lo && v.data() + v.size() < hi) << f;  // NUL inside too
        const unsigned P = moved.raw.pointer_size();
        for (const auto& p : moved.raw.packets) {
          if (p.type != 13) continue;
          const sized_reader s{core::byte_reader(p.payload), P};
          std::vector<std::string_view> const* t[4] = {&fn.files, &fn.formats, &fn.sources, &fn.takes};
          for (unsigned k = 0; k < 4; ++k) {
            const std::uint64_t rel = s.ptr_at(std::uint64_t{k} * P);
            if (!rel) continue;
            ++tables;
            const auto copies = read_sdk_string_table(s, rel);
            ASSERT_EQ(copies.size(), t[k]->size()) << f;
            // Each entry as the checked byte reader reads it: {count, size, ptr offsets, ptr chars}.
            const std::uint64_t o = rel + s.ptr_at(rel + 8), ch = rel + s.ptr_at(rel + 8 + P);
            const auto chars = s.r.sub(ch, s.r.u32_at(rel + 4));
            for (std::size_t i = 0; i < copies.size(); ++i) {
              EXPECT_EQ(copies[i], chars.cstring_at(s.r.u32_at(o + 4 * i), 4096)) << f;
              EXPECT_EQ(copies[i], (*t[k])[i]) << f;
            }
            EXPECT_EQ(read_sdk_string_views(s, rel), *t[k]) << f;
            // Damage: each offset word of the table in turn set past the characters, and the
            // character count cut to 1 (names unterminated): the same error from both readers.
            std::vector<std::uint8_t> bad(p.payload.begin(), p.payload.end());
            const sized_reader ds{core::byte_reader(std::span<const std::uint8_t>(bad)), P};
            auto errors_agree = [&] {
              auto c = core::guarded("x", "morpheme-nmb", [&] { return read_sdk_string_table(ds, rel).size(); });
              auto v = core::guarded("x", "morpheme-nmb", [&] { return read_sdk_string_views(ds, rel).size(); });
              ASSERT_EQ(c.ok(), v.ok()) << f;
              if (c.ok()) {
                EXPECT_EQ(c.value(), v.value());
              } else {
                ++damaged;
                EXPECT_EQ(c.error().code, v.error().code) << f;
                EXPECT_EQ(c.error().offset, v.error().offset) << f;
                EXPECT_EQ(c.error().message, v.error().message) << f;
              }
            };
            const std::uint32_t count = s.r.u32_at(rel), size = s.r.u32_at(rel + 4);
            const std::uint64_t offs = rel + s.ptr_at(rel + 8);
            for (std::uint32_t i = 0; i < count; ++i) {
              std::vector<std::uint8_t> keep(bad.begin() + static_cast<std::ptrdiff_t>(offs + 4ull * i),
                                             bad.begin() + static_cast<std::ptrdiff_t>(offs + 4ull * i + 4));
              const std::uint32_t past = size + i;
              std::memcpy(bad.data() + offs + 4ull * i, &past, 4);
              errors_agree();
              auto e = core::guarded("x", "morpheme-nmb", [&] { return read_sdk_string_views(ds, rel).size(); });
              ASSERT_FALSE(e.ok()) << f;
              EXPECT_EQ(e.error().code, code::bad_offset) << f;
              EXPECT_EQ(e.error().offset, offs + 4ull * i) << f;  // the bad offset word
              std::copy(keep.begin(), keep.end(), bad.begin() + static_cast<std::ptrdiff_t>(offs + 4ull * i));
            }
            if (size > 1) {
              const std::uint32_t one = 1;
              std::memcpy(bad.data() + rel + 4, &one, 4);
              errors_agree();
            }
          }
        }
      }
  EXPECT_GT(tables, 10);
  EXPECT_GT(damaged, 10);
}

// Bone names are checked for duplicates up front; a rig with two equal names still gets the
// second one renamed "<name>_<index>" with a warning, as the per-bone set did.
TEST(SdkRig, DuplicateBoneNameIsRenamed) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb");
  auto data = test::read_bytes(f);
  auto m = parse_mrn(data);
  std::size_t rig = 0;
  while (m.packets[rig].type != 1) ++rig;
  auto r = read_sdk_rig(sized_reader{core::byte_reader(m.packets[rig].payload), 8});
  // Overwrite bone j's name characters with bone i's name (i's not longer) and a NUL.
  std::size_t i = 0, j = 0;
  for (std::size_t a = 2; a < r.names.size() && !j; ++a)
    for (std::size_t c = a + 1; c < r.names.size(); ++c)
      if (!r.names[a].empty() && r.names[a].size() <= r.names[c].size()) {
        i = a, j = c;
        break;
      }
  ASSERT_GT(j, 0u);
  const std::string from = std::string(1, '\0') + r.names[j] + '\0';
  auto pos = std::search(data.begin() + static_cast<std::ptrdiff_t>(m.packets[rig].payload_offset()), data.end(), from.begin(), from.end());
  ASSERT_NE(pos, data.end());
  std::copy(r.names[i].begin(), r.names[i].end(), pos + 1);
  *(pos + 1 + static_cast<std::ptrdiff_t>(r.names[i].size())) = 0;
  read_out out;
  read_context ctx;
  ctx.path = f;
  ctx.data = data;
  ctx.diags = &out.diags;
  ctx.load = [](const std::string& p) -> result<bytes> { return test::read_bytes(p); };
  out.s = core::guarded(f, "morpheme", [&] { return read_nmb_scene(ctx); });
  ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
  const auto& sk = out.s.value().skeletons.at(0);
  EXPECT_EQ(sk.bones.at(i).name, r.names[i]);
  EXPECT_EQ(sk.bones.at(j).name, r.names[i] + "_" + std::to_string(j));
  EXPECT_TRUE(has_warning(out.diags, code::w_name_mismatch, "duplicate bone name"));
  std::set<std::string> unique;
  for (const auto& b : sk.bones) unique.insert(b.name);
  EXPECT_EQ(unique.size(), sk.bones.size());
}

// Times are cached per (count, rate): constant channels (one key: 0 and the duration) and
// sampled ones (sample i at i / rate, clamped to the duration) interleave in every source.
TEST(SdkSources, TrackTimesFollowTheirOwnKeyCount) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  int constant = 0, sampled = 0;
  for (const auto& ext : {".nsa", ".qsa"})
    for (const auto& f : sample_files(root, ext)) {
      auto r = read_file(f, read_source5_scene);
      ASSERT_TRUE(r.s.ok()) << f << ": " << r.s.error().to_string();
      const auto& a = r.s.value().animations.at(0);
      const double rate = *a.fps;
      const auto dur = static_cast<float>(a.duration);
      bool last_constant = false, switched = false;
      for (const auto& t : a.tracks) {
        if (t.bone == a.extras["root_motion"][0]) continue;  // the trajectory has its own rate
        const bool c = t.times.size() == 2 && a.extras["sample_count"] != 2;
        switched |= c != last_constant;
        last_constant = c;
        ASSERT_EQ(t.values.size(), t.times.size() * (t.path == path::rotation ? 4u : 3u));
        if (c) {
          ++constant;
          EXPECT_EQ(t.times, (std::vector<float>{0.0f, dur})) << f;
        } else {
          ++sampled;
          ASSERT_EQ(t.times.size(), a.extras["sample_count"].get<std::size_t>()) << f;
          for (std::size_t i = 0; i < t.times.size(); ++i)
            ASSERT_EQ(t.times[i], std::min(static_cast<float>(static_cast<double>(i) / rate), dur)) << f << " key " << i;
        }
      }
      EXPECT_TRUE(switched) << f;
    }
  EXPECT_GT(constant, 1000);
  EXPECT_GT(sampled, 1000);
}

namespace {
// The QSA section samples as first written: every term of range_value per sample (the init
// rotation too). decode_qsa hoists the per-channel terms; the floats must not change.
float ref_range(const std::array<float, 6>& mm, int c, std::uint32_t q, unsigned bits) {
  if (bits == 0) return mm[c];
  double full = bits >= 32 ? 4294967295.0 : static_cast<double>((1ull << bits) - 1);
  return static_cast<float>(mm[c] + (static_cast<double>(mm[3 + c]) - mm[c]) * (q / full));
}
void ref_qsa_sections(const qsa_file& f, nsa_decoded& d) {
  for (const auto& s : f.sections) {
    const std::uint32_t ns = s.sample_count(), start = s.start_frame();
    for (std::uint32_t t = 0; t < ns; ++t) {
      core::bit_reader br(std::span(s.position_rows).subspan(std::size_t{t} * s.position_row_bytes(), s.position_row_bytes()),
                          core::bit_order::lsb_first);
      for (std::uint16_t j = 0; j < s.position_count(); ++j) {
        const auto& inf = s.position_info[j];
        vec3 v{};
        for (int c = 0; c < 3; ++c)
          v[c] = ref_range(s.position_init, c, inf.init[c], 8) +
                 ref_range(s.position_sets[inf.index[c]], c, br.read(inf.bits[c]), inf.bits[c]);
        d.channels[f.lists[2][j]].translation[start + t] = v;
      }
      core::bit_reader bq(std::span(s.rotation_rows).subspan(std::size_t{t} * s.rotation_row_bytes(), s.rotation_row_bytes()),
                          core::bit_order::lsb_first);
      for (std::uint16_t j = 0; j < s.rotation_count(); ++j) {
        const auto& inf = s.rotation_info[j];
        std::array<float, 3> iv{}, v{};
        for (int c = 0; c < 3; ++c) {
          iv[c] = inf.init[c] / 128.0f - 1.0f;
          v[c] = ref_range(s.rotation_sets[inf.index[c]], c, bq.read(inf.bits[c]), inf.bits[c]);
        }
        d.channels[f.lists[3][j]].rotation[start + t] = core::normalize(core::multiply(mrp_to_quat(iv), mrp_to_quat(v)));
      }
    }
  }
}
bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }
}  // namespace

TEST(SdkSources, QsaSamplesEqualThePerSampleFormula) {
  RIGRIP_REQUIRE_SAMPLE(root, "morpheme/sdk");
  std::size_t compared = 0;
  for (const auto& path : sample_files(root, ".qsa")) {
    const auto data = test::read_bytes(path);
    const auto f = parse_qsa(core::byte_reader(data));
    const auto d = decode_qsa(f);
    auto ref = d;  // static channels and sizes as decoded; the sections' samples overwritten
    for (auto c : f.lists[2]) std::fill(ref.channels[c].translation.begin(), ref.channels[c].translation.end(), vec3{9, 9, 9});
    for (auto c : f.lists[3]) std::fill(ref.channels[c].rotation.begin(), ref.channels[c].rotation.end(), quat{9, 9, 9, 9});
    ref_qsa_sections(f, ref);
    for (std::size_t c = 0; c < d.channels.size(); ++c) {
      const auto &a = d.channels[c], &b = ref.channels[c];
      ASSERT_EQ(a.translation.size(), b.translation.size());
      ASSERT_EQ(a.rotation.size(), b.rotation.size());
      for (std::size_t i = 0; i < a.translation.size(); ++i)
        for (int k = 0; k < 3; ++k) ASSERT_TRUE(same_bits(a.translation[i][k], b.translation[i][k])) << path << " ch " << c;
      for (std::size_t i = 0; i < a.rotation.size(); ++i)
        for (int k = 0; k < 4; ++k) ASSERT_TRUE(same_bits(a.rotation[i][k], b.rotation[i][k])) << path << " ch " << c;
      compared += a.translation.size() + a.rotation.size();
    }
  }
  EXPECT_GT(compared, 10000u);
}

// The packet walk reads header fields straight from the bytes: its errors are the ones the
// byte_reader walk gave (values from the earlier build on this cut), and the mrp formula
// inlined for the QSA loop is mrp_to_quat's.
TEST(SdkBundle, ScanErrorsAsBefore) {
  RIGRIP_REQUIRE_SAMPLE(f, "morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb");
  auto data = test::read_bytes(f);
  data.resize(866);
  auto v = core::guarded("x", "morpheme-nmb", [&] { return scan_mrn(data); });
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, code::bad_count);
  EXPECT_EQ(v.error().offset, 0xC4u);
  EXPECT_EQ(v.error().message, "packet 2 (type 0x1) payload of 3760 bytes exceeds the 642 bytes left");
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.5f, 1.5f);
  for (int i = 0; i < 1000; ++i) {
    std::array<float, 3> m{u(rng), u(rng), u(rng)};
    auto a = mrp_to_quat(m), b = mrp_quat_inline(m);
    for (int k = 0; k < 4; ++k) ASSERT_EQ(std::bit_cast<std::uint32_t>(a[k]), std::bit_cast<std::uint32_t>(b[k]));
  }
}
