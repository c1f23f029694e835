#include "transitd/actors/line_viewer.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace transitd {

std::optional<failure> validate(const get_route_request& request) {
  if (auto bad = check_language("language", request.language))
    return bad;
  if (request.route.empty() && request.stop.empty())
    return make_failure(ec::validation_error,
                        "give route (a line's name such as \"7\", or a "
                        "route id) or stop (its lines)",
                        "route ids look like NAME:route_id; stop ids come "
                        "from find_stops");
  if (!request.route.empty())
    if (auto bad = check_length("route", request.route, route_name_length))
      return bad;
  if (!request.stop.empty())
    if (auto bad = check_length("stop", request.stop, route_name_length))
      return bad;
  if (request.near)
    if (auto bad = validate_coordinate(*request.near, "near"))
      return bad;
  return std::nullopt;
}

route_query make_query(const get_route_request& request,
                       int64_t now_seconds) {
  route_query q;
  q.context = request.context;
  q.route = request.route;
  q.stop = request.stop;
  q.near = request.near;
  q.time = now_seconds;
  q.language = request.language;
  return q;
}

line_viewer_actor::behavior_type
line_viewer(line_viewer_actor::stateful_pointer<line_viewer_state> self,
            network_info_actor network, tool_options options) {
  self->state.network = std::move(network);
  self->state.options = std::move(options);
  return {
    [self](get_route_request& request) -> caf::result<get_route_reply> {
      if (auto invalid = validate(request))
        return rejected(line_viewer_state::name, request.context, *invalid);
      if (!self->state.network)
        return to_error(make_failure(
          ec::data_not_available, "no provider here answers lines",
          "serve a region with a GTFS feed (engine_config::feeds)"));
      auto rp = self->make_response_promise<get_route_reply>();
      auto now = service_now_seconds(request.context, self->state.options);
      auto context = request.context;
      ask_provider<route_details>(
        self, rp, self->state.network, context, self->state.options,
        make_query(request, now),
        [cid = context.correlation_id](route_details& answer) {
          get_route_reply reply;
          reply.warnings = std::move(answer.warnings);
          reply.details = std::move(answer);
          reply.correlation_id = cid;
          return reply;
        });
      return rp;
    },
  };
}

} // namespace transitd
