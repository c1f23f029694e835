#include "providers/digitransit_routing_actor.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "providers/digitransit_routing.hpp"
#include "providers/upstream_http.hpp"

namespace transitd {

timetable_actor::behavior_type digitransit_routing(
  timetable_actor::stateful_pointer<digitransit_routing_state> self,
  digitransit_routing_options options, http_client_pool pool) {
  auto& st = self->state;
  if (auto url = split_url(options.url)) {
    st.origin = url->origin;
    st.path = url->path;
  } else {
    spdlog::error("digitransit routing: {}", url.error().message);
  }
  st.options = std::move(options);
  st.pool = std::move(pool);
  return {
    [self](const stop_departures_query& query)
      -> caf::result<stop_departures> {
      auto& st = self->state;
      if (st.origin.empty())
        return make_error(ec::upstream_error,
                          "the Digitransit routing URL is not usable");
      http_call call;
      call.context = query.context;
      call.method = "POST";
      call.origin = st.origin;
      call.target = st.path;
      call.content_type = "application/json";
      call.body = digitransit::make_departures_body(query);
      call.timeout_ms = st.options.timeout_ms;
      if (!st.options.api_key.empty())
        call.headers.emplace_back("digitransit-subscription-key",
                                  st.options.api_key);
      auto rp = self->make_response_promise<stop_departures>();
      auto stop_id = query.stop_id;
      auto cid = query.context.correlation_id;
      // The worker enforces the HTTP timeout; the request timeout only
      // guards against a lost worker.
      auto guard = std::chrono::milliseconds{call.timeout_ms + 1000};
      self->request(st.pool.next(), guard, std::move(call))
        .then(
          [rp, stop_id, cid](http_response& response) mutable {
            if (response.status != 200) {
              auto f = classify_http_failure(response, "Digitransit routing");
              spdlog::warn("[{}] digitransit routing: {}", cid, f.message);
              rp.deliver(to_error(f));
              return;
            }
            auto parsed = digitransit::parse_departures(response.body, stop_id,
                                                        response.received_ms);
            if (!parsed) {
              spdlog::warn("[{}] digitransit routing: {}", cid,
                           parsed.error().message);
              rp.deliver(to_error(parsed.error()));
              return;
            }
            rp.deliver(std::move(*parsed));
          },
          [rp, cid](caf::error& err) mutable {
            spdlog::warn("[{}] digitransit routing: {}", cid,
                         to_failure(err).message);
            rp.deliver(std::move(err));
          });
      return rp;
    },
  };
}

} // namespace transitd
