#pragma once
// The vehicle_positions and service_alerts contracts as pure functions
// (docs/tools/vehicle_positions.md, docs/tools/service_alerts.md).

#include <cstdint>
#include <optional>

#include "transitd/messages/error.hpp"
#include "transitd/messages/realtime.hpp"

namespace transitd {

/// Rule 1: a route or a point (or both); the point on the globe.
std::optional<failure> validate(const vehicle_positions_request& request);

vehicles_query make_query(const vehicle_positions_request& request);

/// Rules 2-4: the provider's order kept, `limit` applied (warning
/// truncated-results), each report's time in the feed's zone and its age
/// at `now_s` (never negative), dataFreshness the newest message's time.
vehicle_positions_reply build_vehicle_list(
  const vehicle_positions_request& request, const vehicle_list& upstream,
  int64_t now_s);

/// Rules 1-2: at most one of stop, route, trip and feed, or a point; `when` is
/// "now" (`now_s`) or ISO 8601 with an offset.
outcome<alerts_query> make_query(const service_alerts_request& request,
                                 int64_t now_s);

/// Rules 3-5: most severe first, then the latest starting (the
/// provider's order where they tie), `limit` applied (warning
/// truncated-results), periods in the provider's zone.
service_alerts_reply build_alert_list(const service_alerts_request& request,
                                      const alert_list& upstream,
                                      int64_t at);

} // namespace transitd
