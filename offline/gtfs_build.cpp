// The builder's last steps, once every source is read: service days,
// trips into patterns, transfers over the generated footpaths.

#include "transitd/offline/gtfs_builder.hpp"

#include <numeric>

#include <date/date.h>
#include <date/tz.h>

namespace transitd::gtfs::detail {

namespace {

/// Fills times a feed leaves empty between timepoints, in proportion to
/// the stops passed.
bool interpolate(std::vector<raw_stop_time>::iterator begin,
                 std::vector<raw_stop_time>::iterator end) {
  if (begin == end || begin->departure < 0 || std::prev(end)->arrival < 0)
    return false;
  auto last = begin;
  for (auto it = std::next(begin); it != end; ++it) {
    if (it->arrival < 0)
      continue;
    auto gap = std::distance(last, it);
    for (auto k = 1; k < gap; ++k) {
      auto t = last->departure
               + static_cast<int32_t>(
                 int64_t{it->arrival - last->departure} * k / gap);
      std::next(last, k)->arrival = t;
      std::next(last, k)->departure = t;
    }
    last = it;
  }
  return true;
}

/// The distance along a Hilbert curve filling a 2^16 square of (x, y):
/// points near one another on the curve are near in the square.
uint64_t hilbert_distance(uint32_t x, uint32_t y) {
  constexpr uint32_t side = 1u << 16;
  uint64_t d = 0;
  for (uint32_t half = side / 2; half > 0; half /= 2) {
    uint32_t rx = (x & half) != 0 ? 1 : 0;
    uint32_t ry = (y & half) != 0 ? 1 : 0;
    d += static_cast<uint64_t>(half) * half * ((3 * rx) ^ ry);
    // The quadrant turned so that the curve inside it runs the same way.
    if (ry == 0) {
      if (rx == 1) {
        x = side - 1 - x;
        y = side - 1 - y;
      }
      std::swap(x, y);
    }
  }
  return d;
}

} // namespace

void builder::renumber_stops() {
  auto& tt = *out;
  const auto n = tt.stops.size();
  double min_lat = 90, max_lat = -90, min_lon = 180, max_lon = -180;
  for (const auto& s : tt.stops) {
    min_lat = std::min(min_lat, s.position.lat);
    max_lat = std::max(max_lat, s.position.lat);
    min_lon = std::min(min_lon, s.position.lon);
    max_lon = std::max(max_lon, s.position.lon);
  }
  auto cell = [](double v, double lo, double hi) {
    if (!(hi > lo))
      return 0u;
    auto c = (v - lo) / (hi - lo) * 65535.0;
    return static_cast<uint32_t>(std::clamp(c, 0.0, 65535.0));
  };
  std::vector<std::pair<uint64_t, uint32_t>> order(n);
  for (uint32_t s = 0; s < n; ++s) {
    const auto& p = tt.stops[s].position;
    order[s] = {hilbert_distance(cell(p.lon, min_lon, max_lon),
                                 cell(p.lat, min_lat, max_lat)),
                s};
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint32_t> renamed(n);
  for (uint32_t k = 0; k < n; ++k)
    renamed[order[k].second] = k;
  std::vector<stop> stops(n);
  for (uint32_t k = 0; k < n; ++k) {
    stops[k] = std::move(tt.stops[order[k].second]);
    if (stops[k].parent != none)
      stops[k].parent = renamed[stops[k].parent];
  }
  tt.stops = std::move(stops);
  for (auto& st : stop_times)
    st.stop = renamed[st.stop];
  for (auto& t : transfers) {
    t.from = renamed[t.from];
    t.to = renamed[t.to];
  }
  for (auto& [id, s] : stop_ids)
    s = renamed[s];
}

std::optional<failure> builder::finish() {
  auto& tt = *out;
  tt.name = name;
  if (tt.stops.empty())
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " has no usable stops" + skipped_note(),
                        "fix or replace the feed");
  if (auto bad = build_days())
    return bad;
  renumber_stops();
  shape_set shapes;
  if (auto bad = build_trips(shapes))
    return bad;
  if (cancelled())
    return cancelled_failure();
  build_patterns(shapes);
  stop_times.clear();
  stop_times.shrink_to_fit();
  auto overrides = transfer_overrides();
  if (cancelled())
    return cancelled_failure();
  tt.finish(options.footpath_radius);
  apply_transfers(overrides);
  tt.index_hops();
  report.stops = tt.stops.size();
  report.routes = tt.routes.size();
  report.trips = tt.trips.size();
  report.patterns = tt.patterns.size();
  report.footpaths = tt.out.size();
  if (tt.patterns.empty())
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " has no trip with two stop times" + skipped_note(),
                        "fix or replace the feed");
  return std::nullopt;
}

