#include "transitd/providers/digitransit_network.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <boost/json.hpp>

#include "transitd/messages/time.hpp"
#include "transitd/providers/digitransit_routing.hpp"
#include "transitd/providers/json_read.hpp"
#include "transitd/messages/limits.hpp"

namespace json = boost::json;

namespace transitd::digitransit {

using upstream_json::find_path;
using upstream_json::int_at;
using upstream_json::number_at;
using upstream_json::string_at;
using upstream_json::text_at;

namespace {

constexpr std::string_view trip_query_text = R"(query TripCalls(
  $id: String!, $date: String!, $language: String) {
  trip(id: $id) {
    gtfsId
    tripHeadsign(language: $language)
    activeDates
    route { gtfsId shortName mode color }
    stoptimesForDate(serviceDate: $date) {
      stop { gtfsId name(language: $language) lat lon platformCode }
      serviceDay
      scheduledArrival
      scheduledDeparture
      realtimeArrival
      realtimeDeparture
      realtime
      realtimeState
      pickupType
      dropoffType
    }
  }
})";

constexpr std::string_view routes_query_text = R"(query LineRoutes(
  $name: String, $ids: [String], $stop: String!, $atStop: Boolean!) {
  routes(name: $name, ids: $ids) @skip(if: $atStop) {
    gtfsId shortName longName mode color textColor
    patterns {
      directionId
      headsign
      stops { gtfsId name lat lon }
    }
  }
  stop(id: $stop) @include(if: $atStop) {
    gtfsId name lat lon
    routes { gtfsId shortName longName mode color textColor }
  }
})";

std::string dashed_date(std::string_view yyyymmdd) {
  if (yyyymmdd.size() != 8)
    return std::string{yyyymmdd};
  return std::string{yyyymmdd.substr(0, 4)} + "-"
         + std::string{yyyymmdd.substr(4, 2)} + "-"
         + std::string{yyyymmdd.substr(6, 2)};
}

constexpr int64_t sane = int64_t{1} << 40;

std::optional<int64_t> seconds_at(const json::value& v,
                                  std::string_view key) {
  auto s = int_at(v, {key});
  if (!s || *s < -sane || *s > sane)
    return std::nullopt;
  return s;
}

line_stop stop_of(const json::value& stop) {
  line_stop out;
  out.stop_id = sanitize_upstream_text(text_at(stop, {"gtfsId"}), 100);
  out.name = sanitize_upstream_text(text_at(stop, {"name"}));
  out.position = {number_at(stop, {"lat"}).value_or(0),
                  number_at(stop, {"lon"}).value_or(0)};
  return out;
}

line_info line_of(const json::value& route) {
  line_info out;
  out.route_id = sanitize_upstream_text(text_at(route, {"gtfsId"}), 100);
  out.line = sanitize_upstream_text(text_at(route, {"shortName"}), 40);
  out.long_name = sanitize_upstream_text(text_at(route, {"longName"}));
  if (out.line.empty())
    out.line = out.long_name;
  out.mode = parse_transit_mode(text_at(route, {"mode"}))
               .value_or(transit_mode::other);
  out.color = sanitize_upstream_text(text_at(route, {"color"}), 6);
  out.text_color = sanitize_upstream_text(text_at(route, {"textColor"}), 6);
  return out;
}

} // namespace

std::string service_date_of(const trip_query& query) {
  // A service day is a date, not an instant in a zone: read it as UTC.
  auto text = query.service_day
                ? format_in_zone(int64_t{*query.service_day} * 86400 + 43200,
                                 "")
                : format_in_zone(query.time, zone);
  return text.substr(0, 4) + text.substr(5, 2) + text.substr(8, 2);
}

std::string make_trip_body(const trip_query& query,
                           std::string_view service_date) {
  json::object variables;
  variables["id"] = query.trip_id;
  variables["date"] = service_date;
  variables["language"] = query.language;
  return graphql_body(trip_operation, trip_query_text, std::move(variables));
}

