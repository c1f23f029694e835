#include <algorithm>

#include "transitd/messages/time.hpp"
#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_network.hpp"

namespace transitd::gtfs {

outcome<reach_result> reach_from(raptor& router, const timetable& tt,
                                 const reach_query& query,
                                 const realtime_layer* rt) {
  if (rt != nullptr && rt->base.get() != &tt)
    rt = nullptr;
  journey_request rq;
  rq.from = query.from;
  reach_result answer;
  if (!query.from_stop.empty()) {
    auto s = resolve_stop(tt, query.from_stop);
    if (!s)
      return s.error();
    rq.from = tt.stops[*s].position;
    rq.from_stops = trip_end_stops(tt, query.from_stop);
    answer.from_name = tt.stops[*s].name;
  }
  rq.time = query.local_time ? local_instant(tt, rq.from, query.time)
                             : query.time;
  if (auto outside = outside_service(tt, rq.time))
    return *outside;
  rq.max_walk_meters = query.max_walking_distance;
  rq.max_transfers = query.max_transfers;
  rq.realtime = rt;
  answer.time = rq.time;
  answer.from = rq.from;
  answer.timezone = std::string{zone_near(tt, rq.from)};
  auto labels = router.reach(rq, rq.time + std::max(0, query.max_seconds));
  // Platforms stand for their station: its earliest arrival. Marks, not
  // lists: an hour reaches thousands of stations and hundreds of lines.
  std::vector<char> seen(tt.stops.size(), 0);
  std::vector<char> pattern_seen(tt.patterns.size(), 0);
  std::vector<char> route_seen(tt.routes.size(), 0);
  std::vector<uint32_t> routes;
  int32_t total = 0;
  const auto wanted = static_cast<std::size_t>(std::max(0, query.limit));
  for (const auto& label : labels) {
    auto s = tt.stops[label.stop].parent != none ? tt.stops[label.stop].parent
                                                 : label.stop;
    if (seen[s])
      continue;
    seen[s] = 1;
    ++total;
    for (auto member : tt.stop_and_children(s))
      for (auto i = tt.calls_begin[member]; i < tt.calls_begin[member + 1];
           ++i) {
        auto pattern = tt.calls[i].pattern;
        if (pattern_seen[pattern])
          continue; // its line is counted (every trip of a pattern has one)
        pattern_seen[pattern] = 1;
        const auto& p = tt.patterns[pattern];
        auto r = tt.trips[tt.pattern_trips[p.trips_begin]].route;
        if (!route_seen[r]) {
          route_seen[r] = 1;
          routes.push_back(r);
        }
      }
    if (answer.stops.size() >= wanted)
      continue;
    reached_stop out;
    out.stop_id = tt.name + ":" + tt.stops[s].id;
    out.name = tt.stops[s].name;
    out.position = tt.stops[s].position;
    out.arrival = label.arrival;
    out.rides = label.rides;
    for (auto r : tt.routes_at(s)) {
      auto line = std::string{tt.line_name(r)};
      if (std::find(out.lines.begin(), out.lines.end(), line)
          == out.lines.end())
        out.lines.push_back(std::move(line));
    }
    answer.stops.push_back(std::move(out));
  }
  answer.total = total;
  for (auto r : routes) {
    answer.lines.emplace_back(tt.line_name(r));
    auto mode = tt.routes[r].mode;
    if (std::find(answer.modes.begin(), answer.modes.end(), mode)
        == answer.modes.end())
      answer.modes.push_back(mode);
  }
  std::sort(answer.lines.begin(), answer.lines.end());
  answer.lines.erase(std::unique(answer.lines.begin(), answer.lines.end()),
                     answer.lines.end());
  std::sort(answer.modes.begin(), answer.modes.end());
  answer.fetched_ms = now_ms();
  return answer;
}

} // namespace transitd::gtfs
