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

std::string tool_limit_key(std::type_index tool,
                           const tool_settings& settings) {
  return tool_key(settings.label.empty() ? std::string{tool.name()}
                                         : settings.label);
}

std::vector<rate_limit> tool_limits(const tool_settings_map& tools) {
  std::vector<rate_limit> limits;
  for (const auto& [tool, settings] : tools)
    if (settings.tps > 0)
      limits.push_back({tool_limit_key(tool, settings), settings.tps,
                        settings.tps});
  return limits;
}

namespace {

using router_pointer
  = tool_router_actor::stateful_pointer<tool_router_state>;

/// Stamps the call, then delegates it, after a permit when the tool is
/// limited. A refused permit is rate-limited with retryAfter in seconds.
template <class Reply, class Target, class Request>
caf::result<Reply> route(router_pointer self, const Target& target,
                         Request& request) {
  auto& t = self->state.targets;
  auto it = t.tools.find(tool_of<Request>());
  const tool_settings* settings = it != t.tools.end() ? &it->second
                                                      : nullptr;
  auto timeout = settings != nullptr && settings->timeout_ms > 0
                   ? settings->timeout_ms
                   : t.default_timeout_ms;
  stamp(request.context, timeout);
  if (settings == nullptr || settings->tps <= 0)
    return self->delegate(target, std::move(request));
  auto rp = self->template make_response_promise<Reply>();
  auto name = settings->label.empty() ? std::string{"this tool"}
                                      : settings->label;
  self->request(t.limiter, std::chrono::seconds{5},
                acquire_permit{tool_limit_key(it->first, *settings)})
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
  auto& t = self->state.targets;
  return {
    [self, &t](get_departures_request& r) {
      return route<get_departures_reply>(self, t.departures_board, r);
    },
    [self, &t](find_stops_request& r) {
      return route<find_stops_reply>(self, t.stop_finder, r);
    },
    [self, &t](geocode_request& r) {
      return route<geocode_reply>(self, t.address_geocoder, r);
    },
    [self, &t](plan_trip_request& r) {
      return route<plan_trip_reply>(self, t.trip_planner, r);
    },
    [self, &t](station_toilets_request& r) {
      return route<station_toilets_reply>(self, t.station_toilets, r);
    },
    [self, &t](journey_plan_request& r) {
      return route<journey_plan_reply>(self, t.london_journeys, r);
    },
    [self, &t](save_variable_request& r) {
      return route<save_variable_reply>(self, t.variable_store, r);
    },
    [self, &t](get_variables_request& r) {
      return route<get_variables_reply>(self, t.variable_store, r);
    },
    [self, &t](delete_variable_request& r) {
      return route<delete_variable_reply>(self, t.variable_store, r);
    },
    [self](const cancel_call& request) {
      for (const auto& listener : self->state.targets.cancel_listeners)
        self->send(listener, request);
    },
  };
}

} // namespace transitd
