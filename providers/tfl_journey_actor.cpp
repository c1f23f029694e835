#include "transitd/providers/tfl_journey_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/providers/tfl_journey.hpp"
#include "transitd/providers/upstream_call.hpp"

namespace transitd {

london_journey_actor::behavior_type
tfl_journey(london_journey_actor::stateful_pointer<tfl_journey_state> self,
            tfl_journey_options options, upstream_gate_actor gate) {
  self->state.upstream = upstream_client{"TfL", options.url, std::move(gate),
                                        options.timeout_ms, "app_key",
                                        options.api_key};
  self->state.key_required = options.key_required;
  return {
    [self](const journey_plan_request& request)
      -> caf::result<journey_plan_reply> {
      const auto& up = self->state.upstream;
      if (up.key.empty() && self->state.key_required)
        return make_error(ec::upstream_error,
                          "the TfL API key is missing: set TFL_API_KEY",
                          "the operator must configure TFL_API_KEY");
      if (auto err = up.unusable())
        return *err;
      auto call = up.make_call(request.context, "GET",
                               tfl::make_journey_target(up.path, request));
      auto cid = request.context.correlation_id;
      return call_upstream_response<journey_plan_reply>(
        self, up.gate, std::move(call), up.name,
        [cid](const http_response& response) {
          auto reply = tfl::parse_journey_response(response);
          if (reply)
            reply->correlation_id = cid;
          return reply;
        });
    },
  };
}

} // namespace transitd
