#include "transitd/offline/gtfs_realtime.hpp"

#include <algorithm>
#include <atomic>
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

/// A trip on a service day: the trip (none: an added trip), the day and
/// its origin.
struct instance {
  uint32_t trip = none;
  int32_t day = 0;
  int64_t origin = 0;
};

namespace {

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

/// Builds one realtime layer, step by step: the updates matched to trip
/// instances, applied, added trips taken, and the running trips laid out
/// in patterns of the layer.
class layer_builder {
public:
  layer_builder(std::shared_ptr<const timetable> base,
                const std::vector<gtfs_rt::trip_update>& updates, int64_t now)
    : layer_(std::make_shared<realtime_layer>()),
      out_(*layer_),
      tt_(*base),
      updates_(updates),
      now_(now) {
    out_.base = std::move(base);
    out_.first_pattern = static_cast<uint32_t>(tt_.patterns.size());
    out_.masked.assign(tt_.patterns.size(), 0);
    out_.counts.trip_updates = updates.size();
  }

  std::shared_ptr<realtime_layer> build() {
    resolve();
    runs_.reserve(scheduled_trips_.size() + added_.size());
    for (const auto& [u, at] : scheduled_trips_)
      take_scheduled(updates_[u], at);
    for (auto u : added_)
      take_added(updates_[u]);
    lay_out_patterns();
    index_calls();
    out_.least = least_hops(tt_.stops.size(), out_.patterns.data(),
                            out_.patterns.size(), out_.pattern_stops.data(),
                            out_.times.data());
    static std::atomic<uint64_t> serials{0};
    out_.serial = ++serials;
    return layer_;
  }

private:
  /// Which update each trip instance keeps: the last one given.
  struct resolved {
    std::size_t update;
    instance at;
  };
  /// A trip running in the layer, before it has a pattern: its timetable
  /// pattern (none: an added trip), day and the stops it serves.
  struct running {
    uint32_t source_pattern;
    uint32_t entry; // into out_.trips
    uint16_t zone;
    int32_t day;
    std::vector<pattern_stop> stops;
    std::vector<stop_time> times;
    std::vector<stop_time> planned;
    std::vector<gtfs_rt::call_status> status;
  };
  /// A call of an added trip, as the feed gives it.
  struct given {
    uint32_t stop;
    uint32_t sequence;
    int64_t arrival;
    int64_t departure;
  };
  struct call_at {
    uint32_t stop;
    stop_call call;
  };

  void resolve();
  void take_scheduled(const gtfs_rt::trip_update& update, const instance& at);
  void take_added(const gtfs_rt::trip_update& update);
  std::vector<given> added_calls(const gtfs_rt::trip_update& update);
  void add_running(running r);
  void lay_out_patterns();
  /// From the earliest unplaced run, each next run of the same group that
  /// does not overtake the last one taken.
  std::vector<std::size_t> lane_from(std::size_t first,
                                     std::vector<bool>& placed) const;
  void add_pattern(const std::vector<std::size_t>& lane);
  void index_calls();

