#include "transitd/transport/json_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace json = boost::json;

namespace transitd::mcp {

namespace {

/// The escape of each character: 0 none, else its second character after
/// the backslash ('u' for \u00XX).
constexpr std::array<char, 256> escape_of = [] {
  std::array<char, 256> table{};
  for (int c = 0; c < 0x20; ++c)
    table[c] = 'u';
  table['"'] = '"';
  table['\\'] = '\\';
  table['\b'] = 'b';
  table['\f'] = 'f';
  table['\n'] = 'n';
  table['\r'] = 'r';
  table['\t'] = 't';
  return table;
}();

/// Appends `s` quoted and escaped. Sized first, then written through a
/// pointer: a reply's text block escapes every quote of its JSON, and one
/// append per escape cost more than the rest of the rendering.
void append_string(std::string& out, json::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::size_t extra = 0;
  for (char ch : s) {
    auto e = escape_of[static_cast<unsigned char>(ch)];
    extra += e == 0 ? 0 : e == 'u' ? 5 : 1;
  }
  auto at = out.size();
  out.resize(at + s.size() + extra + 2);
  char* p = out.data() + at;
  *p++ = '"';
  if (extra == 0) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  } else {
    for (char ch : s) {
      auto c = static_cast<unsigned char>(ch);
      auto e = escape_of[c];
      if (e == 0) {
        *p++ = ch;
        continue;
      }
      *p++ = '\\';
      *p++ = e;
      if (e == 'u') {
        *p++ = '0';
        *p++ = '0';
        *p++ = hex[c >> 4];
        *p++ = hex[c & 0xf];
      }
    }
  }
  *p = '"';
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

void append_json(std::string& out, const json::object& o) {
  out += '{';
  bool first = true;
  for (const auto& item : o) {
    if (!first)
      out += ',';
    first = false;
    append_string(out, item.key());
    out += ':';
    append_json(out, item.value());
  }
  out += '}';
}

void append_json(std::string& out, const json::array& a) {
  out += '[';
  bool first = true;
  for (const auto& item : a) {
    if (!first)
      out += ',';
    first = false;
    append_json(out, item);
  }
  out += ']';
}

void append_json(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::object:
      append_json(out, v.get_object());
      return;
    case json::kind::array:
      append_json(out, v.get_array());
      return;
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

namespace {

template <class Json>
std::string text_of(const Json& v) {
  std::string out;
  // One allocation for a typical reply instead of a dozen doublings.
  out.reserve(4096);
  append_json(out, v);
  return out;
}

} // namespace

std::string json_text(const json::value& v) {
  return text_of(v);
}

std::string json_text(const json::object& o) {
  return text_of(o);
}

std::string json_text(const json::array& a) {
  return text_of(a);
}

void append_json_string(std::string& out, std::string_view text) {
  append_string(out, json::string_view{text.data(), text.size()});
}

void json_object_writer::key(std::string_view k) {
  if (!first_)
    out_ += ',';
  first_ = false;
  append_json_string(out_, k);
  out_ += ':';
}

void json_object_writer::integer(std::string_view k, int64_t v) {
  key(k);
  append_number(out_, v);
}

std::string json_string(std::string_view text) {
  std::string out;
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
