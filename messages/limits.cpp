#include "transitd/messages/limits.hpp"

#include <cmath>
#include <sstream>

namespace transitd {

namespace {

/// How every bounds message names its field, over MCP or from an actor
/// rule: `field "constraints.maxTransfers"`.
std::string named(std::string_view field) {
  return "field \"" + std::string{field} + "\"";
}

std::string plain(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

} // namespace

std::optional<failure> check_range(std::string_view field, int64_t value,
                                   const int_range& range) {
  if (range.contains(value))
    return std::nullopt;
  auto unit = range.unit.empty() ? std::string{}
                                 : " " + std::string{range.unit};
  auto allowed = range.max == int_range::unbounded
                   ? "at least " + std::to_string(range.min) + unit
                   : "between " + std::to_string(range.min) + " and "
                       + std::to_string(range.max) + unit;
  return make_failure(ec::validation_error,
                      named(field) + " must be " + allowed + ", got "
                        + std::to_string(value));
}

std::optional<failure> check_range(std::string_view field, double value,
                                   const real_range& range) {
  if (std::isfinite(value) && value >= range.min && value <= range.max)
    return std::nullopt;
  return make_failure(ec::validation_error,
                      named(field) + " must be between "
                        + plain(range.min) + " and " + plain(range.max)
                        + ", got " + plain(value));
}

std::optional<failure> check_length(std::string_view field,
                                    std::string_view text,
                                    const length_range& range) {
  auto n = utf8_length(text);
  if (n >= range.min && n <= range.max)
    return std::nullopt;
  auto message = named(field) + " must be ";
  if (n == 0 && range.min == 1)
    message += "non-empty";
  else if (range.max == length_range::unbounded)
    message += "at least " + std::to_string(range.min)
               + " characters, got " + std::to_string(n);
  else
    message += std::to_string(range.min) + ".." + std::to_string(range.max)
               + " characters, got " + std::to_string(n);
  return make_failure(ec::validation_error, std::move(message));
}

std::optional<failure> check_choice(std::string_view field,
                                    std::string_view value,
                                    const std::vector<std::string>& choices) {
  for (const auto& choice : choices)
    if (choice == value)
      return std::nullopt;
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : ", ") + choices[i];
  return make_failure(ec::validation_error,
                      named(field) + " must be one of " + list
                        + "; got \"" + std::string{value} + "\"");
}

std::string_view trim_space(std::string_view text) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::size_t utf8_length(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text)
    n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}


std::optional<failure> check_language(std::string_view field,
                                      std::string_view tag) {
  if (tag.empty())
    return std::nullopt;
  auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  auto alnum = [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); };
  bool ok = tag.size() <= 35;
  std::size_t part = 0, length = 0;
  for (std::size_t i = 0; ok && i <= tag.size(); ++i) {
    if (i == tag.size() || tag[i] == '-') {
      ok = part == 0 ? length >= 2 && length <= 3
                     : length >= 1 && length <= 8 && part <= 3;
      ++part;
      length = 0;
      continue;
    }
    ok = part == 0 ? alpha(tag[i]) : alnum(tag[i]);
    ++length;
  }
  if (ok)
    return std::nullopt;
  return make_failure(ec::validation_error,
                      std::string{field}
                        + " must be a language tag such as en, es or pt-BR; "
                          "got \""
                        + std::string{tag.substr(0, 40)} + "\"",
                      "Digitransit answers in fi, sv or en; a GTFS feed in "
                      "the languages it has (transit_coverage lists them)");
}

std::string lower_ascii(std::string_view text) {
  std::string out{text};
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

} // namespace transitd
