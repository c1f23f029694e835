#include "transitd/actors/address_geocoder.hpp"

#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/actors/geocode_rules.hpp"

namespace transitd {

address_geocoder_actor::behavior_type address_geocoder(
  address_geocoder_actor::stateful_pointer<address_geocoder_state> self,
  geocoding_actor geocoding, tool_options options) {
  self->state.geocoding = std::move(geocoding);
  self->state.options = std::move(options);
  return {
    [self](geocode_request& request) -> caf::result<geocode_reply> {
      if (auto invalid = normalise_and_validate(request))
        return rejected(address_geocoder_state::name, request.context,
                        *invalid);
      auto rp = self->make_response_promise<geocode_reply>();
      auto query = make_query(request);
      auto context = request.context;
      ask_provider<geocode_candidates>(
        self, rp, self->state.geocoding, context, self->state.options,
        std::move(query),
        [request = std::move(request)](const geocode_candidates& answer) {
          return build_geocode_reply(request, answer);
        });
      return rp;
    },
  };
}

} // namespace transitd
