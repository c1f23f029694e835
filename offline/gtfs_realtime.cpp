#include "transitd/offline/gtfs_realtime.hpp"

#include <algorithm>
#include <limits>

namespace transitd::gtfs {

int32_t parse_clock_time(std::string_view text) {
  // H:MM:SS or HH:MM:SS, hours up to 99 (a day and more).
  auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 2
      || text.size() != colon + 6 || text[colon + 3] != ':')
    return -1;
  int32_t parts[3] = {0, 0, 0};
  std::string_view fields[3] = {text.substr(0, colon),
                                text.substr(colon + 1, 2),
                                text.substr(colon + 4, 2)};
  for (int i = 0; i < 3; ++i)
    for (char c : fields[i]) {
      if (c < '0' || c > '9')
        return -1;
      parts[i] = parts[i] * 10 + (c - '0');
    }
  if (parts[1] > 59 || parts[2] > 59)
    return -1;
  return parts[0] * 3600 + parts[1] * 60 + parts[2];
}

std::optional<int32_t> parse_service_date(std::string_view text) {
  if (text.size() != 8
      || !std::all_of(text.begin(), text.end(),
                      [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  auto number = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i)
      v = v * 10 + (text[i] - '0');
    return v;
  };
  int y = number(0, 4);
  unsigned m = static_cast<unsigned>(number(4, 2));
  unsigned d = static_cast<unsigned>(number(6, 2));
  if (m < 1 || m > 12 || d < 1 || d > 31)
    return std::nullopt;
  // Days since 1970-01-01 (Howard Hinnant's days_from_civil).
  y -= m <= 2;
  int era = (y >= 0 ? y : y - 399) / 400;
  auto yoe = static_cast<unsigned>(y - era * 400);
  unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  auto days = era * 146097 + static_cast<int>(doe) - 719468;
  // Day 31 of a short month, or February 29 of a common year, is not a
  // date.
  static constexpr unsigned month_days[] = {31, 29, 31, 30, 31, 30,
                                            31, 31, 30, 31, 30, 31};
  int year = number(0, 4);
  bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  if (d > month_days[m - 1] || (m == 2 && d == 29 && !leap))
    return std::nullopt;
  return days;
}

const rt_trip* realtime_layer::find(uint32_t trip, int32_t day) const {
  auto i = by_instance_.find(key(trip, day));
  return i == by_instance_.end() ? nullptr : &trips[i->second];
}

namespace {

struct instance {
  uint32_t trip = none;
  int32_t day = 0;
  int64_t origin = 0;
};

/// The day of `pattern`'s trip `rank` that `descriptor` means: its start
/// date, else the running day nearest to `now`.
std::optional<instance> day_of(const timetable& tt, uint32_t trip,
                               const gtfs_rt::trip_descriptor& descriptor,
                               int64_t now) {
  auto p = tt.trip_pattern[trip];
  if (p == none)
    return std::nullopt;
  const auto& pat = tt.patterns[p];
  auto rank = tt.trip_rank[trip];
  if (!descriptor.start_date.empty()) {
    auto date = parse_service_date(descriptor.start_date);
    if (!date)
      return std::nullopt;
    auto day = *date - tt.first_day;
    if (!tt.runs_on(pat.service, day))
      return std::nullopt;
    return instance{trip, day, tt.origin(pat.zone, day)};
  }
  std::optional<instance> best;
  int64_t best_distance = std::numeric_limits<int64_t>::max();
  for (const auto& d : tt.days_around(pat.zone, now)) {
    if (!tt.runs_on(pat.service, d.day))
      continue;
    auto from = d.origin + tt.time_at(pat, rank, 0).departure;
    auto to = d.origin + tt.time_at(pat, rank, pat.stop_count - 1).arrival;
    auto distance = now < from ? from - now : now > to ? now - to : 0;
    if (distance < best_distance) {
      best_distance = distance;
      best = instance{trip, d.day, d.origin};
    }
  }
  return best;
}

/// The timetable's trips a descriptor may name: by trip_id, a
/// frequencies.txt trip by trip_id and start time; without a trip_id (HSL
/// publishes none), every trip of the route, direction and start time
/// (`by_route`: each route's trips, built when first needed), of which the
/// caller takes the one running on the day meant.
std::vector<uint32_t>
find_trips(const timetable& tt, const gtfs_rt::trip_descriptor& d,
           std::vector<std::vector<uint32_t>>& by_route) {
  auto start = d.start_time.empty() ? -1 : parse_clock_time(d.start_time);
  if (!d.trip_id.empty()) {
    if (auto t = tt.find_trip(d.trip_id))
      return {*t};
    if (start >= 0)
      if (auto t = tt.find_trip(d.trip_id + "@" + std::to_string(start)))
        return {*t};
    return {};
  }
  auto route = tt.find_route(d.route_id);
  if (!route || start < 0)
    return {};
  if (by_route.empty()) {
    by_route.resize(tt.routes.size());
    for (uint32_t t = 0; t < tt.trips.size(); ++t)
      by_route[tt.trips[t].route].push_back(t);
  }
  std::vector<uint32_t> found;
  for (auto t : by_route[*route]) {
    if (d.direction_id && tt.trips[t].direction != *d.direction_id)
      continue;
    auto p = tt.trip_pattern[t];
    if (p != none
        && tt.time_at(tt.patterns[p], tt.trip_rank[t], 0).departure == start)
      found.push_back(t);
  }
  return found;
}

/// Times that never go back: a later call is not reached before the
/// vehicle left the one before, nor left before it is reached. Where a
/// prediction and the schedule disagree, the schedule yields: calls
/// without a prediction before a predicted one move earlier with it.
/// Between predictions, the later yields.
void make_monotone(std::vector<stop_time>& times,
                   const std::vector<gtfs_rt::call_status>& status) {
  for (auto i = times.size(); i-- > 1;) {
    if (status[i - 1] == gtfs_rt::call_status::predicted)
      continue;
    times[i - 1].departure = std::min(times[i - 1].departure, times[i].arrival);
    times[i - 1].arrival = std::min(times[i - 1].arrival,
                                    times[i - 1].departure);
  }
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (i > 0)
      times[i].arrival = std::max(times[i].arrival, times[i - 1].departure);
    times[i].departure = std::max(times[i].departure, times[i].arrival);
  }
}

/// The day an added trip starting at `first` (epoch seconds) runs on in
/// `zone`: its start date, else the latest day starting before it.
std::optional<instance> added_day(const timetable& tt, uint16_t zone,
                                  const gtfs_rt::trip_descriptor& d,
                                  int64_t first) {
  if (!d.start_date.empty()) {
    auto date = parse_service_date(d.start_date);
    if (!date)
      return std::nullopt;
    auto day = *date - tt.first_day;
    if (day < 0 || day >= tt.day_count)
      return std::nullopt;
    return instance{none, day, tt.origin(zone, day)};
  }
  std::optional<instance> best;
  for (const auto& day : tt.days_around(zone, first))
    if (day.origin <= first && (!best || day.origin > best->origin))
      best = instance{none, day.day, day.origin};
  return best;
}

} // namespace

