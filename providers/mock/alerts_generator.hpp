#pragma once
// Deterministic service alerts for the mock upstream's alerts queries, in
// the shape of Digitransit's (OpenTripPlanner GTFS GraphQL) Alert.

#include <cstdint>
#include <string>

#include <boost/json.hpp>

namespace transitd::mock {

struct alerts_query {
  /// Which query: "stop", "route", "trip" or "feed".
  std::string kind = "feed";
  std::string id;
  /// Now, epoch seconds: the periods are set around it.
  int64_t now = 0;
};

/// The full GraphQL response: data.stop{gtfsId, alerts}, data.route{...}
/// or data.alerts. A stop or route id containing "unknown" is null. Every
/// answer holds a severe alert about line 550 running from an hour ago
/// with no end, and a stop's or route's own warning (Finnish, Swedish
/// and English texts) from now until two hours on; the feed's adds an
/// agency-wide info without texts in other languages.
boost::json::object generate_alerts(const alerts_query& query);

} // namespace transitd::mock
