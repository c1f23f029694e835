#include "actors/tool_router.hpp"

#include <algorithm>
#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "util/ids.hpp"
#include "actors/rate_limiter.hpp"
#include "messages/time.hpp"

namespace transitd {

void stamp(call_context& context, int32_t timeout_ms) {
  if (context.correlation_id.empty())
    context.correlation_id = make_uuid_v4();
  if (context.received_ms == 0)
    context.received_ms = now_ms();
  if (context.deadline_ms == 0)
    context.deadline_ms = context.received_ms + timeout_ms;
}

namespace {

using router_pointer
  = tool_router_actor::stateful_pointer<tool_router_state>;

/// Stamps the call, then delegates it, after a permit when the tool is
/// limited. A refused permit is rate-limited with retryAfter in seconds.
template <class Reply, class Target, class Request>
caf::result<Reply> route(router_pointer self, const Target& target,
                         Request& request, const char* tool) {
  auto& t = self->state.targets;
  auto timeout = t.default_timeout_ms;
  if (auto it = t.timeouts_ms.find(tool); it != t.timeouts_ms.end())
    timeout = it->second;
  stamp(request.context, timeout);
  if (std::find(t.limited_tools.begin(), t.limited_tools.end(), tool)
      == t.limited_tools.end())
    return self->delegate(target, std::move(request));
  auto rp = self->template make_response_promise<Reply>();
  std::string name = tool;
  self->request(t.limiter, std::chrono::seconds{5}, acquire_permit{tool_key(name)})
    .then(
      [rp, target, request, name](permit p) mutable {
        if (p.granted) {
          rp.delegate(target, std::move(request));
          return;
        }
        auto seconds = static_cast<int32_t>(
          std::max<int64_t>(1, (p.retry_after_ms + 999) / 1000));
        rp.deliver(make_error(ec::rate_limited,
                              name + " is limited to its calls per second; "
                                     "try again shortly",
                              "wait retryAfter seconds", seconds));
      },
      [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

} // namespace

tool_router_actor::behavior_type
tool_router(tool_router_actor::stateful_pointer<tool_router_state> self,
            tool_router_targets targets) {
  self->state.targets = std::move(targets);
  namespace n = tool_names;
  return {
    [self](get_departures_request& request) {
      return route<get_departures_reply>(
        self, self->state.targets.departures_board, request,
        n::get_departures);
    },
    [self](find_stops_request& request) {
      return route<find_stops_reply>(self, self->state.targets.stop_finder,
                                     request, n::find_stops);
    },
    [self](geocode_request& request) {
      return route<geocode_reply>(self, self->state.targets.address_geocoder,
                                  request, n::geocode_address);
    },
    [self](plan_trip_request& request) {
      return route<plan_trip_reply>(self, self->state.targets.trip_planner,
                                    request, n::plan_trip);
    },
    [self](station_toilets_request& request) {
      return route<station_toilets_reply>(
        self, self->state.targets.station_toilets, request,
        n::station_toilets);
    },
    [self](journey_plan_request& request) {
      return route<journey_plan_reply>(
        self, self->state.targets.london_journeys, request, n::plan_journey);
    },
    [self](save_variable_request& request) {
      return route<save_variable_reply>(
        self, self->state.targets.variable_store, request,
        n::save_user_variable);
    },
    [self](get_variables_request& request) {
      return route<get_variables_reply>(
        self, self->state.targets.variable_store, request,
        n::get_user_variables);
    },
    [self](delete_variable_request& request) {
      return route<delete_variable_reply>(
        self, self->state.targets.variable_store, request,
        n::delete_user_variable);
    },
    [self](const cancel_call& request) {
      for (const auto& listener : self->state.targets.cancel_listeners)
        self->send(listener, request);
    },
  };
}

} // namespace transitd
