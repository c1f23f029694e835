#include "transitd/offline/gtfs_answers.hpp"

#include <algorithm>
#include <cmath>

#include "transitd/messages/time.hpp"
#include "transitd/util/polyline.hpp"
#include "transitd/offline/gtfs_network.hpp"
#include "transitd/messages/limits.hpp"

namespace transitd::gtfs {

namespace {

std::string public_id(const timetable& tt, uint32_t s) {
  return tt.name + ":" + tt.stops[s].id;
}

place_ref place_of(const timetable& tt, uint32_t s) {
  return {tt.stops[s].name, public_id(tt, s), tt.stops[s].position};
}

void line_colors(const timetable& tt, uint32_t route, trip_leg& leg) {
  if (!tt.routes[route].color.empty())
    leg.color = tt.routes[route].color;
  if (!tt.routes[route].text_color.empty())
    leg.text_color = tt.routes[route].text_color;
}

} // namespace

std::optional<failure> outside_service(const timetable& tt, int64_t epoch) {
  for (uint16_t z = 0; z < tt.zones.size(); ++z)
    if (!tt.days_around(z, epoch).empty())
      return std::nullopt;
  return make_failure(ec::data_not_available,
                      "feed " + tt.name + " has service from "
                        + tt.report.first_day + " to " + tt.report.last_day
                        + " only; nothing runs at " + format_utc(epoch),
                      "ask for a time inside that range, or set the "
                      "engine's clock inside it for recorded data "
                      "(engine_config::clock_offset_ms)");
}

std::string_view zone_near(const timetable& tt, const coordinate& at) {
  if (tt.zones.empty())
    return {};
  return tt.zones[tt.zone_near(at, 5000, false)];
}

int64_t local_instant(const timetable& tt, const coordinate& at,
                      int64_t local_seconds) {
  return local_to_epoch(local_seconds, zone_near(tt, at));
}

outcome<uint32_t> resolve_stop(const timetable& tt, std::string_view id) {
  auto prefix = tt.name + ":";
  if (id.substr(0, prefix.size()) == prefix)
    if (auto s = tt.find_stop(id.substr(prefix.size())))
      return *s;
  return make_failure(ec::validation_error,
                      "stop \"" + std::string{id} + "\" is not a stop of feed "
                        + tt.name,
                      "find stop ids with find_stops; this feed's look like "
                        + prefix + tt.stops.front().id);
}

outcome<stop_place> place_of_stop(const timetable& tt,
                                  const stop_lookup& query) {
  auto s = resolve_stop(tt, query.stop_id);
  if (!s)
    return s.error();
  const auto& st = tt.stops[*s];
  stop_place out;
  out.stop_id = query.stop_id;
  out.name = st.name;
  out.position = st.position;
  if (st.zone < tt.zones.size())
    out.timezone = tt.zones[st.zone];
  return out;
}

std::vector<uint32_t> trip_end_stops(const timetable& tt,
                                     std::string_view id) {
  auto s = resolve_stop(tt, id);
  if (!s)
    return {};
  auto all = tt.stop_and_children(*s);
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](uint32_t x) { return !tt.routable(x); }),
            all.end());
  return all;
}

