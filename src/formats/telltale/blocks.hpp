// Telltale's blocked members (.d3dmesh, .d3dtx): a u32 size that counts itself, then the
// member. Shared by the raw layers of both file kinds; internal to the family.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/byte_reader.hpp"

namespace rigrip::telltale::blocks {

// Reads one block with `fn` on a reader of exactly its body; the body must be used exactly.
// `hint` ends the message when it is not (a file kind can say what that usually means).
template <class Fn>
void read_block(core::byte_reader& r, const char* what, Fn&& fn, std::string_view hint = {}) {
  std::uint64_t at = r.abs();
  std::size_t start = r.tell();
  std::uint32_t size = r.u32();
  if (size < 4 || size - 4 > r.remaining())
    core::fail(code::bad_count,
               std::string(what) + ": block size " + std::to_string(size) + " outside 4.." +
                   std::to_string(r.remaining() + 4),
               at);
  core::byte_reader sub = r.sub(r.tell(), size - 4);
  std::forward<Fn>(fn)(sub);
  if (sub.tell() != sub.size())
    core::fail(code::bad_value,
               std::string(what) + ": block of " + std::to_string(size) + " bytes, the members use " +
                   std::to_string(sub.tell() + 4) + std::string(hint),
               at);
  r.seek(start + size);
}

// Writes the size placeholder, the body `fn` writes, then patches the size.
template <class Fn>
void write_block(core::byte_writer& w, Fn&& fn) {
  std::size_t at = w.size();
  w.u32(0);
  std::forward<Fn>(fn)();
  w.patch_u32(at, static_cast<std::uint32_t>(w.size() - at));
}

// A String member: a block holding a u32 length and the bytes.
inline std::string read_string(core::byte_reader& r, const char* what) {
  std::string s;
  read_block(r, what, [&](core::byte_reader& b) {
    std::uint32_t n = b.u32();
    auto d = b.bytes(n);
    s.assign(d.begin(), d.end());
  });
  return s;
}
inline void write_string(core::byte_writer& w, const std::string& s) {
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(s.size()));
    w.bytes(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
  });
}

}  // namespace rigrip::telltale::blocks
