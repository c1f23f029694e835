#include <algorithm>
#include <map>

#include "transitd/messages/time.hpp"
#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_network.hpp"

namespace transitd::gtfs {

namespace {

uint32_t station_of(const timetable& tt, uint32_t s) {
  return tt.stops[s].parent != none ? tt.stops[s].parent : s;
}

line_stop stop_entry(const timetable& tt, uint32_t s) {
  return {tt.name + ":" + tt.stops[s].id, tt.stops[s].name,
          tt.stops[s].position};
}

line_info line_header(const timetable& tt, uint32_t r) {
  line_info out;
  const auto& route = tt.routes[r];
  out.route_id = tt.name + ":" + route.id;
  out.line = std::string{tt.line_name(r)};
  out.long_name = route.long_name;
  out.mode = route.mode;
  out.color = route.color;
  out.text_color = route.text_color;
  return out;
}

/// The service day holding `time` in `zone` (the latest origin at or
/// before it), clamped to the feed's days.
int32_t day_at(const timetable& tt, uint16_t zone, int64_t time) {
  auto d = static_cast<int32_t>((time - tt.origin(zone, 0)) / 86400);
  d = std::clamp(d, 0, std::max(0, tt.day_count - 1));
  while (d > 0 && tt.origin(zone, d) > time)
    --d;
  while (d + 1 < tt.day_count && tt.origin(zone, d + 1) <= time)
    ++d;
  return d;
}

/// A line's directions on `day`: the stops of its busiest pattern per
/// direction (stations for platforms), headsigns, the day's first and last
/// departure, the headway within an hour either side of `time`.
std::vector<line_direction> directions_of(const timetable& tt, uint32_t r,
                                          int32_t day, int64_t time) {
  std::map<int32_t, line_direction> by_direction;
  std::map<int32_t, std::pair<uint32_t, int32_t>> busiest; // pattern, trips
  std::map<int32_t, std::vector<int64_t>> departures;
  for (uint32_t p = 0; p < tt.patterns.size(); ++p) {
    const auto& pat = tt.patterns[p];
    const auto& first = tt.trips[tt.pattern_trips[pat.trips_begin]];
    if (first.route != r)
      continue;
    int32_t dir = first.direction;
    auto& out = by_direction[dir];
    out.direction = dir;
    bool runs = tt.runs_on(pat.service, day);
    auto origin = tt.origin(pat.zone, day);
    int32_t running = 0;
    for (uint32_t k = 0; k < pat.trip_count; ++k) {
      auto h = std::string{tt.headsign(p, k)};
      if (std::find(out.headsigns.begin(), out.headsigns.end(), h)
            == out.headsigns.end()
          && out.headsigns.size() < 10)
        out.headsigns.push_back(std::move(h));
      if (!runs)
        continue;
      ++running;
      auto at = origin + tt.time_at(pat, k, 0).departure;
      departures[dir].push_back(at);
      if (out.first_departure == 0 || at < out.first_departure)
        out.first_departure = at;
      out.last_departure = std::max(out.last_departure, at);
    }
    out.trips_today += running;
    auto& best = busiest[dir];
    if (best.second == 0 || running > best.second
        || (running == best.second
            && pat.stop_count > tt.patterns[best.first].stop_count))
      best = {p, std::max(running, 1)};
  }
  std::vector<line_direction> out;
  for (auto& [dir, d] : by_direction) {
    const auto& pat = tt.patterns[busiest[dir].first];
    for (uint32_t i = 0; i < pat.stop_count; ++i)
      d.stops.push_back(
        stop_entry(tt, station_of(tt, tt.pattern_stops[pat.stops_begin + i]
                                        .stop)));
    auto& times = departures[dir];
    std::sort(times.begin(), times.end());
    std::vector<int64_t> near;
    for (auto t : times)
      if (t >= time - 3600 && t <= time + 3600)
        near.push_back(t);
    if (near.size() >= 2)
      d.headway_minutes
        = static_cast<double>(near.back() - near.front())
          / static_cast<double>(near.size() - 1) / 60.0;
    out.push_back(std::move(d));
  }
  return out;
}

/// The station of `s` and the stations transfers.txt joins to it (from
/// any of its platforms to another station's), itself first.
std::vector<uint32_t> complex_of(const timetable& tt, uint32_t s) {
  std::vector<uint32_t> out{station_of(tt, s)};
  for (auto member : tt.stop_and_children(out.front()))
    for (auto f = tt.out_begin[member]; f < tt.out_begin[member + 1]; ++f) {
      if (!tt.out[f].listed)
        continue;
      auto other = station_of(tt, tt.out[f].stop);
      if (std::find(out.begin(), out.end(), other) == out.end())
        out.push_back(other);
    }
  return out;
}

} // namespace

outcome<route_details> route_of(const timetable& tt,
                                const route_query& query) {
  route_details answer;
  auto zone = uint16_t{0};
  answer.timezone = tt.zones.empty() ? std::string{} : tt.zones[0];
  auto day = day_at(tt, zone, query.time);
  answer.service_date = service_date_of(tt, day);
  if (query.route.empty()) {
    // The lines at a stop and the stations joined to it.
    auto s = resolve_stop(tt, query.stop);
    if (!s)
      return s.error();
    for (auto station : complex_of(tt, *s)) {
      answer.complex.push_back(stop_entry(tt, station));
      for (auto r : tt.routes_at(station)) {
        auto line = line_header(tt, r);
        line.at_stop = tt.name + ":" + tt.stops[station].id;
        answer.lines.push_back(std::move(line));
      }
    }
    return answer;
  }
  auto routes = routes_named(tt, query.route);
  if (!routes)
    return routes.error();
  if (routes->size() > 5)
    routes->resize(5);
  for (auto r : *routes) {
    auto line = line_header(tt, r);
    line.directions = directions_of(tt, r, day, query.time);
    answer.lines.push_back(std::move(line));
  }
  return answer;
}

} // namespace transitd::gtfs
