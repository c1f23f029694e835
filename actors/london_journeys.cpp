#include "transitd/actors/london_journeys.hpp"

#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/actors/london_rules.hpp"
#include "transitd/messages/time.hpp"

namespace transitd {

namespace {

std::optional<failure> check_place(const std::string& value,
                                   const char* field) {
  if (value.find_first_not_of(" \t\r\n") == std::string::npos)
    return make_failure(ec::validation_error,
                        std::string{field} + " must not be empty");
  if (auto bad = check_length(field, value, london_place_text))
    return bad;
  for (unsigned char c : value)
    if (c < 0x20)
      return make_failure(ec::validation_error,
                          std::string{field}
                            + " must not contain control characters");
  return std::nullopt;
}

} // namespace

london_journey_actor::behavior_type london_journeys(
  london_journey_actor::stateful_pointer<london_journeys_state> self,
  london_journey_actor provider, tool_options tool) {
  self->state.provider = std::move(provider);
  self->state.tool = std::move(tool);
  return {
    [self](journey_plan_request& request) -> caf::result<journey_plan_reply> {
      auto& st = self->state;
      if (auto bad = check_place(request.from, "from"))
        return rejected(london_journeys_state::name, request.context, *bad);
      if (auto bad = check_place(request.to, "to"))
        return rejected(london_journeys_state::name, request.context, *bad);
      auto rp = self->make_response_promise<journey_plan_reply>();
      auto context = request.context;
      ask_provider<journey_plan_reply>(
        self, rp, st.provider, context, st.tool, std::move(request),
        [](journey_plan_reply& reply) {
          apply_journey_rules(reply);
          return std::move(reply);
        });
      return rp;
    },
  };
}

} // namespace transitd
