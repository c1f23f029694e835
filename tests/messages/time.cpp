#include "transitd/messages/time.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("UTC formatting", "[time]") {
  CHECK(format_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(format_utc(1757930760) == "2025-09-15T10:06:00Z");
  CHECK(format_utc(-1) == "1970-01-01T00:00:00Z"); // no year before 1970
  CHECK(format_utc(951782400) == "2000-02-29T00:00:00Z");
  CHECK(format_utc(253402300799) == "9999-12-31T23:59:59Z");
}

TEST_CASE("zone offsets are right across a transition and between zones",
          "[time]") {
  // Helsinki moved from +02:00 to +03:00 at 2025-03-30T01:00:00Z; the
  // remembered period must not outlive it, in either direction.
  CHECK(format_in_zone(1743296399, "Europe/Helsinki")
        == "2025-03-30T02:59:59+02:00");
  CHECK(format_in_zone(1743296400, "Europe/Helsinki")
        == "2025-03-30T04:00:00+03:00");
  CHECK(format_in_zone(1743296399, "Europe/Helsinki")
        == "2025-03-30T02:59:59+02:00");
  // Alternating zones on one thread (London moves to BST at the same
  // instant).
  CHECK(format_in_zone(1743296400, "Europe/London")
        == "2025-03-30T02:00:00+01:00");
  CHECK(format_in_zone(1743296400, "Europe/Helsinki")
        == "2025-03-30T04:00:00+03:00");
  CHECK(format_in_zone(1743296400, "Mars/Olympus") == "2025-03-30T01:00:00Z");
  CHECK(format_in_zone(1743296400, "Europe/London")
        == "2025-03-30T02:00:00+01:00");
  // Half-hour offsets.
  CHECK(format_in_zone(1736935200, "Asia/Kolkata")
        == "2025-01-15T15:30:00+05:30");
  CHECK(format_in_zone(1736935200, "America/St_Johns")
        == "2025-01-15T06:30:00-03:30");
}

TEST_CASE("zone formatting follows daylight saving time", "[time]") {
  // Helsinki: EEST (+03:00) in September, EET (+02:00) in January.
  CHECK(format_in_zone(1757930760, "Europe/Helsinki")
        == "2025-09-15T13:06:00+03:00");
  CHECK(format_in_zone(1736935200, "Europe/Helsinki")
        == "2025-01-15T12:00:00+02:00");
  CHECK(format_in_zone(1736935200, "Europe/London")
        == "2025-01-15T10:00:00+00:00");
  // Unknown or empty zones fall back to UTC rather than failing the call.
  CHECK(format_in_zone(1736935200, "Mars/Olympus") == "2025-01-15T10:00:00Z");
  CHECK(format_in_zone(1736935200, "") == "2025-01-15T10:00:00Z");
}

TEST_CASE("No rendered year lies outside 1970..9999", "[time]") {
  CHECK(format_utc(-906448800000LL) == "1970-01-01T00:00:00Z");
  CHECK(format_utc(int64_t{1} << 50) == "9999-12-31T23:59:59Z");
  CHECK(format_in_zone(int64_t{1} << 50, "Europe/Helsinki").substr(0, 4)
        == "9999");
}

TEST_CASE("ISO 8601 parsing", "[time]") {
  CHECK(parse_iso8601("2025-09-15T10:06:00Z") == 1757930760);
  CHECK(parse_iso8601("2025-09-15T13:06:00+03:00") == 1757930760);
  CHECK_FALSE(parse_iso8601("yesterday"));
  CHECK(parse_iso8601("2025-09-15T10:06:00.250Z") == 1757930760);
  CHECK(parse_iso8601("2025-09-15T13:06:00+03") == 1757930760);
  // Shapes date::parse would read as floating-point seconds are refused
  // before it sees them (a fuzz finding: NaN seconds were undefined
  // behaviour).
  CHECK_FALSE(parse_iso8601("2025-09-15T13:06:nanZ"));
  CHECK_FALSE(parse_iso8601("2025-09-15T13:06:1e999Z"));
  CHECK_FALSE(parse_iso8601("2025-09-15T13:06:00.Z"));
  CHECK_FALSE(parse_iso8601("2025-09-15T13:06:00+3:0"));
  CHECK_FALSE(parse_iso8601("2025-09-15 13:06:00Z"));
  CHECK_FALSE(parse_iso8601(""));
  // Not calendar times.
  CHECK_FALSE(parse_iso8601("2025-02-30T10:00:00Z"));
  CHECK_FALSE(parse_iso8601("2025-09-15T24:00:00Z"));
  CHECK_FALSE(parse_iso8601("2025-09-15T10:60:00Z"));
  CHECK_FALSE(parse_iso8601("2025-09-15T10:00:00+19:00"));
  // parse_iso8601 wants an offset.
  CHECK_FALSE(parse_iso8601("2025-09-15T10:06"));
}

TEST_CASE("ISO 8601 as agents write it: seconds and offset optional (D22)",
          "[time]") {
  auto with = [](std::string_view text) { return parse_iso_time(text); };
  REQUIRE(with("2026-10-14T08:00-04:00"));
  CHECK(with("2026-10-14T08:00-04:00")->seconds
        == *parse_iso8601("2026-10-14T12:00:00Z"));
  CHECK(with("2026-10-14T08:00-04:00")->has_offset);
  CHECK(with("2026-10-14T08:00-0400")->seconds
        == *parse_iso8601("2026-10-14T12:00:00Z"));
  CHECK(with("2026-10-14T12:00Z")->seconds
        == *parse_iso8601("2026-10-14T12:00:00Z"));
  auto local = with("2026-10-14T08:00");
  REQUIRE(local);
  CHECK_FALSE(local->has_offset);
  // Wall-clock fields counted as if UTC, then read in a zone.
  CHECK(local->seconds == *parse_iso8601("2026-10-14T08:00:00Z"));
  CHECK(resolve_time(*local, "America/New_York")
        == *parse_iso8601("2026-10-14T08:00:00-04:00"));
  CHECK(resolve_time(*local, "Europe/Helsinki")
        == *parse_iso8601("2026-10-14T08:00:00+03:00"));
  CHECK(resolve_time(*with("2026-10-14T08:00:30"), "")
        == *parse_iso8601("2026-10-14T08:00:30Z"));
  // An offset wins over the zone.
  CHECK(resolve_time(*with("2026-10-14T08:00+02:00"), "America/New_York")
        == *parse_iso8601("2026-10-14T06:00:00Z"));
  CHECK_FALSE(with("2026-10-14T8:00"));
  CHECK_FALSE(with("2026-10-14T08"));
  CHECK_FALSE(with("2026-10-14"));
  CHECK_FALSE(with("2026-10-14T08:00:"));
  CHECK_FALSE(with("2026-10-14T08:00+"));
}

TEST_CASE("A local time in a DST change reads as the clock before it",
          "[time]") {
  // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT; 2026-11-01: 01:00
  // EDT happens twice.
  CHECK(local_to_epoch(*parse_iso8601("2026-03-08T02:30:00Z"),
                       "America/New_York")
        == *parse_iso8601("2026-03-08T02:30:00-05:00"));
  CHECK(local_to_epoch(*parse_iso8601("2026-11-01T01:30:00Z"),
                       "America/New_York")
        == *parse_iso8601("2026-11-01T01:30:00-04:00"));
  CHECK(local_to_epoch(*parse_iso8601("2026-11-01T01:30:00Z"), "Nowhere/X")
        == *parse_iso8601("2026-11-01T01:30:00Z"));
}
