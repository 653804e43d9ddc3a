// Internal failure signalling. Readers throw `failure` deep inside parsing; the
// registry catches it at the public boundary and returns it as a rigrip::error.
// Nothing of this type ever crosses the public API.
#pragma once

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "rigrip/error.hpp"

namespace rigrip::core {

class failure : public std::exception {
 public:
  explicit failure(rigrip::error e) : err_(std::move(e)) {}
  [[nodiscard]] const char* what() const noexcept override { return err_.message.c_str(); }
  [[nodiscard]] const rigrip::error& error() const noexcept { return err_; }
  [[nodiscard]] rigrip::error& error() noexcept { return err_; }

 private:
  rigrip::error err_;
};

[[noreturn]] inline void fail(code c, std::string message, std::uint64_t offset = no_offset) {
  throw failure(make_error(c, std::move(message), offset));
}

// Cheap check helper: `require(n <= 64, code::bad_count, "...", off)`.
inline void require(bool condition, code c, const char* message, std::uint64_t offset = no_offset) {
  if (!condition) fail(c, message, offset);
}

// Runs `fn` (which may throw failure / bad_alloc / anything) and returns its result as a
// rigrip::result, stamping file and format. Used at every family entry point.
template <class Fn>
auto guarded(const std::string& file, std::string_view format_id, Fn&& fn)
    -> result<decltype(fn())> {
  auto stamp = [&](rigrip::error e) {
    if (e.file.empty()) e.file = file;
    if (e.format.empty()) e.format = std::string(format_id);
    return e;
  };
  try {
    return fn();
  } catch (const failure& f) {
    return stamp(f.error());
  } catch (const std::bad_alloc&) {
    return stamp(make_error(code::limit_exceeded, "out of memory while decoding"));
  } catch (const std::length_error& e) {
    return stamp(make_error(code::limit_exceeded, std::string("size limit: ") + e.what()));
  } catch (const std::exception& e) {
    return stamp(make_error(code::internal, std::string("unexpected exception: ") + e.what()));
  }
}

}  // namespace rigrip::core
