#include "transitd/transport/http_fields.hpp"

#include <algorithm>
#include <cctype>

#include "transitd/util/base64.hpp"

namespace transitd::mcp {

namespace {

constexpr std::string_view sse_type = "text/event-stream";
constexpr std::string_view json_type = "application/json";

} // namespace

std::string lower(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string strip_port(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    auto end = authority.find(']');
    return lower(authority.substr(0, end == std::string_view::npos
                                       ? authority.size()
                                       : end + 1));
  }
  return lower(authority.substr(0, authority.find(':')));
}

std::string_view trim_ows(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  return value;
}

accepted parse_accept(std::string_view header) {
  accepted out;
  if (trim_ows(header).empty())
    return {true, true}; // no preference: anything
  std::size_t start = 0;
  while (start <= header.size()) {
    auto end = header.find(',', start);
    if (end == std::string_view::npos)
      end = header.size();
    auto item = header.substr(start, end - start);
    auto type = lower(trim_ows(item.substr(0, item.find(';'))));
    // A media range with q=0 is "not acceptable" (RFC 9110 12.4.2).
    auto params = lower(item.substr(std::min(item.size(), item.find(';'))));
    bool refused = false;
    if (auto q = params.find("q="); q != std::string::npos) {
      auto weight = params.substr(q + 2, params.find(';', q) - q - 2);
      refused = trim_ows(weight).find_first_of("123456789")
                == std::string_view::npos;
    }
    if (!refused) {
      if (type == "*/*" || type == "application/*" || type == json_type)
        out.json = true;
      if (type == "*/*" || type == "text/*" || type == sse_type)
        out.sse = true;
    }
    start = end + 1;
  }
  return out;
}

std::optional<std::string> decode_header_value(std::string_view value) {
  constexpr std::string_view prefix = "=?base64?";
  constexpr std::string_view suffix = "?=";
  if (value.size() < prefix.size() + suffix.size()
      || value.substr(0, prefix.size()) != prefix
      || value.substr(value.size() - suffix.size()) != suffix)
    return std::string{value};
  auto payload = value.substr(prefix.size(),
                              value.size() - prefix.size() - suffix.size());
  auto decoded = base64_decode(payload, base64_form::standard_padded);
  if (!decoded)
    return std::nullopt;
  const auto& out = *decoded;
  // UTF-8: well-formed sequences only.
  for (std::size_t i = 0; i < out.size();) {
    auto c = static_cast<unsigned char>(out[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3
                  : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > out.size())
      return std::nullopt;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(out[i + k]) >> 6) != 0x2)
        return std::nullopt;
    i += n;
  }
  return out;
}

} // namespace transitd::mcp
