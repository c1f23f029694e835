#include "transitd/providers/digitransit_routing.hpp"

#include <algorithm>
#include <cctype>

#include <cmath>
#include <cstdio>

#include <boost/json.hpp>

#include "transitd/messages/time.hpp"
#include "transitd/providers/json_read.hpp"
#include "transitd/messages/limits.hpp"
#include "transitd/util/polyline.hpp"

namespace json = boost::json;

namespace transitd::digitransit {

using upstream_json::bool_at;
using upstream_json::find_path;
using upstream_json::int_at;
using upstream_json::string_at;

namespace {

// Field set mirrors what the tool maps, nothing more (contract: avoid
// over-fetching). The alias and nested route match the recorded HSL stop
// page query, so the same parser reads both.
constexpr std::string_view departures_query = R"(query StopDepartures(
  $id: String!, $startTime: Long!, $timeRange: Int!,
  $numberOfDepartures: Int!, $language: String) {
  stop(id: $id) {
    gtfsId
    name(language: $language)
    timezone
    stoptimes: stoptimesWithoutPatterns(startTime: $startTime,
      timeRange: $timeRange, numberOfDepartures: $numberOfDepartures,
      omitCanceled: false) {
      serviceDay
      scheduledDeparture
      realtimeDeparture
      realtime
      realtimeState
      headsign(language: $language)
      stop { platformCode }
      trip { gtfsId route { shortName mode } }
    }
  }
})";

std::optional<failure> graphql_errors(const json::value& root) {
  const auto* errors = find_path(root, {"errors"});
  if (errors == nullptr || !errors->is_array() || errors->get_array().empty())
    return std::nullopt;
  std::string message = "upstream GraphQL error";
  const auto& first = errors->get_array().front();
  if (auto text = string_at(first, {"message"}))
    message += ": " + sanitize_upstream_text(*text);
  return make_failure(ec::upstream_error, std::move(message),
                      "retry later; the upstream rejected or failed the "
                      "query");
}

} // namespace

std::optional<failure> answer_language(std::string& language) {
  if (language.empty()) {
    language = std::string{digitransit_language};
    return std::nullopt;
  }
  auto primary = lower_ascii(language.substr(0, language.find('-')));
  for (auto l : languages)
    if (primary == l) {
      language = primary;
      return std::nullopt;
    }
  return make_failure(ec::validation_error,
                      "Digitransit has no texts in \"" + language + "\"",
                      "the Helsinki region answers in fi, sv or en");
}

/// Parses a GraphQL response body; malformed JSON and an `errors` payload
/// are upstream errors.
outcome<json::value> parse_graphql(std::string_view body) {
  json::error_code error;
  auto root = json::parse(body, error);
  if (error)
    return make_failure(ec::upstream_error,
                        "upstream answered malformed JSON ("
                          + error.message() + ")",
                        "retry later");
  if (auto failed = graphql_errors(root))
    return *failed;
  return root;
}

/// {"operationName", "query", "variables"}, serialised.
std::string graphql_body(std::string_view operation, std::string_view query,
                         json::object variables) {
  json::object body;
  body["operationName"] = operation;
  body["query"] = query;
  body["variables"] = std::move(variables);
  return json::serialize(body);
}

