// Runtime-5 NSA / QSA raw structures -> dequantised channel samples (maths: README.md here).
#include <algorithm>
#include <cmath>

#include "core/bit_reader.hpp"
#include "core/math.hpp"
#include "formats/morpheme/anim_source.hpp"
#include "formats/morpheme/rotation_run.hpp"

namespace rigrip::morpheme {

using core::fail;

namespace {

// Total samples over frame sections that may share their boundary frame. Sections are placed
// at their start frames; a frame two sections cover takes the later section's value.
std::uint32_t frame_span(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& starts_counts) {
  std::uint64_t end = 0, total = 0;
  for (auto [s, n] : starts_counts) {
    end = std::max<std::uint64_t>(end, static_cast<std::uint64_t>(s) + n);
    total += n;
  }
  // Sections may only overlap: more frames than samples means a gap (or a damaged start).
  if (end > total || end > 1u << 24)
    fail(code::bad_value, "sections hold " + std::to_string(total) + " samples but reach frame " + std::to_string(end));
  std::vector<bool> covered(static_cast<std::size_t>(end), false);
  for (auto [s, n] : starts_counts)
    for (std::uint32_t i = 0; i < n; ++i) covered[s + i] = true;
  for (std::size_t i = 0; i < covered.size(); ++i)
    if (!covered[i]) fail(code::bad_value, "frame " + std::to_string(i) + " is in no section");
  return static_cast<std::uint32_t>(end);
}

vec3 unpack_word(std::uint32_t w, const std::array<float, 6>& ext_min_or_min_ext, bool min_first) {
  auto q = unpack_111110(w);
  vec3 v{};
  for (int c = 0; c < 3; ++c) {
    float mn = min_first ? ext_min_or_min_ext[c] : ext_min_or_min_ext[3 + c];
    float ex = min_first ? ext_min_or_min_ext[3 + c] : ext_min_or_min_ext[c];
    v[c] = ex * static_cast<float>(q[c]) + mn;
  }
  return v;
}

void decode_trajectory(const source5_trajectory& t, bool qsa, nsa_decoded& d) {
  d.has_trajectory = true;
  d.trajectory_rate = t.sample_rate;
  for (auto w : t.translations) d.trajectory_translation.push_back(unpack_word(w, t.translation, !qsa));
  if (d.trajectory_translation.empty()) d.trajectory_translation.push_back({0, 0, 0});
  if (t.constant_rotation) {
    quat q{t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3]};
    d.trajectory_rotation.push_back(core::finite(q) && core::dot(q, q) > 1e-12f ? core::normalize(q) : quat{0, 0, 0, 1});
  } else {
    for (const auto& r : t.rotations) {
      std::array<float, 3> v{};
      for (int c = 0; c < 3; ++c) {
        float mn = qsa ? t.rotation[3 + c] : t.rotation[c];
        float ex = qsa ? t.rotation[c] : t.rotation[3 + c];
        v[c] = ex * r[c] + mn;
      }
      d.trajectory_rotation.push_back(core::normalize(mrp_to_quat(v)));
    }
  }
}

// The opening NSA and QSA share: the header's timing and one slot per channel.
nsa_decoded open_decoded(const source5_header& h) {
  nsa_decoded d;
  d.duration = h.duration;
  d.sample_rate = h.sample_rate;
  d.channels.resize(h.channel_count);
  return d;
}

// The frames the sections span (checked by frame_span); every dynamic channel gets that many
// samples, identity until its sections fill them. Runs after the static channels are set, so
// a channel in both lists ends up dynamic.
void size_dynamic(nsa_decoded& d, std::uint32_t S, const std::vector<std::uint16_t>& translations,
                  const std::vector<std::uint16_t>& rotations) {
  d.sample_count = S;
  if (S) {
    for (auto c : translations) d.channels[c].translation.assign(S, vec3{0, 0, 0});
    for (auto c : rotations) d.channels[c].rotation.assign(S, quat{0, 0, 0, 1});
  }
}

float range_value(const std::array<float, 6>& min_max, int c, std::uint32_t q, unsigned bits) {
  if (bits == 0) return min_max[c];
  double full = bits >= 32 ? 4294967295.0 : static_cast<double>((1ull << bits) - 1);
  return static_cast<float>(min_max[c] + (static_cast<double>(min_max[3 + c]) - min_max[c]) * (q / full));
}

// range_value(min_max, c, q, bits) with its terms computed once per channel: the same
// operations on the same values, so the same bits.
struct qsa_axis {
  double min = 0, span = 0, full = 1;
  float min_f = 0;
  unsigned bits = 0;
  [[nodiscard]] float value(std::uint32_t q) const {
    if (bits == 0) return min_f;
    return static_cast<float>(min + span * (q / full));
  }
};
qsa_axis qsa_axis_of(const std::array<float, 6>& min_max, int c, unsigned bits) {
  qsa_axis a;
  a.bits = bits;
  a.min_f = min_max[c];
  a.min = min_max[c];
  a.span = static_cast<double>(min_max[3 + c]) - min_max[c];
  a.full = bits >= 32 ? 4294967295.0 : static_cast<double>((1ull << bits) - 1);
  return a;
}

}  // namespace

