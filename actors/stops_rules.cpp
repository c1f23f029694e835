#include "transitd/actors/stops_rules.hpp"

#include "transitd/util/text.hpp"

#include <algorithm>
#include <cmath>

namespace transitd {

std::optional<failure> validate(const find_stops_request& request) {
  if (auto bad = validate_coordinate(request.center, "center"))
    return bad;
  if (auto bad = check_range("radius", request.radius, stops_radius))
    return bad;
  if (auto bad = check_range("max_results", request.max_results,
                             stops_max_results))
    return bad;
  if (request.text_filter)
    if (auto bad = check_length("text_filter", *request.text_filter,
                                stops_text_filter))
      return bad;
  return check_language("language", request.language);
}

nearby_stops_query make_query(const find_stops_request& request) {
  nearby_stops_query query;
  query.context = request.context;
  query.center = request.center;
  query.radius = request.radius;
  query.language = request.language;
  query.modes = request.include_modes;
  // A text filter works on what comes back: ask for all we may return.
  query.max_results = request.text_filter ? stops_max_results.max
                                          : request.max_results;
  return query;
}


find_stops_reply build_stop_list(const find_stops_request& request,
                                 const nearby_stops& upstream) {
  find_stops_reply reply;
  reply.correlation_id = request.context.correlation_id;
  std::vector<stop_summary> kept;
  auto wanted = [&](const stop_summary& stop) {
    if (request.include_modes.empty())
      return true;
    return std::any_of(stop.modes.begin(), stop.modes.end(),
                       [&](transit_mode m) {
                         return std::find(request.include_modes.begin(),
                                          request.include_modes.end(), m)
                                != request.include_modes.end();
                       });
  };
  std::optional<std::string> needle;
  if (request.text_filter)
    needle = fold_case(*request.text_filter);
  for (const auto& stop : upstream.stops) {
    if (!wanted(stop)) // rule 5
      continue;
    if (stop.distance > request.radius)
      continue;
    if (needle && fold_case(stop.name).find(*needle) == std::string::npos)
      continue; // rule 4
    kept.push_back(stop);
  }
  // Rule 2: stable by distance, then id.
  std::stable_sort(kept.begin(), kept.end(),
                   [](const stop_summary& a, const stop_summary& b) {
                     return a.distance != b.distance ? a.distance < b.distance
                                                     : a.id < b.id;
                   });
  auto limit = static_cast<std::size_t>(
    std::min(request.max_results, stops_output_cap));
  if (kept.size() > limit) {
    auto found = kept.size();
    kept.resize(limit);
    // Rule 3 / D9: cut at 25 (or at maxResults) and say so.
    reply.warnings.push_back(
      {"truncated-results",
       std::to_string(found) + " stops matched, returning the nearest "
         + std::to_string(limit)
         + (limit == static_cast<std::size_t>(stops_output_cap)
              ? " (at most 25 are returned)"
              : "")});
  }
  if (kept.empty() && request.text_filter && !upstream.stops.empty())
    reply.warnings.push_back(
      {"no-matches-after-filter",
       "no stop within the radius matches textFilter \""
         + *request.text_filter + "\""});
  reply.stops = std::move(kept);
  return reply;
}

} // namespace transitd
