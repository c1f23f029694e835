#include "transitd/actors/realtime_tools.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/actors/realtime_rules.hpp"

namespace transitd {

namespace {

failure no_realtime_provider() {
  return make_failure(ec::data_not_available,
                      "no realtime is configured here",
                      "serve a region with a GTFS feed (engine_config::feeds) "
                      "and its GTFS-realtime (gtfs_feed_options::realtime)");
}

} // namespace

vehicle_tracker_actor::behavior_type vehicle_tracker(
  vehicle_tracker_actor::stateful_pointer<vehicle_tracker_state> self,
  realtime_info_actor realtime, tool_options options) {
  self->state.realtime = std::move(realtime);
  self->state.options = std::move(options);
  return {
    [self](vehicle_positions_request& request)
      -> caf::result<vehicle_positions_reply> {
      if (auto invalid = validate(request))
        return rejected(vehicle_tracker_state::name, request.context,
                        *invalid);
      if (!self->state.realtime)
        return to_error(no_realtime_provider());
      auto rp = self->make_response_promise<vehicle_positions_reply>();
      auto now = service_now_seconds(request.context, self->state.options);
      auto query = make_query(request);
      auto context = request.context;
      ask_provider<vehicle_list>(
        self, rp, self->state.realtime, context, self->state.options,
        std::move(query),
        [request = std::move(request), now](const vehicle_list& answer) {
          return build_vehicle_list(request, answer, now);
        });
      return rp;
    },
  };
}

alert_board_actor::behavior_type
alert_board(alert_board_actor::stateful_pointer<alert_board_state> self,
            realtime_info_actor realtime, tool_options options) {
  self->state.realtime = std::move(realtime);
  self->state.options = std::move(options);
  return {
    [self](service_alerts_request& request)
      -> caf::result<service_alerts_reply> {
      auto now = service_now_seconds(request.context, self->state.options);
      auto query = make_query(request, now);
      if (!query)
        return rejected(alert_board_state::name, request.context,
                        query.error());
      if (!self->state.realtime)
        return to_error(no_realtime_provider());
      auto rp = self->make_response_promise<service_alerts_reply>();
      auto at = query->time;
      auto context = request.context;
      ask_provider<alert_list>(
        self, rp, self->state.realtime, context, self->state.options,
        std::move(*query),
        [request = std::move(request), at](const alert_list& answer) {
          return build_alert_list(request, answer, at);
        });
      return rp;
    },
  };
}

} // namespace transitd
