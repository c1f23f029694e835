#include "providers/tfl_journey_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "providers/tfl_journey.hpp"
#include "providers/upstream_call.hpp"

namespace transitd {

london_journey_actor::behavior_type
tfl_journey(london_journey_actor::stateful_pointer<tfl_journey_state> self,
            tfl_journey_options options, upstream_gate_actor gate) {
  auto& st = self->state;
  if (auto url = split_url(options.url)) {
    st.origin = url->origin;
    st.path = url->path;
  } else {
    spdlog::error("TfL: {}", url.error().message);
  }
  st.options = std::move(options);
  st.gate = std::move(gate);
  return {
    [self](const journey_plan_request& request)
      -> caf::result<journey_plan_reply> {
      auto& st = self->state;
      if (st.options.api_key.empty() && st.options.key_required)
        return make_error(ec::upstream_error,
                          "the TfL API key is missing: set TFL_API_KEY",
                          "the operator must configure TFL_API_KEY");
      if (st.origin.empty())
        return make_error(ec::upstream_error, "the TfL URL is not usable");
      http_call call;
      call.context = request.context;
      call.method = "GET";
      call.origin = st.origin;
      call.target = tfl::make_journey_target(st.path, request);
      call.timeout_ms = st.options.timeout_ms;
      if (!st.options.api_key.empty())
        call.headers.emplace_back("app_key", st.options.api_key);
      auto cid = request.context.correlation_id;
      return call_upstream_response<journey_plan_reply>(
        self, st.gate, std::move(call), "TfL",
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