outcome<stop_departures> departures_at(const timetable& tt,
                                       const stop_departures_query& query,
                                       const realtime_layer* rt) {
  if (rt != nullptr && rt->base.get() != &tt)
    rt = nullptr;
  auto stop_index = resolve_stop(tt, query.stop_id);
  if (!stop_index)
    return stop_index.error();
  const auto& st = tt.stops[*stop_index];
  stop_departures answer;
  answer.stop_id = query.stop_id;
  answer.stop_name = st.name;
  answer.timezone = tt.zones[st.zone];
  auto from = query.start_time;
  auto until = from + std::max(0, query.time_range_seconds);
  // A trip delayed into the window was scheduled before it; one running
  // early, after it.
  auto scan_from = from - (rt ? rt->max_delay : 0);
  auto scan_until = until + (rt ? rt->max_advance : 0);
  auto in_window = [&](int64_t t) { return t >= from && t <= until; };
  auto departure_of = [&](uint32_t route, std::string_view headsign,
                          uint32_t s, int64_t scheduled) {
    transitd::stop_time out;
    out.line = std::string{tt.line_name(route)};
    out.mode = tt.routes[route].mode;
    out.color = tt.routes[route].color;
    out.text_color = tt.routes[route].text_color;
    out.headsign = std::string{headsign};
    out.scheduled_departure = scheduled;
    if (!tt.stops[s].platform_code.empty())
      out.platform = tt.stops[s].platform_code;
    return out;
  };
  for (auto s : tt.stop_and_children(*stop_index)) {
    for (auto c = tt.calls_begin[s]; c < tt.calls_begin[s + 1]; ++c) {
      auto [p_index, pos] = tt.calls[c];
      const auto& p = tt.patterns[p_index];
      if (pos + 1 == p.stop_count
          || !tt.pattern_stops[p.stops_begin + pos].pickup)
        continue;
      for (const auto& day : tt.days_around(p.zone, from)) {
        if (!tt.runs_on(p.service, day.day))
          continue;
        // Trips are sorted by time at every stop of the pattern.
        uint32_t lo = 0, hi = p.trip_count;
        while (lo < hi) {
          auto mid = (lo + hi) / 2;
          if (day.origin + tt.time_at(p, mid, pos).departure < scan_from)
            lo = mid + 1;
          else
            hi = mid;
        }
        for (auto r = lo; r < p.trip_count; ++r) {
          auto at = day.origin + tt.time_at(p, r, pos).departure;
          if (at > scan_until)
            break;
          auto trip = tt.pattern_trips[p.trips_begin + r];
          auto out = departure_of(tt.trips[trip].route,
                                  tt.headsign(p_index, r), s, at);
          out.trip_id = tt.name + ":" + tt.trips[trip].id;
          out.service_date = service_date_of(tt, day.day);
          auto effective = at;
          if (rt && rt->masked[p_index])
            if (const auto* e = rt->find(trip, day.day)) {
              if (e->cancelled) {
                out.cancelled = true;
              } else {
                auto call = rt->call_of(*e, pos);
                auto status = rt->status[call];
                if (status == gtfs_rt::call_status::skipped) {
                  out.cancelled = true;
                } else if (status == gtfs_rt::call_status::predicted) {
                  out.realtime = true;
                  out.realtime_departure = e->origin + rt->times[call].departure;
                  effective = out.realtime_departure;
                }
              }
            }
          if (in_window(effective))
            answer.stop_times.push_back(std::move(out));
        }
      }
    }
    // Trips the feed added call here in the layer only.
    if (rt)
      for (auto c = rt->calls_begin[s]; c < rt->calls_begin[s + 1]; ++c) {
        auto [p_index, pos] = rt->calls[c];
        const auto& p = rt->layer_pattern(p_index);
        if (pos + 1 == p.stop_count
            || !rt->pattern_stops[p.stops_begin + pos].pickup)
          continue;
        for (uint32_t r = 0; r < p.trip_count; ++r) {
          const auto& e = rt->trip_of(p_index, r);
          if (e.trip != none)
            break; // a pattern of timetable trips, listed above
          auto at = e.origin + rt->times[rt->call_of(e, pos)].departure;
          if (!in_window(at))
            continue;
          auto out = departure_of(e.route, e.headsign, s, at);
          out.trip_id = tt.name + ":" + e.trip_id;
          out.service_date = service_date_of(tt, e.day);
          out.realtime = true;
          out.realtime_departure = at;
          answer.stop_times.push_back(std::move(out));
        }
      }
  }
  auto effective = [](const transitd::stop_time& t) {
    return t.realtime ? t.realtime_departure : t.scheduled_departure;
  };
  std::stable_sort(answer.stop_times.begin(), answer.stop_times.end(),
                   [&](const auto& a, const auto& b) {
                     return effective(a) < effective(b);
                   });
  if (query.max_departures >= 0
      && answer.stop_times.size()
           > static_cast<std::size_t>(query.max_departures))
    answer.stop_times.resize(static_cast<std::size_t>(query.max_departures));
  answer.fetched_ms = now_ms();
  if (rt)
    answer.last_realtime_update_ms = rt->newest * 1000;
  return answer;
}