namespace {

// Per-axis factor sets of a dynamic entry, and its init value.
void translation_entry(const nsa5_file& f, const deq_info& inf, vec3& init, float ex[3], float mn[3]) {
  init = {};
  for (int c = 0; c < 3; ++c) init[c] = f.init.extent[c] * inf.init[c] + f.init.min[c];
  for (int c = 0; c < 3; ++c) {
    const auto& fa = f.translation_factors[inf.index[c]];
    ex[c] = fa.extent[c];
    mn[c] = fa.min[c];
  }
}
void rotation_entry(const nsa5_file& f, const deq_info& inf, quat& init, float ex[3], float mn[3]) {
  std::array<float, 3> iv{};
  for (int c = 0; c < 3; ++c) iv[c] = inf.init[c] / 128.0f - 1.0f;
  init = mrp_to_quat(iv);
  for (int c = 0; c < 3; ++c) {
    const auto& fa = f.rotation_factors[inf.index[c]];
    ex[c] = fa.extent[c];
    mn[c] = fa.min[c];
  }
}

}  // namespace

nsa_plan plan_nsa5(const nsa5_file& f, bool defer) {
  nsa_plan p;
  nsa_decoded& d = p.d;
  d = open_decoded(f.h);
  auto deq = [](const factors& fa, const u16x3& q) {
    std::array<float, 3> v{};
    for (int c = 0; c < 3; ++c) v[c] = fa.extent[c] * q[c] + fa.min[c];
    return v;
  };
  for (std::size_t i = 0; i < f.static_translation.size(); ++i) {
    auto v = deq(f.static_translation_factors, f.static_translations[i]);
    d.channels[f.static_translation[i]].translation = {vec3{v[0], v[1], v[2]}};
  }
  for (std::size_t i = 0; i < f.static_rotation.size(); ++i)
    d.channels[f.static_rotation[i]].rotation = {core::normalize(mrp_to_quat(deq(f.static_rotation_factors, f.static_rotations[i])))};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;
  spans.reserve(f.sections.size());
  for (std::size_t i = 0; i < f.sections.size(); ++i) spans.push_back({f.section_frames[i], f.sections[i].sample_count});
  const std::uint32_t S = spans.empty() ? 0 : frame_span(spans);
  if (defer && S >= 2) {
    // Every frame is in some non-empty section (frame_span) and every section holds every
    // dynamic entry (parse_nsa5 checks the counts), so each entry writes all S samples of its
    // channel: of entries naming the same channel the last one wins, in every section.
    d.sample_count = S;
    p.dynamic_translation.assign(d.channels.size(), -1);
    p.dynamic_rotation.assign(d.channels.size(), -1);
    for (std::size_t j = 0; j < f.dynamic_translation.size(); ++j) {
      d.channels[f.dynamic_translation[j]].translation.clear();
      p.dynamic_translation[f.dynamic_translation[j]] = static_cast<std::int32_t>(j);
    }
    for (std::size_t j = 0; j < f.dynamic_rotation.size(); ++j) {
      d.channels[f.dynamic_rotation[j]].rotation.clear();
      p.dynamic_rotation[f.dynamic_rotation[j]] = static_cast<std::int32_t>(j);
    }
    if (f.trajectory) decode_trajectory(*f.trajectory, false, d);
    return p;
  }
  size_dynamic(d, S, f.dynamic_translation, f.dynamic_rotation);
  for (std::size_t k = 0; k < f.sections.size(); ++k) {
    const auto& s = f.sections[k];
    // An empty section writes nothing (and its sample arrays may have no storage to point into).
    if (s.sample_count == 0) continue;
    const std::uint32_t start = f.section_frames[k];
    // Per channel: the factor sets and the output row are fixed, so they are looked up once.
    for (std::uint32_t j = 0; j < s.translation_count; ++j) {
      vec3 init;
      float ex[3], mn[3];
      translation_entry(f, s.translation_info[j], init, ex, mn);
      decode_translation_run(s.translations.data() + j, s.translation_count, s.sample_count, ex, mn, init,
                             d.channels[f.dynamic_translation[j]].translation.data() + start);
    }
    for (std::uint32_t j = 0; j < s.rotation_count; ++j) {
      quat init;
      float ex[3], mn[3];
      rotation_entry(f, s.rotation_info[j], init, ex, mn);
      decode_rotation_run(s.rotations.data() + j, s.rotation_count, s.sample_count, ex, mn, init,
                          d.channels[f.dynamic_rotation[j]].rotation.data() + start);
    }
  }
  if (f.trajectory) decode_trajectory(*f.trajectory, false, d);
  return p;
}

