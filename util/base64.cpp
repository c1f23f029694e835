#include "transitd/util/base64.hpp"

#include <array>
#include <cstdint>

namespace transitd {

namespace {

constexpr std::string_view standard_alphabet
  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view url_alphabet
  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string_view alphabet(base64_form form) {
  return form == base64_form::standard_padded ? standard_alphabet
                                              : url_alphabet;
}

} // namespace

std::optional<std::string> base64_decode(std::string_view text,
                                         base64_form form) {
  std::array<int, 256> value{};
  value.fill(-1);
  auto letters = alphabet(form);
  for (std::size_t i = 0; i < letters.size(); ++i)
    value[static_cast<unsigned char>(letters[i])] = static_cast<int>(i);
  if (form == base64_form::standard_padded) {
    if (text.size() % 4 != 0)
      return std::nullopt;
    // At most two '=', only at the end.
    std::size_t padding = 0;
    while (padding < 2 && padding < text.size()
           && text[text.size() - 1 - padding] == '=')
      ++padding;
    text.remove_suffix(padding);
  }
  if (text.size() % 4 == 1)
    return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    auto v = value[static_cast<unsigned char>(c)];
    if (v < 0)
      return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  // Leftover bits must be zero (canonical encoding).
  if (bits > 0 && (buffer & ((1u << bits) - 1)) != 0)
    return std::nullopt;
  return out;
}

std::string base64_encode(std::string_view bytes, base64_form form) {
  auto letters = alphabet(form);
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(letters[(buffer >> bits) & 0x3f]);
    }
  }
  if (bits > 0)
    out.push_back(letters[(buffer << (6 - bits)) & 0x3f]);
  if (form == base64_form::standard_padded)
    while (out.size() % 4 != 0)
      out.push_back('=');
  return out;
}

} // namespace transitd
