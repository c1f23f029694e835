#include "transitd/offline/gtfs_timetable.hpp"
#include "transitd/offline/hop_hierarchy.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>

namespace transitd::gtfs {

namespace {

/// Grid cells of about 550 m (north-south).
constexpr double cell_degrees = 0.005;

} // namespace

int32_t walk_seconds(double meters) {
  return static_cast<int32_t>(std::ceil(meters / walk_speed_mps));
}

int64_t timetable::cell_of(const coordinate& c) const {
  auto row = static_cast<int64_t>(std::floor(c.lat / cell_degrees));
  auto col = static_cast<int64_t>(std::floor(c.lon / cell_degrees));
  return row * 1'000'000 + col;
}

void timetable::build_grid() {
  grid_.clear();
  for (uint32_t s = 0; s < stops.size(); ++s)
    grid_[cell_of(stops[s].position)].push_back(s);
}

template <class Visit>
void timetable::visit_near(const coordinate& center, double radius,
                           bool routable_only, Visit&& visit) const {
  if (!(radius >= 0) || std::abs(center.lat) > 90 || std::abs(center.lon) > 180)
    return;
  constexpr double meters_per_degree = 111'320.0;
  auto dlat = radius / meters_per_degree;
  auto coslat = std::max(0.01, std::cos(center.lat * 3.14159265358979 / 180));
  auto dlon = std::min(180.0, dlat / coslat);
  auto row0 = static_cast<int64_t>(std::floor((center.lat - dlat) / cell_degrees));
  auto row1 = static_cast<int64_t>(std::floor((center.lat + dlat) / cell_degrees));
  auto col0 = static_cast<int64_t>(std::floor((center.lon - dlon) / cell_degrees));
  auto col1 = static_cast<int64_t>(std::floor((center.lon + dlon) / cell_degrees));
  auto consider = [&](uint32_t s) {
    if (routable_only && !routable(s))
      return;
    auto d = distance_m(center, stops[s].position);
    if (d <= radius)
      visit(s, d);
  };
  // A huge radius would visit more cells than there are stops: scan all.
  if ((row1 - row0 + 1) * (col1 - col0 + 1) > static_cast<int64_t>(grid_.size())) {
    for (uint32_t s = 0; s < stops.size(); ++s)
      consider(s);
    return;
  }
  for (auto row = row0; row <= row1; ++row)
    for (auto col = col0; col <= col1; ++col) {
      auto it = grid_.find(row * 1'000'000 + col);
      if (it != grid_.end())
        for (auto s : it->second)
          consider(s);
    }
}

std::vector<std::pair<uint32_t, double>>
timetable::stops_near(const coordinate& center, double radius,
                      bool routable_only) const {
  std::vector<std::pair<uint32_t, double>> found;
  visit_near(center, radius, routable_only,
             [&](uint32_t s, double d) { found.emplace_back(s, d); });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  return found;
}

std::optional<uint32_t> timetable::nearest_stop(const coordinate& center,
                                                double radius,
                                                bool routable_only) const {
  std::optional<uint32_t> best;
  double best_m = 0;
  visit_near(center, radius, routable_only, [&](uint32_t s, double d) {
    if (!best || d < best_m || (d == best_m && s < *best)) {
      best = s;
      best_m = d;
    }
  });
  return best;
}

uint16_t timetable::zone_near(const coordinate& center, double radius,
                              bool routable_only) const {
  if (zones.size() <= 1)
    return 0;
  auto s = nearest_stop(center, radius, routable_only);
  return s ? stops[*s].zone : 0;
}

void timetable::reindex() {
  stop_index_.clear();
  stop_index_.reserve(stops.size());
  for (uint32_t s = 0; s < stops.size(); ++s)
    stop_index_.emplace(stops[s].id, s);
  // Trips by id: their numbers sorted by id (4 bytes a trip; a hash map
  // of copied ids took about 100 bytes a trip, 30 MB on every MTA feed).
  trip_order_.resize(trips.size());
  for (uint32_t t = 0; t < trips.size(); ++t)
    trip_order_[t] = t;
  std::sort(trip_order_.begin(), trip_order_.end(),
            [this](uint32_t a, uint32_t b) {
              return trips[a].id != trips[b].id ? trips[a].id < trips[b].id
                                                : a < b;
            });
  route_index_.clear();
  for (uint32_t r = 0; r < routes.size(); ++r)
    route_index_.emplace(routes[r].id, r);
  build_grid();
}

void timetable::finish(double footpath_radius) {
  reindex();
  trip_pattern.assign(trips.size(), none);
  trip_rank.assign(trips.size(), none);
  for (uint32_t p = 0; p < patterns.size(); ++p)
    for (uint32_t r = 0; r < patterns[p].trip_count; ++r) {
      auto t = pattern_trips[patterns[p].trips_begin + r];
      trip_pattern[t] = p;
      trip_rank[t] = r;
    }
  // Where patterns call.
  std::vector<std::vector<stop_call>> at(stops.size());
  for (uint32_t p = 0; p < patterns.size(); ++p)
    for (uint32_t i = 0; i < patterns[p].stop_count; ++i)
      at[pattern_stops[patterns[p].stops_begin + i].stop].push_back({p, i});
  calls.clear();
  calls_begin.assign(1, 0);
  for (auto& list : at) {
    calls.insert(calls.end(), list.begin(), list.end());
    calls_begin.push_back(static_cast<uint32_t>(calls.size()));
  }
  // Children of stations.
  std::vector<std::vector<uint32_t>> kids(stops.size());
  for (uint32_t s = 0; s < stops.size(); ++s)
    if (stops[s].parent != none)
      kids[stops[s].parent].push_back(s);
  children.clear();
  children_begin.assign(1, 0);
  for (auto& list : kids) {
    children.insert(children.end(), list.begin(), list.end());
    children_begin.push_back(static_cast<uint32_t>(children.size()));
  }
  folded_names.clear();
  for (const auto& s : stops)
    folded_names.push_back(fold_name(s.name));
  // Generated footpaths between routable stops.
  out.clear();
  out_begin.assign(1, 0);
  for (uint32_t s = 0; s < stops.size(); ++s) {
    if (routable(s))
      for (auto [t, meters] : stops_near(stops[s].position, footpath_radius))
        if (t != s)
          out.push_back({t, walk_seconds(meters),
                         static_cast<int32_t>(std::lround(meters))});
    out_begin.push_back(static_cast<uint32_t>(out.size()));
  }
  // The area: the routable stops' bounding box.
  area = region{90, -90, 180, -180, "the area of feed " + name};
  for (uint32_t s = 0; s < stops.size(); ++s) {
    if (!routable(s))
      continue;
    const auto& p = stops[s].position;
    area.min_lat = std::min(area.min_lat, p.lat);
    area.max_lat = std::max(area.max_lat, p.lat);
    area.min_lon = std::min(area.min_lon, p.lon);
    area.max_lon = std::max(area.max_lon, p.lon);
  }
}

namespace {

/// A step of a hop graph before it is indexed.
struct step {
  uint32_t from;
  uint32_t to;
  int32_t seconds;
};

/// Between consecutive stops of each pattern, the least seconds any of its
/// trips takes.
void pattern_steps(const pattern* patterns, std::size_t count,
                   const pattern_stop* stops, const stop_time* times,
                   std::vector<step>& all) {
  // A ride between two stops that takes longer than a week is no ride a
  // bound needs (a bound may be lower than the truth, never higher); and
  // times out of order give none below 0. In 64 bits: a snapshot's times
  // are checked for their place, not their values.
  constexpr int64_t longest = 7 * 86400;
  std::vector<int64_t> least;
  for (std::size_t p = 0; p < count; ++p) {
    const auto& pat = patterns[p];
    if (pat.trip_count == 0 || pat.stop_count < 2)
      continue;
    const auto* ps = stops + pat.stops_begin;
    const auto* tm = times + pat.times_begin;
    // Trip by trip, as the times lie (trip-major).
    least.assign(pat.stop_count - 1, longest);
    for (uint32_t r = 0; r < pat.trip_count; ++r) {
      const auto* trip = tm + static_cast<std::size_t>(r) * pat.stop_count;
      for (uint32_t i = 0; i + 1 < pat.stop_count; ++i)
        least[i] = std::min(least[i], int64_t{trip[i + 1].arrival}
                                        - int64_t{trip[i].departure});
    }
    for (uint32_t i = 0; i + 1 < pat.stop_count; ++i)
      if (ps[i].stop != ps[i + 1].stop)
        all.push_back({ps[i].stop, ps[i + 1].stop,
                       static_cast<int32_t>(std::max<int64_t>(0, least[i]))});
  }
}

/// Footpaths thinned for the bounds: a footpath is left out when the ones
/// kept already walk between its stops in at most the stretch (1.25) times
/// its seconds (a greedy spanner, shortest first, checked by a search over
/// the kept ones bounded by that budget), and the kept ones count their
/// seconds divided by the stretch. Every footpath is then matched by kept
/// ones taking no longer than it, so the bounds stay lower bounds (New
/// York: 15 % of the footpaths kept, in 0.4 s at a build; a snapshot keeps
/// them).
void walk_steps(std::size_t stop_count, const std::vector<uint32_t>& begin,
                const std::vector<footpath>& paths, std::vector<step>& all) {
  if (begin.size() != stop_count + 1)
    return;
  constexpr int64_t num = 5, den = 4; // the stretch: 1.25
  std::vector<step> walks;
  walks.reserve(paths.size());
  for (uint32_t s = 0; s < stop_count; ++s)
    for (auto f = begin[s]; f < begin[s + 1] && f < paths.size(); ++f)
      if (paths[f].stop != s && paths[f].stop < stop_count)
        walks.push_back({s, paths[f].stop, int32_t{paths[f].seconds}});
  std::stable_sort(walks.begin(), walks.end(),
                   [](const step& a, const step& b) {
                     return a.seconds < b.seconds;
                   });
  // The kept footpaths out of each stop, in their seconds (unscaled).
  std::vector<std::vector<hop>> kept(stop_count);
  // The search's tentative seconds per stop (`far`: not reached), the
  // stops it reached, and its queue (a binary heap, least first).
  constexpr int64_t far = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> seconds(stop_count, far);
  std::vector<uint32_t> reached;
  std::vector<std::pair<int64_t, uint32_t>> heap;
  const std::greater<> later;
  // Whether the kept footpaths walk from `from` to `to` within `budget`.
  auto walked = [&](uint32_t from, uint32_t to, int64_t budget) {
    bool found = false;
    heap.clear();
    heap.emplace_back(0, from);
    seconds[from] = 0;
    reached.push_back(from);
    while (!heap.empty() && !found) {
      std::pop_heap(heap.begin(), heap.end(), later);
      auto [t, u] = heap.back();
      heap.pop_back();
      if (t != seconds[u])
        continue; // reached sooner since
      for (const auto& h : kept[u]) {
        auto next = t + h.seconds;
        if (next > budget || next >= seconds[h.stop])
          continue;
        if (h.stop == to) {
          found = true;
          break;
        }
        if (seconds[h.stop] == far)
          reached.push_back(h.stop);
        seconds[h.stop] = next;
        heap.emplace_back(next, h.stop);
        std::push_heap(heap.begin(), heap.end(), later);
      }
    }
    for (auto s : reached)
      seconds[s] = far;
    reached.clear();
    return found;
  };
  for (const auto& w : walks) {
    if (walked(w.from, w.to, int64_t{w.seconds} * num / den))
      continue;
    kept[w.from].push_back({w.to, w.seconds});
    all.push_back({w.from, w.to,
                   static_cast<int32_t>(int64_t{w.seconds} * den / num)});
  }
}

/// The graph of `all` (emptied): each pair of stops once, at its least.
hop_graph graph_of(std::size_t stop_count, std::vector<step>& all) {
  hop_graph out;
  // Out of each stop: its steps grouped by where they start (counted),
  // then each stop's few sorted, each pair of stops once at its least.
  auto& ob = out.out_begin;
  ob.assign(stop_count + 1, 0);
  for (const auto& r : all)
    ++ob[r.from + 1];
  for (std::size_t s = 0; s < stop_count; ++s)
    ob[s + 1] += ob[s];
  out.out.resize(all.size());
  {
    auto fill = ob;
    for (const auto& r : all)
      out.out[fill[r.from]++] = {r.to, r.seconds};
  }
  all.clear();
  all.shrink_to_fit();
  std::size_t kept = 0;
  uint32_t begin = 0;
  for (std::size_t s = 0; s < stop_count; ++s) {
    auto first = out.out.begin() + begin;
    auto last = out.out.begin() + ob[s + 1];
    std::sort(first, last, [](const hop& a, const hop& b) {
      return a.stop != b.stop ? a.stop < b.stop : a.seconds < b.seconds;
    });
    begin = ob[s + 1];
    ob[s] = static_cast<uint32_t>(kept);
    for (auto it = first; it != last; ++it)
      if (it == first || it->stop != (it - 1)->stop)
        out.out[kept++] = *it;
  }
  ob[stop_count] = static_cast<uint32_t>(kept);
  out.out.resize(kept);
  out.out.shrink_to_fit();
  // Into each stop: the same steps, counted by where they end.
  auto& ib = out.in_begin;
  ib.assign(stop_count + 1, 0);
  for (const auto& h : out.out)
    ++ib[h.stop + 1];
  for (std::size_t s = 0; s < stop_count; ++s)
    ib[s + 1] += ib[s];
  out.in.resize(out.out.size());
  auto fill = ib;
  for (uint32_t s = 0; s < stop_count; ++s)
    for (auto i = ob[s]; i < ob[s + 1]; ++i)
      out.in[fill[out.out[i].stop]++] = {s, out.out[i].seconds};
  return out;
}

} // namespace

hop_graph least_hops(std::size_t stop_count, const pattern* patterns,
                     std::size_t count, const pattern_stop* stops,
                     const stop_time* times) {
  std::vector<step> all;
  pattern_steps(patterns, count, stops, times, all);
  return graph_of(stop_count, all);
}

void timetable::index_hops() {
  std::vector<step> all;
  pattern_steps(patterns.data(), patterns.size(), pattern_stops.data(),
                times.data(), all);
  walk_steps(stops.size(), out_begin, out, all);
  hops = graph_of(stops.size(), all);
  hierarchy = contract_hops(hops, stops.size());
  index_call_rules();
}

void timetable::index_call_rules() {
  call_rules.resize(calls.size());
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const auto& ps = pattern_stops[patterns[calls[c].pattern].stops_begin
                                   + calls[c].position];
    call_rules[c] = static_cast<uint8_t>((ps.pickup ? may_board : 0)
                                         | (ps.drop_off ? may_alight : 0));
  }
}

