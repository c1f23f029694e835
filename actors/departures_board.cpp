#include "actors/departures_board.hpp"

#include <algorithm>
#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/departures_rules.hpp"
#include "messages/time.hpp"

namespace transitd {

namespace {

/// Asks TIMETABLE and finishes the board; shared by stop ids and labels.
void fetch_board(
  departures_board_actor::stateful_pointer<departures_board_state> self,
  caf::typed_response_promise<get_departures_reply> rp,
  get_departures_request request) {
  auto now_seconds = (request.context.received_ms != 0
                        ? request.context.received_ms
                        : now_ms())
                     / 1000;
  auto query = make_query(request, now_seconds);
  auto timeout = std::chrono::milliseconds{
    remaining_ms(request.context, self->state.options.timeout_ms)};
  self->request(self->state.timetable, timeout, std::move(query))
    .then(
      [self, rp, request, now_seconds](stop_departures& answer) mutable {
        auto reply = build_departures_board(request, answer, now_seconds);
        for (const auto& w : self->state.options.standing_warnings)
          reply.warnings.push_back(w);
        rp.deliver(std::move(reply));
      },
      [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
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
      const auto& cid = request.context.correlation_id;
      if (auto invalid = validate(request)) {
        spdlog::info("[{}] get_departures rejected: {}", cid,
                     invalid->message);
        return to_error(*invalid);
      }
      auto rp = self->make_response_promise<get_departures_reply>();
      if (request.stop.type == stop_ref::kind::id) {
        fetch_board(self, rp, std::move(request));
        return rp;
      }
      // A label: resolve it through VARIABLE_STORE first (D16).
      auto timeout = std::chrono::milliseconds{
        remaining_ms(request.context, self->state.options.timeout_ms)};
      self
        ->request(self->state.variable_store, timeout,
                  resolve_label{request.context, request.stop.value})
        .then(
          [self, rp, request](user_variable& variable) mutable {
            if (variable.type != variable_type::stop) {
              rp.deliver(make_error(
                ec::validation_error,
                "label \"" + request.stop.value
                  + "\" is a location, not a stop",
                "save the stop with type \"stop\", or use find_stops"));
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
