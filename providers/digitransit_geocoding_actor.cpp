#include "providers/digitransit_geocoding_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "providers/digitransit_geocoding.hpp"
#include "providers/upstream_call.hpp"

namespace transitd {

geocoding_actor::behavior_type digitransit_geocoding(
  geocoding_actor::stateful_pointer<digitransit_geocoding_state> self,
  digitransit_geocoding_options options, upstream_gate_actor gate) {
  auto& st = self->state;
  if (auto url = split_url(options.url)) {
    st.origin = url->origin;
    st.path = url->path;
  } else {
    spdlog::error("digitransit geocoding: {}", url.error().message);
  }
  st.options = std::move(options);
  st.gate = std::move(gate);
  return {
    [self](const geocode_query& query)
      -> caf::result<geocode_candidates> {
      auto& st = self->state;
      if (st.origin.empty())
        return make_error(ec::upstream_error,
                          "the Digitransit geocoding URL is not usable");
      http_call call;
      call.context = query.context;
      call.method = "GET";
      call.origin = st.origin;
      call.target = st.path + digitransit::make_search_target(query);
      call.timeout_ms = st.options.timeout_ms;
      if (!st.options.api_key.empty())
        call.headers.emplace_back("digitransit-subscription-key",
                                  st.options.api_key);
      return call_upstream<geocode_candidates>(self, st.gate, std::move(call),
                                               "Digitransit geocoding",
                                               digitransit::parse_search);
    },
  };
}

} // namespace transitd