std::vector<service_day> timetable::days_around(uint16_t zone,
                                                int64_t epoch) const {
  std::vector<service_day> days;
  const auto& origins = day_origins[zone];
  // origins[i] is day i - 1; find the day whose origin is the last <= epoch.
  auto it = std::upper_bound(origins.begin(), origins.end(), epoch);
  // Past the day after the last day: nothing runs any more.
  if (it == origins.end() && epoch - origins.back() >= 86400)
    return days;
  auto index = static_cast<int32_t>(it - origins.begin()) - 1 - 1;
  for (auto d = index - 1; d <= index + 1; ++d)
    if (d >= 0 && d < day_count)
      days.push_back({d, origin(zone, d)});
  return days;
}

std::optional<uint32_t> timetable::find_trip(std::string_view id) const {
  auto i = std::lower_bound(
    trip_order_.begin(), trip_order_.end(), id,
    [this](uint32_t t, std::string_view key) { return trips[t].id < key; });
  if (i == trip_order_.end() || trips[*i].id != id)
    return std::nullopt;
  return *i;
}

std::optional<uint32_t> timetable::find_route(std::string_view id) const {
  auto i = route_index_.find(std::string{id});
  if (i == route_index_.end())
    return std::nullopt;
  return i->second;
}

std::optional<uint32_t> timetable::find_stop(std::string_view id) const {
  auto it = stop_index_.find(std::string{id});
  if (it == stop_index_.end())
    return std::nullopt;
  return it->second;
}

