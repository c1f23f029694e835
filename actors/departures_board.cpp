#include "transitd/actors/departures_board.hpp"

#include <algorithm>
#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/actors/departures_rules.hpp"
#include "transitd/messages/time.hpp"

namespace transitd {

namespace {

/// Asks TIMETABLE and finishes the board; shared by stop ids and labels.
void fetch_board(
  departures_board_actor::stateful_pointer<departures_board_state> self,
  caf::typed_response_promise<get_departures_reply> rp,
  get_departures_request request) {
  auto now_seconds = service_now_seconds(request.context,
                                         self->state.options);
  auto query = make_query(request, now_seconds);
  auto context = request.context;
  ask_provider<stop_departures>(
    self, std::move(rp), self->state.timetable, context, self->state.options,
    std::move(query),
    [request = std::move(request), now_seconds](const stop_departures& answer) {
      return build_departures_board(request, answer, now_seconds);
    });
}

} // namespace

departures_board_actor::behavior_type departures_board(
  departures_board_actor::stateful_pointer<departures_board_state> self,
  timetable_actor timetable, variable_store_actor variable_store,
  departures_board_options options) {
  self->state.timetable = std::move(timetable);
  self->state.variable_store = std::move(variable_store);
  self->state.options = std::move(options);
  return {
    [self](get_departures_request& request)
      -> caf::result<get_departures_reply> {
      if (auto invalid = validate(request))
        return rejected(departures_board_state::name, request.context,
                        *invalid);
      auto rp = self->make_response_promise<get_departures_reply>();
      if (request.stop.type == stop_ref::kind::id) {
        fetch_board(self, rp, std::move(request));
        return rp;
      }
      // A label: resolve it through VARIABLE_STORE first (D16).
      self
        ->request(self->state.variable_store,
                  time_left(request.context, self->state.options),
                  resolve_label{request.context, request.stop.value})
        .then(
          [self, rp, request](user_variable& variable) mutable {
            if (variable.type != variable_type::stop) {
              rp.deliver(make_error(
                ec::validation_error,
                "label \"" + request.stop.value
                  + "\" is a location, not a stop",
                "save the stop with type \"stop\", or search stops near a "
                "coordinate for its id"));
              return;
            }
            request.stop = {stop_ref::kind::id, variable.stop_id};
            fetch_board(self, rp, std::move(request));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
  };
}

} // namespace transitd