nearby_stops stops_near(const timetable& tt, const nearby_stops_query& query) {
  nearby_stops answer;
  // A platform stands for its station (the id get_departures and
  // plan_trip take for all its platforms), once, at the nearest
  // platform's distance; loose stops stand for themselves.
  std::vector<uint32_t> seen;
  for (auto [platform, meters] : tt.stops_near(query.center, query.radius)) {
    auto s = tt.stops[platform].parent != none ? tt.stops[platform].parent
                                               : platform;
    if (std::find(seen.begin(), seen.end(), s) != seen.end())
      continue;
    seen.push_back(s);
    auto modes = tt.modes_at(s);
    if (!query.modes.empty()
        && std::none_of(modes.begin(), modes.end(), [&](transit_mode m) {
             return std::find(query.modes.begin(), query.modes.end(), m)
                    != query.modes.end();
           }))
      continue;
    stop_summary out;
    out.id = public_id(tt, s);
    out.name = tt.stops[s].name;
    out.position = tt.stops[s].position;
    out.distance = static_cast<int32_t>(std::lround(meters));
    out.modes = std::move(modes);
    if (s != platform)
      for (auto child : tt.stop_and_children(s))
        if (child != s && tt.routable(child))
          out.platforms.push_back(public_id(tt, child));
    for (auto r : tt.routes_at(s)) {
      auto line = std::string{tt.line_name(r)};
      if (std::find(out.lines.begin(), out.lines.end(), line)
          == out.lines.end())
        out.lines.push_back(std::move(line));
    }
    answer.stops.push_back(std::move(out));
    if (answer.stops.size() >= static_cast<std::size_t>(
          std::max(0, query.max_results)))
      break;
  }
  answer.fetched_ms = now_ms();
  return answer;
}

geocode_candidates match_stop_names(const timetable& tt,
                                    const geocode_query& query) {
  geocode_candidates answer;
  answer.fetched_ms = now_ms();
  if (!query.layers.empty()
      && std::find(query.layers.begin(), query.layers.end(), "stop")
           == query.layers.end())
    return answer;
  auto q = fold_name(query.text);
  if (q.empty())
    return answer;
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < q.size();) {
    auto j = q.find(' ', i);
    if (j == std::string::npos)
      j = q.size();
    words.push_back(std::string_view{q}.substr(i, j - i));
    i = j + 1;
  }
  struct hit {
    uint32_t stop;
    double score;
  };
  std::vector<hit> hits;
  for (uint32_t s = 0; s < tt.stops.size(); ++s) {
    const auto& st = tt.stops[s];
    // Stations and stops standing alone; platforms show as their station.
    if (st.location_type > 1 || st.parent != none)
      continue;
    if (st.location_type == 0 && !tt.routable(s))
      continue;
    const auto& n = tt.folded_names[s];
    double score = 0;
    if (n == q)
      score = 1.0;
    else if (n.compare(0, q.size(), q) == 0)
      score = 0.9;
    else if (std::all_of(words.begin(), words.end(), [&](std::string_view w) {
               for (std::size_t i = 0; i < n.size();) {
                 auto j = n.find(' ', i);
                 if (j == std::string::npos)
                   j = n.size();
                 if (std::string_view{n}.substr(i, j - i).substr(0, w.size())
                     == w)
                   return true;
                 i = j + 1;
               }
               return false;
             }))
      score = 0.8;
    else if (n.find(q) != std::string::npos)
      score = 0.7;
    if (score > 0)
      hits.push_back({s, score});
  }
  std::stable_sort(hits.begin(), hits.end(), [&](const hit& a, const hit& b) {
    if (a.score != b.score)
      return a.score > b.score;
    return tt.stops[a.stop].name.size() < tt.stops[b.stop].name.size();
  });
  // The same name twice (a station per line) shows once, the first found.
  std::vector<std::string_view> seen;
  for (const auto& h : hits) {
    if (answer.candidates.size()
        >= static_cast<std::size_t>(std::max(1, query.size)))
      break;
    std::string_view folded = tt.folded_names[h.stop];
    if (std::find(seen.begin(), seen.end(), folded) != seen.end())
      continue;
    seen.push_back(folded);
    const auto& st = tt.stops[h.stop];
    geocode_candidate c;
    c.name = st.name;
    c.position = st.position;
    c.confidence = h.score;
    c.layer = "stop";
    c.label = st.name;
    answer.candidates.push_back(std::move(c));
  }
  return answer;
}