std::vector<uint32_t> timetable::stop_and_children(uint32_t s) const {
  std::vector<uint32_t> all{s};
  for (auto i = children_begin[s]; i < children_begin[s + 1]; ++i)
    all.push_back(children[i]);
  return all;
}

std::vector<transit_mode> timetable::modes_at(uint32_t s) const {
  std::vector<transit_mode> modes;
  for (auto member : stop_and_children(s))
    for (auto i = calls_begin[member]; i < calls_begin[member + 1]; ++i) {
      const auto& p = patterns[calls[i].pattern];
      auto m = routes[trips[pattern_trips[p.trips_begin]].route].mode;
      if (std::find(modes.begin(), modes.end(), m) == modes.end())
        modes.push_back(m);
    }
  std::sort(modes.begin(), modes.end());
  return modes;
}

std::vector<uint32_t> timetable::routes_at(uint32_t s) const {
  std::vector<uint32_t> out;
  for (auto member : stop_and_children(s))
    for (auto i = calls_begin[member]; i < calls_begin[member + 1]; ++i) {
      const auto& p = patterns[calls[i].pattern];
      auto r = trips[pattern_trips[p.trips_begin]].route;
      if (std::find(out.begin(), out.end(), r) == out.end())
        out.push_back(r);
    }
  std::sort(out.begin(), out.end(), [this](uint32_t a, uint32_t b) {
    auto na = line_name(a), nb = line_name(b);
    return na != nb ? na < nb : a < b;
  });
  return out;
}

