// The word-based texture LZSS of the x8pc texture chunk.
#pragma once

#include <memory>
#include <utility>

#include "formats/sf3/key_table.hpp"

namespace rigrip::sf3 {

// An allocator whose value-less construct leaves the bytes as they are: a buffer the decoder
// fills completely is not zero-filled first.
template <typename T>
struct no_init_allocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = no_init_allocator<U>;
  };
  no_init_allocator() = default;
  template <typename U>
  no_init_allocator(const no_init_allocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
using lzss_bytes = std::vector<std::uint8_t, no_init_allocator<std::uint8_t>>;

// Decodes until the end command; returns the output words as big-endian bytes. Fails when
// the output would exceed `max_bytes`.
[[nodiscard]] lzss_bytes lzss_decode(const core::byte_reader& r, std::size_t max_bytes, std::size_t* consumed = nullptr);
// The same as a byte_vec (a copy).
[[nodiscard]] byte_vec lzss_decompress(const core::byte_reader& r, std::size_t max_bytes,
                                       std::size_t* consumed = nullptr);

}  // namespace rigrip::sf3
