#include "transitd/transport/json_text.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/// Appends `s` quoted and escaped, sized first: any text, control
/// characters (\u00XX) included.
void append_string_sized(std::string& out, json::string_view s) {
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

/// Appends `s` quoted and escaped in one pass. A reply's text block is its
/// JSON escaped, a quote every few characters: a branch per character
/// mispredicted on them (a tenth of a cached call's CPU). With SSE2, 16
/// characters are checked at once and copied ahead, and each escape resumes
/// after itself; the rest (and without SSE2, all) is branch-free per
/// character. A control character that needs \u00XX (never in our outputs,
/// possible in an upstream's names) takes the sized way.
void append_string(std::string& out, json::string_view s) {
  auto n = s.size();
  auto at = out.size();
  // Room for every character escaped by two, and for the 16 bytes copied
  // ahead past the end.
  out.resize(at + 2 * n + 18);
  char* p = out.data() + at;
  *p++ = '"';
  const char* in = s.data();
  std::size_t i = 0;
  auto sized_way = [&] {
    out.resize(at);
    append_string_sized(out, s);
  };
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1f);
  while (i + 16 <= n) {
    auto v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    auto hit = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
      _mm_cmpeq_epi8(_mm_min_epu8(v, control), v)); // v <= 0x1f
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
    if (mask == 0) {
      p += 16;
      i += 16;
      continue;
    }
    auto clean = static_cast<std::size_t>(__builtin_ctz(mask));
    p += clean;
    i += clean;
    auto e = escape_of[static_cast<unsigned char>(in[i])];
    if (__builtin_expect(e == 'u', 0))
      return sized_way();
    p[0] = '\\';
    p[1] = e;
    p += 2;
    ++i;
  }
#endif
  for (; i < n; ++i) {
    auto c = static_cast<unsigned char>(in[i]);
    auto e = escape_of[c];
    if (__builtin_expect(e == 'u', 0))
      return sized_way();
    bool escaped = e != 0;
    p[0] = escaped ? '\\' : static_cast<char>(c);
    p[1] = e;
    p += 1 + static_cast<std::size_t>(escaped);
  }
  *p++ = '"';
  out.resize(static_cast<std::size_t>(p - out.data()));
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
  // Our own member names: plain ASCII that needs no escape.
  assert(std::none_of(k.begin(), k.end(), [](char c) {
    return escape_of[static_cast<unsigned char>(c)] != 0;
  }));
  out_.reserve(out_.size() + k.size() + 4);
  if (!first_)
    out_ += ',';
  first_ = false;
  out_ += '"';
  out_.append(k.data(), k.size());
  out_ += "\":";
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
