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
  // Platforms stand for their station: its earliest arrival.
  std::vector<uint32_t> seen;
  std::vector<uint32_t> routes;
  for (const auto& label : labels) {
    auto s = tt.stops[label.stop].parent != none ? tt.stops[label.stop].parent
                                                 : label.stop;
    if (std::find(seen.begin(), seen.end(), s) != seen.end())
      continue;
    seen.push_back(s);
    auto here = tt.routes_at(s);
    for (auto r : here)
      if (std::find(routes.begin(), routes.end(), r) == routes.end())
        routes.push_back(r);
    if (answer.stops.size()
        >= static_cast<std::size_t>(std::max(0, query.limit)))
      continue;
    reached_stop out;
    out.stop_id = tt.name + ":" + tt.stops[s].id;
    out.name = tt.stops[s].name;
    out.position = tt.stops[s].position;
    out.arrival = label.arrival;
    out.rides = label.rides;
    for (auto r : here) {
      auto line = std::string{tt.line_name(r)};
      if (std::find(out.lines.begin(), out.lines.end(), line)
          == out.lines.end())
        out.lines.push_back(std::move(line));
    }
    answer.stops.push_back(std::move(out));
  }
  answer.total = static_cast<int32_t>(seen.size());
  for (auto r : routes) {
    auto line = std::string{tt.line_name(r)};
    if (std::find(answer.lines.begin(), answer.lines.end(), line)
        == answer.lines.end())
      answer.lines.push_back(std::move(line));
    auto mode = tt.routes[r].mode;
    if (std::find(answer.modes.begin(), answer.modes.end(), mode)
        == answer.modes.end())
      answer.modes.push_back(mode);
  }
  std::sort(answer.lines.begin(), answer.lines.end());
  std::sort(answer.modes.begin(), answer.modes.end());
  answer.fetched_ms = now_ms();
  return answer;
}

} // namespace transitd::gtfs