std::optional<failure> builder::build_days() {
  auto& tt = *out;
  // Service days: the calendars' range, cut at max_days.
  if (min_day > max_day)
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " has no day of service" + skipped_note(),
                        "fix or replace the feed");
  if (max_day - min_day + 1 > options.max_days) {
    // Anchored at the day asked for (today), else at the earliest: a stale
    // calendar row of 2010 must not push 2026's service out of range.
    if (options.anchor_day != 0)
      min_day = std::clamp(options.anchor_day, min_day,
                           std::max(min_day, max_day - options.max_days + 1));
    max_day = std::min(max_day, min_day + options.max_days - 1);
    report.window_cut = true;
    report.anchor_day = options.anchor_day;
  }
  tt.first_day = min_day;
  tt.day_count = max_day - min_day + 1;
  uint32_t services = 0;
  for (auto& c : calendars)
    services = std::max(services, c.service + 1);
  for (auto& e : exceptions)
    services = std::max(services, std::get<0>(e) + 1);
  tt.runs.assign(static_cast<std::size_t>(services) * tt.day_count, 0);
  for (auto& c : calendars) {
    for (auto d = std::max(c.start, min_day); d <= std::min(c.end, max_day);
         ++d) {
      // 1970-01-01 was a Thursday (Monday = 0 → Thursday = 3).
      auto weekday = ((d % 7) + 7 + 3) % 7;
      if (c.weekdays & (1u << weekday))
        tt.runs[static_cast<std::size_t>(c.service) * tt.day_count
                + (d - min_day)] = 1;
    }
  }
  for (auto& [service, day, added] : exceptions)
    if (day >= min_day && day <= max_day)
      tt.runs[static_cast<std::size_t>(service) * tt.day_count
              + (day - min_day)] = added ? 1 : 0;
  if (report.first_day.empty())
    report.first_day = date::format("%F", date::sys_days{date::days{min_day}});
  if (report.last_day.empty())
    report.last_day = date::format("%F", date::sys_days{date::days{max_day}});
  // Day origins per zone: noon minus 12 hours, local (GTFS's definition).
  tt.day_origins.resize(tt.zones.size());
  for (std::size_t z = 0; z < tt.zones.size(); ++z) {
    const auto* tz = date::locate_zone(tt.zones[z]);
    auto& origins = tt.day_origins[z];
    for (auto d = min_day - 1; d <= max_day + 1; ++d) {
      auto noon = date::local_seconds{date::days{d}} + std::chrono::hours{12};
      auto utc = tz->to_sys(noon, date::choose::earliest);
      origins.push_back(utc.time_since_epoch().count() - 12 * 3600);
    }
  }
  return std::nullopt;
}

std::vector<std::pair<std::size_t, std::size_t>> builder::trip_ranges() {
  std::sort(stop_times.begin(), stop_times.end(),
            [](const raw_stop_time& a, const raw_stop_time& b) {
              return a.trip != b.trip ? a.trip < b.trip
                                      : a.sequence < b.sequence;
            });
  std::vector<std::pair<std::size_t, std::size_t>> ranges(out->trips.size(),
                                                          {0, 0});
  for (std::size_t i = 0; i < stop_times.size();) {
    auto j = i;
    while (j < stop_times.size() && stop_times[j].trip == stop_times[i].trip)
      ++j;
    ranges[stop_times[i].trip] = {i, j};
    i = j;
  }
  return ranges;
}

bool builder::usable_trip(uint32_t trip, raw_times begin, raw_times end) {
  auto skip = [&](const char* why) {
    ++report.skipped_rows;
    if (report.samples.size() < 10)
      report.samples.push_back("stop_times.txt: trip " + out->trips[trip].id
                               + " " + why);
    return false;
  };
  if (!interpolate(begin, end))
    return skip("has no time at its first or last stop");
  for (auto it = begin; it != end; ++it)
    if (it->departure < it->arrival
        || (it != begin && it->arrival < std::prev(it)->departure))
      return skip("goes back in time");
  return true;
}