namespace {

outcome<stop_time> parse_stop_time(const json::value& item) {
  auto service_day = int_at(item, {"serviceDay"});
  auto scheduled = int_at(item, {"scheduledDeparture"});
  auto realtime_offset = int_at(item, {"realtimeDeparture"});
  // Seconds since the epoch and within a service day: anything beyond a
  // few thousand years is garbage (and would overflow when added).
  constexpr int64_t sane = int64_t{1} << 40;
  auto in_range = [&](const std::optional<int64_t>& v) {
    return !v || (*v > -sane && *v < sane);
  };
  if (!service_day || !scheduled)
    return make_failure(ec::upstream_error,
                        "upstream stop time lacks serviceDay or "
                        "scheduledDeparture");
  if (!in_range(service_day) || !in_range(scheduled)
      || !in_range(realtime_offset))
    return make_failure(ec::upstream_error,
                        "upstream stop time is out of range");
  stop_time result;
  result.scheduled_departure = *service_day + *scheduled;
  auto realtime = realtime_offset.value_or(*scheduled);
  result.realtime_departure = *service_day + realtime;
  auto state = string_at(item, {"realtimeState"}).value_or("SCHEDULED");
  result.cancelled = state == "CANCELED" || state == "CANCELLED";
  result.realtime = bool_at(item, {"realtime"}) || state == "UPDATED"
                    || result.cancelled;
  result.headsign = string_at(item, {"headsign"})
                      .value_or(string_at(item, {"trip", "tripHeadsign"})
                                  .value_or(""));
  const json::value* route = find_path(item, {"trip", "route"});
  if (route == nullptr || !route->is_object())
    route = find_path(item, {"trip", "pattern", "route"});
  if (route != nullptr) {
    result.line = string_at(*route, {"shortName"}).value_or("");
    auto mode = string_at(*route, {"mode"}).value_or("OTHER");
    result.mode = parse_transit_mode(mode).value_or(transit_mode::other);
  }
  if (auto platform = string_at(item, {"stop", "platformCode"});
      platform && !platform->empty())
    result.platform = std::move(platform);
  // For get_trip: the trip and its service date (serviceDay is the
  // service date's local noon minus 12 h).
  if (auto trip = string_at(item, {"trip", "gtfsId"}); trip && !trip->empty()) {
    result.trip_id = sanitize_upstream_text(*trip, 300);
    result.service_date = format_in_zone(*service_day + 43200, zone)
                            .substr(0, 10);
  }
  return result;
}

} // namespace

std::string make_departures_body(const stop_departures_query& query) {
  json::object variables;
  variables["id"] = query.stop_id;
  variables["startTime"] = query.start_time;
  variables["timeRange"] = query.time_range_seconds;
  variables["numberOfDepartures"] = query.max_departures;
  variables["language"] = query.language;
  return graphql_body(departures_operation, departures_query, std::move(variables));
}

outcome<stop_departures> parse_departures(std::string_view body,
                                          std::string_view requested_stop,
                                          int64_t fetched_ms) {
  auto parsed_body = parse_graphql(body);
  if (!parsed_body)
    return parsed_body.error();
  const auto& root = *parsed_body;
  const auto* stop = find_path(root, {"data", "stop"});
  if (stop == nullptr)
    return make_failure(ec::upstream_error,
                        "upstream answer has no data.stop field");
  if (stop->is_null())
    return make_failure(ec::validation_error,
                        "unknown stop id \"" + std::string{requested_stop}
                          + "\": the upstream has no such stop",
                        "search stops near a coordinate for their ids, e.g. "
                        "\"HSL:1040129\"");
  stop_departures result;
  result.fetched_ms = fetched_ms;
  result.stop_id = string_at(*stop, {"gtfsId"})
                     .value_or(std::string{requested_stop});
  result.stop_name = string_at(*stop, {"name"});
  result.timezone = string_at(*stop, {"timezone"}).value_or("");
  const json::value* times = find_path(*stop, {"stoptimes"});
  if (times == nullptr)
    times = find_path(*stop, {"stoptimesWithoutPatterns"});
  if (times == nullptr || times->is_null())
    return result;
  if (!times->is_array())
    return make_failure(ec::upstream_error,
                        "upstream stoptimes is not a list");
  for (const auto& item : times->get_array()) {
    auto parsed = parse_stop_time(item);
    if (!parsed)
      return parsed.error();
    result.stop_times.push_back(std::move(*parsed));
  }
  return result;
}

namespace {

constexpr std::string_view nearby_stops_query_text = R"(query NearbyStops(
  $lat: Float!, $lon: Float!, $maxDistance: Int!, $maxResults: Int!,
  $modes: [Mode], $language: String) {
  nearest(lat: $lat, lon: $lon, maxDistance: $maxDistance,
    maxResults: $maxResults, first: $maxResults,
    filterByPlaceTypes: [STOP], filterByModes: $modes) {
    edges {
      node {
        distance
        place {
          ... on Stop {
            gtfsId
            name(language: $language)
            lat
            lon
            vehicleMode
            routes { mode }
          }
        }
      }
    }
  }
})";

double number_at(const json::value& root, std::string_view key) {
  return upstream_json::number_at(root, {key}).value_or(0.0);
}