nsa_decoded decode_nsa5(const nsa5_file& f) { return std::move(plan_nsa5(f, false).d); }

void fill_nsa5_translation(const nsa5_file& f, std::uint32_t j, float* out) {
  for (std::size_t k = 0; k < f.sections.size(); ++k) {
    const auto& s = f.sections[k];
    if (s.sample_count == 0) continue;
    vec3 init;
    float ex[3], mn[3];
    translation_entry(f, s.translation_info[j], init, ex, mn);
    decode_translation_run(s.translations.data() + j, s.translation_count, s.sample_count, ex, mn, init,
                           out + 3 * static_cast<std::size_t>(f.section_frames[k]));
  }
}

void fill_nsa5_rotation(const nsa5_file& f, std::uint32_t j, std::uint32_t S, float* out) {
  std::size_t used = 0, only = 0;
  for (std::size_t k = 0; k < f.sections.size(); ++k)
    if (f.sections[k].sample_count) {
      ++used;
      only = k;
    }
  if (used == 1 && f.section_frames[only] == 0 && f.sections[only].sample_count == S) {
    // One section is the whole track: hemisphere-continuous while decoding.
    const auto& s = f.sections[only];
    quat init;
    float ex[3], mn[3];
    rotation_entry(f, s.rotation_info[j], init, ex, mn);
    decode_rotation_run<true>(s.rotations.data() + j, s.rotation_count, S, ex, mn, init, out);
    return;
  }
  for (std::size_t k = 0; k < f.sections.size(); ++k) {
    const auto& s = f.sections[k];
    if (s.sample_count == 0) continue;
    quat init;
    float ex[3], mn[3];
    rotation_entry(f, s.rotation_info[j], init, ex, mn);
    decode_rotation_run(s.rotations.data() + j, s.rotation_count, s.sample_count, ex, mn, init,
                        out + 4 * static_cast<std::size_t>(f.section_frames[k]));
  }
  hemisphere_run(out, S);
}

