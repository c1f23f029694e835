#pragma once
// The find_stops contract as pure functions (D9 and rules 1-5).

#include <optional>
#include <string>
#include <string_view>

#include "transitd/messages/error.hpp"
#include "transitd/messages/stops.hpp"

namespace transitd {


std::optional<failure> validate(const find_stops_request& request);

nearby_stops_query make_query(const find_stops_request& request);

/// Rules 2-5: mode filter, text filter, stable sort by distance then id,
/// cap and warnings.
find_stops_reply build_stop_list(const find_stops_request& request,
                                 const nearby_stops& upstream);

} // namespace transitd
