// BNTX: the Switch texture container (nn::gfx ResTextureFile), as a `.bntx` file of its own
// or embedded in a Switch FRES (`textures.bntx` in its embedded files). Little-endian; every
// pointer is an absolute u64 from the BNTX's first byte. The raw layer keeps the whole image
// and writes the parsed fields back over it (byte-identical); decode_bntx() turns the
// textures into RGBA8 scene textures. Layout in README.md ("BNTX").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/bfres/fres.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::bfres {

// BRTI: one texture's description (0xA0 bytes), then its mip pointer array.
struct bntx_info {
  std::uint32_t at = 0;  // the 'BRTI' magic
  std::uint32_t next_block = 0, block_size = 0, block_reserved = 0;
  std::uint8_t flags = 0, storage_dim = 0;
  std::uint16_t tile_mode = 0;  // 0 optimal (block linear), 1 linear (pitch)
  std::uint16_t swizzle = 0, mip_count = 0;
  std::uint32_t sample_count = 0;
  std::uint32_t format =
      0;  // nn::gfx ImageFormat: type << 8 | variant (1 unorm, 2 snorm, 5 float, 6 sRGB)
  std::uint32_t access_flags = 0;
  std::uint32_t width = 0, height = 0, depth = 0, array_count = 0;
  std::uint32_t layout = 0, layout2 = 0;  // layout bits 0-2: block height log2 (GOBs)
  std::uint32_t image_size = 0, alignment = 0;
  std::array<std::uint8_t, 4>
      channels{};  // source of R, G, B, A: 0 zero, 1 one, 2 red, 3 green, 4 blue, 5 alpha
  std::uint8_t image_dim = 0;  // 0 1D, 1 2D, 2 3D, 3 cube, 4 1D array, 5 2D array, ...
  std::uint64_t name_at = 0, parent_at = 0, mips_at = 0, user_data_at = 0;
  std::uint64_t texture_region_at = 0, view_region_at = 0, descriptor_slot = 0,
                user_data_dict_at = 0;
  std::string name;
  std::vector<std::uint64_t> mip_offsets;  // absolute, one per mip level
  [[nodiscard]] std::uint32_t block_height_log2() const { return layout & 7; }
};

// _RLT: sections of pointer runs the loader relocates (kept for the dump and checks).
struct bntx_reloc_section {
  std::uint64_t base = 0;
  std::uint32_t offset = 0, size = 0, first_entry = 0, entry_count = 0;
};
struct bntx_reloc_entry {
  std::uint32_t offset = 0;
  std::uint16_t array_count = 0;
  std::uint8_t pointer_count = 0, stride = 0;
};

struct bntx_file {
  std::vector<std::uint8_t> image;  // the whole BNTX, kept
  // Header (0x20 bytes).
  std::uint32_t version = 0;
  std::uint16_t bom = 0;
  std::uint8_t alignment_log2 = 0, address_size = 0;
  std::uint32_t file_name_at = 0;  // the name's characters (its u16 length sits before)
  std::uint16_t flags = 0, first_block = 0;
  std::uint32_t relocation_at = 0, file_size = 0;
  std::string name;
  // NX section (0x38 bytes at 0x20).
  std::string target;  // "NX  "
  std::uint32_t texture_count = 0;
  std::uint64_t infos_at = 0, data_block_at = 0, dict_at = 0, pool_at = 0, user_pool_at = 0;
  std::uint32_t pool_base = 0, nx_reserved = 0;
  std::optional<dict> names;  // the texture dictionary
  std::vector<bntx_info> textures;
  // BRTD: the image data block.
  std::uint32_t data_next = 0, data_size = 0;
  // _STR: the string pool header (strings stay in the image).
  std::uint32_t strings_at = 0, strings_next = 0, strings_size = 0, strings_count = 0;
  std::uint32_t reloc_self = 0, reloc_count = 0;
  std::vector<bntx_reloc_section> reloc_sections;
  std::vector<bntx_reloc_entry> reloc_entries;
};

// True when `bytes` begins with the BNTX magic.
[[nodiscard]] bool is_bntx(std::span<const std::uint8_t> bytes);
// The raw layer. Throws core::failure on anything that does not fit the data.
[[nodiscard]] bntx_file parse_bntx(std::vector<std::uint8_t> image);
[[nodiscard]] std::vector<std::uint8_t> serialise_bntx(const bntx_file& f);
[[nodiscard]] nlohmann::json bntx_to_json(const bntx_file& f);
[[nodiscard]] std::string bntx_format_name(std::uint32_t format);

struct bntx_texture {
  std::string name;
  rigrip::texture tex;  // decoded RGBA8 (+ mips); extras: bntx_format, srgb, ...
};
// Parses a BNTX container and decodes every texture. Throws core::failure on damage that
// makes the container unreadable; a texture whose format cannot be decoded is skipped with a
// warning. Pixels are the decoded texel values after the channel selector: a linear-format colour
// map is not converted to sRGB here (extras "srgb" says which it is; see to_gltf_texture).
[[nodiscard]] std::vector<bntx_texture> decode_bntx(std::span<const std::uint8_t> bytes,
                                                    const read_context& ctx);

// Readies a decoded texture for glTF by its use, as the Wii U path does: a colour map
// (albedo / emission) of a linear format is encoded to sRGB; a two-channel normal map
// (BC5, R8G8) gets its z rebuilt. Records what it did in extras.
void to_gltf_texture(rigrip::texture& t, bool colour, bool normal);

// Adds decoded textures to a scene on their own (a texture file), each readied for glTF by
// its name's role (_Alb / _Emm colour, _Nrm normal), as the Wii U texture files are.
void add_bntx_textures(std::vector<bntx_texture> textures, const std::string& source, scene& s);
// A standalone .bntx as a scene: its textures.
[[nodiscard]] scene bntx_scene(std::span<const std::uint8_t> bytes, const read_context& ctx);
// The BNTX files among a Switch FRES's embedded files (by magic) decoded into `s`; a
// damaged one is a warning. Returns how many embedded files were read.
std::size_t add_embedded_bntx(const file& f, const read_context& ctx, scene& s);
// dump --raw summary of an embedded BNTX (or {"error": ...}).
[[nodiscard]] nlohmann::json embedded_bntx_json(const file& f, const external_file& e);

}  // namespace rigrip::bfres