/// One stop object (Stop) plus its distance into a summary; nullopt for
/// places that are not stops.
std::optional<stop_summary> to_stop(const json::value& stop,
                                    std::optional<int64_t> distance,
                                    bool surely_stop) {
  if (!stop.is_object())
    return std::nullopt;
  auto id = string_at(stop, {"gtfsId"});
  if (!id && !surely_stop)
    return std::nullopt; // a rental vehicle or station, not a stop
  stop_summary out;
  out.id = id.value_or(string_at(stop, {"id"}).value_or(""));
  out.name = string_at(stop, {"name"}).value_or("");
  out.position = {number_at(stop, "lat"), number_at(stop, "lon")};
  out.distance = static_cast<int32_t>(std::max<int64_t>(0, distance.value_or(0)));
  auto add_mode = [&](const std::string& text) {
    auto mode = parse_transit_mode(text).value_or(transit_mode::other);
    if (std::find(out.modes.begin(), out.modes.end(), mode) == out.modes.end())
      out.modes.push_back(mode);
  };
  if (auto mode = string_at(stop, {"vehicleMode"}))
    add_mode(*mode);
  if (const auto* routes = find_path(stop, {"routes"});
      routes != nullptr && routes->is_array())
    for (const auto& route : routes->get_array())
      if (auto mode = string_at(route, {"mode"}))
        add_mode(*mode);
  if (out.modes.empty())
    out.modes.push_back(transit_mode::other);
  return out;
}

} // namespace

std::string make_nearby_stops_body(const nearby_stops_query& query) {
  json::object variables;
  variables["lat"] = query.center.lat;
  variables["lon"] = query.center.lon;
  variables["maxDistance"] = query.radius;
  variables["maxResults"] = query.max_results;
  variables["language"] = query.language;
  if (query.modes.empty()) {
    variables["modes"] = nullptr;
  } else {
    json::array modes;
    for (auto mode : query.modes)
      modes.emplace_back(to_string(mode));
    variables["modes"] = std::move(modes);
  }
  return graphql_body(nearby_stops_operation, nearby_stops_query_text, std::move(variables));
}

outcome<nearby_stops> parse_nearby_stops(std::string_view body,
                                         int64_t fetched_ms) {
  auto parsed_body = parse_graphql(body);
  if (!parsed_body)
    return parsed_body.error();
  const auto& root = *parsed_body;
  nearby_stops result;
  result.fetched_ms = fetched_ms;
  const json::value* edges = find_path(root, {"data", "nearest", "edges"});
  bool by_radius = false;
  if (edges == nullptr) {
    edges = find_path(root, {"data", "stopsByRadius", "edges"});
    by_radius = true;
  }
  if (edges == nullptr) {
    const auto* nearest = find_path(root, {"data", "nearest"});
    if (nearest != nullptr && nearest->is_null())
      return result; // nothing near
    return make_failure(ec::upstream_error,
                        "upstream answer has no data.nearest.edges");
  }
  if (edges->is_null())
    return result;
  if (!edges->is_array())
    return make_failure(ec::upstream_error, "upstream edges is not a list");
  for (const auto& edge : edges->get_array()) {
    const auto* node = find_path(edge, {"node"});
    if (node == nullptr || !node->is_object())
      continue;
    const auto* place = find_path(*node, {by_radius ? "stop" : "place"});
    if (place == nullptr)
      continue;
    if (auto stop = to_stop(*place, int_at(*node, {"distance"}), by_radius))
      result.stops.push_back(std::move(*stop));
  }
  return result;
}

namespace {

constexpr std::string_view plan_query_text = R"(query PlanTrip(
  $origin: PlanLabeledLocationInput!, $destination: PlanLabeledLocationInput!,
  $dateTime: PlanDateTimeInput, $first: Int, $locale: Locale,
  $walkReluctance: Reluctance, $transferCost: Cost, $maximumTransfers: Int,
  $waitReluctance: Reluctance, $wheelchair: Boolean) {
  planConnection(origin: $origin, destination: $destination,
    dateTime: $dateTime, first: $first, locale: $locale,
    preferences: {
      street: { walk: { reluctance: $walkReluctance } }
      transit: {
        transfer: { cost: $transferCost, maximumTransfers: $maximumTransfers }
        board: { waitReluctance: $waitReluctance }
      }
      accessibility: { wheelchair: { enabled: $wheelchair } }
    }) {
    routingErrors { code }
    edges {
      node {
        start
        end
        numberOfTransfers
        walkDistance
        legs {
          mode
          transitLeg
          distance
          realtimeState
          headsign
          accessibilityScore
          start { scheduledTime estimated { time delay } }
          end { scheduledTime estimated { time delay } }
          from { name lat lon stop { gtfsId } }
          to { name lat lon stop { gtfsId } }
          route { shortName color textColor }
          legGeometry { points }
        }
      }
    }
  }
})";

