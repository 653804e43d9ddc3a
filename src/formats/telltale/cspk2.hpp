// CompressedSkeletonPoseKeys2: decode (buffer -> keys) and encode (tracks -> buffer).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace rigrip::telltale {

struct cspk2_header {
  float min_delta_v[3]{}, range_delta_v[3]{};
  float min_delta_q[3]{}, range_delta_q[3]{};
  float min_vector[3]{}, range_vector[3]{};
  float range_time = 0;
  std::uint32_t bone_count = 0;
  std::uint64_t sample_data_size = 0;
  std::uint64_t unused = 0;  // uninitialised heap bytes in real files; kept, never checked
};

struct cspk2_key {
  std::uint32_t bone = 0;      // index into bones
  bool rotation = false;
  bool delta = false;
  std::uint8_t axis_order = 0;
  std::uint16_t t16 = 0;
  float time = 0;              // t16 * range_time / 65535
  std::array<float, 4> value{};  // after delta accumulation; translation uses [0..2]
};

struct cspk2_decoded {
  cspk2_header header;
  std::vector<std::uint64_t> bones;
  std::vector<cspk2_key> keys;  // decode order
  std::uint64_t sample_bytes_consumed = 0;
  std::size_t commands = 0;
};

// Decodes a CSPK2 buffer. `base` is the buffer's file offset (for messages).
[[nodiscard]] cspk2_decoded decode_cspk2(std::span<const std::uint8_t> buf, std::uint64_t base);

// The same decode straight into per-track arrays (what the scene reader needs): track
// 2 * bone holds the bone's translation keys (3 floats each), 2 * bone + 1 its rotation
// keys (x y z w), each in command order. Same checks and messages as decode_cspk2.
struct cspk2_track_keys {
  std::vector<float> times;   // t16 * range_time / 65535
  std::vector<float> values;
  std::uint32_t dupes = 0, clamped = 0;  // decode_cspk2_finished only: what finishing changed
};
struct cspk2_tracks {
  cspk2_header header;
  std::vector<std::uint64_t> bones;
  std::vector<cspk2_track_keys> tracks;  // 2 * bones
  std::uint64_t sample_bytes_consumed = 0;
  std::size_t commands = 0;
  std::size_t command_at = 0;  // index of the u32 command words in the buffer
};
[[nodiscard]] cspk2_tracks decode_cspk2_tracks(std::span<const std::uint8_t> buf, std::uint64_t base);

// decode_cspk2_tracks with each track finished while its keys are written (one pass instead
// of two): times clamped to [0, max(length, 0)], each run of equal times keeping its last key,
// rotations normalised and made hemisphere-continuous; translations are NOT scaled. The
// result is what detail::finish_track makes of decode_cspk2_tracks' arrays (scale 1), with
// its dupes/clamped counts per track, when `in_order` is true. When false (some track's
// clamped times decrease: finish_track's stable-sort path), the arrays are unusable and the
// caller must take decode_cspk2_tracks + finish_track. Same checks and failures.
struct cspk2_finished {
  cspk2_tracks d;
  bool in_order = true;
};
[[nodiscard]] cspk2_finished decode_cspk2_finished(std::span<const std::uint8_t> buf, std::uint64_t base, float length);

namespace detail {
// One sample group of a CSPK2 buffer decoded whole when the decoder opens it (four entries
// of one kind: 0 absolute translation, 1 absolute rotation, 2 delta translation, 3 delta
// rotation; 32 bytes at g for 0 and 1, 16 for 2 and 3): out[c][i] is component c of entry
// i, i.e. for 0 and 2 min + u * step per axis (c = 3 unused), for 1 the smallest-three
// x y z and the rebuilt w (before the command's axis order), for 3 the delta x y z and w.
// The same float operations in the same order as the per-key formulas.
struct group_steps {
  float step[4][3];  // per kind: the dequantisation step per axis (unused for kind 1)
  float min[4][3];   // per kind: the minimum per axis (unused for kind 1)
};
[[nodiscard]] group_steps make_group_steps(const cspk2_header& h);
void decode_group_scalar(unsigned kind, const std::uint8_t* g, const group_steps& s, float (&out)[4][4]);
void decode_group_sse2(unsigned kind, const std::uint8_t* g, const group_steps& s, float (&out)[4][4]);  // = scalar without SSE2
}  // namespace detail

// One bone's input for the encoder: keys in increasing time; translations are the
// normalised values (already divided by the bone's |localPos|).
struct cspk2_track_in {
  std::vector<float> rot_times;
  std::vector<std::array<float, 4>> rotations;  // x y z w, unit
  std::vector<float> pos_times;
  std::vector<std::array<float, 3>> translations;
};

struct cspk2_encode_stats {
  std::size_t absolute_keys = 0, delta_keys = 0;
  float max_rot_step = 0, max_pos_step = 0;  // largest quantisation step used (per component)
};

// Encodes bones (symbols) with their tracks; range_time is the animation length in s.
[[nodiscard]] std::vector<std::uint8_t> encode_cspk2(const std::vector<std::uint64_t>& bones,
                                                     const std::vector<cspk2_track_in>& tracks, float range_time,
                                                     cspk2_encode_stats* stats = nullptr);

}  // namespace rigrip::telltale
