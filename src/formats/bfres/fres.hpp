// The Wii U FRES raw layer: the structures rigrip decodes (header, dictionaries,
// string pool, FMDL -> FSKL, FSKA with bone animations and curves), each remembering
// where it sits. Everything else in the file (shapes, materials, textures, other
// animation kinds) is kept as opaque bytes of the file image, so serialise() writes the
// parsed fields back over the image and reproduces the input byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/bfres/model.hpp"

namespace rigrip::bfres {

struct dict_node {
  std::uint32_t at = 0;  // absolute position of the node
  std::uint32_t ref_bit = 0;
  std::uint16_t left = 0, right = 0;
  std::string name;
  std::uint32_t name_at = 0;  // absolute position of the characters (0 = null)
  std::uint32_t data_at = 0;  // absolute target (0 = null)
};
struct dict {
  std::uint32_t at = 0;
  std::uint32_t size = 0;
  std::int32_t count = 0;
  std::vector<dict_node> nodes;  // count + 1 (node 0 is the root)
};

// ResUserData: a named array of int32 / f32 / strings / bytes (read-only: kept in the image).
struct user_data {
  std::string name;
  std::uint8_t type = 0;  // 0 int32, 1 f32, 2 string, 3 wide string, 4 bytes
  nlohmann::json values = nlohmann::json::array();
};

struct bone {
  std::uint32_t at = 0;
  std::string name;
  std::uint32_t name_at = 0;
  std::uint16_t index = 0;
  std::int16_t parent = -1, smooth_index = -1, rigid_index = -1;
  std::uint16_t billboard = 0xFFFF, num_user_data = 0;
  std::uint32_t flags = 0;
  std::array<float, 3> scale{};
  std::array<float, 4> rotate{};
  std::array<float, 3> translate{};
  std::uint32_t user_data_at = 0;
  std::vector<user_data> user;
  std::optional<std::array<float, 12>> inverse_matrix;  // v < 3.4: per bone
  [[nodiscard]] bool euler() const { return ((flags >> 12) & 7) == 1; }
  [[nodiscard]] bool segment_scale_compensate() const { return (flags >> 23) & 1; }
};

struct skeleton {
  std::uint32_t at = 0;
  std::uint32_t flags = 0;
  std::uint16_t num_bones = 0, num_smooth = 0, num_rigid = 0, pad = 0;
  std::uint32_t bone_dict_at = 0, bone_array_at = 0, mtx_to_bone_at = 0, inverse_at = 0;
  std::uint32_t user_ptr = 0;
  std::vector<bone> bones;
  std::vector<std::int16_t> mtx_to_bone;
  std::vector<std::array<float, 12>> inverse_matrices;  // v >= 3.4
  [[nodiscard]] int scale_mode() const { return (flags >> 8) & 3; }
  [[nodiscard]] bool euler() const { return ((flags >> 12) & 7) == 1; }
};

struct model {
  std::uint32_t at = 0;
  std::string name;
  std::uint32_t skeleton_at = 0;
  std::optional<skeleton> skel;
  std::vector<vertex_buffer> vertex_buffers;  // FVTX
  std::vector<shape> shapes;                  // FSHP, dictionary order
  std::vector<material> materials;            // FMAT, dictionary order (shapes index them)
};

enum class curve_type { cubic = 0, linear = 1, baked_float = 2, step_int = 4, baked_int = 5, step_bool = 6, baked_bool = 7 };

struct curve {
  std::uint32_t at = 0;
  std::uint16_t flags = 0;
  std::uint16_t num_keys = 0;
  std::uint32_t target = 0;
  float start = 0, end = 0;
  std::uint32_t scale_bits = 0, offset_bits = 0;  // f32 or s32 by curve type
  std::optional<float> delta;                     // v >= 3.4
  std::uint32_t frames_at = 0, keys_at = 0;
  std::vector<float> frames;             // decoded frame numbers
  std::vector<std::int64_t> frames_raw;  // as stored (integers, or f32 bits)
  std::vector<float> keys;               // decoded raw key elements (before scale/offset)
  std::vector<std::int64_t> keys_raw;    // as stored
  [[nodiscard]] int frame_type() const { return flags & 3; }
  [[nodiscard]] int key_type() const { return (flags >> 2) & 3; }
  [[nodiscard]] curve_type type() const { return static_cast<curve_type>((flags >> 4) & 7); }
  [[nodiscard]] int pre_wrap() const { return (flags >> 8) & 3; }
  [[nodiscard]] int post_wrap() const { return (flags >> 12) & 3; }
  [[nodiscard]] int elements_per_key() const;
  [[nodiscard]] bool is_float() const;
  [[nodiscard]] float scale() const;
  [[nodiscard]] float offset() const;
  // The runtime's evaluation (nw::g3d semantics): polynomial segments, scale/offset, wrap.
  [[nodiscard]] float eval(float frame) const;
  // The same in double (what eval rounds): evaluation, left limit and slope per frame.
  [[nodiscard]] double value(double frame) const;
  // value() for frames visited in increasing order: `cursor` (0 at first) remembers the
  // segment, so the next lookup is a step instead of a binary search. Same result.
  [[nodiscard]] double value(double frame, std::size_t& cursor) const;
  [[nodiscard]] float eval(float frame, std::size_t& cursor) const { return static_cast<float>(value(frame, cursor)); }
  // eval(frame, cursor) for the whole frames first, first + 1, ... (count of them) into out:
  // one dispatch and scale/offset for the run (BFRES samples every frame). Same floats.
  void eval_frames(std::int32_t first, std::size_t count, float* out, std::size_t& cursor) const;
  [[nodiscard]] double value_left(double frame) const;
  [[nodiscard]] double slope(double frame, bool from_left) const;
  // value_left() and slope() for frames visited in increasing order: `cursor` as for value(),
  // `lower` remembers the last lower-bound key index (0 at first). Same results.
  [[nodiscard]] double value_left(double frame, std::size_t& lower, std::size_t& cursor) const;
  [[nodiscard]] double slope(double frame, bool from_left, std::size_t& lower, std::size_t& cursor) const;
  // The limit from the left at `frame` (differs from eval() where a key replaces the
  // previous segment's end value: a jump, as in the seed's linear example at frame 20).
  [[nodiscard]] float eval_left(float frame) const;
  // d value / d frame, from the right (out) or the left (in) at a frame.
  [[nodiscard]] float derivative(float frame, bool from_left) const;
};

struct bone_anim {
  std::uint32_t at = 0;
  std::uint32_t flags = 0;
  std::string name;
  std::uint32_t name_at = 0;
  std::uint8_t begin_rotate = 0, begin_translate = 0, num_curves = 0, begin_base_translate = 0;
  std::array<std::uint8_t, 4> begin_curve{};  // kept as stored (redundant, layout differs by version)
  std::uint32_t curves_at = 0, base_at = 0;
  std::vector<curve> curves;
  std::vector<float> base;  // S(3) R(4) T(3), only the present parts
  [[nodiscard]] bool has_base_scale() const { return (flags >> 3) & 1; }
  [[nodiscard]] bool has_base_rotate() const { return (flags >> 4) & 1; }
  [[nodiscard]] bool has_base_translate() const { return (flags >> 5) & 1; }
  [[nodiscard]] bool segment_scale_compensate() const { return (flags >> 23) & 1; }
};

// FTXP: texture pattern animation (which texture a material's sampler shows per frame).
struct texture_pattern_anim {
  std::uint32_t at = 0;
  std::string name, path;
  std::uint16_t flags = 0;  // bit 2 loop
  std::int32_t frame_count = 0;
  std::uint32_t baked_size = 0;
  std::vector<std::string> textures;  // the animation's texture list: curve keys index it
  struct pattern {
    std::string sampler;  // e.g. _a0
    int curve = -1;       // index into the material's curves, -1: constant `base`
    std::uint16_t base = 0;
  };
  struct material_anim {
    std::uint32_t at = 0;
    std::string material;
    std::vector<pattern> patterns;
    std::vector<curve> curves;
  };
  std::vector<material_anim> materials;
  [[nodiscard]] bool loop() const { return (flags >> 2) & 1; }
};

// FSHU: shader parameter animation; the same block serves colour and texture SRT
// animations (header dictionaries 3, 4, 5). Curve and constant targets are byte offsets
// into the animated parameter's value (TexSrt: mode 0, scale 4/8, rotate 12, translate 16/20).
struct shader_param_anim {
  std::uint32_t at = 0;
  int dict = 3;  // 3 shader parameters, 4 colours, 5 texture SRTs
  std::string name, path;
  std::uint32_t flags = 0;  // bit 0 baked, bit 2 loop
  std::int32_t frame_count = 0;
  std::int32_t num_param_anims = 0, num_curves = 0;
  std::uint32_t baked_size = 0;
  std::vector<std::uint16_t> bind_indices;  // per material animation (0xFFFF: bound at run time)
  struct param {
    std::string name;  // the material's shader parameter
    std::uint16_t begin_curve = 0, num_float_curves = 0, num_int_curves = 0, begin_constant = 0, num_constants = 0,
                  sub_bind = 0xFFFF;
  };
  struct constant {
    std::uint32_t target = 0;
    std::uint32_t bits = 0;  // f32 or s32, by the parameter's type
  };
  struct material_anim {
    std::uint32_t at = 0;
    std::string material;
    std::int32_t begin_curve = 0, begin_param = 0;
    std::vector<param> params;
    std::vector<curve> curves;
    std::vector<constant> constants;
  };
  std::vector<material_anim> materials;
  std::vector<user_data> user;
  [[nodiscard]] bool loop() const { return (flags >> 2) & 1; }
};

// FVIS: bone (dictionary 7) or material (dictionary 8) visibility animation. Each curve
// (step bool) targets an animation index (its target field); `base` holds every entry's
// visibility when no curve drives it (bit-packed in 32-bit words, bit i % 32 of word i / 32).
struct visibility_anim {
  std::uint32_t at = 0;
  int dict = 7;
  std::string name, path;
  std::uint16_t flags = 0;  // bit 0 baked, bit 2 loop, bit 8 material visibility
  std::int32_t frame_count = 0;
  std::uint32_t baked_size = 0;
  std::vector<std::string> names;  // bones or materials, one per animation index
  std::vector<std::uint16_t> bind_indices;
  std::vector<curve> curves;
  std::vector<bool> base;
  std::vector<user_data> user;
  [[nodiscard]] bool loop() const { return (flags >> 2) & 1; }
  [[nodiscard]] bool material() const { return (flags >> 8) & 1; }
};

struct skeletal_anim {
  std::uint32_t at = 0;
  std::string name, path;
  std::uint32_t name_at = 0, path_at = 0;
  std::uint32_t flags = 0;
  std::int32_t frame_count = 0;
  std::uint16_t num_bone_anims = 0, num_user_data = 0;
  std::int32_t num_curves = 0;
  std::uint32_t baked_size = 0;
  std::uint32_t bone_anims_at = 0, bind_skeleton_at = 0, bind_index_at = 0, user_data_at = 0;
  std::array<std::uint8_t, 4> pre34_tail{};  // v < 3.4: the reserved word
  std::vector<bone_anim> bone_anims;
  std::vector<std::uint16_t> bind_indices;
  std::vector<user_data> user;
  std::optional<skeleton> bind_skeleton;  // when ofsBindSkeleton is set (0 in BotW files)
  [[nodiscard]] bool loop() const { return (flags >> 2) & 1; }
  [[nodiscard]] bool euler() const { return ((flags >> 12) & 7) == 1; }
  [[nodiscard]] int scale_mode() const { return (flags >> 8) & 3; }
};

enum class platform { wiiu, switch_, unknown };

// The Switch FRES header (little-endian, absolute 64-bit offsets; fres_switch.cpp).
struct switch_header {
  std::uint8_t alignment_log2 = 0, address_size = 0;
  std::uint32_t file_name_at = 0;  // the characters of the file name
  std::uint16_t flags = 0, first_block = 0;
  std::uint32_t relocation_at = 0;
  std::array<std::uint64_t, 19> offsets{};  // 0x20..0xB0: name, model array/dict ... string table
  std::uint32_t string_table_size = 0;
  std::array<std::uint16_t, 7> counts{};  // model, skeletal, material, bone-visibility, shape, scene anims, external files
  std::uint32_t fska_size = 0;      // 0x60 (0.5-0.8) or 0x50 (0.9+)
  std::uint32_t bone_anim_size = 0; // 0x28 or 0x38
  // 0.9+: 32 reserved bytes after the model dictionary and two more u16 counts after the
  // model count (header 0xF0 bytes instead of 0xD0).
  std::uint32_t header_size = 0xD0;
  std::array<std::uint8_t, 32> reserved{};
  std::array<std::uint16_t, 2> extra_counts{};
  [[nodiscard]] bool v09() const { return header_size == 0xF0; }
  // The position of a 0.5-layout header field (0x20..0xCF) in this version's header.
  [[nodiscard]] std::uint32_t field(std::uint32_t v05) const;
  // The relocation table `_RLT` (0 = none): sections {u64 base pointer, u32 position, u32
  // size, u32 first entry, u32 entry count}, entries {u32 position, u16 struct count,
  // u8 offset count, u8 padding count} (fres_switch.cpp checks them against the file).
  struct rlt_section {
    std::uint64_t base = 0;
    std::uint32_t position = 0, size = 0, first_entry = 0, entry_count = 0;
  };
  struct rlt_entry {
    std::uint32_t position = 0;
    std::uint16_t structs = 0;
    std::uint8_t offsets = 0, padding = 0;
  };
  std::vector<rlt_section> rlt_sections;
  std::vector<rlt_entry> rlt_entries;
};
// Every pointer position a relocation table names, by section (sorted, checked in the file).
[[nodiscard]] std::vector<std::vector<std::uint32_t>> relocated_slots(const switch_header& h);

// FCAM: a camera of a scene animation. Base values and curve targets index
// `base` by byte offset / 4: near, far, aspect, fov, position xyz, rotation (Euler ZXY
// angles) or aim target xyz, twist.
struct camera_anim {
  std::uint32_t at = 0;
  std::string name;
  std::uint16_t flags = 0;  // bit 0 baked, 2 loop, 8 Euler ZXY (else aim + twist), 10 perspective
  std::int32_t frame_count = 0;
  std::uint32_t baked_size = 0;
  std::uint16_t num_user_data = 0;
  std::array<float, 11> base{};
  std::vector<curve> curves;
  [[nodiscard]] bool loop() const { return (flags >> 2) & 1; }
  [[nodiscard]] bool euler_zxy() const { return (flags >> 8) & 1; }
  [[nodiscard]] bool perspective() const { return (flags >> 10) & 1; }
};
// FSCN: a scene animation (cameras; its lights and fogs are counted, not read).
struct scene_anim {
  std::uint32_t at = 0;
  std::string name, path;
  std::uint16_t num_lights = 0, num_fogs = 0;
  std::vector<camera_anim> cameras;
};

// An embedded file of a Switch FRES: an entry {u64 offset, u64 size} of the external-file
// array, named by the external-file dictionary (BotW's .bcamanim: one `.brtcamera`).
struct external_file {
  std::uint32_t entry_at = 0;
  std::string name;
  std::uint64_t data_at = 0, size = 0;
};

struct file {
  std::vector<std::uint8_t> image;  // the decompressed file, kept whole
  platform plat = platform::wiiu;
  std::optional<switch_header> sw;  // Switch files only
  std::uint32_t version = 0;
  std::uint16_t bom = 0, header_size = 0;
  std::uint32_t file_size = 0, alignment = 0;
  std::string name;
  std::uint32_t name_at = 0;
  std::uint32_t string_pool_size = 0, string_pool_at = 0;
  std::array<std::uint32_t, 12> dict_at{};
  std::array<std::uint16_t, 12> counts{};
  std::uint32_t user_ptr = 0;
  std::array<std::optional<dict>, 12> dicts;
  std::vector<model> models;
  std::vector<skeletal_anim> anims;
  std::vector<ftex> textures;  // FTEX dictionary (headers; image bytes stay in `image`)
  std::vector<texture_pattern_anim> texture_patterns;  // FTXP (version 3.4 and later)
  std::vector<scene_anim> scene_anims;  // FSCN (dictionary 10 / the Switch scene-animation array)
  std::vector<external_file> external_files;  // Switch: embedded files (dictionary in dicts[11])
  std::vector<shader_param_anim> shader_param_anims;  // FSHU (dictionaries 3-5), read-only
  std::vector<visibility_anim> visibility_anims;      // FVIS (dictionaries 7-8), read-only
  std::vector<std::pair<std::uint32_t, std::string>> strings;  // string pool entries (position of length)
  // Curves carry `delta` and skeletons inverse-matrix tables: Wii U 3.4+ and every Switch file.
  [[nodiscard]] bool v34() const { return plat == platform::switch_ || version >= 0x03040000; }
  [[nodiscard]] std::string version_string() const;
};
[[nodiscard]] platform detect_platform(std::span<const std::uint8_t> data);

// Parses a decompressed FRES image (Wii U, or Switch through parse_switch). Throws core::failure with offsets on damage.
[[nodiscard]] file parse(std::vector<std::uint8_t> image);
// parse() without the stored copies of float curves' arrays (their frames_raw and keys_raw
// stay empty): enough for evaluating curves (to_scene), not for serialise() or patching.
[[nodiscard]] file parse_for_scene(std::vector<std::uint8_t> image);
// Writes every parsed field back over a copy of the image.
[[nodiscard]] std::vector<std::uint8_t> serialise(const file& f);
// The Switch raw layer (fres_switch.cpp): header, dictionaries, FSKA / bone animations /
// curves; every other byte stays in the image.
[[nodiscard]] file parse_switch(std::vector<std::uint8_t> image);
[[nodiscard]] std::vector<std::uint8_t> serialise_switch(const file& f);
[[nodiscard]] nlohmann::json to_json(const file& f);

// The bone-animation component a curve drives (S xyz 0-2, R xyzw 3-6, T xyz 7-9), by its
// target offset into nw::g3d's BoneAnimResult; -1 for an offset no bone curve uses. Decode
// routes curves by it, encode sets the bone's curve flag bits (6 + component) from it.
[[nodiscard]] constexpr int curve_component(std::uint32_t target) {
  switch (target) {
    case 0x04: return 0;
    case 0x08: return 1;
    case 0x0C: return 2;
    case 0x20: return 3;
    case 0x24: return 4;
    case 0x28: return 5;
    case 0x2C: return 6;
    case 0x10: return 7;
    case 0x14: return 8;
    case 0x18: return 9;
    default: return -1;
  }
}

}  // namespace rigrip::bfres
