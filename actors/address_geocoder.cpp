#include "actors/address_geocoder.hpp"

#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/geocode_rules.hpp"

namespace transitd {

address_geocoder_actor::behavior_type address_geocoder(
  address_geocoder_actor::stateful_pointer<address_geocoder_state> self,
  geocoding_actor geocoding, tool_options options) {
  self->state.geocoding = std::move(geocoding);
  self->state.options = std::move(options);
  return {
    [self](geocode_request& request) -> caf::result<geocode_reply> {
      if (auto invalid = normalise_and_validate(request)) {
        spdlog::info("[{}] geocode_address rejected: {}",
                     request.context.correlation_id, invalid->message);
        return to_error(*invalid);
      }
      auto rp = self->make_response_promise<geocode_reply>();
      auto timeout = std::chrono::milliseconds{
        remaining_ms(request.context, self->state.options.timeout_ms)};
      self->request(self->state.geocoding, timeout, make_query(request))
        .then(
          [self, rp, request](geocode_candidates& answer) mutable {
            auto reply = build_geocode_reply(request, answer);
            if (!reply) {
              rp.deliver(to_error(reply.error()));
              return;
            }
            for (const auto& w : self->state.options.standing_warnings)
              reply->warnings.push_back(w);
            rp.deliver(std::move(*reply));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
  };
}

} // namespace transitd
