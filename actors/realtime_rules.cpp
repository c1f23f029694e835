#include "transitd/actors/realtime_rules.hpp"

#include <algorithm>

#include "transitd/actors/stops_rules.hpp"
#include "transitd/messages/time.hpp"

namespace transitd {

std::optional<failure> validate(const vehicle_positions_request& request) {
  if (request.route.empty() && !request.near)
    return make_failure(ec::validation_error,
                        "give route, near, or both: which vehicles is "
                        "not clear",
                        "route is a line as departures show it (\"L1\") "
                        "or a route id NAME:route_id; near is "
                        "{lat, lon}");
  if (request.near)
    if (auto bad = validate_coordinate(*request.near, "near"))
      return bad;
  return std::nullopt;
}

vehicles_query make_query(const vehicle_positions_request& request) {
  vehicles_query q;
  q.context = request.context;
  q.route = request.route;
  q.center = request.near;
  q.radius = request.radius;
  return q;
}

namespace {

warning truncated(std::size_t found, int32_t limit, const char* what) {
  return {"truncated-results", std::to_string(found) + " " + what
                                 + " found, returning the first "
                                 + std::to_string(limit)};
}

} // namespace

vehicle_positions_reply build_vehicle_list(
  const vehicle_positions_request& request, const vehicle_list& upstream,
  int64_t now_s) {
  vehicle_positions_reply reply;
  reply.correlation_id = request.context.correlation_id;
  reply.warnings = upstream.warnings;
  auto limit = static_cast<std::size_t>(std::max(1, request.limit));
  if (upstream.vehicles.size() > limit)
    reply.warnings.push_back(
      truncated(upstream.vehicles.size(), request.limit, "vehicles"));
  for (std::size_t i = 0; i < upstream.vehicles.size() && i < limit; ++i) {
    vehicle_position out;
    out.report = upstream.vehicles[i];
    out.reported_at = format_in_zone(out.report.timestamp, upstream.timezone);
    out.age_seconds = std::max<int64_t>(0, now_s - out.report.timestamp);
    reply.vehicles.push_back(std::move(out));
  }
  reply.data_freshness = format_utc(
    upstream.timestamp_ms > 0 ? upstream.timestamp_ms / 1000 : now_s);
  return reply;
}

outcome<alerts_query> make_query(const service_alerts_request& request,
                                 int64_t now_s) {
  if (auto bad = check_language("language", request.language))
    return *bad;
  int given = (request.stop.empty() ? 0 : 1) + (request.route.empty() ? 0 : 1)
              + (request.trip.empty() ? 0 : 1) + (request.feed.empty() ? 0 : 1);
  if (given > 1)
    return make_failure(ec::validation_error,
                        "give one of stop, route, trip and feed, not several",
                        "ask once per stop, route or trip");
  if (given == 0 && !request.near)
    return make_failure(ec::validation_error,
                        "give stop, route, trip, feed or near: whose alerts "
                        "is not clear",
                        "stop, route and trip are ids (NAME:id for a feed); "
                        "feed names a feed served here; near is {lat, lon} of "
                        "the region");
  if (request.near)
    if (auto bad = validate_coordinate(*request.near, "near"))
      return *bad;
  alerts_query q;
  q.context = request.context;
  q.stop_id = request.stop;
  q.route_id = request.route;
  q.trip_id = request.trip;
  q.feed = request.feed;
  q.center = request.near;
  q.language = request.language;
  if (request.when == "now") {
    q.time = now_s;
  } else if (auto t = parse_iso_time(request.when)) {
    q.time = t->seconds;
    q.local_time = !t->has_offset; // D22: the provider's zone
  } else {
    return make_failure(ec::validation_error,
                        "when \"" + request.when
                          + "\" is neither \"now\" nor an ISO 8601 time",
                        "write \"now\" or " + std::string{iso_time_forms});
  }
  return q;
}

namespace {

int severity_rank(const std::string& severity) {
  return severity == "severe"    ? 0
         : severity == "warning" ? 1
         : severity == "info"    ? 2
                                 : 3;
}

int64_t latest_start(const service_alert& a) {
  int64_t start = 0;
  for (const auto& p : a.periods)
    start = std::max(start, p.start.value_or(0));
  return start;
}

} // namespace

service_alerts_reply build_alert_list(const service_alerts_request& request,
                                      const alert_list& upstream,
                                      int64_t at) {
  // Rule 3: most severe first, then the latest starting; the provider's
  // order where those tie.
  std::vector<const service_alert*> order;
  for (const auto& a : upstream.alerts)
    order.push_back(&a);
  std::stable_sort(order.begin(), order.end(),
                   [](const service_alert* a, const service_alert* b) {
                     if (severity_rank(a->severity) != severity_rank(b->severity))
                       return severity_rank(a->severity)
                              < severity_rank(b->severity);
                     return latest_start(*a) > latest_start(*b);
                   });
  service_alerts_reply reply;
  reply.correlation_id = request.context.correlation_id;
  reply.at = format_in_zone(at, upstream.timezone);
  reply.warnings = upstream.warnings;
  auto limit = static_cast<std::size_t>(std::max(1, request.limit));
  if (upstream.alerts.size() > limit)
    reply.warnings.push_back(
      truncated(upstream.alerts.size(), request.limit, "alerts"));
  for (std::size_t i = 0; i < order.size() && i < limit; ++i) {
    alert_entry out;
    out.alert = *order[i];
    for (const auto& p : out.alert.periods)
      out.windows.push_back(
        {p.start ? format_in_zone(*p.start, upstream.timezone) : std::string{},
         p.end ? format_in_zone(*p.end, upstream.timezone) : std::string{}});
    reply.alerts.push_back(std::move(out));
  }
  return reply;
}

} // namespace transitd
