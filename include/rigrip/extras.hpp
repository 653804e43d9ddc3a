// Typed reads of the free-form `extras` / `metadata` JSON of a scene. A scene may come from
// a glTF or scene JSON a user edited, so a key can hold anything: nlohmann's value(key, def)
// throws on a wrong type (and get<int>() of 1e300 is undefined). These return the fallback
// unless the key holds a value of the asked type that fits it.
#pragma once

#include <cmath>
#include <concepts>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rigrip {

template <class T>
[[nodiscard]] T extra(const nlohmann::json& obj, std::string_view key, T fallback) {
  if (!obj.is_object()) return fallback;
  const auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  const nlohmann::json& v = *it;
  if constexpr (std::same_as<T, bool>) {
    return v.is_boolean() ? v.get<bool>() : fallback;
  } else if constexpr (std::integral<T>) {
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      return u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()) ? static_cast<T>(u) : fallback;
    }
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if constexpr (std::is_signed_v<T>)
        return i >= std::numeric_limits<T>::min() && i <= std::numeric_limits<T>::max() ? static_cast<T>(i) : fallback;
      else
        return i >= 0 && static_cast<std::uint64_t>(i) <= std::numeric_limits<T>::max() ? static_cast<T>(i) : fallback;
    }
    return fallback;
  } else if constexpr (std::floating_point<T>) {
    if (!v.is_number()) return fallback;
    const double d = v.get<double>();
    return std::isfinite(d) && std::abs(d) <= static_cast<double>(std::numeric_limits<T>::max()) ? static_cast<T>(d)
                                                                                                : fallback;
  } else {
    static_assert(std::same_as<T, std::string>, "extra<T>: bool, integers, floating point or std::string");
    return v.is_string() ? v.get<std::string>() : fallback;
  }
}

}  // namespace rigrip