trip_plans plan_trips(raptor& router, const timetable& tt,
                      const trip_plan_query& query,
                      const std::atomic<bool>* stop,
                      const realtime_layer* rt) {
  if (rt != nullptr && rt->base.get() != &tt)
    rt = nullptr;
  journey_request rq;
  rq.from = query.from;
  rq.to = query.to;
  // Stops as trip ends (D21); an id of another provider: the point.
  if (!query.from_stop.empty())
    rq.from_stops = trip_end_stops(tt, query.from_stop);
  if (!query.to_stop.empty())
    rq.to_stops = trip_end_stops(tt, query.to_stop);
  rq.time = query.time;
  rq.arrive_by = query.arrive_by;
  rq.max_transfers = query.max_transfers;
  rq.max_walk_meters = query.max_walking_distance;
  rq.wheelchair = query.wheelchair;
  rq.stop = stop;
  rq.realtime = rt;
  trip_plans answer;
  // The zone of the stop nearest the origin (all of a feed's agencies
  // share one).
  answer.timezone = tt.zones.empty()
                      ? std::string{}
                      : tt.zones[tt.zone_near(query.from,
                                              query.max_walking_distance)];
  // Planners ask for more than the tool's limit because their answers
  // hold duplicates to drop; RAPTOR's hold none (plan_journeys removes
  // them), so more than the largest limit would be work thrown away.
  auto wanted = std::clamp(query.first, 1, plan_limit.max);
  // A walk from (to) a stop given as the end starts (ends) there, named.
  auto end_place = [&](const std::string& id) -> std::optional<place_ref> {
    if (id.empty())
      return std::nullopt;
    auto s = resolve_stop(tt, id);
    if (!s)
      return std::nullopt;
    return place_ref{tt.stops[*s].name, id, tt.stops[*s].position};
  };
  auto from_end = end_place(query.from_stop);
  auto to_end = end_place(query.to_stop);
  for (const auto& j :
       plan_journeys(router, rq, static_cast<std::size_t>(wanted),
                     std::max(0, query.ride_worth_s))) {
    itinerary it;
    it.transfers = std::max(0, j.rides - 1);
    for (const auto& l : j.legs) {
      trip_leg leg;
      leg.scheduled_start = l.start;
      leg.scheduled_end = l.end;
      leg.distance = l.meters;
      leg.from = l.from_stop != none ? place_of(tt, l.from_stop)
                 : from_end     ? *from_end
                                : place_ref{"Origin", std::nullopt, query.from};
      leg.to = l.to_stop != none ? place_of(tt, l.to_stop)
               : to_end          ? *to_end
                                 : place_ref{"Destination", std::nullopt,
                                             query.to};
      if (l.transit && l.pattern >= tt.patterns.size()) {
        // A trip of the realtime layer: its realtime times were routed
        // on; the schedule's are beside them.
        const auto& e = rt->trip_of(l.pattern, l.trip_rank);
        auto origin = e.origin;
        leg.transit = true;
        leg.mode = tt.routes[e.route].mode;
        leg.line = std::string{tt.line_name(e.route)};
        line_colors(tt, e.route, leg);
        if (e.trip != none) {
          auto tp = tt.trip_pattern[e.trip];
          leg.headsign = std::string{tt.headsign(tp, tt.trip_rank[e.trip])};
          if (auto at = positions_on_trip(tt, e.trip, l.from_stop, l.to_stop))
            leg.path = trip_path(tt, e.trip, at->first, at->second,
                                 max_leg_points);
        } else {
          leg.headsign = e.headsign;
        }
        if (leg.path.empty())
          leg.path = {leg.from.position, leg.to.position};
        if (e.trip != none)
          leg.trip_id = tt.name + ":" + tt.trips[e.trip].id;
        else
          leg.trip_id = tt.name + ":" + e.trip_id;
        leg.service_date = service_date_of(tt, e.day);
        leg.scheduled_start
          = origin + rt->scheduled[rt->call_of(e, l.board)].departure;
        leg.scheduled_end
          = origin + rt->scheduled[rt->call_of(e, l.alight)].arrival;
        leg.realtime_start = l.start;
        leg.realtime_end = l.end;
      } else if (l.transit) {
        const auto& p = tt.patterns[l.pattern];
        const auto& tr
          = tt.trips[tt.pattern_trips[p.trips_begin + l.trip_rank]];
        leg.transit = true;
        leg.mode = tt.routes[tr.route].mode;
        leg.line = std::string{tt.line_name(tr.route)};
        line_colors(tt, tr.route, leg);
        leg.path = trip_path(tt, tt.pattern_trips[p.trips_begin + l.trip_rank],
                             l.board, l.alight, max_leg_points);
        leg.headsign = std::string{tt.headsign(l.pattern, l.trip_rank)};
        leg.trip_id = tt.name + ":" + tr.id;
        if (auto day = day_of_origin(tt, p.zone, l.origin))
          leg.service_date = service_date_of(tt, *day);
      } else {
        leg.mode = transit_mode::walk;
        it.walk_distance += l.meters;
      }
      it.legs.push_back(std::move(leg));
    }
    answer.itineraries.push_back(std::move(it));
  }
  answer.fetched_ms = now_ms();
  return answer;
}

