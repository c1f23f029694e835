#pragma once
// reachable's rules, pure: the request's checks, the provider query, and
// the reply.

#include <optional>

#include "transitd/messages/reach.hpp"
#include "transitd/messages/variables.hpp"

namespace transitd {

/// Ranges (maxMinutes, maxWalkingDistance, maxTransfers, limit), `when`
/// (D22), the origin (coordinates, a stop id, a label).
std::optional<failure> validate(const reachable_request& request);

/// Where the search starts: the origin as given, or a saved variable (a
/// location's point, a stop's id).
struct reach_origin {
  location_ref ref;
  /// A stop to start at (D21); empty: the point.
  std::string stop_id;
};

reach_origin origin_of(const location_input& input);
reach_origin origin_of(const user_variable& variable);

/// The provider query for a valid request from `origin` at the engine's
/// `now_seconds`.
reach_query make_query(const reachable_request& request,
                       const reach_origin& origin, int64_t now_seconds);

/// The reply: the origin named, the instant used in the origin's zone,
/// dataFreshness on the engine's clock.
reachable_reply build_reach_reply(const reachable_request& request,
                                  reach_origin origin, reach_result result);

} // namespace transitd
