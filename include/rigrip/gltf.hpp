// glTF 2.0 output and input for the scene model. Knows nothing of game formats.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigrip/error.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::gltf {

enum class up_axis { y, z };
// Segment scale compensation in the output: `bake` (default) folds it into plain bone
// locals so the joint hierarchy holds exactly the source's bones; `helpers` keeps an
// exact extra node (<bone>_ssc) between a compensating bone and its parent.
enum class ssc_mode { bake, helpers };

struct write_options {
  bool binary = true;            // .glb; false writes .gltf + .bin (+ nothing else)
  // Size. The data (bind pose, translations, mesh positions, inverse bind matrices) are
  // multiplied by the source's metres per unit (scene metadata "metres_per_unit", set by
  // the family; 1 when absent) and by `scale`, never by a scaled node above the armature.
  float scale = 1.0f;            // --scale: extra factor (the CLI's --scale replaces the unit factor)
  bool native_units = false;     // --units native: ignore metres_per_unit, keep the source's units
  up_axis source_up = up_axis::y;  // --up z: the source is Z-up; rotate -90 deg about X at the root
  std::optional<double> resample_fps;   // --resample FPS: bake every track to LINEAR at this rate
  std::vector<std::string> clips;       // --clip NAME (glob); empty keeps all
  bool in_place = false;         // --in-place: drop root motion tracks
  bool bone_display_mesh = true; // skeleton-only scenes get a small skinned bone mesh
  ssc_mode ssc = ssc_mode::bake;  // --ssc bake|helpers
  // Additive clips (animation extras "additive": true) hold deltas that glTF cannot blend:
  // by default they are applied onto the skeleton's rest pose; true keeps the raw deltas.
  bool additive_raw = false;      // --additive raw
};

// Applies the scene-level options (clip filter, in-place, resampling, duplicate key
// removal) that the writer performs, so tests and other writers can share them.
[[nodiscard]] scene prepare(const scene& s, const write_options& options, diagnostics& diags);

// Writes to memory. For .gltf the second buffer is the .bin payload named `bin_name`.
struct encoded {
  bytes main;
  bytes bin;  // empty for glb
};
[[nodiscard]] result<encoded> write(const scene& s, const write_options& options,
                                    diagnostics& diags, const std::string& bin_name = "scene.bin");
// Writes `path` (.glb or .gltf by option) atomically; .gltf gets a sibling .bin.
[[nodiscard]] result<void> write_file(const scene& s, const std::string& path,
                                      const write_options& options, diagnostics& diags);

// Reads .glb/.gltf back into the scene model: skeletons from skins, animations,
// meshes, textures. Undoes the root conversion node the writer adds.
[[nodiscard]] result<scene> read(byte_view data, const std::string& name, diagnostics& diags,
                                 const std::function<result<bytes>(const std::string&)>& load = {});

}  // namespace rigrip::gltf

namespace rigrip::scene_json {
// The public JSON shape of `rigrip dump` (docs/scene-json.md).
[[nodiscard]] nlohmann::json to_json(const scene& s);
[[nodiscard]] result<scene> from_json(const nlohmann::json& j);
}  // namespace rigrip::scene_json
