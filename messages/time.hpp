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

/// Parses an ISO 8601 date-time with 'Z' or a numeric offset into epoch
/// seconds; nullopt when malformed.
std::optional<int64_t> parse_iso8601(std::string_view text);

} // namespace transitd
