#pragma once
// ISO 8601 rendering of instants, in UTC or in a stop's IANA time zone.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace transitd {

/// Milliseconds since the Unix epoch, from the system clock.
int64_t now_ms();

/// "2025-09-15T10:06:00Z" (whole seconds).
std::string format_utc(int64_t epoch_seconds);

/// "2025-09-15T13:06:00+03:00" in `zone` (IANA name). Falls back to UTC
/// when the zone is empty or unknown to the system's tz database.
std::string format_in_zone(int64_t epoch_seconds, std::string_view zone);

/// An ISO 8601 date-time as agents write it (decision D22): seconds and
/// their fraction optional, offset optional.
struct iso_time {
  /// With an offset: epoch seconds. Without: the wall-clock fields read as
  /// if they were UTC (see `resolve_time`).
  int64_t seconds = 0;
  bool has_offset = false;
};

/// The forms `parse_iso_time` accepts, for error messages.
inline constexpr std::string_view iso_time_forms
  = "ISO 8601 such as 2026-10-14T08:00:00-04:00, 2026-10-14T08:00-04:00, "
    "2026-10-14T12:00Z or 2026-10-14T08:00 (without an offset: local time "
    "where the place is)";

/// "YYYY-MM-DDTHH:MM[:SS[.fraction]]" with "Z", "±HH", "±HHMM", "±HH:MM"
/// or nothing after it; nullopt when malformed or not a calendar time.
std::optional<iso_time> parse_iso_time(std::string_view text);

/// As `parse_iso_time`, but the offset is required: epoch seconds.
std::optional<int64_t> parse_iso8601(std::string_view text);

/// The instant at which `zone`'s clocks read `local_seconds` (wall-clock
/// fields counted as if UTC): in a fall-back hour the earlier one, in a
/// spring-forward gap as the clock before the gap would read it. UTC when
/// the zone is empty or unknown.
int64_t local_to_epoch(int64_t local_seconds, std::string_view zone);

/// The instant of `time`: its own when it has an offset, else read in
/// `zone`.
int64_t resolve_time(const iso_time& time, std::string_view zone);

} // namespace transitd