json::object labeled_location(const coordinate& c) {
  return json::object{
    {"location",
     json::object{{"coordinate", json::object{{"latitude", c.lat},
                                              {"longitude", c.lon}}}}}};
}

std::optional<int64_t> time_at(const json::value& root,
                               std::initializer_list<std::string_view> path) {
  auto text = string_at(root, path);
  if (!text)
    return std::nullopt;
  return parse_iso8601(*text);
}

place_ref read_place(const json::value* place) {
  place_ref out;
  if (place == nullptr || !place->is_object())
    return out;
  out.name = string_at(*place, {"name"}).value_or("");
  out.stop_id = string_at(*place, {"stop", "gtfsId"});
  out.position = {number_at(*place, "lat"), number_at(*place, "lon")};
  return out;
}

outcome<trip_leg> read_leg(const json::value& leg) {
  trip_leg out;
  auto mode = string_at(leg, {"mode"}).value_or("OTHER");
  out.mode = parse_transit_mode(mode).value_or(transit_mode::other);
  const auto* transit = find_path(leg, {"transitLeg"});
  out.transit = transit != nullptr && transit->is_bool()
                  ? transit->get_bool()
                  : out.mode != transit_mode::walk
                      && out.mode != transit_mode::bicycle
                      && out.mode != transit_mode::car;
  // Leg.start/end, or the same times on from.departure / to.arrival (both
  // are LegTime in OTP's schema; queries pick either).
  auto start = time_at(leg, {"start", "scheduledTime"});
  auto end = time_at(leg, {"end", "scheduledTime"});
  bool on_places = !start && !end;
  if (on_places) {
    start = time_at(leg, {"from", "departure", "scheduledTime"});
    end = time_at(leg, {"to", "arrival", "scheduledTime"});
  }
  if (!start || !end)
    return make_failure(ec::upstream_error,
                        "upstream leg lacks start/end scheduledTime");
  out.scheduled_start = *start;
  out.scheduled_end = *end;
  out.realtime_start = on_places
                         ? time_at(leg, {"from", "departure", "estimated",
                                         "time"})
                         : time_at(leg, {"start", "estimated", "time"});
  out.realtime_end = on_places
                       ? time_at(leg, {"to", "arrival", "estimated", "time"})
                       : time_at(leg, {"end", "estimated", "time"});
  auto state = string_at(leg, {"realtimeState"}).value_or("");
  out.cancelled = state == "CANCELED" || state == "CANCELLED";
  out.line = string_at(leg, {"route", "shortName"});
  for (auto [field, into] : {std::pair{"color", &out.color},
                             std::pair{"textColor", &out.text_color}})
    if (auto text = colour_hex(
          string_at(leg, {"route", field}).value_or(""));
        !text.empty())
      *into = std::move(text);
  // The way ridden, for the trip map: OTP's encoded polyline, bounded as
  // a feed's (a malformed one is left out).
  if (auto points = string_at(leg, {"legGeometry", "points"});
      points && out.transit)
    if (auto path = decode_polyline(*points); path && path->size() >= 2)
      out.path = simplify_path(std::move(*path), 3.0, max_leg_points);
  out.headsign = string_at(leg, {"headsign"});
  out.from = read_place(find_path(leg, {"from"}));
  out.to = read_place(find_path(leg, {"to"}));
  out.distance = number_at(leg, "distance");
  if (const auto* score = find_path(leg, {"accessibilityScore"});
      score != nullptr && score->is_number())
    out.accessibility_score = score->to_number<double>();
  return out;
}

} // namespace

std::string make_plan_body(const trip_plan_query& query) {
  json::object variables;
  variables["origin"] = labeled_location(query.from);
  variables["destination"] = labeled_location(query.to);
  // OTP wants an offset date-time; UTC is unambiguous.
  variables["dateTime"] = json::object{
    {query.arrive_by ? "latestArrival" : "earliestDeparture",
     format_utc(query.time)}};
  variables["first"] = query.first;
  variables["locale"] = query.language;
  variables["walkReluctance"] = query.walk_reluctance;
  variables["transferCost"] = query.transfer_cost;
  variables["maximumTransfers"] = query.max_transfers;
  variables["waitReluctance"] = query.wait_reluctance;
  variables["wheelchair"] = query.wheelchair;
  return graphql_body(plan_operation, plan_query_text, std::move(variables));
}

