#pragma once
// The get_departures contract as pure functions: validation, the upstream
// query, status mapping, window, sorting, truncation and freshness. The
// DEPARTURES_BOARD actor only wires these to its TIMETABLE.

#include <cstdint>
#include <optional>
#include <vector>

#include "transitd/messages/departures.hpp"
#include "transitd/messages/error.hpp"

namespace transitd {

/// |delay| above this many seconds is "delayed" (rule 2, D7).
inline constexpr int32_t on_time_tolerance_seconds = 60;

/// Checks the request against the contract; nullopt when valid.
std::optional<failure> validate(const get_departures_request& request);

/// The provider query for a valid request received at `now_seconds`.
stop_departures_query make_query(const get_departures_request& request,
                                 int64_t now_seconds);

/// Rule 2 with D7: cancelled > delayed (|delay| > 60 s) > on_time >
/// scheduled_only.
departure_status classify(const stop_time& time);

/// D11, for departures and transit legs alike: cancelled; else without a
/// realtime delay scheduled_only; else delayed beyond ±60 s; else on_time.
departure_status classify_status(bool cancelled,
                                 std::optional<int64_t> delay_seconds);

/// Rules 1-6 and D8: maps, filters to the window, sorts, truncates and
/// warns. `now_seconds` is the request time.
get_departures_reply build_departures_board(
  const get_departures_request& request, const stop_departures& upstream,
  int64_t now_seconds);

} // namespace transitd
