#pragma once
// Reading upstream JSON without trusting it: a path that is missing or of
// another type is absent, never an exception, and numbers that do not fit
// are absent rather than undefined behaviour. Every upstream parser (the
// Digitransit GraphQL answers, TfL's REST answers) reads through these.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace transitd::upstream_json {

/// The value at `path` (object keys from `root`); null when any step is
/// missing or not an object.
const boost::json::value*
find_path(const boost::json::value& root,
          std::initializer_list<std::string_view> path);

/// The string at `path`; nullopt when absent or not a string.
std::optional<std::string>
string_at(const boost::json::value& root,
          std::initializer_list<std::string_view> path);

/// The string at `path`, or "" (for optional text fields).
std::string text_at(const boost::json::value& root,
                    std::initializer_list<std::string_view> path);

/// The integer at `path` (a double is truncated); nullopt when absent, not
/// a number, or outside int64.
std::optional<int64_t>
int_at(const boost::json::value& root,
       std::initializer_list<std::string_view> path);

/// The number at `path`; nullopt when absent, not a number or not finite.
std::optional<double>
number_at(const boost::json::value& root,
          std::initializer_list<std::string_view> path);

/// True only for a JSON `true` at `path`.
bool bool_at(const boost::json::value& root,
             std::initializer_list<std::string_view> path);

} // namespace transitd::upstream_json
