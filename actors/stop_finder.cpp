#include "actors/stop_finder.hpp"

#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/stops_rules.hpp"

namespace transitd {

stop_finder_actor::behavior_type
stop_finder(stop_finder_actor::stateful_pointer<stop_finder_state> self,
            timetable_actor timetable, tool_options options) {
  self->state.timetable = std::move(timetable);
  self->state.options = std::move(options);
  return {
    [self](find_stops_request& request) -> caf::result<find_stops_reply> {
      if (auto invalid = validate(request)) {
        spdlog::info("[{}] find_stops rejected: {}",
                     request.context.correlation_id, invalid->message);
        return to_error(*invalid);
      }
      auto rp = self->make_response_promise<find_stops_reply>();
      auto timeout = std::chrono::milliseconds{
        remaining_ms(request.context, self->state.options.timeout_ms)};
      self->request(self->state.timetable, timeout, make_query(request))
        .then(
          [self, rp, request](nearby_stops& answer) mutable {
            auto reply = build_stop_list(request, answer);
            for (const auto& w : self->state.options.standing_warnings)
              reply.warnings.push_back(w);
            rp.deliver(std::move(reply));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
  };
}

} // namespace transitd
