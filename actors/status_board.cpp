#include "transitd/actors/status_board.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/messages/time.hpp"

namespace transitd {

std::optional<failure> validate(const line_status_request& request) {
  if (auto bad = check_language("language", request.language))
    return bad;
  if (!request.route.empty())
    if (auto bad = check_length("route", request.route, route_name_length))
      return bad;
  if (!request.feed.empty())
    if (auto bad = check_length("feed", request.feed, route_name_length))
      return bad;
  if (request.near)
    if (auto bad = validate_coordinate(*request.near, "near"))
      return bad;
  return std::nullopt;
}

line_status_query make_query(const line_status_request& request,
                             int64_t now_seconds) {
  line_status_query q;
  q.context = request.context;
  q.route = request.route;
  q.feed = request.feed;
  q.near = request.near;
  q.time = now_seconds;
  q.language = request.language;
  return q;
}

line_status_reply build_status_reply(const line_status_request& request,
                                     line_status_list result,
                                     int64_t now_seconds) {
  line_status_reply reply;
  reply.warnings = std::move(result.warnings);
  if (!result.realtime)
    reply.warnings.push_back(
      {"no-realtime",
       "this feed has no realtime (alerts, trip updates): every line shows "
       "good-service because nothing says otherwise"});
  reply.data_freshness = format_utc(
    (result.fetched_ms != 0 ? result.fetched_ms : now_seconds * 1000) / 1000);
  reply.result = std::move(result);
  reply.correlation_id = request.context.correlation_id;
  return reply;
}

status_board_actor::behavior_type
status_board(status_board_actor::stateful_pointer<status_board_state> self,
             network_info_actor network, tool_options options) {
  self->state.network = std::move(network);
  self->state.options = std::move(options);
  return {
    [self](line_status_request& request) -> caf::result<line_status_reply> {
      if (auto invalid = validate(request))
        return rejected(status_board_state::name, request.context,
                        *invalid);
      if (!self->state.network)
        return to_error(make_failure(
          ec::data_not_available, "no provider here answers line status",
          "serve a region with a GTFS feed (engine_config::feeds)"));
      auto rp = self->make_response_promise<line_status_reply>();
      auto now = service_now_seconds(request.context, self->state.options);
      auto context = request.context;
      // Made before the request moves into the callback (argument order
      // is unspecified).
      auto query = make_query(request, now);
      ask_provider<line_status_list>(
        self, rp, self->state.network, context, self->state.options,
        std::move(query),
        [request = std::move(request), now](line_status_list& answer) {
          return build_status_reply(request, std::move(answer), now);
        });
      return rp;
    },
  };
}

} // namespace transitd