nsa_decoded decode_qsa(const qsa_file& f) {
  nsa_decoded d = open_decoded(f.h);
  for (std::size_t i = 0; i < f.lists[0].size(); ++i) {
    vec3 v{};
    for (int c = 0; c < 3; ++c) v[c] = range_value(f.unchanging_position_range, c, f.unchanging_positions[i][c], 16);
    d.channels[f.lists[0][i]].translation = {v};
  }
  for (std::size_t i = 0; i < f.lists[1].size(); ++i) {
    std::array<float, 3> v{};
    for (int c = 0; c < 3; ++c) v[c] = range_value(f.unchanging_rotation_range, c, f.unchanging_rotations[i][c], 16);
    d.channels[f.lists[1][i]].rotation = {core::normalize(mrp_to_quat(v))};
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;
  for (const auto& s : f.sections) spans.push_back({s.start_frame(), s.sample_count()});
  size_dynamic(d, spans.empty() ? 0 : frame_span(spans), f.lists[2], f.lists[3]);
  // Per section and channel the ranges, bit widths, init values and output rows are fixed:
  // they are looked up once (range_value's terms kept, so every sample has the same bits).
  std::vector<std::array<qsa_axis, 3>> axes;
  std::vector<vec3> pos_init;
  std::vector<quat> rot_init;
  std::vector<vec3*> pos_out;
  std::vector<quat*> rot_out;
  for (const auto& s : f.sections) {
    const std::uint32_t ns = s.sample_count(), start = s.start_frame();
    const std::uint16_t np = s.position_count(), nr = s.rotation_count();
    axes.resize(static_cast<std::size_t>(np) + nr);
    pos_init.resize(np);
    rot_init.resize(nr);
    pos_out.resize(np);
    rot_out.resize(nr);
    for (std::uint16_t j = 0; j < np; ++j) {
      const auto& inf = s.position_info[j];
      for (int c = 0; c < 3; ++c) {
        pos_init[j][c] = range_value(s.position_init, c, inf.init[c], 8);
        axes[j][c] = qsa_axis_of(s.position_sets[inf.index[c]], c, inf.bits[c]);
      }
      pos_out[j] = d.channels[f.lists[2][j]].translation.data() + start;
    }
    for (std::uint16_t j = 0; j < nr; ++j) {
      const auto& inf = s.rotation_info[j];
      std::array<float, 3> iv{};
      for (int c = 0; c < 3; ++c) {
        iv[c] = inf.init[c] / 128.0f - 1.0f;
        axes[np + j][c] = qsa_axis_of(s.rotation_sets[inf.index[c]], c, inf.bits[c]);
      }
      rot_init[j] = mrp_to_quat(iv);
      rot_out[j] = d.channels[f.lists[3][j]].rotation.data() + start;
    }
    for (std::uint32_t t = 0; t < ns; ++t) {
      core::bit_reader br(std::span(s.position_rows).subspan(static_cast<std::size_t>(t) * s.position_row_bytes(),
                                                             s.position_row_bytes()),
                          core::bit_order::lsb_first);
      for (std::uint16_t j = 0; j < np; ++j) {
        vec3 v{};
        for (int c = 0; c < 3; ++c) v[c] = pos_init[j][c] + axes[j][c].value(br.read(axes[j][c].bits));
        pos_out[j][t] = v;
      }
      core::bit_reader bq(std::span(s.rotation_rows).subspan(static_cast<std::size_t>(t) * s.rotation_row_bytes(),
                                                             s.rotation_row_bytes()),
                          core::bit_order::lsb_first);
      for (std::uint16_t j = 0; j < nr; ++j) {
        const auto& ax = axes[np + j];
        std::array<float, 3> v{};
        for (int c = 0; c < 3; ++c) v[c] = ax[c].value(bq.read(ax[c].bits));
        rot_out[j][t] = core::normalize(core::multiply(rot_init[j], mrp_quat_inline(v)));
      }
    }
  }
  if (f.trajectory) decode_trajectory(*f.trajectory, true, d);
  return d;
}

}  // namespace rigrip::morpheme
