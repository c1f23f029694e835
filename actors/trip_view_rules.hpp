#pragma once
// get_trip's rules, pure: the request's checks, the provider query, and
// the reply from the provider's answer.

#include <optional>

#include "transitd/messages/trip_info.hpp"

namespace transitd {

/// tripId's length, serviceDate's form (YYYY-MM-DD or YYYYMMDD, a
/// calendar day), the language.
std::optional<failure> validate(const get_trip_request& request);

/// "2026-10-14" or "20261014" as days since 1970-01-01; nullopt when
/// malformed or not a calendar day.
std::optional<int32_t> parse_service_day(std::string_view text);

/// The provider query for a valid request at the engine's `now_seconds`.
trip_query make_query(const get_trip_request& request, int64_t now_seconds);

/// The reply: the trip as the provider gave it, whether realtime shaped
/// it, and dataFreshness (the later of its realtime and its reading, on
/// the engine's clock).
get_trip_reply build_trip_reply(const get_trip_request& request,
                                trip_details details, int64_t now_seconds);

} // namespace transitd
