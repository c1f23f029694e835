#include "transitd/messages/time.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

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
  // Agents read 4-digit years: an instant outside 1970..9999 (a producer's
  // garbage that slipped through) shows as the nearest end, never as
  // "-28724-02-20".
  epoch_seconds = std::clamp<int64_t>(epoch_seconds, 0,
                                      int64_t{253402300799});
  date::sys_seconds instant{seconds{epoch_seconds}};
  auto day = date::floor<date::days>(instant);
  date::year_month_day ymd{day};
  auto second_of_day = (instant - day).count();
  auto year = std::clamp(static_cast<int>(ymd.year()), 0, 9999);
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

/// Reads "YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|±HH[[:]MM]]" field by field.
/// date::parse is not used: it reads seconds as a floating-point number and
/// converting a hostile one (found by tests/fuzz) is undefined behaviour.
std::optional<iso_time> read_iso(std::string_view t) {
  auto digits = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    if (at + n > t.size())
      return std::nullopt;
    int value = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9')
        return std::nullopt;
      value = value * 10 + (t[i] - '0');
    }
    return value;
  };
  auto year = digits(0, 4);
  auto month = digits(5, 2);
  auto day = digits(8, 2);
  auto hour = digits(11, 2);
  auto minute = digits(14, 2);
  if (!year || !month || !day || !hour || !minute || t[4] != '-'
      || t[7] != '-' || (t[10] != 'T' && t[10] != 't') || t[13] != ':')
    return std::nullopt;
  int second = 0;
  std::size_t at = 16;
  if (at < t.size() && t[at] == ':') {
    auto s = digits(at + 1, 2);
    if (!s)
      return std::nullopt;
    second = *s;
    at += 3;
    if (at < t.size() && t[at] == '.') {
      auto start = ++at;
      while (at < t.size() && t[at] >= '0' && t[at] <= '9')
        ++at;
      if (at == start || at - start > 9)
        return std::nullopt;
    }
  }
  date::year_month_day ymd{date::year{*year},
                           date::month{static_cast<unsigned>(*month)},
                           date::day{static_cast<unsigned>(*day)}};
  if (!ymd.ok() || *hour > 23 || *minute > 59 || second > 60)
    return std::nullopt;
  iso_time out;
  out.seconds = int64_t{date::sys_days{ymd}.time_since_epoch().count()}
                  * 86400
                + *hour * 3600 + *minute * 60 + std::min(second, 59);
  auto rest = t.substr(at);
  if (rest.empty())
    return out; // no offset: a wall-clock time
  out.has_offset = true;
  if (rest == "Z" || rest == "z")
    return out;
  if (rest[0] != '+' && rest[0] != '-')
    return std::nullopt;
  // ±h, ±hh, ±hh:mm, ±hhmm
  int oh = 0;
  int om = 0;
  auto body = rest.substr(1);
  if (body.size() == 1 && digits(at + 1, 1)) {
    oh = *digits(at + 1, 1);
  } else if (body.size() == 2 && digits(at + 1, 2)) {
    oh = *digits(at + 1, 2);
  } else if (body.size() == 5 && body[2] == ':' && digits(at + 1, 2)
             && digits(at + 4, 2)) {
    oh = *digits(at + 1, 2);
    om = *digits(at + 4, 2);
  } else if (body.size() == 4 && digits(at + 1, 4)) {
    oh = *digits(at + 1, 2);
    om = *digits(at + 3, 2);
  } else {
    return std::nullopt;
  }
  if (oh > 18 || om > 59)
    return std::nullopt;
  int64_t offset = oh * 3600 + om * 60;
  out.seconds -= rest[0] == '+' ? offset : -offset;
  return out;
}

} // namespace

std::optional<iso_time> parse_iso_time(std::string_view text) {
  return read_iso(text);
}

std::optional<int64_t> parse_iso8601(std::string_view text) {
  auto t = read_iso(text);
  if (!t || !t->has_offset)
    return std::nullopt;
  return t->seconds;
}

int64_t local_to_epoch(int64_t local_seconds, std::string_view zone) {
  auto* tz = find_zone(zone);
  if (tz == nullptr)
    return local_seconds;
  using namespace std::chrono;
  date::local_seconds local{seconds{local_seconds}};
  auto info = tz->get_info(local);
  switch (info.result) {
    case date::local_info::unique:
      return local_seconds - info.first.offset.count();
    case date::local_info::ambiguous: // the fall-back hour: the earlier
      return local_seconds - info.first.offset.count();
    default: // the spring-forward gap: as the clock before it would read
      return local_seconds - info.first.offset.count();
  }
}

int64_t resolve_time(const iso_time& time, std::string_view zone) {
  return time.has_offset ? time.seconds : local_to_epoch(time.seconds, zone);
}

} // namespace transitd