outcome<std::vector<uint32_t>> routes_named(const timetable& tt,
                                            const std::string& name) {
  std::vector<uint32_t> out;
  if (name.empty())
    return out;
  auto prefix = tt.name + ":";
  if (name.compare(0, prefix.size(), prefix) == 0) {
    if (auto r = tt.find_route(name.substr(prefix.size()))) {
      out.push_back(*r);
      return out;
    }
    return make_failure(ec::validation_error,
                        "route \"" + name + "\" is not a route of feed "
                          + tt.name,
                        "name a line as departures show it (e.g. \""
                          + std::string{tt.line_name(0)} + "\"), or give "
                          "a route id " + prefix + "route_id");
  }
  auto wanted = fold_name(name);
  for (uint32_t r = 0; r < tt.routes.size(); ++r)
    if (fold_name(tt.routes[r].short_name) == wanted
        || fold_name(tt.routes[r].long_name) == wanted)
      out.push_back(r);
  if (out.empty())
    return make_failure(ec::validation_error,
                        "feed " + tt.name + " has no line \"" + name + "\"",
                        "name a line as departures show it (e.g. \""
                          + std::string{tt.line_name(0)} + "\")");
  return out;
}

namespace {

const char* status_name(gtfs_rt::vehicle_status s) {
  switch (s) {
    case gtfs_rt::vehicle_status::incoming_at:
      return "incoming_at";
    case gtfs_rt::vehicle_status::stopped_at:
      return "stopped_at";
    case gtfs_rt::vehicle_status::in_transit_to:
      break;
  }
  return "in_transit_to";
}

} // namespace

vehicle_report report_of(const timetable& tt, const realtime_layer& layer,
                         const gtfs_rt::vehicle_position& v,
                         std::optional<uint32_t>* route_index) {
  // The trip, and its route, as the timetable knows them.
  std::optional<uint32_t> trip;
  std::optional<uint32_t> route;
  if (v.trip) {
    if (!v.trip->trip_id.empty())
      trip = tt.find_trip(v.trip->trip_id);
    if (trip)
      route = tt.trips[*trip].route;
    else if (!v.trip->route_id.empty())
      route = tt.find_route(v.trip->route_id);
  }
  vehicle_report out;
  out.vehicle_id = v.vehicle.id.empty() ? v.entity_id : v.vehicle.id;
  out.label = v.vehicle.label;
  if (route) {
    out.route_id = tt.name + ":" + tt.routes[*route].id;
    out.line = std::string{tt.line_name(*route)};
    out.mode = tt.routes[*route].mode;
  }
  uint32_t p = trip ? tt.trip_pattern[*trip] : none;
  if (trip) {
    out.trip_id = tt.trips[*trip].id;
    if (p != none)
      out.headsign = std::string{tt.headsign(p, tt.trip_rank[*trip])};
  } else if (v.trip) {
    out.trip_id = v.trip->trip_id;
  }
  if (v.lat && v.lon)
    out.position = {*v.lat, *v.lon};
  out.bearing = v.bearing;
  out.speed_mps = v.speed_mps;
  std::optional<uint32_t> stop;
  if (!v.stop_id.empty())
    stop = tt.find_stop(v.stop_id);
  else if (v.current_stop_sequence && p != none) {
    const auto& pat = tt.patterns[p];
    for (uint32_t i = 0; i < pat.stop_count; ++i)
      if (tt.pattern_stops[pat.stops_begin + i].sequence
          == *v.current_stop_sequence)
        stop = tt.pattern_stops[pat.stops_begin + i].stop;
  }
  if (stop) {
    out.stop_id = tt.name + ":" + tt.stops[*stop].id;
    out.stop_name = tt.stops[*stop].name;
  }
  out.status = status_name(v.status);
  out.timestamp = v.timestamp ? static_cast<int64_t>(std::min<uint64_t>(
                                  *v.timestamp, uint64_t{1} << 40))
                              : layer.newest;
  if (route_index)
    *route_index = route;
  return out;
}

