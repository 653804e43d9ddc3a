// validate()'s table of one skeleton's bone names: open addressing over the bone indices
// with a word hash of the name (std::unordered_map made a node per bone and hashed a byte
// at a time). Internal to the scene model; the tests use it directly.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rigrip/scene.hpp"

namespace rigrip::detail {

[[nodiscard]] std::uint64_t name_hash(std::string_view s) noexcept;

// Holds a pointer to the skeleton's bones, which must outlive it unchanged.
class bone_name_index {
 public:
  explicit bone_name_index(const skeleton& sk);  // empty, sized for all of sk's bones
  // Adds bone b (each bone at most once) unless a bone of the same name is in already:
  // returns that bone's index, else b.
  int add(std::size_t b);
  // The bone added with this name, or -1.
  [[nodiscard]] int find(std::string_view name) const;

 private:
  struct entry {
    std::uint32_t tag;  // high half of the name's hash
    std::int32_t bone;  // -1: empty
  };
  const std::vector<bone>* bones_;
  std::vector<entry> slot_;
  std::size_t mask_ = 0;
};

}  // namespace rigrip::detail
