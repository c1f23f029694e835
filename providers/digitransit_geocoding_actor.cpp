#include "transitd/providers/digitransit_geocoding_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/providers/digitransit_geocoding.hpp"
#include "transitd/providers/digitransit_routing.hpp"
#include "transitd/providers/upstream_call.hpp"

namespace transitd {

geocoding_actor::behavior_type digitransit_geocoding(
  geocoding_actor::stateful_pointer<digitransit_geocoding_state> self,
  digitransit_geocoding_options options, upstream_gate_actor gate) {
  self->state.upstream = upstream_client{
    "Digitransit geocoding", options.url, std::move(gate), options.timeout_ms,
    "digitransit-subscription-key", options.api_key};
  return {
    [self](geocode_query query) -> caf::result<geocode_candidates> {
      if (auto bad = digitransit::answer_language(query.language))
        return to_error(*bad);
      const auto& up = self->state.upstream;
      if (auto err = up.unusable())
        return *err;
      auto call = up.make_call(query.context, "GET",
                               up.path
                                 + digitransit::make_search_target(query));
      return call_upstream<geocode_candidates>(self, up.gate, std::move(call),
                                               up.name,
                                               digitransit::parse_search);
    },
  };
}

} // namespace transitd
