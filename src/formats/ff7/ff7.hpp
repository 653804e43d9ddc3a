// Final Fantasy VII (PC): battle AA skeletons, DA animation packs, P models, TEX textures,
// and the field HRC/RSD/A formats. Raw layers (byte-faithful structures) live here next to
// the bitstream codec; decode (raw -> scene) and encode (scene -> raw) are in scene.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/bit_reader.hpp"
#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::ff7 {

// ------------------------------------------------------------------ DA bitstream
using triple = std::array<std::int16_t, 3>;

// One decoded frame: the s16 accumulators exactly as the game keeps them (position Y not
// inverted; rotations in 1/4096 turns, possibly past 4095 or negative: reduce mod 4096).
struct da_frame {
  triple position{0, 0, 0};
  std::vector<triple> rotations;
  bool operator==(const da_frame&) const = default;
};

// Rotation delta codes. `delta` is in key units (the value shifted right by key).
// Shortest code: 0 -> "0"; -1 -> "1 000"; 1..63 / -64..-2 -> "1 nnn" + n bits; else raw.
void write_rotation_delta(core::bit_writer& w, int delta_units, int key, bool negatives_raw = false);
[[nodiscard]] int read_rotation_delta(core::bit_reader& r, int key);  // full units (<< key)
[[nodiscard]] int rotation_delta_bits(int delta_units, int key, bool negatives_raw = false);

struct decode_result {
  std::vector<da_frame> frames;
  bool stopped_early = false;  // the bitstream ran out before the frame count said
  std::uint64_t bits_used = 0;
};
// Decodes up to `max_frames` frames of `nrot` triples. A bitstream that ends inside
// frame 0 fails (E_TRUNCATED with the offset); one that ends later stops there.
[[nodiscard]] decode_result decode_bitstream(std::span<const std::uint8_t> bits, int key,
                                             std::size_t nrot, std::size_t max_frames,
                                             std::uint64_t base_offset);

struct encode_options {
  bool negatives_raw = false;  // reference encoder that writes every negative delta raw (size comparison)
};
// Encodes frames whose rotations are reduced mod 4096 and floored to multiples of 1 << key.
[[nodiscard]] bytes encode_bitstream(const std::vector<da_frame>& frames, int key,
                                     const encode_options& o = {});
// Quantises one frame set to `key` (rounding to nearest, mod 4096).
[[nodiscard]] std::vector<da_frame> quantise(const std::vector<da_frame>& frames, int key);
// Reduces every rotation mod 4096 (the canonical form decode(encode(x)) is compared in).
[[nodiscard]] std::vector<da_frame> canonical(const std::vector<da_frame>& frames);

