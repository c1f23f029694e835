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

std::optional<int64_t> parse_iso8601(std::string_view text) {
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
