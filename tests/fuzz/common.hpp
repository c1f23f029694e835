#pragma once
// Shared by the libFuzzer targets: inputs as text.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace transitd::fuzz {

inline std::string_view text(const uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

} // namespace transitd::fuzz