std::shared_ptr<realtime_layer>
build_realtime(std::shared_ptr<const timetable> base,
               const std::vector<gtfs_rt::trip_update>& updates,
               int64_t now) {
  auto layer = std::make_shared<realtime_layer>();
  auto& out = *layer;
  const auto& tt = *base;
  out.base = std::move(base);
  out.first_pattern = static_cast<uint32_t>(tt.patterns.size());
  out.masked.assign(tt.patterns.size(), 0);
  out.counts.trip_updates = updates.size();
  std::vector<std::vector<uint32_t>> by_route;

  // Which update each trip instance keeps: the last one given.
  struct resolved {
    std::size_t update;
    instance at;
  };
  std::vector<resolved> scheduled_trips;
  std::unordered_map<uint64_t, std::size_t> last_of;
  std::vector<std::size_t> added;
  std::unordered_map<std::string, std::size_t> last_added;
  for (std::size_t u = 0; u < updates.size(); ++u) {
    const auto& d = updates[u].trip;
    if (d.relationship == gtfs_rt::trip_relationship::added
        || d.relationship == gtfs_rt::trip_relationship::new_trip) {
      auto [it, fresh] = last_added.emplace(d.trip_id, added.size());
      if (fresh)
        added.push_back(u);
      else
        added[it->second] = u;
      continue;
    }
    std::optional<instance> at;
    for (auto trip : find_trips(tt, d, by_route))
      if ((at = day_of(tt, trip, d, now)))
        break;
    if (!at) {
      ++out.counts.unmatched_trips;
      continue;
    }
    auto k = realtime_layer::key(at->trip, at->day);
    auto [it, fresh] = last_of.emplace(k, scheduled_trips.size());
    if (fresh)
      scheduled_trips.push_back({u, *at});
    else
      scheduled_trips[it->second] = {u, *at};
  }

  // Trips running in the layer, gathered first, then laid out in
  // patterns: by timetable pattern (none: an added trip), day and the
  // stops served, sorted by departure and split where one would overtake.
  struct running {
    uint32_t source_pattern;
    uint32_t entry; // into out.trips
    uint16_t zone;
    int32_t day;
    std::vector<pattern_stop> stops;
    std::vector<stop_time> times;
    std::vector<stop_time> planned;
    std::vector<gtfs_rt::call_status> status;
  };
  std::vector<running> runs;
  auto add_running = [&](running r) {
    make_monotone(r.times, r.status);
    for (std::size_t i = 0; i < r.times.size(); ++i)
      if (r.status[i] == gtfs_rt::call_status::predicted) {
        auto delay = r.times[i].departure - r.planned[i].departure;
        out.max_delay = std::max(out.max_delay, delay);
        out.max_advance = std::max(out.max_advance, -delay);
      }
    runs.push_back(std::move(r));
  };

  for (const auto& [u, at] : scheduled_trips) {
    const auto& update = updates[u];
    auto p_index = tt.trip_pattern[at.trip];
    const auto& pat = tt.patterns[p_index];
    auto rank = tt.trip_rank[at.trip];
    std::vector<gtfs_rt::scheduled_call> schedule;
    schedule.reserve(pat.stop_count);
    for (uint32_t i = 0; i < pat.stop_count; ++i) {
      const auto& ps = tt.pattern_stops[pat.stops_begin + i];
      const auto& st = tt.time_at(pat, rank, i);
      schedule.push_back(
        {ps.sequence, tt.stops[ps.stop].id, st.arrival, st.departure});
    }
    auto applied = gtfs_rt::apply(update, schedule, at.origin);
    out.counts.unmatched_stops += applied.unmatched;
    if (!applied.applicable) {
      ++out.counts.not_applied;
      continue;
    }
    ++out.counts.matched;
    rt_trip entry;
    entry.trip = at.trip;
    entry.route = tt.trips[at.trip].route;
    entry.day = at.day;
    entry.origin = at.origin;
    entry.trip_id = tt.trips[at.trip].id;
    entry.vehicle = update.vehicle.label.empty() ? update.vehicle.id
                                                 : update.vehicle.label;
    if (applied.cancelled) {
      ++out.counts.cancelled;
      entry.cancelled = true;
    } else {
      bool changed = std::any_of(
        applied.calls.begin(), applied.calls.end(), [](const auto& c) {
          return c.status != gtfs_rt::call_status::scheduled;
        });
      if (!changed)
        continue; // nothing predicted: the schedule stands
      std::vector<pattern_stop> stops(
        tt.pattern_stops.begin() + pat.stops_begin,
        tt.pattern_stops.begin() + pat.stops_begin + pat.stop_count);
      std::vector<stop_time> times, planned;
      std::vector<gtfs_rt::call_status> status;
      for (uint32_t i = 0; i < pat.stop_count; ++i) {
        const auto& c = applied.calls[i];
        if (c.status == gtfs_rt::call_status::skipped)
          stops[i].pickup = stops[i].drop_off = false;
        times.push_back({c.arrival, c.departure});
        planned.push_back(tt.time_at(pat, rank, i));
        status.push_back(c.status);
      }
      add_running({p_index, static_cast<uint32_t>(out.trips.size()),
                   pat.zone, at.day, std::move(stops), std::move(times),
                   std::move(planned), std::move(status)});
    }
    out.masked[p_index] = 1;
    out.by_instance_[realtime_layer::key(at.trip, at.day)]
      = static_cast<uint32_t>(out.trips.size());
    ++out.replaced_count_[realtime_layer::key(p_index, at.day)];
    out.trips.push_back(std::move(entry));
  }

  // Added trips, where the feed describes them fully: a known route and
  // at least two known stops with absolute times.
  for (auto u : added) {
    const auto& update = updates[u];
    auto route = tt.find_route(update.trip.route_id);
    struct given {
      uint32_t stop;
      uint32_t sequence;
      int64_t arrival;
      int64_t departure;
    };
    std::vector<given> calls;
    for (const auto& s : update.stops) {
      if (s.relationship == gtfs_rt::stop_relationship::skipped
          || s.relationship == gtfs_rt::stop_relationship::no_data)
        continue;
      auto stop = tt.find_stop(s.stop_id);
      auto time_of = [](const std::optional<gtfs_rt::stop_time_event>& e)
        -> std::optional<int64_t> {
        if (e && e->time)
          return *e->time;
        return std::nullopt;
      };
      auto a = time_of(s.arrival);
      auto d = time_of(s.departure);
      if (!stop || (!a && !d)) {
        ++out.counts.unmatched_stops;
        continue;
      }
      calls.push_back({*stop, s.stop_sequence.value_or(0), a ? *a : *d,
                       d ? *d : *a});
    }
    std::optional<instance> at;
    if (route && calls.size() >= 2)
      at = added_day(tt, tt.stops[calls[0].stop].zone, update.trip,
                     calls[0].departure);
    // Times within two days of the day's origin: anything else is no
    // trip anyone runs (and would not fit the router's seconds).
    bool sane = at.has_value();
    for (const auto& c : calls)
      sane = sane && c.arrival - at->origin >= 0
             && c.departure - at->origin < 2 * 86400;
    if (!sane) {
      ++out.counts.unmatched_trips;
      continue;
    }
    ++out.counts.added;
    rt_trip entry;
    entry.route = *route;
    entry.day = at->day;
    entry.origin = at->origin;
    entry.trip_id = update.trip.trip_id;
    entry.headsign = tt.stops[calls.back().stop].name;
    entry.vehicle = update.vehicle.label.empty() ? update.vehicle.id
                                                 : update.vehicle.label;
    std::vector<pattern_stop> stops;
    std::vector<stop_time> times;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      stops.push_back({calls[i].stop, i + 1 < calls.size(), i > 0,
                       calls[i].sequence});
      times.push_back(
        {static_cast<int32_t>(calls[i].arrival - at->origin),
         static_cast<int32_t>(calls[i].departure - at->origin)});
    }
    std::vector<gtfs_rt::call_status> status(
      calls.size(), gtfs_rt::call_status::predicted);
    auto planned = times;
    add_running({none, static_cast<uint32_t>(out.trips.size()),
                 tt.stops[calls[0].stop].zone, at->day, std::move(stops),
                 std::move(times), std::move(planned), std::move(status)});
    out.trips.push_back(std::move(entry));
  }

  // Patterns of the running trips.
  std::sort(runs.begin(), runs.end(), [](const running& a, const running& b) {
    if (a.source_pattern != b.source_pattern)
      return a.source_pattern < b.source_pattern;
    if (a.day != b.day)
      return a.day < b.day;
    return a.times[0].departure < b.times[0].departure;
  });
  auto same_stops = [](const running& a, const running& b) {
    if (a.source_pattern == none || a.source_pattern != b.source_pattern
        || a.day != b.day || a.stops.size() != b.stops.size())
      return false;
    for (std::size_t i = 0; i < a.stops.size(); ++i)
      if (a.stops[i].pickup != b.stops[i].pickup
          || a.stops[i].drop_off != b.stops[i].drop_off)
        return false;
    return true;
  };
  auto overtakes = [](const running& before, const running& after) {
    for (std::size_t k = 0; k < after.times.size(); ++k)
      if (after.times[k].arrival < before.times[k].arrival
          || after.times[k].departure < before.times[k].departure)
        return true;
    return false;
  };
  struct call_at {
    uint32_t stop;
    stop_call call;
  };
  std::vector<call_at> layer_calls;
  std::vector<bool> placed(runs.size(), false);
  for (std::size_t first = 0; first < runs.size(); ++first) {
    if (placed[first])
      continue;
    // One lane: from the earliest unplaced run, each next run of the same
    // group that does not overtake the last one taken.
    std::vector<std::size_t> lane{first};
    placed[first] = true;
    // (Sorted: a group's runs follow one another; an added trip's is a
    // group of one.)
    for (auto next = first + 1;
         next < runs.size() && runs[first].source_pattern != none
         && runs[next].source_pattern == runs[first].source_pattern
         && runs[next].day == runs[first].day;
         ++next)
      if (!placed[next] && same_stops(runs[first], runs[next])
          && !overtakes(runs[lane.back()], runs[next])) {
        lane.push_back(next);
        placed[next] = true;
      }
    const auto& head = runs[first];
    pattern p;
    p.stops_begin = static_cast<uint32_t>(out.pattern_stops.size());
    p.stop_count = static_cast<uint32_t>(head.stops.size());
    p.trips_begin = static_cast<uint32_t>(out.pattern_trips.size());
    p.trip_count = static_cast<uint32_t>(lane.size());
    p.times_begin = static_cast<uint32_t>(out.times.size());
    p.zone = head.zone;
    auto index = static_cast<uint32_t>(out.patterns.size());
    out.pattern_stops.insert(out.pattern_stops.end(), head.stops.begin(),
                             head.stops.end());
    for (uint32_t i = 0; i < head.stops.size(); ++i)
      layer_calls.push_back({head.stops[i].stop, {out.first_pattern + index, i}});
    for (uint32_t rank = 0; rank < lane.size(); ++rank) {
      auto& r = runs[lane[rank]];
      out.pattern_trips.push_back(r.entry);
      out.trips[r.entry].pattern = index;
      out.trips[r.entry].rank = rank;
      out.times.insert(out.times.end(), r.times.begin(), r.times.end());
      out.scheduled.insert(out.scheduled.end(), r.planned.begin(),
                           r.planned.end());
      out.status.insert(out.status.end(), r.status.begin(), r.status.end());
    }
    out.patterns.push_back(p);
    out.pattern_day.push_back(head.day);
  }

  // The layer's calls per stop.
  out.calls_begin.assign(tt.stops.size() + 1, 0);
  for (const auto& c : layer_calls)
    ++out.calls_begin[c.stop + 1];
  for (std::size_t s = 0; s < tt.stops.size(); ++s)
    out.calls_begin[s + 1] += out.calls_begin[s];
  out.calls.resize(layer_calls.size());
  auto fill = out.calls_begin;
  for (const auto& c : layer_calls)
    out.calls[fill[c.stop]++] = c.call;
  return layer;
}

} // namespace transitd::gtfs
