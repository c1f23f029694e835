#include "transitd/actors/reach_rules.hpp"

#include "transitd/messages/time.hpp"

namespace transitd {

std::optional<failure> validate(const reachable_request& request) {
  if (auto bad = check_language("language", request.language))
    return bad;
  const auto& o = request.origin;
  if (o.type == location_input::kind::coords) {
    if (auto bad = validate_coordinate(o.position, "origin.position"))
      return bad;
  } else if (o.type == location_input::kind::stop) {
    if (auto bad = check_length("origin.stop_id", o.stop_id, stop_id_length))
      return bad;
  } else if (o.label.empty()) {
    return make_failure(ec::validation_error,
                        "origin.label must name a saved label");
  }
  if (auto bad = check_range("maxMinutes", request.max_minutes,
                             reach_minutes))
    return bad;
  if (auto bad = check_range("maxWalkingDistance",
                             request.max_walking_distance, plan_max_walk))
    return bad;
  if (auto bad = check_range("maxTransfers", request.max_transfers,
                             plan_max_transfers))
    return bad;
  if (auto bad = check_range("limit", request.limit, reach_limit))
    return bad;
  if (request.when != "now" && !parse_iso_time(request.when))
    return make_failure(ec::validation_error,
                        "when must be \"now\" or an ISO 8601 date-time, got \""
                          + request.when + "\"",
                        "write " + std::string{iso_time_forms});
  return std::nullopt;
}

reach_origin origin_of(const location_input& input) {
  reach_origin out;
  out.ref.raw_source = "input";
  if (input.type == location_input::kind::stop) {
    out.stop_id = input.stop_id;
    out.ref.stop_id = input.stop_id;
  } else {
    out.ref.position = input.position;
  }
  return out;
}

reach_origin origin_of(const user_variable& variable) {
  reach_origin out;
  out.ref.raw_source = "variable";
  out.ref.label = variable.key;
  out.ref.name = variable.name;
  if (variable.type == variable_type::stop) {
    out.stop_id = variable.stop_id;
    out.ref.stop_id = variable.stop_id;
  } else {
    out.ref.position = {variable.lat, variable.lon};
    out.ref.address = variable.address;
  }
  return out;
}

reach_query make_query(const reachable_request& request,
                       const reach_origin& origin, int64_t now_seconds) {
  reach_query q;
  q.context = request.context;
  q.from = origin.ref.position;
  q.from_stop = origin.stop_id;
  q.time = now_seconds;
  if (request.when != "now")
    if (auto t = parse_iso_time(request.when)) {
      q.time = t->seconds;
      q.local_time = !t->has_offset;
    }
  q.max_seconds = request.max_minutes * 60;
  q.language = request.language;
  q.max_walking_distance = request.max_walking_distance;
  q.max_transfers = request.max_transfers;
  q.limit = request.limit;
  return q;
}

reachable_reply build_reach_reply(const reachable_request& request,
                                  reach_origin origin, reach_result result) {
  reachable_reply reply;
  reply.origin = std::move(origin.ref);
  reply.origin.position = result.from;
  if (!reply.origin.name && !result.from_name.empty())
    reply.origin.name = result.from_name;
  reply.requested_time = format_in_zone(result.time, result.timezone);
  reply.max_minutes = request.max_minutes;
  reply.data_freshness = format_utc(result.fetched_ms / 1000);
  reply.warnings = std::move(result.warnings);
  reply.result = std::move(result);
  reply.correlation_id = request.context.correlation_id;
  return reply;
}

} // namespace transitd