void builder::add_trip(shape_set& shapes, uint32_t trip_index,
                       raw_times begin, raw_times end, int32_t shift) {
  auto& tt = *out;
  std::string key;
  std::vector<pattern_stop> ps;
  std::vector<stop_time> ts;
  for (auto it = begin; it != end; ++it) {
    ps.push_back({it->stop, it->pickup, it->drop_off, it->sequence});
    ts.push_back({it->arrival + shift, it->departure + shift});
    uint32_t k = it->stop * 4 + (it->pickup ? 1 : 0) + (it->drop_off ? 2 : 0);
    key.append(reinterpret_cast<const char*>(&k), sizeof k);
    // Realtime updates name calls by sequence: one per pattern stop.
    key.append(reinterpret_cast<const char*>(&it->sequence),
               sizeof it->sequence);
  }
  auto zone_of = trip_zones[trip_index];
  key.append(reinterpret_cast<const char*>(&zone_of), sizeof zone_of);
  // One service per pattern: whether it runs on a day is one lookup,
  // and every trip a binary search finds runs.
  auto service = tt.trips[trip_index].service;
  key.append(reinterpret_cast<const char*>(&service), sizeof service);
  auto [it, added] = shapes.index.emplace(key, shapes.list.size());
  if (added)
    shapes.list.push_back({std::move(ps), {}});
  shapes.list[it->second].trips.emplace_back(trip_index, std::move(ts));
}

std::optional<failure> builder::build_trips(shape_set& shapes) {
  auto ranges = trip_ranges();
  std::vector<char> is_frequency(out->trips.size(), 0);
  for (auto& f : frequencies)
    is_frequency[f.trip] = 1;
  std::stable_sort(frequencies.begin(), frequencies.end(),
                   [](const frequency& a, const frequency& b) {
                     return a.trip < b.trip;
                   });
  std::size_t used = 0;
  for (uint32_t tr = 0; tr < ranges.size(); ++tr) {
    auto [b, e] = ranges[tr];
    if (e - b < 2) {
      if (e > b) {
        ++report.skipped_rows;
        if (report.samples.size() < 10)
          report.samples.push_back("stop_times.txt: trip " + out->trips[tr].id
                                   + " calls at one stop only");
      }
      continue; // a trip needs two calls
    }
    auto begin = stop_times.begin() + static_cast<std::ptrdiff_t>(b);
    auto end = stop_times.begin() + static_cast<std::ptrdiff_t>(e);
    if (!usable_trip(tr, begin, end))
      continue;
    used += e - b;
    if (!is_frequency[tr]) {
      add_trip(shapes, tr, begin, end, 0);
      continue;
    }
    if (auto bad = expand_frequencies(shapes, tr, begin, end))
      return bad;
  }
  report.stop_times = used;
  return std::nullopt;
}

std::optional<failure> builder::expand_frequencies(shape_set& shapes,
                                                   uint32_t tr,
                                                   raw_times begin,
                                                   raw_times end) {
  auto& tt = *out;
  auto [first_row, last_row] = std::equal_range(
    frequencies.begin(), frequencies.end(), frequency{tr, 0, 0, 0},
    [](const frequency& a, const frequency& b) { return a.trip < b.trip; });
  for (auto f = first_row; f != last_row; ++f) {
    for (auto start = f->start; start < f->end; start += f->headway) {
      if (report.frequency_trips >= max_frequency_trips)
        throw std::length_error(
          "frequencies.txt expands into more than "
          + std::to_string(max_frequency_trips) + " trips");
      auto copy = tt.trips[tr];
      copy.id += "@" + std::to_string(start);
      auto index = static_cast<uint32_t>(tt.trips.size());
      tt.trips.push_back(std::move(copy));
      trip_zones.push_back(trip_zones[tr]);
      add_trip(shapes, index, begin, end, start - begin->departure);
      if (cancelled())
        return cancelled_failure();
      ++report.frequency_trips;
    }
  }
  return std::nullopt;
}

void builder::build_patterns(shape_set& shapes) {
  auto& tt = *out;
  // Each shape's trips sorted, then split so none overtakes.
  for (auto& sh : shapes.list) {
    std::sort(sh.trips.begin(), sh.trips.end(),
              [](const auto& a, const auto& b) {
                return a.second[0].departure < b.second[0].departure;
              });
    std::vector<std::vector<std::size_t>> lanes;
    for (std::size_t i = 0; i < sh.trips.size(); ++i) {
      bool placed = false;
      for (auto& lane : lanes) {
        const auto& prev = sh.trips[lane.back()].second;
        const auto& cur = sh.trips[i].second;
        bool fifo = true;
        for (std::size_t k = 0; k < cur.size() && fifo; ++k)
          fifo = prev[k].arrival <= cur[k].arrival
                 && prev[k].departure <= cur[k].departure;
        if (fifo) {
          lane.push_back(i);
          placed = true;
          break;
        }
      }
      if (!placed)
        lanes.push_back({i});
    }
    for (auto& lane : lanes) {
      pattern p;
      p.stops_begin = static_cast<uint32_t>(tt.pattern_stops.size());
      p.stop_count = static_cast<uint32_t>(sh.stops.size());
      p.trips_begin = static_cast<uint32_t>(tt.pattern_trips.size());
      p.trip_count = static_cast<uint32_t>(lane.size());
      p.times_begin = static_cast<uint32_t>(tt.times.size());
      p.zone = trip_zones[sh.trips[lane[0]].first];
      p.service = tt.trips[sh.trips[lane[0]].first].service;
      tt.pattern_stops.insert(tt.pattern_stops.end(), sh.stops.begin(),
                              sh.stops.end());
      for (auto i : lane) {
        tt.pattern_trips.push_back(sh.trips[i].first);
        tt.times.insert(tt.times.end(), sh.trips[i].second.begin(),
                        sh.trips[i].second.end());
      }
      tt.patterns.push_back(p);
    }
  }
}

