#include "transitd/messages/time.hpp"

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

namespace {

void put2(char* at, unsigned value) {
  at[0] = static_cast<char>('0' + value / 10 % 10);
  at[1] = static_cast<char>('0' + value % 10);
}

/// "YYYY-MM-DDTHH:MM:SS" of a local or UTC instant, plus `suffix`. Written
/// digit by digit: this runs for every departure time of every reply, and
/// date::format goes through an ostringstream and its locale.
std::string format_fields(int64_t epoch_seconds, std::string_view suffix) {
  using namespace std::chrono;
  date::sys_seconds instant{seconds{epoch_seconds}};
  auto day = date::floor<date::days>(instant);
  date::year_month_day ymd{day};
  auto second_of_day = (instant - day).count();
  auto year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) // outside what 4 digits write: let date do it
    return date::format("%FT%T", instant) + std::string{suffix};
  char text[19];
  put2(text, static_cast<unsigned>(year / 100));
  put2(text + 2, static_cast<unsigned>(year % 100));
  text[4] = '-';
  put2(text + 5, static_cast<unsigned>(ymd.month()));
  text[7] = '-';
  put2(text + 8, static_cast<unsigned>(ymd.day()));
  text[10] = 'T';
  put2(text + 11, static_cast<unsigned>(second_of_day / 3600));
  text[13] = ':';
  put2(text + 14, static_cast<unsigned>(second_of_day / 60 % 60));
  text[16] = ':';
  put2(text + 17, static_cast<unsigned>(second_of_day % 60));
  std::string out;
  out.reserve(sizeof(text) + suffix.size());
  out.append(text, sizeof(text));
  out.append(suffix);
  return out;
}

const date::time_zone* find_zone(std::string_view zone) {
  if (zone.empty())
    return nullptr;
  // One lookup per thread and zone name (a stop's zone rarely changes
  // between calls); locate_zone searches the whole database.
  thread_local std::string last_name;
  thread_local const date::time_zone* last = nullptr;
  if (zone == last_name)
    return last;
  const date::time_zone* found = nullptr;
  try {
    found = date::locate_zone(zone);
  } catch (const std::exception&) {
    found = nullptr;
  }
  last_name = std::string{zone};
  last = found;
  return found;
}

/// The UTC offset of `zone` at `instant`, remembering the period it holds
/// for (offsets change twice a year, lookups search the transitions).
std::chrono::seconds offset_at(const date::time_zone* zone,
                               date::sys_seconds instant) {
  thread_local const date::time_zone* cached_zone = nullptr;
  thread_local date::sys_info cached{};
  if (zone != cached_zone || instant < cached.begin || instant >= cached.end) {
    cached = zone->get_info(instant);
    cached_zone = zone;
  }
  return cached.offset;
}

} // namespace

std::string format_utc(int64_t epoch_seconds) {
  return format_fields(epoch_seconds, "Z");
}

std::string format_in_zone(int64_t epoch_seconds, std::string_view zone) {
  auto* tz = find_zone(zone);
  if (tz == nullptr)
    return format_utc(epoch_seconds);
  auto offset = offset_at(tz, date::sys_seconds{std::chrono::seconds{epoch_seconds}});
  auto offset_min = offset.count() / 60;
  char suffix[6] = {offset_min < 0 ? '-' : '+', '0', '0', ':', '0', '0'};
  if (offset_min < 0)
    offset_min = -offset_min;
  put2(suffix + 1, static_cast<unsigned>(offset_min / 60));
  put2(suffix + 4, static_cast<unsigned>(offset_min % 60));
  return format_fields(epoch_seconds + offset.count(),
                       std::string_view{suffix, sizeof(suffix)});
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
