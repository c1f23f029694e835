#pragma once
// The bounds of tool inputs, written once. The MCP declaration of a tool
// (transport) derives its JSON Schema and argument checks from them, the
// request structs take their defaults from them, and the actors' rules
// check them again for callers that bypass MCP (an embedding application).
// The checks name the field and say what is allowed: over MCP the
// declaration names it as the wire writes it ("windowMinutes"), and it
// checks first; an actor rule names it as the C++ request does
// ("window_minutes"), the words of the application that built it. Wire
// names stay in transport/.

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/error.hpp"

namespace transitd {

/// An inclusive integer range and the value an absent field takes.
struct int_range {
  int32_t min;
  int32_t max;
  int32_t fallback;
  /// Said after the numbers in messages ("meters"); may be empty.
  std::string_view unit = {};
  /// `max` when the range has no upper bound.
  static constexpr int32_t unbounded = INT32_MAX;

  constexpr bool contains(int64_t value) const {
    return value >= min && value <= max;
  }
};

/// An inclusive range of decimals.
struct real_range {
  double min;
  double max;
};

/// A bound on a text's length in characters (UTF-8 code points).
struct length_range {
  std::size_t min;
  std::size_t max;
  /// `max` when only the minimum matters.
  static constexpr std::size_t unbounded = SIZE_MAX;
};

inline constexpr real_range latitude_range{-90, 90};
inline constexpr real_range longitude_range{-180, 180};
/// The languages Digitransit answers in (D5); a feed answers in those it
/// has (D24).
inline constexpr std::array<std::string_view, 3> languages{"fi", "sv", "en"};
/// No language asked: the provider's own (a feed's feed_lang; Digitransit
/// `digitransit_language`).
inline constexpr std::string_view default_language = "";
/// A language tag's length (BCP 47 as agents write it).
inline constexpr length_range language_tag_length{2, 35};
/// Digitransit's language when none is asked.
inline constexpr std::string_view digitransit_language = "en";

/// "limit must be between 1 and 50, got 60" (or "at least" when unbounded).
std::optional<failure> check_range(std::string_view field, int64_t value,
                                   const int_range& range);
/// "coordinate.lat must be between -90 and 90, got 91.5" (NaN fails too).
std::optional<failure> check_range(std::string_view field, double value,
                                   const real_range& range);
/// "text must be 1..200 characters, got 250".
std::optional<failure> check_length(std::string_view field,
                                    std::string_view text,
                                    const length_range& range);
/// "language must be one of en, fi, sv; got \"de\"".
std::optional<failure> check_choice(std::string_view field,
                                    std::string_view value,
                                    const std::vector<std::string>& choices);

/// "language must be a language tag such as en, es or pt-BR; got \"x\"":
/// empty (none asked), or 2-3 letters and up to three subtags of 1-8
/// letters or digits.
std::optional<failure> check_language(std::string_view field,
                                      std::string_view tag);

/// `text` with A-Z lowered, nothing else changed ("EN" → "en").
std::string lower_ascii(std::string_view text);

/// `text` without leading and trailing spaces, tabs and line breaks.
std::string_view trim_space(std::string_view text);

/// Characters (UTF-8 code points) in `text`.
std::size_t utf8_length(std::string_view text);

/// `choices` as strings, for check_choice and the schemas.
template <std::size_t N>
std::vector<std::string>
choice_list(const std::array<std::string_view, N>& choices) {
  return {choices.begin(), choices.end()};
}

} // namespace transitd
