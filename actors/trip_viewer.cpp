#include "transitd/actors/trip_viewer.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/actors/trip_view_rules.hpp"

namespace transitd {

trip_viewer_actor::behavior_type
trip_viewer(trip_viewer_actor::stateful_pointer<trip_viewer_state> self,
            network_info_actor network, tool_options options) {
  self->state.network = std::move(network);
  self->state.options = std::move(options);
  return {
    [self](get_trip_request& request) -> caf::result<get_trip_reply> {
      if (auto invalid = validate(request))
        return rejected(trip_viewer_state::name, request.context, *invalid);
      if (!self->state.network)
        return to_error(make_failure(
          ec::data_not_available, "no provider here answers trips",
          "serve a region with a GTFS feed (engine_config::feeds)"));
      auto rp = self->make_response_promise<get_trip_reply>();
      auto now = service_now_seconds(request.context, self->state.options);
      auto query = make_query(request, now);
      auto context = request.context;
      ask_provider<trip_details>(
        self, rp, self->state.network, context, self->state.options,
        std::move(query),
        [request = std::move(request), now](trip_details& answer) {
          return build_trip_reply(request, std::move(answer), now);
        });
      return rp;
    },
  };
}

} // namespace transitd