outcome<trip_plans> parse_plan(std::string_view body, int64_t fetched_ms) {
  auto parsed_body = parse_graphql(body);
  if (!parsed_body)
    return parsed_body.error();
  const auto& root = *parsed_body;
  const auto* connection = find_path(root, {"data", "planConnection"});
  if (connection == nullptr)
    return make_failure(ec::upstream_error,
                        "upstream answer has no data.planConnection");
  trip_plans result;
  result.fetched_ms = fetched_ms;
  if (connection->is_null())
    return result;
  const auto* edges = find_path(*connection, {"edges"});
  if (edges == nullptr || edges->is_null())
    return result;
  if (!edges->is_array())
    return make_failure(ec::upstream_error, "upstream edges is not a list");
  for (const auto& edge : edges->get_array()) {
    const auto* node = find_path(edge, {"node"});
    if (node == nullptr || !node->is_object())
      continue;
    itinerary it;
    it.transfers = static_cast<int32_t>(
      int_at(*node, {"numberOfTransfers"}).value_or(0));
    it.walk_distance = number_at(*node, "walkDistance");
    const auto* legs = find_path(*node, {"legs"});
    if (legs == nullptr || !legs->is_array())
      return make_failure(ec::upstream_error, "upstream itinerary has no legs");
    for (const auto& leg : legs->get_array()) {
      auto parsed = read_leg(leg);
      if (!parsed)
        return parsed.error();
      it.legs.push_back(std::move(*parsed));
    }
    result.itineraries.push_back(std::move(it));
  }
  return result;
}

namespace {

constexpr std::string_view alert_fields = R"(
fragment AlertFields on Alert {
  id
  alertHeaderText
  alertDescriptionText
  alertUrl
  alertCause
  alertEffect
  alertSeverityLevel
  effectiveStartDate
  effectiveEndDate
  alertHeaderTextTranslations { language text }
  alertDescriptionTextTranslations { language text }
  alertUrlTranslations { language text }
  entities {
    __typename
    ... on Stop { gtfsId name }
    ... on Route { gtfsId shortName longName mode }
    ... on Trip { gtfsId tripHeadsign route { shortName } }
    ... on Agency { gtfsId name }
    ... on RouteType { routeType }
    ... on StopOnRoute { stop { gtfsId name } }
    ... on StopOnTrip { stop { gtfsId name } }
  }
})";

constexpr std::string_view stop_alerts_query = R"(query StopAlerts($id: String!) {
  stop(id: $id) {
    gtfsId
    alerts(types: [STOP, STOP_ON_ROUTES, STOP_ON_TRIPS, ROUTES, TRIPS,
                   AGENCIES_OF_ROUTES]) { ...AlertFields }
  }
})";

constexpr std::string_view route_alerts_query = R"(query RouteAlerts($id: String!) {
  route(id: $id) {
    gtfsId
    alerts(types: [ROUTE, TRIPS, PATTERNS, AGENCY, ROUTE_TYPE]) {
      ...AlertFields
    }
  }
})";

constexpr std::string_view trip_alerts_query = R"(query TripAlerts($id: String!) {
  trip(id: $id) {
    gtfsId
    alerts(types: [TRIP, ROUTE, PATTERN, AGENCY, ROUTE_TYPE]) {
      ...AlertFields
    }
  }
})";

constexpr std::string_view feed_alerts_query = R"(query FeedAlerts($feeds: [String!]) {
  alerts(feeds: $feeds) { ...AlertFields }
})";

/// "TECHNICAL_PROBLEM" → "technical-problem" (GTFS-realtime's names, as
/// the feeds' alerts say them).
std::string wire_name(std::string_view upstream, std::string_view absent) {
  return upstream.empty() ? std::string{absent} : alert_term(upstream);
}