outcome<vehicle_list> vehicles_of(const timetable& tt,
                                  const realtime_layer* rt,
                                  const vehicles_query& query) {
  if (rt != nullptr && rt->base.get() != &tt)
    rt = nullptr;
  auto routes = routes_named(tt, query.route);
  if (!routes)
    return routes.error();
  vehicle_list answer;
  answer.timezone = tt.zones.empty() ? std::string{} : tt.zones[0];
  if (rt == nullptr)
    return answer;
  answer.timestamp_ms = rt->newest * 1000;
  std::vector<std::vector<uint32_t>> by_route;
  for (const auto& v : rt->vehicles) {
    if (!v.lat || !v.lon)
      continue;
    coordinate at{*v.lat, *v.lon};
    std::optional<int32_t> distance;
    if (query.center) {
      auto d = distance_m(*query.center, at);
      if (d > query.radius)
        continue;
      distance = static_cast<int32_t>(std::lround(d));
    }
    std::optional<uint32_t> route;
    auto out = report_of(tt, *rt, v, &route);
    if (!routes->empty()
        && (!route
            || std::find(routes->begin(), routes->end(), *route)
                 == routes->end()))
      continue;
    out.distance = distance;
    answer.vehicles.push_back(std::move(out));
  }
  std::stable_sort(answer.vehicles.begin(), answer.vehicles.end(),
                   [](const vehicle_report& a, const vehicle_report& b) {
                     if (a.distance && b.distance && *a.distance != *b.distance)
                       return *a.distance < *b.distance;
                     if (a.line != b.line)
                       return a.line < b.line;
                     return a.vehicle_id < b.vehicle_id;
                   });
  return answer;
}

std::pair<std::string, std::string>
pick_translation(const gtfs_rt::translated& text, std::string_view language,
                 std::string_view fallback) {
  auto primary = [](std::string_view tag) {
    return tag.substr(0, tag.find('-'));
  };
  for (std::string_view wanted :
       {primary(language), primary(fallback), std::string_view{"en"}})
    for (const auto& [lang, value] : text)
      if (!lang.empty() && !wanted.empty()
          && lower_ascii(primary(lang)) == wanted)
        return {value, lang};
  for (const auto& [lang, value] : text)
    if (lang.empty())
      return {value, lang};
  if (!text.empty())
    return {text.front().second, text.front().first};
  return {};
}

