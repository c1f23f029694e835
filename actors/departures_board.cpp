#include "actors/departures_board.hpp"

#include <algorithm>
#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/departures_rules.hpp"
#include "messages/time.hpp"

namespace transitd {

int64_t remaining_ms(const call_context& context, int64_t fallback_ms) {
  if (context.deadline_ms == 0)
    return fallback_ms;
  return std::max<int64_t>(1, context.deadline_ms - now_ms());
}

departures_board_actor::behavior_type departures_board(
  departures_board_actor::stateful_pointer<departures_board_state> self,
  timetable_actor timetable, departures_board_options options) {
  self->state.timetable = std::move(timetable);
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
      if (request.stop.type == stop_ref::kind::label)
        return make_error(ec::validation_error,
                          "stop label \"" + request.stop.value
                            + "\" cannot be resolved: this server has no "
                              "saved-variable store yet",
                          "pass the stop as {\"type\":\"id\",\"value\":...}");
      auto now_seconds = (request.context.received_ms != 0
                            ? request.context.received_ms
                            : now_ms())
                         / 1000;
      auto query = make_query(request, now_seconds);
      auto timeout = std::chrono::milliseconds{
        remaining_ms(request.context, self->state.options.timeout_ms)};
      auto rp = self->make_response_promise<get_departures_reply>();
      self->request(self->state.timetable, timeout, std::move(query))
        .then(
          [self, rp, request, now_seconds](stop_departures& answer) mutable {
            auto reply = build_departures_board(request, answer, now_seconds);
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
