#pragma once
// JSON text as agents read it: Boost.JSON 1.81 writes doubles in scientific
// notation (6.016965252881389E1); this writer prints every number as a
// plain decimal, the shortest one that reads back to the same double.
// Renderers round each value to the precision it deserves first
// (`decimals`), so coordinates come out as 60.169653, not 60.16965252881389.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace transitd::mcp {

/// Appends `v` to `out` as compact JSON text; numbers never use exponent
/// notation; non-finite doubles (which JSON cannot carry) become null.
void append_json(std::string& out, const boost::json::value& v);
/// The same for an object or an array, which as a `value` argument would
/// be copied first.
void append_json(std::string& out, const boost::json::object& o);
void append_json(std::string& out, const boost::json::array& a);

/// `v` as compact JSON text (see append_json).
std::string json_text(const boost::json::value& v);
std::string json_text(const boost::json::object& o);
std::string json_text(const boost::json::array& a);

/// `text` as a JSON string literal (quoted and escaped), without building
/// a JSON value for it: the text block of every tool result.
std::string json_string(std::string_view text);
/// Appends `text` to `out` as a JSON string literal.
void append_json_string(std::string& out, std::string_view text);

/// Writes a JSON object member by member straight into `out` (a reply
/// rendered without building a Boost.JSON object first). Keys are written
/// as given, escaped; the caller closes the object with end().
class json_object_writer {
public:
  explicit json_object_writer(std::string& out) : out_(out) {
    out_ += '{';
  }
  /// `"key":`, after a comma unless it is the first member. Member names
  /// are our own: plain ASCII, written as they are (no escaping).
  void key(std::string_view k);
  void string(std::string_view k, std::string_view v) {
    key(k);
    append_json_string(out_, v);
  }
  /// The member only when `v` holds a value.
  void maybe_string(std::string_view k, const std::optional<std::string>& v) {
    if (v)
      string(k, std::string_view{*v});
  }
  void integer(std::string_view k, int64_t v);
  void boolean(std::string_view k, bool v) {
    key(k);
    out_ += v ? "true" : "false";
  }
  void end() {
    out_ += '}';
  }

private:
  std::string& out_;
  bool first_ = true;
};

/// `v` rounded to `places` decimal places (half away from zero), for
/// rendering: coordinates 6, confidences 3, scores 2.
double decimals(double v, int places);

/// Precisions of the values the tools render.
inline constexpr int coordinate_places = 6;
inline constexpr int confidence_places = 3;
inline constexpr int score_places = 2;

/// Texts as a JSON array of strings.
boost::json::array string_array(const std::vector<std::string>& items);

/// A coordinate pair {"lat", "lon"} at coordinate precision.
boost::json::object coordinate_json(double lat, double lon);

} // namespace transitd::mcp
