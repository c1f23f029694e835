#include <algorithm>
#include <map>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_network.hpp"

namespace transitd::gtfs {

namespace {

bool in_force(const gtfs_rt::alert& a, int64_t time) {
  if (a.active_periods.empty())
    return true;
  for (const auto& p : a.active_periods)
    if ((!p.start || static_cast<int64_t>(*p.start) <= time)
        && (!p.end || time < static_cast<int64_t>(*p.end)))
      return true;
  return false;
}

/// The routes an informed entity names, and whether only some of their
/// stops.
std::vector<std::pair<uint32_t, bool>>
routes_informed(const timetable& tt, const gtfs_rt::informed_entity& e) {
  std::optional<uint32_t> route;
  if (e.trip && !e.trip->trip_id.empty())
    if (auto t = tt.find_trip(e.trip->trip_id))
      route = tt.trips[*t].route;
  if (!route && !e.route_id.empty())
    route = tt.find_route(e.route_id);
  if (!route && e.trip && !e.trip->route_id.empty())
    route = tt.find_route(e.trip->route_id);
  bool at_stop = !e.stop_id.empty();
  std::vector<std::pair<uint32_t, bool>> out;
  if (route) {
    out.emplace_back(*route, at_stop);
  } else if (at_stop) {
    if (auto s = tt.find_stop(e.stop_id))
      for (auto r : tt.routes_at(
             tt.stops[*s].parent != none ? tt.stops[*s].parent : *s))
        out.emplace_back(r, true);
  } else if (e.route_type || !e.agency_id.empty()) {
    for (uint32_t r = 0; r < tt.routes.size(); ++r)
      if (!e.route_type || tt.routes[r].route_type == *e.route_type)
        out.emplace_back(r, false);
  }
  return out;
}

/// Realtime of the trips of each route departing within an hour of
/// `time`: cancelled share and median delay.
void judge_realtime(const timetable& tt, const realtime_layer& rt,
                    int64_t time, std::vector<line_state>& lines,
                    const std::vector<uint32_t>& index_of_route) {
  struct tally {
    int trips = 0;
    int cancelled = 0;
    std::vector<int64_t> delays;
  };
  std::map<uint32_t, tally> by_route;
  for (const auto& e : rt.trips) {
    if (e.trip == none)
      continue;
    auto p_index = tt.trip_pattern[e.trip];
    if (p_index == none)
      continue;
    const auto& p = tt.patterns[p_index];
    auto start = e.origin + tt.time_at(p, tt.trip_rank[e.trip], 0).departure;
    if (start < time - 3600 || start > time + 3600)
      continue;
    auto& t = by_route[e.route];
    ++t.trips;
    if (e.cancelled) {
      ++t.cancelled;
    } else if (e.pattern != none) {
      const auto& lp = rt.patterns[e.pattern];
      auto last = rt.call_of(e, lp.stop_count - 1);
      t.delays.push_back(rt.times[last].arrival - rt.scheduled[last].arrival);
    }
  }
  for (auto& [route, t] : by_route) {
    if (index_of_route[route] == none)
      continue;
    auto& line = lines[index_of_route[route]];
    if (t.cancelled > 0) {
      auto share = static_cast<double>(t.cancelled) / t.trips;
      if (share >= 0.1)
        line.reasons.push_back(
          {"cancellations",
           std::to_string(t.cancelled) + " of " + std::to_string(t.trips)
             + " trips within an hour of now are cancelled",
           "", share >= 0.5 ? "severe-delays" : "minor-delays"});
    }
    if (!t.delays.empty()) {
      std::sort(t.delays.begin(), t.delays.end());
      auto median = t.delays[t.delays.size() / 2];
      if (median >= 180)
        line.reasons.push_back(
          {"delays",
           "trips within an hour of now run " + std::to_string(median / 60)
             + " min late (median)",
           "", median >= 600 ? "severe-delays" : "minor-delays"});
    }
  }
}

} // namespace

outcome<line_status_list> line_status_of(const timetable& tt,
                                         const realtime_layer* rt,
                                         const line_status_query& query) {
  if (rt != nullptr && rt->base.get() != &tt)
    rt = nullptr;
  auto wanted = routes_named(tt, query.route);
  if (!wanted)
    return wanted.error();
  std::vector<uint32_t> routes = *wanted;
  if (routes.empty())
    for (uint32_t r = 0; r < tt.routes.size(); ++r)
      routes.push_back(r);
  line_status_list answer;
  std::vector<line_state> lines;
  std::vector<uint32_t> index_of_route(tt.routes.size(), none);
  for (auto r : routes) {
    index_of_route[r] = static_cast<uint32_t>(lines.size());
    line_state s;
    s.route_id = tt.name + ":" + tt.routes[r].id;
    s.line = std::string{tt.line_name(r)};
    s.mode = tt.routes[r].mode;
    s.color = tt.routes[r].color;
    lines.push_back(std::move(s));
  }
  if (rt) {
    answer.realtime = true;
    for (const auto& a : rt->alerts) {
      if (!in_force(a, query.time))
        continue;
      auto header = pick_translation(a.header, query.language, tt.language).first;
      for (const auto& e : a.informed)
        for (auto [r, partial] : routes_informed(tt, e)) {
          if (index_of_route[r] == none)
            continue;
          auto& line = lines[index_of_route[r]];
          auto status = alert_status(a.effect, a.cause, a.severity, partial);
          bool seen = std::any_of(
            line.reasons.begin(), line.reasons.end(),
            [&](const status_reason& x) { return x.alert_id == a.entity_id
                                                 && x.status == status; });
          if (!seen)
            line.reasons.push_back({"alert", header, a.entity_id, status});
        }
    }
    judge_realtime(tt, *rt, query.time, lines, index_of_route);
  }
  order_lines(lines);
  answer.lines = std::move(lines);
  return answer;
}

} // namespace transitd::gtfs