// ------------------------------------------------------------------ DA pack (raw layer)
struct da_chunk {
  std::uint64_t offset = 0;  // absolute offset of the 12-byte chunk header
  std::uint32_t bones_field = 0, frames_field = 0, chunk_size = 0;
  bool special = false;          // chunk_size < 11: not an animation, bytes kept verbatim
  bool no_frames_field = false;  // the RSAA quirk: mini header is sSize u16 + key u8 only
  std::uint16_t s_frames = 0, s_size = 0;
  std::uint8_t key = 0;
  std::uint64_t bits_offset = 0;  // absolute offset of the bitstream
  bytes body;                     // chunk_size bytes, verbatim
  [[nodiscard]] std::size_t header_size() const { return no_frames_field ? 3 : 5; }
  [[nodiscard]] std::span<const std::uint8_t> bitstream() const {
    return std::span<const std::uint8_t>(body).subspan(header_size(), s_size);
  }
};
struct da_pack {
  std::uint32_t count = 0;
  std::vector<da_chunk> chunks;
  bytes trailing;  // bytes after the last chunk, kept verbatim
};
[[nodiscard]] da_pack parse_da(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_da(const da_pack& p);
// A fresh animation chunk from frames (dwBones = nrot field, padding to 4 bytes).
[[nodiscard]] da_chunk make_chunk(const std::vector<da_frame>& frames, int key, std::uint32_t bones_field,
                                  const encode_options& o = {});
// Picks key 0, 2 or 4: least quantisation error among keys whose bitstream fits 65535
// bytes, ties to the smaller output. Fails with E_LIMIT when none fits.
struct key_choice {
  int key = 0;
  bytes bits;
  std::int64_t error = 0;  // sum of |quantised - input| in 1/4096 turns
};
[[nodiscard]] key_choice choose_key(const std::vector<da_frame>& frames);

// ------------------------------------------------------------------ AA skeleton
struct aa_bone {
  std::int32_t parent = -1;
  float length = 0;
  std::int32_t has_model = 0;
};
struct aa_file {
  std::array<std::int32_t, 13> header{};
  std::vector<aa_bone> bones;
  bytes trailing;
  [[nodiscard]] std::int32_t bone_count() const { return header[3]; }
  [[nodiscard]] std::int32_t joint_count() const { return header[5]; }
  [[nodiscard]] std::int32_t texture_count() const { return header[6]; }
  [[nodiscard]] std::int32_t body_anim_count() const { return header[7]; }
  [[nodiscard]] std::int32_t weapon_count() const { return header[9]; }
  [[nodiscard]] std::int32_t weapon_anim_count() const { return header[10]; }
  // Rotation triples per body frame: nBones + 1 (root first), or 1 for single-bone models.
  [[nodiscard]] std::size_t body_rotations() const {
    return bone_count() > 1 ? static_cast<std::size_t>(bone_count()) + 1 : 1;
  }
};
[[nodiscard]] aa_file parse_aa(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_aa(const aa_file& a);
[[nodiscard]] int detect_aa(std::span<const std::uint8_t> data);
[[nodiscard]] int detect_da(std::span<const std::uint8_t> data);

// ------------------------------------------------------------------ P model
struct p_poly {
  std::uint16_t tag1 = 0;
  std::array<std::uint16_t, 3> v{}, n{}, e{};
  std::uint32_t tag2 = 0;
};
struct p_group {
  // polyType, polyStart, numPolys, vertStart, numVerts, edgeStart, numEdges,
  // u1..u4, texCoordStart, texFlag, texID
  std::array<std::int32_t, 14> w{};
  [[nodiscard]] std::int32_t poly_start() const { return w[1]; }
  [[nodiscard]] std::int32_t poly_count() const { return w[2]; }
  [[nodiscard]] std::int32_t vert_start() const { return w[3]; }
  [[nodiscard]] std::int32_t vert_count() const { return w[4]; }
  [[nodiscard]] std::int32_t tex_start() const { return w[11]; }
  [[nodiscard]] bool textured() const { return w[12] != 0; }
  [[nodiscard]] std::int32_t tex_id() const { return w[13]; }
};
struct p_model {
  std::array<std::uint32_t, 16> head{};  // version .. normIndexTableFlag
  std::array<std::uint32_t, 16> runtime{};
  std::vector<vec3> vertices, normals, unknown1;
  std::vector<vec2> texcoords;
  std::vector<std::array<std::uint8_t, 4>> vertex_colors, poly_colors;  // B, G, R, A
  std::vector<std::array<std::uint16_t, 2>> edges;
  std::vector<p_poly> polys;
  bytes unknown2, unknown3;
  std::vector<std::array<std::uint32_t, 25>> hundreds;
  std::vector<p_group> groups;
  std::vector<std::array<std::uint32_t, 7>> bboxes;
  std::vector<std::int32_t> normal_index;
  bytes trailing;
};
[[nodiscard]] p_model parse_p(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_p(const p_model& p);
[[nodiscard]] int detect_p(std::span<const std::uint8_t> data);
// Builds a P model from triangles (one group per part), with edges, normals, bbox.
struct p_part {
  std::vector<vec3> positions;
  std::vector<std::array<std::uint8_t, 4>> colors_bgra;  // per vertex
  std::vector<vec2> uvs;                                 // empty: untextured
  std::vector<std::array<std::uint16_t, 3>> triangles;   // game winding (clockwise)
  int tex_id = 0;
};
[[nodiscard]] p_model build_p(const std::vector<p_part>& parts);

// ------------------------------------------------------------------ TEX
struct tex_file {
  std::array<std::uint32_t, 59> header{};  // 0xEC bytes
  bytes palette;                           // palette size * 4 bytes (BGRA)
  bytes pixels;
  bytes color_key_array;
  bytes trailing;
  [[nodiscard]] std::uint32_t width() const { return header[15]; }
  [[nodiscard]] std::uint32_t height() const { return header[16]; }
};
[[nodiscard]] tex_file parse_tex(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_tex(const tex_file& t);
[[nodiscard]] int detect_tex(std::span<const std::uint8_t> data);
// RGBA8 rows top to bottom; `notes` gets facts for extras.
[[nodiscard]] texture tex_to_texture(const tex_file& t, const std::string& name);
// Paletted 8-bit TEX when the image has at most 256 colours, else 32-bit direct colour.
[[nodiscard]] tex_file build_tex(std::uint32_t width, std::uint32_t height, std::span<const std::uint8_t> rgba);

// ------------------------------------------------------------------ field formats
struct hrc_bone {
  std::string name, parent;
  float length = 0;
  std::vector<std::string> resources;
};
struct hrc_file {
  std::string name;
  std::vector<hrc_bone> bones;
};
[[nodiscard]] hrc_file parse_hrc(std::span<const std::uint8_t> data);
struct rsd_file {
  std::string ply;
  std::vector<std::string> textures;
};
[[nodiscard]] rsd_file parse_rsd(std::span<const std::uint8_t> data);
struct a_frame {
  vec3 root_rotation{}, root_translation{};
  std::vector<vec3> rotations;
};
struct a_file {
  std::uint32_t version = 1, bone_count = 0;
  std::array<std::uint8_t, 4> order{1, 0, 2, 0};
  std::array<std::uint32_t, 5> runtime{};
  std::vector<a_frame> frames;
  bytes trailing;
};
[[nodiscard]] a_file parse_a(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_a(const a_file& a);
[[nodiscard]] int detect_a(std::span<const std::uint8_t> data);

// ------------------------------------------------------------------ rotations
// The game's Euler triple (X, Y, Z) as R = Ry * Rx * Rz (column vectors).
[[nodiscard]] quat euler_yxz_degrees(float x, float y, float z);
[[nodiscard]] quat raw_rotation(const triple& r);  // 1/4096 turns
// Inverse of euler_yxz_degrees, angles in degrees.
[[nodiscard]] vec3 quat_to_euler_yxz_degrees(const quat& q);

// ------------------------------------------------------------------ naming
// battle.lgp naming: "rtaa" -> "rtda", "rtam" (bone 0 model) ... keeps the case of the input.
[[nodiscard]] std::string battle_sibling(const std::string& path, int suffix_index);
[[nodiscard]] int battle_suffix_index(const std::string& path);  // -1 when not xxYY
[[nodiscard]] std::string to_lower(std::string s);

}  // namespace rigrip::ff7
