#include "transitd/transport/json_text.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace json = boost::json;

namespace transitd::mcp {

namespace {

/// Characters a JSON string must escape: controls, quote, backslash.
constexpr std::array<bool, 256> escaped_chars = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 0x20; ++c)
    table[c] = true;
  table['"'] = true;
  table['\\'] = true;
  return table;
}();

void append_string(std::string& out, json::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  auto plain = s.begin();
  for (auto it = s.begin(); it != s.end(); ++it) {
    auto c = static_cast<unsigned char>(*it);
    if (!escaped_chars[c])
      continue;
    out.append(plain, it);
    plain = it + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 0xf];
    }
  }
  out.append(plain, s.end());
  out += '"';
}

template <class Number>
void append_number(std::string& out, Number n) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), n);
  out.append(buffer, end);
}

void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  // Fixed notation, shortest round trip: at most 309 integer digits plus
  // 17 significant fraction digits after up to 324 zeros.
  char buffer[700];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), d,
                                 std::chars_format::fixed);
  out.append(buffer, end);
}

} // namespace

void append_json(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& item : v.get_object()) {
        if (!first)
          out += ',';
        first = false;
        append_string(out, item.key());
        out += ':';
        append_json(out, item.value());
      }
      out += '}';
      return;
    }
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first)
          out += ',';
        first = false;
        append_json(out, item);
      }
      out += ']';
      return;
    }
    case json::kind::string:
      append_string(out, v.get_string());
      return;
    case json::kind::int64:
      append_number(out, v.get_int64());
      return;
    case json::kind::uint64:
      append_number(out, v.get_uint64());
      return;
    case json::kind::double_:
      append_double(out, v.get_double());
      return;
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      return;
    case json::kind::null:
      out += "null";
      return;
  }
}

std::string json_text(const json::value& v) {
  std::string out;
  // One allocation for a typical reply instead of a dozen doublings.
  out.reserve(4096);
  append_json(out, v);
  return out;
}

std::string json_string(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8 + 2);
  append_string(out, json::string_view{text.data(), text.size()});
  return out;
}

double decimals(double v, int places) {
  if (!std::isfinite(v))
    return v;
  double scale = std::pow(10.0, places);
  double scaled = v * scale;
  // Past 2^53 a double has no fraction left to round.
  if (std::fabs(scaled) >= 9.007199254740992e15)
    return v;
  return std::round(scaled) / scale;
}

json::object coordinate_json(double lat, double lon) {
  return json::object{{"lat", decimals(lat, coordinate_places)},
                      {"lon", decimals(lon, coordinate_places)}};
}

boost::json::array string_array(const std::vector<std::string>& items) {
  boost::json::array out;
  for (const auto& item : items)
    out.emplace_back(item);
  return out;
}

} // namespace transitd::mcp