std::string_view timetable::headsign(uint32_t p, uint32_t trip_rank) const {
  const auto& pat = patterns[p];
  const auto& t = trips[pattern_trips[pat.trips_begin + trip_rank]];
  if (!t.headsign.empty())
    return t.headsign;
  return stops[pattern_stops[pat.stops_begin + pat.stop_count - 1].stop].name;
}

std::string_view timetable::line_name(uint32_t r) const {
  const auto& x = routes[r];
  return x.short_name.empty() ? std::string_view{x.long_name}
                              : std::string_view{x.short_name};
}

std::string fold_name(std::string_view text) {
  // U+00C0..U+00FF: the Latin-1 letters, without their accents.
  static constexpr const char* latin1[64] = {
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i",
    "i", "i", "d", "n", "o", "o", "o", "o", "o", " ", "o", "u", "u", "u",
    "u", "y", "th", "ss", "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e",
    "e", "e", "i", "i", "i", "i", "d", "n", "o", "o", "o", "o", "o", " ",
    "o", "u", "u", "u", "u", "y", "th", "y"};
  std::string out;
  out.reserve(text.size());
  auto space = [&] {
    if (!out.empty() && out.back() != ' ')
      out.push_back(' ');
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (std::isalnum(c))
        out.push_back(static_cast<char>(std::tolower(c)));
      else if (c == '\'')
        continue; // "Macy's" matches "macys"
      else
        space();
      continue;
    }
    if (c == 0xC3 && i + 1 < text.size()) {
      auto d = static_cast<unsigned char>(text[i + 1]);
      if (d >= 0x80 && d <= 0xBF) {
        out += latin1[d - 0x80];
        ++i;
        continue;
      }
    }
    if ((c == 0xC4 || c == 0xC5) && i + 1 < text.size()) {
      // Latin Extended-A (U+0100..U+017F): pairs of upper/lower letters
      // whose base letters follow this table.
      static constexpr char base[] = "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiijjjjkkklllllllllln"
                                     "nnnnnnnnoooooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs";
      auto d = static_cast<unsigned char>(text[i + 1]);
      auto index = (c - 0xC4) * 64 + (d - 0x80);
      if (d >= 0x80 && d <= 0xBF && index < static_cast<int>(sizeof base - 1)) {
        out.push_back(base[index]);
        ++i;
        continue;
      }
    }
    // Any other character is kept as it is (Cyrillic, CJK, ...).
    out.push_back(static_cast<char>(c));
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

} // namespace transitd::gtfs

namespace transitd::gtfs {

bool timetable::translates(std::string_view language) const {
  return !language.empty()
         && translations.find(std::string{language}) != translations.end();
}

std::string_view timetable::translated(std::string_view text,
                                       std::string_view language) const {
  auto by_language = translations.find(std::string{language});
  if (by_language == translations.end())
    return text;
  auto it = by_language->second.find(std::string{text});
  return it == by_language->second.end() ? text
                                         : std::string_view{it->second};
}

} // namespace transitd::gtfs
