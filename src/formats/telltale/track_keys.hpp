// Internal to the Telltale reader (declared for its tests): turning decoded keys into scene
// tracks. finish_track does in a CSPK2 track's own arrays what clean_keys + make_track do on
// a key list, with the same floats and counts.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>

#include "formats/telltale/cspk2.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::telltale::detail {

struct key3 {
  float t;
  std::array<float, 4> v;
};

struct key_stats {
  std::size_t dupes = 0, clamped = 0;
};

// Clamps to [0, length], sorts (stable) and keeps the last value of each run of equal
// times; returns how many keys are kept (at the front of `k`).
std::size_t clean_keys(std::span<key3> k, float length, std::size_t& dupes, std::size_t& clamped);
// LINEAR track: rotations normalised and made hemisphere-continuous, translations * scale.
track make_track(const std::string& bone, path p, std::span<const key3> keys, float scale);
// The same as clean_keys + make_track on `k`'s keys; `k`'s arrays become the track's.
track finish_track(const std::string& bone, path p, cspk2_track_keys& k, float length, float scale, key_stats& st);
// A track of decode_cspk2_finished made a scene track: translations * scale, its counts added.
track finished_track(const std::string& bone, path p, cspk2_track_keys& k, float scale, key_stats& st);

}  // namespace rigrip::telltale::detail