builder::transfer_map builder::transfer_overrides() {
  const auto& tt = *out;
  transfer_map overrides;
  std::vector<std::vector<uint32_t>> kids(tt.stops.size());
  for (uint32_t s = 0; s < tt.stops.size(); ++s)
    if (tt.stops[s].parent != none)
      kids[tt.stops[s].parent].push_back(s);
  auto expand = [&](uint32_t s) {
    std::vector<uint32_t> all{s};
    all.insert(all.end(), kids[s].begin(), kids[s].end());
    return all;
  };
  // Station-level entries first, so a stop-level entry wins.
  std::stable_sort(transfers.begin(), transfers.end(),
                   [&](const raw_transfer& a, const raw_transfer& b) {
                     return (kids[a.from].empty() && kids[a.to].empty())
                            < (kids[b.from].empty() && kids[b.to].empty());
                   });
  for (auto& x : transfers)
    for (auto a : expand(x.from))
      for (auto b : expand(x.to)) {
        if (x.type == 3)
          overrides[{a, b}] = std::nullopt; // not possible
        else if (x.type == 2 || x.seconds > 0)
          overrides[{a, b}] = x.seconds;
        else
          overrides[{a, b}] = walk_time; // type 0/1: as long as the walk
      }
  return overrides;
}

void builder::apply_transfers(const transfer_map& overrides) {
  auto& tt = *out;
  // The overrides applied to the generated footpaths, then the lists
  // out of and into each stop rebuilt.
  tt.change_seconds.assign(tt.stops.size(), 0);
  std::vector<std::vector<footpath>> outs(tt.stops.size());
  for (uint32_t s = 0; s < tt.stops.size(); ++s)
    for (auto i = tt.out_begin[s]; i < tt.out_begin[s + 1]; ++i)
      outs[s].push_back(tt.out[i]);
  for (auto& [pair, seconds] : overrides) {
    auto [a, b] = pair;
    if (!tt.routable(a) || !tt.routable(b))
      continue;
    if (a == b) {
      if (seconds && *seconds != walk_time)
        tt.change_seconds[a] = *seconds;
      continue;
    }
    auto& list = outs[a];
    auto it = std::find_if(list.begin(), list.end(),
                           [b = b](const footpath& f) { return f.stop == b; });
    if (!seconds) {
      if (it != list.end())
        list.erase(it);
      continue;
    }
    auto meters = static_cast<int32_t>(
      std::lround(distance_m(tt.stops[a].position, tt.stops[b].position)));
    auto time = *seconds == walk_time ? walk_seconds(meters) : *seconds;
    if (it == list.end())
      it = list.insert(list.end(), footpath{b, time, meters});
    *it = footpath{b, *seconds != walk_time ? time : it->seconds, meters,
                   true};
  }
  // Each stop's footpaths shortest first: RAPTOR stops relaxing them at
  // the first that cannot beat the best arrival at the destination.
  auto shortest_first = [](std::vector<footpath>& list) {
    std::sort(list.begin(), list.end(),
              [](const footpath& a, const footpath& b) {
                return a.seconds != b.seconds ? a.seconds < b.seconds
                                              : a.stop < b.stop;
              });
  };
  tt.out.clear();
  tt.out_begin.assign(1, 0);
  std::vector<std::vector<footpath>> ins(tt.stops.size());
  for (auto& list : outs)
    shortest_first(list);
  for (uint32_t s = 0; s < tt.stops.size(); ++s) {
    for (auto& f : outs[s]) {
      tt.out.push_back(f);
      ins[f.stop].push_back(footpath{s, f.seconds, f.meters, f.listed != 0});
    }
    tt.out_begin.push_back(static_cast<uint32_t>(tt.out.size()));
  }
  tt.in.clear();
  tt.in_begin.assign(1, 0);
  for (uint32_t s = 0; s < tt.stops.size(); ++s) {
    shortest_first(ins[s]);
    tt.in.insert(tt.in.end(), ins[s].begin(), ins[s].end());
    tt.in_begin.push_back(static_cast<uint32_t>(tt.in.size()));
  }
}

} // namespace transitd::gtfs::detail
