#include "providers/digitransit_routing_actor.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "providers/digitransit_routing.hpp"
#include "providers/upstream_call.hpp"
#include "providers/upstream_http.hpp"

namespace transitd {

namespace {

using routing_pointer
  = digitransit_routing_actor::stateful_pointer<digitransit_routing_state>;

/// POSTs one GraphQL body; `parse(body, received_ms)` reads the answer.
template <class Result, class Parse>
caf::typed_response_promise<Result>
post_graphql(routing_pointer self, const call_context& context,
             std::string body, Parse parse) {
  auto& st = self->state;
  if (st.origin.empty()) {
    auto rp = self->make_response_promise<Result>();
    rp.deliver(make_error(ec::upstream_error,
                          "the Digitransit routing URL is not usable"));
    return rp;
  }
  http_call call;
  call.context = context;
  call.method = "POST";
  call.origin = st.origin;
  call.target = st.path;
  call.content_type = "application/json";
  call.body = std::move(body);
  call.timeout_ms = st.options.timeout_ms;
  if (!st.options.api_key.empty())
    call.headers.emplace_back("digitransit-subscription-key",
                              st.options.api_key);
  return call_upstream<Result>(self, st.gate, std::move(call),
                               "Digitransit routing", parse);
}

} // namespace

digitransit_routing_actor::behavior_type digitransit_routing(
  digitransit_routing_actor::stateful_pointer<digitransit_routing_state> self,
  digitransit_routing_options options, upstream_gate_actor gate) {
  auto& st = self->state;
  if (auto url = split_url(options.url)) {
    st.origin = url->origin;
    st.path = url->path;
  } else {
    spdlog::error("digitransit routing: {}", url.error().message);
  }
  st.options = std::move(options);
  st.gate = std::move(gate);
  return {
    [self](const stop_departures_query& query) {
      auto stop_id = query.stop_id;
      return post_graphql<stop_departures>(
        self, query.context, digitransit::make_departures_body(query),
        [stop_id](std::string_view body, int64_t received_ms) {
          return digitransit::parse_departures(body, stop_id, received_ms);
        });
    },
    [self](const nearby_stops_query& query) {
      return post_graphql<nearby_stops>(
        self, query.context, digitransit::make_nearby_stops_body(query),
        digitransit::parse_nearby_stops);
    },
    [self](const trip_plan_query& query) {
      return post_graphql<trip_plans>(self, query.context,
                                      digitransit::make_plan_body(query),
                                      digitransit::parse_plan);
    },
    [self](const cancel_call& cancel) {
      // The gate aborts the attempt; the query then ends as cancelled.
      self->send(self->state.gate, cancel);
    },
  };
}

} // namespace transitd