/// The translation in `language`, else English, else `plain` (the text in
/// the request's Accept-Language, or the untranslated one); and its
/// language ("" when not known).
std::pair<std::string, std::string>
translated(const json::value& alert, std::string_view translations,
           std::string_view plain, std::string_view language) {
  const auto* list = find_path(alert, {translations});
  if (list != nullptr && list->is_array()) {
    for (std::string_view wanted : {language, std::string_view{"en"}})
      for (const auto& t : list->get_array()) {
        auto lang = string_at(t, {"language"});
        auto text = string_at(t, {"text"});
        if (lang && text && !text->empty()
            && std::string_view{*lang}.substr(0, lang->find('-')) == wanted)
          return {sanitize_upstream_text(*text), *lang};
      }
  }
  auto text = string_at(alert, {plain});
  return {text ? sanitize_upstream_text(*text) : std::string{}, {}};
}

} // namespace

std::string make_alerts_body(const alerts_query& query,
                             std::string_view feed) {
  json::object variables;
  if (!query.stop_id.empty()) {
    variables["id"] = query.stop_id;
    return graphql_body(stop_alerts_operation,
                        std::string{stop_alerts_query} + std::string{alert_fields},
                        std::move(variables));
  }
  if (!query.route_id.empty()) {
    variables["id"] = query.route_id;
    return graphql_body(route_alerts_operation,
                        std::string{route_alerts_query}
                          + std::string{alert_fields},
                        std::move(variables));
  }
  if (!query.trip_id.empty()) {
    variables["id"] = query.trip_id;
    return graphql_body(trip_alerts_operation,
                        std::string{trip_alerts_query} + std::string{alert_fields},
                        std::move(variables));
  }
  variables["feeds"] = json::array{json::string{feed}};
  return graphql_body(feed_alerts_operation,
                      std::string{feed_alerts_query} + std::string{alert_fields},
                      std::move(variables));
}

outcome<alert_list> parse_alerts(std::string_view body,
                                 const alerts_query& query,
                                 int64_t fetched_ms) {
  auto parsed_body = parse_graphql(body);
  if (!parsed_body)
    return parsed_body.error();
  const auto& root = *parsed_body;
  alert_list result;
  result.fetched_ms = fetched_ms;
  result.timezone = std::string{zone};
  const json::value* alerts = nullptr;
  if (!query.stop_id.empty() || !query.route_id.empty()
      || !query.trip_id.empty()) {
    const char* kind = !query.stop_id.empty()    ? "stop"
                       : !query.route_id.empty() ? "route"
                                                 : "trip";
    const auto* holder = find_path(root, {"data", kind});
    if (holder == nullptr)
      return make_failure(ec::upstream_error,
                          std::string{"upstream answer has no data."} + kind);
    if (holder->is_null()) {
      const auto& id = !query.stop_id.empty()    ? query.stop_id
                       : !query.route_id.empty() ? query.route_id
                                                 : query.trip_id;
      return make_failure(ec::validation_error,
                          std::string{kind} + " \"" + id + "\" is unknown to "
                            "Digitransit",
                          !query.stop_id.empty()    ? "find stop ids with find_stops"
                          : !query.route_id.empty() ? "route ids look like HSL:1009"
                                                    : "trip ids look like "
                                                      "HSL:1009_20251124_Ma_1_0700");
    }
    alerts = find_path(*holder, {"alerts"});
  } else {
    alerts = find_path(root, {"data", "alerts"});
  }
  if (alerts == nullptr || alerts->is_null())
    return result;
  if (!alerts->is_array())
    return make_failure(ec::upstream_error, "upstream alerts is not a list");
  constexpr int64_t sane = int64_t{1} << 40;
  for (const auto& a : alerts->get_array()) {
    if (!a.is_object())
      continue;
    service_alert out;
    out.id = string_at(a, {"id"}).value_or("");
    auto start = int_at(a, {"effectiveStartDate"});
    auto end = int_at(a, {"effectiveEndDate"});
    if (start && (*start < 0 || *start > sane))
      start.reset();
    if (end && (*end < 0 || *end > sane))
      end.reset();
    // OTP lists what is in force now or later: the time asked decides.
    if ((start && query.time < *start) || (end && query.time >= *end))
      continue;
    if (start || end)
      out.periods.push_back({start, end});
    auto [header, language] = translated(a, "alertHeaderTextTranslations",
                                         "alertHeaderText", query.language);
    out.header = std::move(header);
    out.language = std::move(language);
    out.description = translated(a, "alertDescriptionTextTranslations",
                                 "alertDescriptionText", query.language)
                        .first;
    out.url = translated(a, "alertUrlTranslations", "alertUrl", query.language)
                .first;
    out.cause = wire_name(string_at(a, {"alertCause"}).value_or(""),
                          "unknown-cause");
    out.effect = wire_name(string_at(a, {"alertEffect"}).value_or(""),
                           "unknown-effect");
    out.severity = wire_name(string_at(a, {"alertSeverityLevel"}).value_or(""),
                             "unknown-severity");
    if (const auto* entities = find_path(a, {"entities"});
        entities != nullptr && entities->is_array())
      for (const auto& e : entities->get_array()) {
        auto type = string_at(e, {"__typename"}).value_or("");
        alert_subject subject;
        if (type == "Stop") {
          subject = {"stop", string_at(e, {"gtfsId"}).value_or(""),
                     string_at(e, {"name"}).value_or(""), {}};
        } else if (type == "StopOnRoute" || type == "StopOnTrip") {
          subject = {"stop", string_at(e, {"stop", "gtfsId"}).value_or(""),
                     string_at(e, {"stop", "name"}).value_or(""), {}};
        } else if (type == "Route") {
          auto name = string_at(e, {"shortName"});
          if (!name || name->empty())
            name = string_at(e, {"longName"});
          subject = {"route", string_at(e, {"gtfsId"}).value_or(""),
                     name.value_or(""), string_at(e, {"mode"}).value_or("")};
        } else if (type == "Trip") {
          auto line = string_at(e, {"route", "shortName"}).value_or("");
          auto headsign = string_at(e, {"tripHeadsign"}).value_or("");
          subject = {"trip", string_at(e, {"gtfsId"}).value_or(""),
                     line.empty() || headsign.empty()
                       ? line + headsign
                       : line + " to " + headsign,
                     {}};
        } else if (type == "Agency") {
          subject = {"agency", string_at(e, {"gtfsId"}).value_or(""),
                     string_at(e, {"name"}).value_or(""), {}};
        } else if (type == "RouteType") {
          auto route_type = int_at(e, {"routeType"});
          subject = {"route-type",
                     route_type ? std::to_string(*route_type) : std::string{},
                     {}, {}};
        } else {
          continue;
        }
        subject.name = sanitize_upstream_text(subject.name);
        out.subjects.push_back(std::move(subject));
      }
    result.alerts.push_back(std::move(out));
  }
  return result;
}

} // namespace transitd::digitransit

