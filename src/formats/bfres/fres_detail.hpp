// Reading helpers shared by the parts of the Wii U FRES raw layer (fres.cpp,
// fres_model.cpp). Not for decode/encode: they use the parsed structures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/byte_patcher.hpp"
#include "core/byte_reader.hpp"
#include "formats/bfres/fres.hpp"

namespace rigrip::bfres::detail {

// Charges `n` decoded elements to the parse's work budget (structures may share data).
void spend(std::uint64_t n, std::uint64_t at);
// The target of relative offset v stored at `at` in a file of `size` bytes (0 for none), or bad_offset.
[[nodiscard]] std::uint32_t offset_target(std::uint64_t at, std::int32_t v, std::uint64_t size);
// A self-relative signed offset at the reader's position (0 = null), checked to land in the file.
[[nodiscard]] std::uint32_t read_offset(core::byte_reader& r);
[[nodiscard]] std::string read_name(const core::byte_reader& r, std::uint32_t at);
[[nodiscard]] dict parse_dict(const core::byte_reader& file, std::uint32_t at);
[[nodiscard]] std::vector<user_data> parse_user_data(const core::byte_reader& file, std::uint32_t dict_at);

[[nodiscard]] std::vector<vertex_buffer> parse_vertex_buffers(const core::byte_reader& file, std::uint32_t at,
                                                              std::uint32_t count);
[[nodiscard]] shape parse_shape(const core::byte_reader& file, std::uint32_t at, std::uint32_t version);
[[nodiscard]] material parse_material(const core::byte_reader& file, std::uint32_t at, std::uint32_t version);
// A shader parameter's value (numbers, or a texture SRT object) from its `size` bytes.
// A LOD mesh's sub-mesh array ({u32 index offset, u32 index count}, both platforms).
[[nodiscard]] std::vector<submesh> read_submeshes(const core::byte_reader& file, std::uint32_t at, std::uint32_t count);
[[nodiscard]] nlohmann::json param_value(const core::byte_reader& src, std::uint8_t type, std::uint8_t size);
[[nodiscard]] ftex parse_ftex(const core::byte_reader& file, std::uint32_t at);
// A curve whose header fields are set (at, flags, num_keys, range, scale/offset, array
// positions): checks them and reads the frame and key arrays in the reader's byte order.
void read_curve_arrays(const core::byte_reader& file, curve& c);
void patch_curve_arrays(core::byte_patcher& p, const curve& c);
// The work budget of a parse (16 elements per byte of the file).
void reset_work(std::size_t file_size);
[[nodiscard]] curve parse_curve_at(const core::byte_reader& file, std::uint32_t at, bool v34);
[[nodiscard]] texture_pattern_anim parse_texture_pattern(const core::byte_reader& file, std::uint32_t at);
[[nodiscard]] shader_param_anim parse_shader_param_anim(const core::byte_reader& file, std::uint32_t at, bool v34,
                                                        int dict_index);
[[nodiscard]] visibility_anim parse_visibility_anim(const core::byte_reader& file, std::uint32_t at, bool v34,
                                                    int dict_index);

// Scene animations (fres_scene.cpp): the Wii U FSCN dictionary, the Switch FSCN array.
[[nodiscard]] std::vector<scene_anim> parse_scene_anims_wiiu(const core::byte_reader& file, const dict& d, bool v34);
[[nodiscard]] std::vector<scene_anim> parse_scene_anims_switch(const core::byte_reader& file, std::uint32_t array_at,
                                                               std::uint32_t count, bool v09);
// Switch models (fres_switch_model.cpp): FMDL / FSKL / FVTX / FSHP / FMAT of 0.5-0.10 into f.models.
void parse_switch_models(const core::byte_reader& file, bfres::file& f);
// A Switch curve (0x30 bytes) and a Switch name (u16 length, characters) at `at`.
[[nodiscard]] curve parse_switch_curve_at(const core::byte_reader& file, std::uint32_t at);
[[nodiscard]] std::string switch_name_at(const core::byte_reader& file, std::uint32_t at);
[[nodiscard]] std::uint32_t switch_offset_at(const core::byte_reader& file, std::uint64_t field);
// nn::util ResDic (Switch dictionaries): the name bit a node tests, and the Patricia search
// (the entry's node index, -1 when absent; bounded by the node count).
[[nodiscard]] int switch_name_bit(const std::string& s, std::uint32_t bit);
[[nodiscard]] int switch_dict_find(const dict& d, const std::string& name);

}  // namespace rigrip::bfres::detail
