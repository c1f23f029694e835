#include "transitd/actors/coverage_board.hpp"

#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/messages/time.hpp"

namespace transitd {

std::vector<std::string> tools_of(const std::string& kind, bool realtime,
                                  bool toilets) {
  if (kind == "gtfs") {
    std::vector<std::string> out{"get_departures", "find_stops",
                                 "geocode_address", "plan_trip", "get_trip",
                                 "reachable", "get_route", "line_status"};
    if (realtime) {
      out.emplace_back("vehicle_positions");
      out.emplace_back("service_alerts");
    }
    return out;
  }
  if (kind == "digitransit")
    return {"get_departures", "find_stops", "geocode_address", "plan_trip",
            "get_trip",       "get_route",  "line_status",     "service_alerts"};
  if (kind == "tfl") {
    std::vector<std::string> out{"get_departures", "get_route",
                                 "line_status", "planJourney"};
    if (toilets)
      out.emplace_back("stationToilets");
    return out;
  }
  return {};
}

transit_coverage_reply
build_coverage_reply(const transit_coverage_request& request,
                     std::vector<provider_coverage> feeds,
                     const std::vector<provider_coverage>& upstreams,
                     int64_t now_seconds) {
  transit_coverage_reply reply;
  for (auto& feed : feeds) {
    feed.tools = tools_of("gtfs", !feed.realtime.empty());
    reply.providers.push_back(std::move(feed));
  }
  for (const auto& upstream : upstreams)
    reply.providers.push_back(upstream);
  reply.as_of = format_utc(now_seconds);
  reply.correlation_id = request.context.correlation_id;
  return reply;
}

namespace {

/// One call's fan-out to the feeds: every description, in order.
struct coverage_call {
  caf::typed_response_promise<transit_coverage_reply> rp;
  transit_coverage_request request;
  std::vector<provider_coverage> feeds;
  std::size_t pending = 0;
  int64_t now = 0;
};

} // namespace

coverage_board_actor::behavior_type coverage_board(
  coverage_board_actor::stateful_pointer<coverage_board_state> self,
  std::vector<feed_actor> feeds, std::vector<provider_coverage> upstreams,
  tool_options options) {
  self->state.feeds = std::move(feeds);
  self->state.upstreams = std::move(upstreams);
  self->state.options = std::move(options);
  return {
    [self](transit_coverage_request& request)
      -> caf::result<transit_coverage_reply> {
      auto& st = self->state;
      auto now = service_now_seconds(request.context, st.options);
      auto call = std::make_shared<coverage_call>();
      call->rp = self->make_response_promise<transit_coverage_reply>();
      call->request = std::move(request);
      call->now = now;
      call->feeds.resize(st.feeds.size());
      call->pending = st.feeds.size();
      auto finish = [self, call] {
        deliver_reply(call->rp,
                      build_coverage_reply(call->request,
                                           std::move(call->feeds),
                                           self->state.upstreams, call->now),
                      self->state.options);
      };
      if (call->pending == 0) {
        finish();
        return call->rp;
      }
      for (std::size_t i = 0; i < st.feeds.size(); ++i)
        self
          ->request(st.feeds[i], time_left(call->request.context, st.options),
                    coverage_query{call->request.context, now})
          .then(
            [call, i, finish](provider_coverage& c) {
              call->feeds[i] = std::move(c);
              if (--call->pending == 0)
                finish();
            },
            [call, i, finish](caf::error& err) {
              // A feed that cannot say still shows, with why.
              call->feeds[i].state = "failed";
              call->feeds[i].problem = to_failure(err).message;
              if (--call->pending == 0)
                finish();
            });
      return call->rp;
    },
  };
}

} // namespace transitd