outcome<trip_details> parse_trip(std::string_view body,
                                 const trip_query& query,
                                 std::string_view service_date,
                                 int64_t fetched_ms) {
  auto root = parse_graphql(body);
  if (!root)
    return root.error();
  const auto* trip = find_path(*root, {"data", "trip"});
  if (trip == nullptr)
    return make_failure(ec::upstream_error, "upstream answer has no trip");
  if (trip->is_null())
    return make_failure(ec::validation_error,
                        "trip \"" + query.trip_id + "\" is unknown to "
                          "Digitransit",
                        "take a tripId from get_departures or plan_trip");
  trip_details out;
  out.trip_id = sanitize_upstream_text(text_at(*trip, {"gtfsId"}), 300);
  out.service_date = dashed_date(service_date);
  out.route_id = sanitize_upstream_text(text_at(*trip, {"route", "gtfsId"}),
                                        100);
  out.line = sanitize_upstream_text(text_at(*trip, {"route", "shortName"}),
                                    40);
  out.mode = parse_transit_mode(text_at(*trip, {"route", "mode"}))
               .value_or(transit_mode::other);
  out.headsign = sanitize_upstream_text(text_at(*trip, {"tripHeadsign"}));
  out.timezone = std::string{zone};
  out.fetched_ms = fetched_ms;
  const auto* calls = find_path(*trip, {"stoptimesForDate"});
  if (calls == nullptr || !calls->is_array() || calls->get_array().empty()) {
    std::string days;
    if (const auto* active = find_path(*trip, {"activeDates"});
        active && active->is_array()) {
      int shown = 0;
      for (const auto& d : active->get_array())
        if (d.is_string() && shown++ < 5)
          days += (days.empty() ? "" : ", ")
                  + dashed_date(sanitize_upstream_text(d.get_string(), 8));
    }
    return make_failure(ec::validation_error,
                        "trip \"" + query.trip_id + "\" does not run on "
                          + dashed_date(service_date),
                        days.empty() ? "give another serviceDate"
                                     : "it runs on " + days);
  }
  bool all_cancelled = true, any_realtime = false, added = false;
  for (const auto& c : calls->get_array()) {
    auto day = seconds_at(c, "serviceDay");
    auto arrival = seconds_at(c, "scheduledArrival");
    auto departure = seconds_at(c, "scheduledDeparture");
    if (!day || (!arrival && !departure))
      continue;
    trip_call call;
    const auto* stop = find_path(c, {"stop"});
    if (stop != nullptr) {
      auto s = stop_of(*stop);
      call.stop_id = std::move(s.stop_id);
      call.stop_name = std::move(s.name);
      call.position = s.position;
      if (auto p = string_at(*stop, {"platformCode"}); p && !p->empty())
        call.platform = sanitize_upstream_text(*p, 20);
    }
    call.scheduled_arrival = *day + arrival.value_or(*departure);
    call.scheduled_departure = *day + departure.value_or(*arrival);
    auto state = text_at(c, {"realtimeState"});
    bool realtime = upstream_json::bool_at(c, {"realtime"});
    if (realtime) {
      any_realtime = true;
      if (auto ra = seconds_at(c, "realtimeArrival"))
        call.realtime_arrival = *day + *ra;
      if (auto rd = seconds_at(c, "realtimeDeparture"))
        call.realtime_departure = *day + *rd;
    }
    call.skipped = state == "CANCELED" || state == "CANCELLED"
                   || state == "SKIPPED";
    all_cancelled = all_cancelled && call.skipped;
    added = added || state == "ADDED";
    call.pickup = text_at(c, {"pickupType"}) != "NONE";
    call.drop_off = text_at(c, {"dropoffType"}) != "NONE";
    out.calls.push_back(std::move(call));
  }
  if (out.calls.empty())
    return make_failure(ec::upstream_error,
                        "upstream trip calls lack their times");
  out.state = all_cancelled ? "cancelled"
              : added       ? "added"
              : any_realtime ? "running"
                             : "scheduled";
  if (any_realtime)
    out.realtime_ms = fetched_ms;
  return out;
}

