#include "transitd/util/text.hpp"

#include <cctype>

namespace transitd {

std::string fold_case(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(std::tolower(c)));
      continue;
    }
    // UTF-8 Ä (C3 84), Å (C3 85), Ö (C3 96) → ä, å, ö (+0x20).
    if (c == 0xC3 && i + 1 < text.size()) {
      auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9E && next != 0x97)
        next = static_cast<unsigned char>(next + 0x20);
      out.push_back(static_cast<char>(c));
      out.push_back(static_cast<char>(next));
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(c));
  }
  return out;
}

} // namespace transitd
