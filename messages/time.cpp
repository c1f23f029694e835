#include "messages/time.hpp"

#include <chrono>
#include <cstdio>
#include <sstream>

#include <date/date.h>
#include <date/tz.h>

namespace transitd {

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

std::string format_utc(int64_t epoch_seconds) {
  date::sys_seconds instant{std::chrono::seconds{epoch_seconds}};
  return date::format("%FT%TZ", instant);
}

namespace {

const date::time_zone* find_zone(std::string_view zone) {
  if (zone.empty())
    return nullptr;
  try {
    return date::locate_zone(zone);
  } catch (const std::exception&) {
    return nullptr;
  }
}

} // namespace

std::string format_in_zone(int64_t epoch_seconds, std::string_view zone) {
  auto* tz = find_zone(zone);
  if (tz == nullptr)
    return format_utc(epoch_seconds);
  date::sys_seconds instant{std::chrono::seconds{epoch_seconds}};
  auto info = tz->get_info(instant);
  auto local = instant + info.offset;
  auto offset_min = std::chrono::duration_cast<std::chrono::minutes>(
                      info.offset)
                      .count();
  char sign = offset_min < 0 ? '-' : '+';
  if (offset_min < 0)
    offset_min = -offset_min;
  char suffix[8];
  std::snprintf(suffix, sizeof(suffix), "%c%02d:%02d", sign,
                static_cast<int>(offset_min / 60),
                static_cast<int>(offset_min % 60));
  return date::format("%FT%T", date::sys_seconds{local.time_since_epoch()})
         + suffix;
}

namespace {

/// "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)", checked by hand before
/// date::parse sees it: date reads seconds as a floating-point number and
/// converting a hostile one (found by tests/fuzz) is undefined behaviour.
bool iso8601_shape(std::string_view t) {
  auto digits = [&](std::size_t at, std::size_t n) {
    if (at + n > t.size())
      return false;
    for (std::size_t i = at; i < at + n; ++i)
      if (t[i] < '0' || t[i] > '9')
        return false;
    return true;
  };
  if (!digits(0, 4) || t.size() < 19 || t[4] != '-' || !digits(5, 2)
      || t[7] != '-' || !digits(8, 2) || (t[10] != 'T' && t[10] != 't')
      || !digits(11, 2) || t[13] != ':' || !digits(14, 2) || t[16] != ':'
      || !digits(17, 2))
    return false;
  std::size_t at = 19;
  if (at < t.size() && t[at] == '.') {
    ++at;
    auto start = at;
    while (at < t.size() && t[at] >= '0' && t[at] <= '9')
      ++at;
    if (at == start || at - start > 9)
      return false;
  }
  auto rest = t.substr(at);
  if (rest == "Z" || rest == "z")
    return true;
  // ±h[h][:mm], as date's %Ez reads it.
  if (rest.empty() || (rest[0] != '+' && rest[0] != '-'))
    return false;
  std::size_t hours = digits(at + 1, 2) ? 2 : digits(at + 1, 1) ? 1 : 0;
  if (hours == 0)
    return false;
  auto minutes = rest.substr(1 + hours);
  return minutes.empty()
         || (minutes.size() == 3 && minutes[0] == ':'
             && digits(at + 2 + hours, 2));
}

} // namespace

std::optional<int64_t> parse_iso8601(std::string_view text) {
  if (!iso8601_shape(text))
    return std::nullopt;
  std::string input{text};
  std::istringstream in{input};
  date::sys_seconds instant;
  if (!input.empty() && (input.back() == 'Z' || input.back() == 'z')) {
    in >> date::parse("%FT%T", instant);
    if (in.fail())
      return std::nullopt;
    // Only fractional seconds may remain before the 'Z'.
    return instant.time_since_epoch().count();
  }
  std::chrono::minutes offset{0};
  in >> date::parse("%FT%T%Ez", instant, offset);
  if (in.fail())
    return std::nullopt;
  return instant.time_since_epoch().count();
}

} // namespace transitd