outcome<alert_list> alerts_of(const timetable& tt, const realtime_layer* rt,
                              const alerts_query& query) {
  if (rt != nullptr && rt->base.get() != &tt)
    rt = nullptr;
  // What the alerts must be about: stops (the stop, its station and the
  // station's platforms) and routes (the route asked for, or those
  // calling at the stop).
  std::vector<uint32_t> stops;
  std::vector<uint32_t> routes;
  if (!query.stop_id.empty()) {
    auto s = resolve_stop(tt, query.stop_id);
    if (!s)
      return s.error();
    auto station = tt.stops[*s].parent != none ? tt.stops[*s].parent : *s;
    stops = tt.stop_and_children(station);
    for (auto stop : stops)
      for (auto c = tt.calls_begin[stop]; c < tt.calls_begin[stop + 1]; ++c) {
        const auto& p = tt.patterns[tt.calls[c].pattern];
        auto r = tt.trips[tt.pattern_trips[p.trips_begin]].route;
        if (std::find(routes.begin(), routes.end(), r) == routes.end())
          routes.push_back(r);
      }
  } else if (!query.route_id.empty()) {
    auto r = routes_named(tt, query.route_id);
    if (!r)
      return r.error();
    routes = std::move(*r);
  }
  // A trip: alerts naming it, and its route's (as for the route).
  std::optional<uint32_t> trip;
  if (!query.trip_id.empty()) {
    auto prefix = tt.name + ":";
    if (query.trip_id.compare(0, prefix.size(), prefix) == 0)
      trip = tt.find_trip(query.trip_id.substr(prefix.size()));
    if (!trip)
      return make_failure(ec::validation_error,
                          "trip \"" + query.trip_id
                            + "\" is not a trip of feed " + tt.name,
                          "trip ids here look like " + prefix
                            + tt.trips.front().id);
    routes.push_back(tt.trips[*trip].route);
  }
  bool everything = query.stop_id.empty() && query.route_id.empty()
                    && query.trip_id.empty();
  int64_t when = query.time;
  if (query.local_time && !tt.zones.empty()) // D22: the stop's zone
    when = local_to_epoch(when, stops.empty()
                                  ? tt.zones[0]
                                  : tt.zones[tt.stops[stops[0]].zone]);
  alert_list answer;
  answer.timezone = tt.zones.empty() ? std::string{} : tt.zones[0];
  answer.fetched_ms = rt ? rt->newest * 1000 : 0;
  if (rt == nullptr)
    return answer;
  auto has = [](const std::vector<uint32_t>& list, std::optional<uint32_t> x) {
    return x && std::find(list.begin(), list.end(), *x) != list.end();
  };
  for (const auto& a : rt->alerts) {
    bool active = a.active_periods.empty();
    for (const auto& period : a.active_periods)
      active = active
               || ((!period.start
                    || static_cast<int64_t>(*period.start) <= when)
                   && (!period.end
                       || when < static_cast<int64_t>(*period.end)));
    if (!active)
      continue;
    bool about = everything;
    service_alert out;
    out.id = a.entity_id;
    for (const auto& e : a.informed) {
      alert_subject subject;
      std::optional<uint32_t> stop;
      std::optional<uint32_t> route;
      if (!e.stop_id.empty())
        stop = tt.find_stop(e.stop_id);
      if (e.trip && !e.trip->trip_id.empty())
        if (auto t = tt.find_trip(e.trip->trip_id))
          route = tt.trips[*t].route;
      if (!route && !e.route_id.empty())
        route = tt.find_route(e.route_id);
      if (!route && e.trip && !e.trip->route_id.empty())
        route = tt.find_route(e.trip->route_id);
      if (!e.stop_id.empty()) {
        subject.type = "stop";
        subject.id = tt.name + ":" + e.stop_id;
        subject.name = stop ? tt.stops[*stop].name : std::string{};
      } else if (e.trip) {
        subject.type = "trip";
        subject.id = e.trip->trip_id;
        if (auto t = tt.find_trip(e.trip->trip_id))
          subject.name = std::string{tt.line_name(tt.trips[*t].route)} + " to "
                         + std::string{tt.headsign(tt.trip_pattern[*t],
                                                   tt.trip_rank[*t])};
      } else if (!e.route_id.empty()) {
        subject.type = "route";
        subject.id = tt.name + ":" + e.route_id;
        subject.name = route ? std::string{tt.line_name(*route)} : std::string{};
      } else if (e.route_type) {
        subject.type = "route-type";
        subject.id = std::to_string(*e.route_type);
      } else {
        subject.type = "agency";
        subject.id = e.agency_id;
      }
      // Stop alerts count for the stop; route and trip alerts for the
      // route (and for a stop the route calls at, unless they name
      // another stop); agency and mode alerts for everything asked.
      if (!everything) {
        std::optional<uint32_t> named_trip;
        if (e.trip && !e.trip->trip_id.empty())
          named_trip = tt.find_trip(e.trip->trip_id);
        if (stop)
          about = about || has(stops, stop);
        else if (trip && named_trip)
          about = about || *named_trip == *trip;
        else if (route)
          about = about || has(routes, route);
        else if (e.trip == std::nullopt && e.route_id.empty()
                 && e.stop_id.empty())
          about = true;
      }
      out.subjects.push_back(std::move(subject));
    }
    if (!about)
      continue;
    auto [header, language] = pick_translation(a.header, query.language, tt.language);
    out.header = std::move(header);
    out.language = std::move(language);
    out.description = pick_translation(a.description, query.language, tt.language).first;
    out.url = pick_translation(a.url, query.language, tt.language).first;
    out.cause = a.cause;
    out.effect = a.effect;
    out.severity = a.severity;
    for (const auto& period : a.active_periods)
      out.periods.push_back(
        {period.start ? std::optional<int64_t>{static_cast<int64_t>(
                          std::min<uint64_t>(*period.start, uint64_t{1} << 40))}
                      : std::nullopt,
         period.end ? std::optional<int64_t>{static_cast<int64_t>(
                        std::min<uint64_t>(*period.end, uint64_t{1} << 40))}
                    : std::nullopt});
    answer.alerts.push_back(std::move(out));
  }
  return answer;
}

} // namespace transitd::gtfs