  std::shared_ptr<realtime_layer> layer_;
  realtime_layer& out_;
  const timetable& tt_;
  const std::vector<gtfs_rt::trip_update>& updates_;
  int64_t now_;
  std::vector<std::vector<uint32_t>> by_route_;
  std::vector<resolved> scheduled_trips_;
  std::vector<std::size_t> added_;
  std::vector<running> runs_;
  std::vector<call_at> layer_calls_;
};

void layer_builder::resolve() {
  std::unordered_map<uint64_t, std::size_t> last_of;
  std::unordered_map<std::string, std::size_t> last_added;
  for (std::size_t u = 0; u < updates_.size(); ++u) {
    const auto& d = updates_[u].trip;
    if (d.relationship == gtfs_rt::trip_relationship::added
        || d.relationship == gtfs_rt::trip_relationship::new_trip) {
      auto [it, fresh] = last_added.emplace(d.trip_id, added_.size());
      if (fresh)
        added_.push_back(u);
      else
        added_[it->second] = u;
      continue;
    }
    std::optional<instance> at;
    for (auto trip : find_trips(tt_, d, by_route_))
      if ((at = day_of(tt_, trip, d, now_)))
        break;
    if (!at) {
      ++out_.counts.unmatched_trips;
      continue;
    }
    auto k = realtime_layer::key(at->trip, at->day);
    auto [it, fresh] = last_of.emplace(k, scheduled_trips_.size());
    if (fresh)
      scheduled_trips_.push_back({u, *at});
    else
      scheduled_trips_[it->second] = {u, *at};
  }
}

void layer_builder::add_running(running r) {
  make_monotone(r.times, r.status);
  for (std::size_t i = 0; i < r.times.size(); ++i)
    if (r.status[i] == gtfs_rt::call_status::predicted) {
      auto delay = r.times[i].departure - r.planned[i].departure;
      out_.max_delay = std::max(out_.max_delay, delay);
      out_.max_advance = std::max(out_.max_advance, -delay);
    }
  runs_.push_back(std::move(r));
}

void layer_builder::take_scheduled(const gtfs_rt::trip_update& update,
                                   const instance& at) {
  auto p_index = tt_.trip_pattern[at.trip];
  const auto& pat = tt_.patterns[p_index];
  auto rank = tt_.trip_rank[at.trip];
  std::vector<gtfs_rt::scheduled_call> schedule;
  schedule.reserve(pat.stop_count);
  for (uint32_t i = 0; i < pat.stop_count; ++i) {
    const auto& ps = tt_.pattern_stops[pat.stops_begin + i];
    const auto& st = tt_.time_at(pat, rank, i);
    schedule.push_back(
      {ps.sequence, tt_.stops[ps.stop].id, st.arrival, st.departure});
  }
  auto applied = gtfs_rt::apply(update, schedule, at.origin);
  out_.counts.unmatched_stops += applied.unmatched;
  if (!applied.applicable) {
    ++out_.counts.not_applied;
    return;
  }
  ++out_.counts.matched;
  rt_trip entry;
  entry.trip = at.trip;
  entry.route = tt_.trips[at.trip].route;
  entry.day = at.day;
  entry.origin = at.origin;
  entry.trip_id = tt_.trips[at.trip].id;
  entry.vehicle = update.vehicle.label.empty() ? update.vehicle.id
                                               : update.vehicle.label;
  if (applied.cancelled) {
    ++out_.counts.cancelled;
    entry.cancelled = true;
  } else {
    if (std::none_of(applied.calls.begin(), applied.calls.end(),
                     [](const auto& c) {
                       return c.status != gtfs_rt::call_status::scheduled;
                     }))
      return; // nothing predicted: the schedule stands
    running r{p_index, static_cast<uint32_t>(out_.trips.size()), pat.zone,
              at.day, {}, {}, {}, {}};
    r.stops.assign(tt_.pattern_stops.begin() + pat.stops_begin,
                   tt_.pattern_stops.begin() + pat.stops_begin
                     + pat.stop_count);
    r.times.reserve(pat.stop_count);
    r.planned.reserve(pat.stop_count);
    r.status.reserve(pat.stop_count);
    for (uint32_t i = 0; i < pat.stop_count; ++i) {
      const auto& c = applied.calls[i];
      if (c.status == gtfs_rt::call_status::skipped)
        r.stops[i].pickup = r.stops[i].drop_off = false;
      r.times.push_back({c.arrival, c.departure});
      r.planned.push_back(tt_.time_at(pat, rank, i));
      r.status.push_back(c.status);
    }
    add_running(std::move(r));
  }
  out_.masked[p_index] = 1;
  out_.by_instance_[realtime_layer::key(at.trip, at.day)]
    = static_cast<uint32_t>(out_.trips.size());
  ++out_.replaced_count_[realtime_layer::key(p_index, at.day)];
  out_.trips.push_back(std::move(entry));
}

std::vector<layer_builder::given>
layer_builder::added_calls(const gtfs_rt::trip_update& update) {
  auto time_of = [](const std::optional<gtfs_rt::stop_time_event>& e)
    -> std::optional<int64_t> {
    if (e && e->time)
      return *e->time;
    return std::nullopt;
  };
  std::vector<given> calls;
  for (const auto& s : update.stops) {
    if (s.relationship == gtfs_rt::stop_relationship::skipped
        || s.relationship == gtfs_rt::stop_relationship::no_data)
      continue;
    auto stop = tt_.find_stop(s.stop_id);
    auto a = time_of(s.arrival);
    auto d = time_of(s.departure);
    if (!stop || (!a && !d)) {
      ++out_.counts.unmatched_stops;
      continue;
    }
    calls.push_back({*stop, s.stop_sequence.value_or(0), a ? *a : *d,
                     d ? *d : *a});
  }
  return calls;
}

void layer_builder::take_added(const gtfs_rt::trip_update& update) {
  // Taken where the feed describes it fully: a known route and at least
  // two known stops with absolute times.
  auto route = tt_.find_route(update.trip.route_id);
  auto calls = added_calls(update);
  std::optional<instance> at;
  if (route && calls.size() >= 2)
    at = added_day(tt_, tt_.stops[calls[0].stop].zone, update.trip,
                   calls[0].departure);
  // Times within two days of the day's origin: anything else is no trip
  // anyone runs (and would not fit the router's seconds).
  bool sane = at.has_value();
  for (const auto& c : calls)
    sane = sane && c.arrival - at->origin >= 0
           && c.departure - at->origin < 2 * 86400;
  if (!sane) {
    ++out_.counts.unmatched_trips;
    return;
  }
  ++out_.counts.added;
  rt_trip entry;
  entry.route = *route;
  entry.day = at->day;
  entry.origin = at->origin;
  entry.trip_id = update.trip.trip_id;
  entry.headsign = tt_.stops[calls.back().stop].name;
  entry.vehicle = update.vehicle.label.empty() ? update.vehicle.id
                                               : update.vehicle.label;
  running r{none, static_cast<uint32_t>(out_.trips.size()),
            tt_.stops[calls[0].stop].zone, at->day, {}, {}, {}, {}};
  for (std::size_t i = 0; i < calls.size(); ++i) {
    r.stops.push_back({calls[i].stop, i + 1 < calls.size(), i > 0,
                       calls[i].sequence});
    r.times.push_back(
      {static_cast<int32_t>(calls[i].arrival - at->origin),
       static_cast<int32_t>(calls[i].departure - at->origin)});
  }
  r.status.assign(calls.size(), gtfs_rt::call_status::predicted);
  r.planned = r.times;
  add_running(std::move(r));
  out_.trips.push_back(std::move(entry));
}

void layer_builder::lay_out_patterns() {
  std::sort(runs_.begin(), runs_.end(),
            [](const running& a, const running& b) {
              if (a.source_pattern != b.source_pattern)
                return a.source_pattern < b.source_pattern;
              if (a.day != b.day)
                return a.day < b.day;
              return a.times[0].departure < b.times[0].departure;
            });
  std::vector<bool> placed(runs_.size(), false);
  for (std::size_t first = 0; first < runs_.size(); ++first)
    if (!placed[first])
      add_pattern(lane_from(first, placed));
}

std::vector<std::size_t>
layer_builder::lane_from(std::size_t first, std::vector<bool>& placed) const {
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
  std::vector<std::size_t> lane{first};
  placed[first] = true;
  // (Sorted: a group's runs follow one another; an added trip's is a group
  // of one.)
  for (auto next = first + 1;
       next < runs_.size() && runs_[first].source_pattern != none
       && runs_[next].source_pattern == runs_[first].source_pattern
       && runs_[next].day == runs_[first].day;
       ++next)
    if (!placed[next] && same_stops(runs_[first], runs_[next])
        && !overtakes(runs_[lane.back()], runs_[next])) {
      lane.push_back(next);
      placed[next] = true;
    }
  return lane;
}

void layer_builder::add_pattern(const std::vector<std::size_t>& lane) {
  const auto& head = runs_[lane.front()];
  pattern p;
  p.stops_begin = static_cast<uint32_t>(out_.pattern_stops.size());
  p.stop_count = static_cast<uint32_t>(head.stops.size());
  p.trips_begin = static_cast<uint32_t>(out_.pattern_trips.size());
  p.trip_count = static_cast<uint32_t>(lane.size());
  p.times_begin = static_cast<uint32_t>(out_.times.size());
  p.zone = head.zone;
  auto index = static_cast<uint32_t>(out_.patterns.size());
  out_.pattern_stops.insert(out_.pattern_stops.end(), head.stops.begin(),
                            head.stops.end());
  for (uint32_t i = 0; i < head.stops.size(); ++i)
    layer_calls_.push_back(
      {head.stops[i].stop, {out_.first_pattern + index, i}});
  for (uint32_t rank = 0; rank < lane.size(); ++rank) {
    auto& r = runs_[lane[rank]];
    out_.pattern_trips.push_back(r.entry);
    out_.trips[r.entry].pattern = index;
    out_.trips[r.entry].rank = rank;
    out_.times.insert(out_.times.end(), r.times.begin(), r.times.end());
    out_.scheduled.insert(out_.scheduled.end(), r.planned.begin(),
                          r.planned.end());
    out_.status.insert(out_.status.end(), r.status.begin(), r.status.end());
  }
  out_.patterns.push_back(p);
  out_.pattern_day.push_back(head.day);
}

void layer_builder::index_calls() {
  out_.calls_begin.assign(tt_.stops.size() + 1, 0);
  for (const auto& c : layer_calls_)
    ++out_.calls_begin[c.stop + 1];
  for (std::size_t s = 0; s < tt_.stops.size(); ++s)
    out_.calls_begin[s + 1] += out_.calls_begin[s];
  out_.calls.resize(layer_calls_.size());
  auto fill = out_.calls_begin;
  for (const auto& c : layer_calls_)
    out_.calls[fill[c.stop]++] = c.call;
}

std::shared_ptr<realtime_layer>
build_realtime(std::shared_ptr<const timetable> base,
               const std::vector<gtfs_rt::trip_update>& updates,
               int64_t now) {
  return layer_builder{std::move(base), updates, now}.build();
}

void name_as_merged(const timetable& tt, std::size_t source,
                    std::vector<gtfs_rt::trip_update>& updates,
                    std::vector<gtfs_rt::vehicle_position>& vehicles,
                    std::vector<gtfs_rt::alert>& alerts) {
  if (source == 0)
    return;
  const auto suffix = merged_suffix(source);
  auto stop = [&](std::string& id) {
    if (!id.empty())
      if (auto renamed = id + suffix; tt.find_stop(renamed))
        id = std::move(renamed);
  };
  auto route = [&](std::string& id) {
    if (!id.empty())
      if (auto renamed = id + suffix; tt.find_route(renamed))
        id = std::move(renamed);
  };
  // A trip, and a frequencies.txt trip by its start ("ID~N@seconds").
  auto trip = [&](gtfs_rt::trip_descriptor& d) {
    route(d.route_id);
    if (d.trip_id.empty())
      return;
    auto renamed = d.trip_id + suffix;
    auto start = d.start_time.empty() ? -1 : parse_clock_time(d.start_time);
    if (tt.find_trip(renamed)
        || (start >= 0
            && tt.find_trip(renamed + "@" + std::to_string(start))))
      d.trip_id = std::move(renamed);
  };
  for (auto& u : updates) {
    trip(u.trip);
    for (auto& s : u.stops)
      stop(s.stop_id);
  }
  for (auto& v : vehicles) {
    if (v.trip)
      trip(*v.trip);
    stop(v.stop_id);
  }
  for (auto& a : alerts)
    for (auto& e : a.informed) {
      route(e.route_id);
      if (e.trip)
        trip(*e.trip);
      stop(e.stop_id);
    }
}

} // namespace transitd::gtfs