std::vector<line_state> lines_of_alerts(const alert_list& alerts,
                                        std::string_view route) {
  auto wanted = lower_ascii(route);
  std::map<std::string, line_state> by_route;
  for (const auto& a : alerts.alerts)
    for (const auto& subject : a.subjects) {
      if (subject.type != "route" || subject.id.empty())
        continue;
      if (!wanted.empty() && lower_ascii(subject.id) != wanted
          && lower_ascii(subject.name) != wanted)
        continue;
      auto& line = by_route[subject.id];
      line.route_id = subject.id;
      line.line = subject.name.empty() ? subject.id : subject.name;
      line.mode = parse_transit_mode(subject.mode)
                    .value_or(transit_mode::other);
      auto status = alert_status(a.effect, a.cause, a.severity, false);
      line.reasons.push_back({"alert", a.header, a.id, status});
    }
  std::vector<line_state> out;
  for (auto& [id, line] : by_route)
    out.push_back(std::move(line));
  order_lines(out);
  return out;
}

std::string make_routes_body(const route_query& query) {
  json::object variables;
  bool at_stop = !query.stop.empty() && query.route.empty();
  variables["atStop"] = at_stop;
  variables["stop"] = at_stop ? query.stop : std::string{"-"};
  if (query.route.find(':') != std::string::npos)
    variables["ids"] = json::array{json::string{query.route}};
  else
    variables["name"] = query.route;
  return graphql_body(routes_operation, routes_query_text,
                      std::move(variables));
}

outcome<route_details> parse_routes(std::string_view body,
                                    const route_query& query,
                                    int64_t fetched_ms) {
  auto root = parse_graphql(body);
  if (!root)
    return root.error();
  route_details out;
  out.timezone = std::string{zone};
  out.fetched_ms = fetched_ms;
  auto today = format_in_zone(query.time, zone);
  out.service_date = today.substr(0, 10);
  if (!query.stop.empty() && query.route.empty()) {
    const auto* stop = find_path(*root, {"data", "stop"});
    if (stop == nullptr || stop->is_null())
      return make_failure(ec::validation_error,
                          "stop \"" + query.stop + "\" is unknown to "
                            "Digitransit",
                          "find stop ids with find_stops");
    out.complex.push_back(stop_of(*stop));
    if (const auto* routes = find_path(*stop, {"routes"});
        routes && routes->is_array())
      for (const auto& r : routes->get_array()) {
        auto line = line_of(r);
        line.at_stop = out.complex.front().stop_id;
        out.lines.push_back(std::move(line));
      }
    return out;
  }
  const auto* routes = find_path(*root, {"data", "routes"});
  auto wanted = lower_ascii(query.route);
  if (routes != nullptr && routes->is_array())
    for (const auto& r : routes->get_array()) {
      auto line = line_of(r);
      // OTP matches names by prefix ("55" finds 550): keep the line asked.
      if (lower_ascii(line.line) != wanted && lower_ascii(line.route_id) != wanted)
        continue;
      std::map<int64_t, line_direction> directions;
      if (const auto* patterns = find_path(r, {"patterns"});
          patterns && patterns->is_array())
        for (const auto& p : patterns->get_array()) {
          auto direction = int_at(p, {"directionId"}).value_or(0);
          auto& d = directions[direction];
          d.direction = static_cast<int32_t>(direction);
          d.trips_today = -1; // patterns say nothing of trips
          auto headsign = sanitize_upstream_text(text_at(p, {"headsign"}));
          if (!headsign.empty()
              && std::find(d.headsigns.begin(), d.headsigns.end(), headsign)
                   == d.headsigns.end())
            d.headsigns.push_back(headsign);
          // The longest pattern stands for the direction's stops.
          const auto* stops = find_path(p, {"stops"});
          if (stops && stops->is_array()
              && stops->get_array().size() > d.stops.size()) {
            d.stops.clear();
            for (const auto& s : stops->get_array())
              d.stops.push_back(stop_of(s));
          }
        }
      for (auto& [id, d] : directions)
        line.directions.push_back(std::move(d));
      out.lines.push_back(std::move(line));
    }
  if (out.lines.empty())
    return make_failure(ec::validation_error,
                        "Digitransit has no line \"" + query.route + "\"",
                        "lines are named as riders know them (\"550\", "
                        "\"7\", \"M1\") or by id (\"HSL:2550\")");
  return out;
}

} // namespace transitd::digitransit
