#include "transitd/providers/digitransit_routing_actor.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"
#include "transitd/providers/digitransit_network.hpp"
#include "transitd/providers/digitransit_routing.hpp"
#include "transitd/providers/upstream_call.hpp"
#include "transitd/providers/upstream_http.hpp"

namespace transitd {

namespace {

using routing_pointer
  = digitransit_routing_actor::stateful_pointer<digitransit_routing_state>;

/// POSTs one GraphQL body; `parse(body, received_ms)` reads the answer.
template <class Result, class Parse>
caf::typed_response_promise<Result>
post_graphql(routing_pointer self, const call_context& context,
             std::string body, Parse parse) {
  const auto& up = self->state.upstream;
  if (auto err = up.unusable()) {
    auto rp = self->make_response_promise<Result>();
    rp.deliver(std::move(*err));
    return rp;
  }
  auto call = up.make_call(context, "POST", up.path);
  call.content_type = "application/json";
  call.body = std::move(body);
  return call_upstream<Result>(self, up.gate, std::move(call), up.name, parse);
}

} // namespace

digitransit_routing_actor::behavior_type digitransit_routing(
  digitransit_routing_actor::stateful_pointer<digitransit_routing_state> self,
  digitransit_routing_options options, upstream_gate_actor gate) {
  self->state.upstream = upstream_client{
    "Digitransit routing", options.url, std::move(gate), options.timeout_ms,
    "digitransit-subscription-key", options.api_key};
  self->state.demo = options.demo;
  return {
    [self](stop_departures_query query) -> caf::result<stop_departures> {
      if (auto bad = digitransit::answer_language(query.language))
        return to_error(*bad);
      auto stop_id = query.stop_id;
      return post_graphql<stop_departures>(
        self, query.context, digitransit::make_departures_body(query),
        [stop_id, demo = self->state.demo](std::string_view body,
                                           int64_t received_ms) {
          auto board = digitransit::parse_departures(body, stop_id,
                                                     received_ms);
          if (board && demo)
            board->warnings.push_back(
              {"demo-data", "answered from the built-in demo upstream, not "
                            "live data; configure "
                            "engine_config::digitransit_routing.api_key for "
                            "real data"});
          return board;
        });
    },
    [self](nearby_stops_query query) -> caf::result<nearby_stops> {
      if (auto bad = digitransit::answer_language(query.language))
        return to_error(*bad);
      return post_graphql<nearby_stops>(
        self, query.context, digitransit::make_nearby_stops_body(query),
        digitransit::parse_nearby_stops);
    },
    [self](trip_plan_query query) -> caf::result<trip_plans> {
      if (auto bad = digitransit::answer_language(query.language))
        return to_error(*bad);
      if (query.local_time) { // D22: read in the region's zone
        query.time = local_to_epoch(query.time, digitransit::zone);
        query.local_time = false;
      }
      return post_graphql<trip_plans>(
        self, query.context, digitransit::make_plan_body(query),
        [time = query.time](std::string_view body, int64_t received_ms) {
          auto plans = digitransit::parse_plan(body, received_ms);
          if (plans)
            plans->time = time;
          return plans;
        });
    },
    [self](const stop_lookup& query) {
      return post_graphql<stop_place>(
        self, query.context, digitransit::make_stop_place_body(query),
        [id = query.stop_id](std::string_view body, int64_t) {
          return digitransit::parse_stop_place(body, id);
        });
    },
    [self](alerts_query query) -> caf::result<alert_list> {
      if (auto bad = digitransit::answer_language(query.language))
        return to_error(*bad);
      if (query.local_time) {
        query.time = local_to_epoch(query.time, digitransit::zone);
        query.local_time = false;
      }
      // Digitransit here is the HSL region's: the one feed it serves.
      if (!query.feed.empty() && query.feed != "HSL" && query.feed != "hsl") {
        auto rp = self->make_response_promise<alert_list>();
        rp.deliver(to_error(make_failure(
          ec::validation_error,
          "feed \"" + query.feed + "\" is not served here",
          "Digitransit serves the HSL region: give feed HSL, a stop or "
          "route id, or near")));
        return rp;
      }
      return post_graphql<alert_list>(
        self, query.context, digitransit::make_alerts_body(query, "HSL"),
        [query](std::string_view body, int64_t received_ms) {
          return digitransit::parse_alerts(body, query, received_ms);
        });
    },
    [](const vehicles_query&) -> caf::result<vehicle_list> {
      return to_error(make_failure(
        ec::data_not_available,
        "Digitransit's routing API has no vehicle positions",
        "serve the region from its GTFS (engine_config::feeds) and HSL's "
        "vehicle positions (gtfs_feed_options::realtime: "
        "https://realtime.hsl.fi/realtime/vehicle-positions/v2/hsl)"));
    },
    [self](trip_query query) -> caf::result<trip_details> {
      if (auto bad = digitransit::answer_language(query.language))
        return to_error(*bad);
      auto date = digitransit::service_date_of(query);
      return post_graphql<trip_details>(
        self, query.context, digitransit::make_trip_body(query, date),
        [query, date](std::string_view body, int64_t received_ms) {
          return digitransit::parse_trip(body, query, date, received_ms);
        });
    },
    [](const reach_query&) -> caf::result<reach_result> {
      return to_error(make_failure(
        ec::data_not_available, "Digitransit does not answer reachable",
        "serve the region from its GTFS (engine_config::feeds): reachable "
        "works on the feeds served here"));
    },
    [self](const route_query& query) -> caf::result<route_details> {
      if (query.route.empty() && query.stop.empty())
        return to_error(make_failure(
          ec::validation_error, "Digitransit needs a line or a stop",
          "give route (\"550\", \"HSL:2550\") or stop (\"HSL:1040129\")"));
      return post_graphql<route_details>(
        self, query.context, digitransit::make_routes_body(query),
        [query](std::string_view body, int64_t received_ms) {
          return digitransit::parse_routes(body, query, received_ms);
        });
    },
    [self](line_status_query query) -> caf::result<line_status_list> {
      if (auto bad = digitransit::answer_language(query.language))
        return to_error(*bad);
      // The alerts in force: each line an alert names, with its status.
      alerts_query alerts;
      alerts.context = query.context;
      alerts.time = query.time;
      alerts.language = query.language;
      return post_graphql<line_status_list>(
        self, query.context, digitransit::make_alerts_body(alerts, "HSL"),
        [alerts, route = query.route](std::string_view body,
                                      int64_t received_ms)
          -> outcome<line_status_list> {
          auto list = digitransit::parse_alerts(body, alerts, received_ms);
          if (!list)
            return list.error();
          line_status_list out;
          out.realtime = true;
          out.fetched_ms = received_ms;
          out.lines = digitransit::lines_of_alerts(*list, route);
          if (out.lines.empty() && !route.empty()) {
            // No alert names it: it runs as planned.
            line_state line;
            line.route_id = route;
            line.line = route;
            out.lines.push_back(std::move(line));
          }
          return out;
        });
    },
    [self](const cancel_call& cancel) {
      // The gate aborts the attempt; the query then ends as cancelled.
      self->send(self->state.upstream.gate, cancel);
    },
  };
}

} // namespace transitd