namespace transitd::digitransit {

namespace {

constexpr std::string_view stop_place_query = R"(query StopPlace(
  $id: String!, $language: String) {
  stop(id: $id) { gtfsId name(language: $language) lat lon timezone }
  station(id: $id) { gtfsId name(language: $language) lat lon }
})";

} // namespace

std::string make_stop_place_body(const stop_lookup& query) {
  json::object variables;
  variables["id"] = query.stop_id;
  variables["language"] = query.language;
  return graphql_body("StopPlace", stop_place_query, std::move(variables));
}

outcome<stop_place> parse_stop_place(std::string_view body,
                                     std::string_view requested_stop) {
  auto parsed_body = parse_graphql(body);
  if (!parsed_body)
    return parsed_body.error();
  const auto& root = *parsed_body;
  const auto* found = find_path(root, {"data", "stop"});
  if (found == nullptr || found->is_null())
    found = find_path(root, {"data", "station"});
  if (found == nullptr || !found->is_object())
    return make_failure(ec::validation_error,
                        "unknown stop id \"" + std::string{requested_stop}
                          + "\": the upstream has no such stop or station",
                        "find stop ids with find_stops, e.g. "
                        "\"HSL:1040129\"");
  stop_place out;
  out.stop_id = string_at(*found, {"gtfsId"})
                  .value_or(std::string{requested_stop});
  out.name = string_at(*found, {"name"}).value_or(out.stop_id);
  out.position = {number_at(*found, "lat"), number_at(*found, "lon")};
  out.timezone = string_at(*found, {"timezone"}).value_or(std::string{zone});
  if (!std::isfinite(out.position.lat) || !std::isfinite(out.position.lon)
      || (out.position.lat == 0 && out.position.lon == 0))
    return make_failure(ec::upstream_error,
                        "the upstream gave stop \"" + out.stop_id
                          + "\" no position");
  return out;
}

} // namespace transitd::digitransit
