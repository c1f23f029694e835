#include "transitd/actors/stop_finder.hpp"

#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/actors/stops_rules.hpp"

namespace transitd {

stop_finder_actor::behavior_type
stop_finder(stop_finder_actor::stateful_pointer<stop_finder_state> self,
            timetable_actor timetable, tool_options options) {
  self->state.timetable = std::move(timetable);
  self->state.options = std::move(options);
  return {
    [self](find_stops_request& request) -> caf::result<find_stops_reply> {
      if (auto invalid = validate(request))
        return rejected(stop_finder_state::name, request.context, *invalid);
      auto rp = self->make_response_promise<find_stops_reply>();
      auto query = make_query(request);
      auto context = request.context;
      ask_provider<nearby_stops>(
        self, rp, self->state.timetable, context, self->state.options,
        std::move(query),
        [request = std::move(request)](const nearby_stops& answer) {
          return build_stop_list(request, answer);
        });
      return rp;
    },
  };
}

} // namespace transitd
