#include "transitd/offline/gtfs_snapshot.hpp"
#include "transitd/offline/hop_hierarchy.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <type_traits>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

namespace transitd::gtfs {

namespace {

constexpr std::string_view magic = "TRANSITD-TIMETABLE\n";
constexpr std::size_t header_size = magic.size() + 4 + 16 + 4 + 8 + 8;

// ---- writing ---------------------------------------------------------------

class writer {
public:
  explicit writer(std::string& out) : out_(out) {
  }

  template <class T>
  void num(T value) {
    static_assert(std::is_arithmetic_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  void str(std::string_view s) {
    num(static_cast<uint32_t>(s.size()));
    out_.append(s.data(), s.size());
  }
  void count(std::size_t n) {
    num(static_cast<uint64_t>(n));
  }
  /// A vector of numbers, in one copy.
  template <class T>
  void nums(const std::vector<T>& v) {
    static_assert(std::is_arithmetic_v<T>);
    count(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void strs(const std::vector<std::string>& v) {
    count(v.size());
    for (const auto& s : v)
      str(s);
  }
  template <class T, class Each>
  void each(const std::vector<T>& v, Each f) {
    count(v.size());
    for (const auto& x : v)
      f(*this, x);
  }

private:
  std::string& out_;
};

void put(writer& w, const footpath& f) {
  w.num(f.stop);
  w.num(static_cast<int32_t>(f.seconds));
  w.num(static_cast<int32_t>(f.meters));
  w.num(static_cast<uint8_t>(f.listed));
}

std::string payload_of(const timetable& tt) {
  std::string out;
  out.reserve(tt.times.size() * 8 + tt.stops.size() * 96
              + tt.trips.size() * 48 + tt.out.size() * 13 * 2
              + tt.shape_points.size() * 8 + (1 << 16));
  writer w{out};
  w.str(tt.name);
  w.strs(tt.zones);
  w.strs(tt.agencies);
  w.str(tt.language);
  w.strs(tt.languages);
  w.count(tt.translations.size());
  for (const auto& [language, texts] : tt.translations) {
    w.str(language);
    // Sorted: the same timetable writes the same bytes.
    std::vector<std::pair<std::string_view, std::string_view>> sorted(
      texts.begin(), texts.end());
    std::sort(sorted.begin(), sorted.end());
    w.count(sorted.size());
    for (const auto& [from, to] : sorted) {
      w.str(from);
      w.str(to);
    }
  }
  w.each(tt.stops, [](writer& w, const stop& s) {
    w.str(s.id);
    w.str(s.name);
    w.num(s.position.lat);
    w.num(s.position.lon);
    w.num(s.parent);
    w.num(s.location_type);
    w.str(s.platform_code);
    w.num(s.wheelchair_boarding);
    w.num(s.zone);
  });
  w.each(tt.routes, [](writer& w, const route& r) {
    w.str(r.id);
    w.str(r.short_name);
    w.str(r.long_name);
    w.num(r.route_type);
    w.num(static_cast<uint8_t>(r.mode));
    w.str(r.color);
    w.str(r.text_color);
  });
  w.each(tt.trips, [](writer& w, const trip& t) {
    w.str(t.id);
    w.num(t.route);
    w.str(t.headsign);
    w.num(t.service);
    w.num(t.direction);
    w.num(t.wheelchair);
    w.num(t.shape);
  });
  w.each(tt.patterns, [](writer& w, const pattern& p) {
    w.num(p.stops_begin);
    w.num(p.stop_count);
    w.num(p.trips_begin);
    w.num(p.trip_count);
    w.num(p.times_begin);
    w.num(p.zone);
    w.num(p.service);
  });
  w.each(tt.pattern_stops, [](writer& w, const pattern_stop& s) {
    w.num(s.stop);
    w.num(static_cast<uint8_t>((s.pickup ? 1 : 0) | (s.drop_off ? 2 : 0)));
    w.num(s.sequence);
  });
  w.nums(tt.pattern_trips);
  // The bulk: arrival and departure of every call, as pairs of i32.
  static_assert(sizeof(stop_time) == 8
                && std::has_unique_object_representations_v<stop_time>);
  w.count(tt.times.size() * 2);
  for (const auto& t : tt.times) {
    w.num(t.arrival);
    w.num(t.departure);
  }
  w.nums(tt.calls_begin);
  w.each(tt.calls, [](writer& w, const stop_call& c) {
    w.num(c.pattern);
    w.num(c.position);
  });
  w.nums(tt.out_begin);
  w.each(tt.out, put);
  w.nums(tt.in_begin);
  w.each(tt.in, put);
  w.nums(tt.change_seconds);
  for (const auto* g : {&tt.hops.out_begin, &tt.hops.in_begin})
    w.nums(*g);
  auto put_hop = [](writer& w, const hop& h) {
    w.num(h.stop);
    w.num(h.seconds);
  };
  for (const auto* list : {&tt.hops.out, &tt.hops.in})
    w.each(*list, put_hop);
  // The hops contracted (contracting takes seconds on a city's feeds).
  w.nums(tt.hierarchy.stop_at);
  w.nums(tt.hierarchy.up_out_begin);
  w.each(tt.hierarchy.up_out, put_hop);
  w.nums(tt.hierarchy.up_in_begin);
  w.each(tt.hierarchy.up_in, put_hop);
  w.nums(tt.children_begin);
  w.nums(tt.children);
  w.num(tt.first_day);
  w.num(tt.day_count);
  w.nums(tt.runs);
  w.count(tt.day_origins.size());
  for (const auto& origins : tt.day_origins)
    w.nums(origins);
  w.strs(tt.folded_names);
  w.nums(tt.shape_begin);
  w.each(tt.shape_points, [](writer& w, const shape_point& p) {
    w.num(p.lat);
    w.num(p.lon);
  });
  w.num(tt.area.min_lat);
  w.num(tt.area.max_lat);
  w.num(tt.area.min_lon);
  w.num(tt.area.max_lon);
  w.str(tt.area.name);
  const auto& r = tt.report;
  for (auto n : {r.stops, r.routes, r.trips, r.stop_times, r.patterns,
                 r.footpaths, r.frequency_trips, r.skipped_rows})
    w.count(n);
  w.strs(r.samples);
  w.str(r.first_day);
  w.str(r.last_day);
  w.num(static_cast<uint8_t>(r.window_cut));
  w.nums(tt.trip_pattern);
  w.nums(tt.trip_rank);
  return out;
}

// ---- reading ---------------------------------------------------------------

/// Thrown inside the reader only; read_snapshot_bytes turns it into a
/// verdict.
struct malformed {
  std::string why;
};

class reader {
public:
  explicit reader(std::string_view bytes) : in_(bytes) {
  }

  template <class T>
  T num() {
    static_assert(std::is_arithmetic_v<T>);
    need(sizeof(T), "a number");
    T value;
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string str() {
    auto n = num<uint32_t>();
    need(n, "a text");
    std::string s{in_.substr(at_, n)};
    at_ += n;
    return s;
  }
  /// A count of elements of at least `min_bytes` each: never more than the
  /// bytes left could hold (so no huge allocation from a bad count).
  std::size_t count(std::size_t min_bytes) {
    auto n = num<uint64_t>();
    if (min_bytes > 0 && n > (in_.size() - at_) / min_bytes)
      throw malformed{"a count larger than the bytes left"};
    return static_cast<std::size_t>(n);
  }
  template <class T>
  std::vector<T> nums() {
    auto n = count(sizeof(T));
    std::vector<T> v(n);
    if (n > 0)
      std::memcpy(v.data(), in_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return v;
  }
  std::vector<std::string> strs() {
    auto n = count(4);
    std::vector<std::string> v;
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      v.push_back(str());
    return v;
  }
  template <class T, class Each>
  std::vector<T> each(std::size_t min_bytes, Each f) {
    auto n = count(min_bytes);
    std::vector<T> v;
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      v.push_back(f(*this));
    return v;
  }
  bool done() const {
    return at_ == in_.size();
  }

private:
  void need(std::size_t n, const char* what) {
    if (n > in_.size() - at_)
      throw malformed{std::string{"truncated inside "} + what};
  }

  std::string_view in_;
  std::size_t at_ = 0;
};

void check(bool ok, const char* what) {
  if (!ok)
    throw malformed{what};
}

footpath get_footpath(reader& r) {
  auto stop = r.num<uint32_t>();
  auto seconds = r.num<int32_t>();
  auto meters = r.num<int32_t>();
  auto listed = r.num<uint8_t>() != 0;
  // What a build writes: within what a footpath holds.
  check(seconds >= 0 && seconds <= footpath::max_seconds && meters >= 0
          && meters <= footpath::max_meters,
        "a footpath");
  return footpath{stop, seconds, meters, listed};
}

/// An index CSR: `begin` has one entry per row and one more, rises, starts
/// at 0 and ends at `size`.
void check_csr(const std::vector<uint32_t>& begin, std::size_t rows,
               std::size_t size, const char* what) {
  check(begin.size() == rows + 1 && begin.front() == 0 && begin.back() == size
          && std::is_sorted(begin.begin(), begin.end()),
        what);
}

/// The hops contracted (none: a timetable without hops): the positions a
/// permutation of the stops, and every arc up to a position above its own
/// (the sweep reads each position after all those above it) and at no
/// less than 0 seconds (a bound above the truth loses journeys).
void check_hierarchy(hop_hierarchy& h, std::size_t stops) {
  if (h.stop_at.empty() && h.up_out_begin.empty() && h.up_in_begin.empty()
      && h.up_out.empty() && h.up_in.empty())
    return;
  check(h.stop_at.size() == stops, "the hierarchy's stops");
  h.position_of.assign(stops, none);
  for (uint32_t p = 0; p < stops; ++p) {
    auto s = h.stop_at[p];
    check(s < stops && h.position_of[s] == none, "the hierarchy's order");
    h.position_of[s] = p;
  }
  check_csr(h.up_out_begin, stops, h.up_out.size(), "the hierarchy out");
  check_csr(h.up_in_begin, stops, h.up_in.size(), "the hierarchy in");
  for (const auto* pair : {&h.up_out_begin, &h.up_in_begin}) {
    const auto& begin = *pair;
    const auto& list = pair == &h.up_out_begin ? h.up_out : h.up_in;
    for (uint32_t p = 0; p < stops; ++p)
      for (auto i = begin[p]; i < begin[p + 1]; ++i)
        check(list[i].stop < p && list[i].seconds >= 0,
              "an arc of the hierarchy");
  }
}

std::shared_ptr<timetable> timetable_of(std::string_view payload) {
  reader r{payload};
  auto tt = std::make_shared<timetable>();
  tt->name = r.str();
  tt->zones = r.strs();
  tt->agencies = r.strs();
  tt->language = r.str();
  tt->languages = r.strs();
  auto languages = r.count(12);
  for (std::size_t i = 0; i < languages; ++i) {
    auto& texts = tt->translations[r.str()];
    auto n = r.count(8);
    texts.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
      auto from = r.str();
      texts[std::move(from)] = r.str();
    }
  }
  tt->stops = r.each<stop>(8 + 16 + 4 + 1 + 4 + 1 + 2, [](reader& r) {
    stop s;
    s.id = r.str();
    s.name = r.str();
    s.position.lat = r.num<double>();
    s.position.lon = r.num<double>();
    s.parent = r.num<uint32_t>();
    s.location_type = r.num<uint8_t>();
    s.platform_code = r.str();
    s.wheelchair_boarding = r.num<uint8_t>();
    s.zone = r.num<uint16_t>();
    return s;
  });
  tt->routes = r.each<route>(12 + 4 + 1 + 8, [](reader& r) {
    route x;
    x.id = r.str();
    x.short_name = r.str();
    x.long_name = r.str();
    x.route_type = r.num<int32_t>();
    auto mode = r.num<uint8_t>();
    check(mode <= static_cast<uint8_t>(transit_mode::other), "a route's mode");
    x.mode = static_cast<transit_mode>(mode);
    x.color = r.str();
    x.text_color = r.str();
    return x;
  });
  tt->trips = r.each<trip>(4 + 4 + 4 + 4 + 1 + 1 + 4, [](reader& r) {
    trip t;
    t.id = r.str();
    t.route = r.num<uint32_t>();
    t.headsign = r.str();
    t.service = r.num<uint32_t>();
    t.direction = r.num<uint8_t>();
    t.wheelchair = r.num<uint8_t>();
    t.shape = r.num<uint32_t>();
    return t;
  });
  tt->patterns = r.each<pattern>(26, [](reader& r) {
    pattern p;
    p.stops_begin = r.num<uint32_t>();
    p.stop_count = r.num<uint32_t>();
    p.trips_begin = r.num<uint32_t>();
    p.trip_count = r.num<uint32_t>();
    p.times_begin = r.num<uint32_t>();
    p.zone = r.num<uint16_t>();
    p.service = r.num<uint32_t>();
    return p;
  });
  tt->pattern_stops = r.each<pattern_stop>(9, [](reader& r) {
    pattern_stop s;
    s.stop = r.num<uint32_t>();
    auto rules = r.num<uint8_t>();
    s.pickup = (rules & 1) != 0;
    s.drop_off = (rules & 2) != 0;
    s.sequence = r.num<uint32_t>();
    return s;
  });
  tt->pattern_trips = r.nums<uint32_t>();
  {
    // stop_time has no padding: the pairs are read in one copy.
    auto flat = r.nums<int32_t>();
    check(flat.size() % 2 == 0, "the stop times");
    tt->times.resize(flat.size() / 2);
    for (std::size_t i = 0; i < tt->times.size(); ++i)
      tt->times[i] = {flat[2 * i], flat[2 * i + 1]};
  }
  tt->calls_begin = r.nums<uint32_t>();
  tt->calls = r.each<stop_call>(8, [](reader& r) {
    stop_call c;
    c.pattern = r.num<uint32_t>();
    c.position = r.num<uint32_t>();
    return c;
  });
  tt->out_begin = r.nums<uint32_t>();
  tt->out = r.each<footpath>(13, get_footpath);
  tt->in_begin = r.nums<uint32_t>();
  tt->in = r.each<footpath>(13, get_footpath);
  tt->change_seconds = r.nums<int32_t>();
  tt->hops.out_begin = r.nums<uint32_t>();
  tt->hops.in_begin = r.nums<uint32_t>();
  auto get_hop = [](reader& r) {
    hop h;
    h.stop = r.num<uint32_t>();
    h.seconds = r.num<int32_t>();
    return h;
  };
  for (auto* list : {&tt->hops.out, &tt->hops.in})
    *list = r.each<hop>(8, get_hop);
  tt->hierarchy.stop_at = r.nums<uint32_t>();
  tt->hierarchy.up_out_begin = r.nums<uint32_t>();
  tt->hierarchy.up_out = r.each<hop>(8, get_hop);
  tt->hierarchy.up_in_begin = r.nums<uint32_t>();
  tt->hierarchy.up_in = r.each<hop>(8, get_hop);
  tt->children_begin = r.nums<uint32_t>();
  tt->children = r.nums<uint32_t>();
  tt->first_day = r.num<int32_t>();
  tt->day_count = r.num<int32_t>();
  tt->runs = r.nums<uint8_t>();
  auto zones = r.count(8);
  for (std::size_t z = 0; z < zones; ++z)
    tt->day_origins.push_back(r.nums<int64_t>());
  tt->folded_names = r.strs();
  tt->shape_begin = r.nums<uint32_t>();
  tt->shape_points = r.each<shape_point>(8, [](reader& r) {
    shape_point p;
    p.lat = r.num<float>();
    p.lon = r.num<float>();
    return p;
  });
  tt->area.min_lat = r.num<double>();
  tt->area.max_lat = r.num<double>();
  tt->area.min_lon = r.num<double>();
  tt->area.max_lon = r.num<double>();
  tt->area.name = r.str();
  auto& report = tt->report;
  for (auto* n : {&report.stops, &report.routes, &report.trips,
                  &report.stop_times, &report.patterns, &report.footpaths,
                  &report.frequency_trips, &report.skipped_rows})
    *n = static_cast<std::size_t>(r.num<uint64_t>());
  report.samples = r.strs();
  report.first_day = r.str();
  report.last_day = r.str();
  report.window_cut = r.num<uint8_t>() != 0;
  tt->trip_pattern = r.nums<uint32_t>();
  tt->trip_rank = r.nums<uint32_t>();
  check(r.done(), "bytes after the last field");

  // Every index the router and the tools follow points inside its table.
  const auto stops = tt->stops.size();
  const auto zones_n = tt->zones.size();
  check(tt->day_count > 0 && tt->day_count <= 100'000, "the day count");
  const auto days = static_cast<std::size_t>(tt->day_count);
  check(tt->runs.size() % days == 0, "the service days");
  const auto services = tt->runs.size() / days;
  check(tt->day_origins.size() == zones_n, "the day origins");
  for (const auto& origins : tt->day_origins)
    check(origins.size() == days + 2
            && std::is_sorted(origins.begin(), origins.end()),
          "a zone's day origins");
  for (const auto& s : tt->stops)
    check((s.parent == none || s.parent < stops) && s.zone < zones_n
            && std::abs(s.position.lat) <= 90 && std::abs(s.position.lon) <= 180,
          "a stop's station, zone or position");
  for (const auto& p : tt->shape_points)
    check(std::abs(p.lat) <= 90 && std::abs(p.lon) <= 180, "a shape's point");
  const auto shapes = tt->shape_begin.empty() ? 0 : tt->shape_begin.size() - 1;
  check_csr(tt->shape_begin, shapes, tt->shape_points.size(), "the shapes");
  for (const auto& t : tt->trips)
    check(t.route < tt->routes.size() && t.service < services
            && (t.shape == none || t.shape < shapes),
          "a trip's line, service or shape");
  for (const auto& p : tt->patterns) {
    check(uint64_t{p.stops_begin} + p.stop_count <= tt->pattern_stops.size()
            && uint64_t{p.trips_begin} + p.trip_count
                 <= tt->pattern_trips.size()
            && uint64_t{p.times_begin}
                   + uint64_t{p.trip_count} * p.stop_count
                 <= tt->times.size()
            && p.stop_count > 0 && p.zone < zones_n && p.service < services,
          "a pattern's stops, trips or times");
  }
  for (const auto& s : tt->pattern_stops)
    check(s.stop < stops, "a pattern's stop");
  for (auto t : tt->pattern_trips)
    check(t < tt->trips.size(), "a pattern's trip");
  check_csr(tt->calls_begin, stops, tt->calls.size(), "the calls");
  for (const auto& c : tt->calls)
    check(c.pattern < tt->patterns.size()
            && c.position < tt->patterns[c.pattern].stop_count,
          "a call");
  check_csr(tt->out_begin, stops, tt->out.size(), "the footpaths out");
  check_csr(tt->in_begin, stops, tt->in.size(), "the footpaths in");
  for (const auto* list : {&tt->out, &tt->in})
    for (const auto& f : *list)
      check(f.stop < stops, "a footpath");
  for (auto [begin, list] : {std::pair{&tt->out_begin, &tt->out},
                             std::pair{&tt->in_begin, &tt->in}})
    for (std::size_t s = 0; s < stops; ++s)
      check(std::is_sorted((*list).begin() + (*begin)[s],
                           (*list).begin() + (*begin)[s + 1],
                           [](const footpath& a, const footpath& b) {
                             return a.seconds < b.seconds;
                           }),
            "a stop's footpaths, shortest first");
  check(tt->change_seconds.size() == stops, "the change times");
  // The bounds' graph (none: a timetable put together without it), where
  // a step below 0 would make a bound more than the truth.
  if (tt->hops.out_begin.empty() && tt->hops.in_begin.empty())
    check(tt->hops.out.empty() && tt->hops.in.empty(), "the hops");
  else {
    check_csr(tt->hops.out_begin, stops, tt->hops.out.size(), "the hops out");
    check_csr(tt->hops.in_begin, stops, tt->hops.in.size(), "the hops in");
  }
  for (const auto* list : {&tt->hops.out, &tt->hops.in})
    for (const auto& h : *list)
      check(h.stop < stops && h.seconds >= 0, "a hop");
  check_hierarchy(tt->hierarchy, stops);
  check_csr(tt->children_begin, stops, tt->children.size(), "the children");
  for (auto c : tt->children)
    check(c < stops, "a station's child");
  check(tt->folded_names.size() == stops, "the folded names");
  check(tt->trip_pattern.size() == tt->trips.size()
          && tt->trip_rank.size() == tt->trips.size(),
        "the trips' patterns");
  for (std::size_t t = 0; t < tt->trips.size(); ++t) {
    auto p = tt->trip_pattern[t];
    check((p == none && tt->trip_rank[t] == none)
            || (p < tt->patterns.size()
                && tt->trip_rank[t] < tt->patterns[p].trip_count),
          "a trip's pattern");
  }
  tt->reindex();
  tt->index_call_rules();
  return tt;
}

} // namespace

std::string frame_snapshot(std::string_view payload, const source_key& key,
                           int32_t anchor_day) {
  std::string out{magic};
  writer w{out};
  w.num(snapshot_version);
  out.append(reinterpret_cast<const char*>(key.data()), key.size());
  w.num(anchor_day);
  w.num(static_cast<uint64_t>(payload.size()));
  w.num(static_cast<uint64_t>(XXH3_64bits(payload.data(), payload.size())));
  out.append(payload.data(), payload.size());
  return out;
}


source_key key_of_sources(const std::vector<uint64_t>& source_hashes,
                          const load_options& options) {
  std::string bytes;
  writer w{bytes};
  w.num(snapshot_version);
  // The options that change what is built (the anchor day is checked
  // apart: it matters only when the window was cut).
  w.num(options.footpath_radius);
  w.num(options.max_days);
  w.nums(source_hashes);
  auto digest = XXH3_128bits(bytes.data(), bytes.size());
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, digest);
  source_key key;
  std::memcpy(key.data(), canonical.digest, key.size());
  return key;
}

std::string to_hex(const source_key& key) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (auto b : key) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string snapshot_bytes(const timetable& tt, const source_key& key) {
  auto payload = payload_of(tt);
  // Cut at the anchor: the snapshot holds for that anchor only.
  auto anchor = tt.report.window_cut ? tt.report.anchor_day : 0;
  return frame_snapshot(payload, key, anchor);
}

snapshot_result read_snapshot_bytes(std::string_view bytes,
                                    const source_key& key,
                                    int32_t anchor_day) {
  snapshot_result result;
  auto refuse = [&](snapshot_verdict v, std::string why) {
    result.verdict = v;
    result.why = std::move(why);
    return result;
  };
  if (bytes.size() < header_size
      || bytes.substr(0, magic.size()) != magic)
    return refuse(snapshot_verdict::corrupt, "not a transitd timetable snapshot");
  reader head{bytes.substr(magic.size(), header_size - magic.size())};
  auto version = head.num<uint32_t>();
  if (version != snapshot_version)
    return refuse(snapshot_verdict::other_version,
                  "written by format version " + std::to_string(version)
                    + ", this transitd reads version "
                    + std::to_string(snapshot_version));
  source_key written;
  std::memcpy(written.data(), bytes.data() + magic.size() + 4, written.size());
  for (int i = 0; i < 16; ++i)
    head.num<uint8_t>();
  auto anchor = head.num<int32_t>();
  if (written != key)
    return refuse(snapshot_verdict::other_sources,
                  "of other sources or options (" + to_hex(written) + ", now "
                    + to_hex(key) + ")");
  if (anchor != 0 && anchor != anchor_day)
    return refuse(snapshot_verdict::other_sources,
                  "its service days were cut around another day");
  auto size = head.num<uint64_t>();
  auto sum = head.num<uint64_t>();
  auto payload = bytes.substr(header_size);
  if (payload.size() != size)
    return refuse(snapshot_verdict::corrupt,
                  "truncated: " + std::to_string(payload.size()) + " of "
                    + std::to_string(size) + " bytes");
  if (XXH3_64bits(payload.data(), payload.size()) != sum)
    return refuse(snapshot_verdict::corrupt, "its checksum does not match");
  try {
    auto tt = timetable_of(payload);
    tt->report.anchor_day = anchor;
    result.timetable = std::move(tt);
  } catch (const malformed& m) {
    return refuse(snapshot_verdict::corrupt, "malformed: " + m.why);
  } catch (const std::bad_alloc&) {
    return refuse(snapshot_verdict::corrupt, "malformed: too large");
  }
  result.verdict = snapshot_verdict::read;
  return result;
}

std::string snapshot_path(const std::string& dir, const std::string& name) {
  std::string file;
  for (auto c : name)
    file += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'
              ? c
              : '_';
  return (std::filesystem::path{dir} / (file + ".timetable")).string();
}

snapshot_result read_snapshot(const std::string& path, const source_key& key,
                              int32_t anchor_day) {
  snapshot_result result;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    bool missing = errno == ENOENT;
    result.verdict = missing ? snapshot_verdict::missing
                             : snapshot_verdict::corrupt;
    result.why = missing ? "none yet"
                         : std::string{"cannot read it: "} + std::strerror(errno);
    return result;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
    ::close(fd);
    result.verdict = snapshot_verdict::corrupt;
    result.why = "empty";
    return result;
  }
  // Mapped, not copied: the snapshot's bytes are read once, into the
  // timetable, and the mapping goes.
  auto size = static_cast<std::size_t>(st.st_size);
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) {
    result.verdict = snapshot_verdict::corrupt;
    result.why = std::string{"cannot map it: "} + std::strerror(errno);
    return result;
  }
  ::madvise(mapped, size, MADV_SEQUENTIAL);
  result = read_snapshot_bytes({static_cast<const char*>(mapped), size}, key,
                               anchor_day);
  ::munmap(mapped, size);
  return result;
}

outcome<std::size_t> write_snapshot(const std::string& path,
                                    const timetable& tt,
                                    const source_key& key) {
  namespace fs = std::filesystem;
  auto bytes = snapshot_bytes(tt, key);
  std::error_code ec;
  fs::create_directories(fs::path{path}.parent_path(), ec);
  auto temporary = path + ".writing";
  {
    std::ofstream out{temporary, std::ios::binary | std::ios::trunc};
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out)
      return make_failure(ec::internal_error,
                          "cannot write the timetable snapshot " + temporary,
                          "check the data directory's space and permissions");
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    return make_failure(ec::internal_error,
                        "cannot write the timetable snapshot " + path,
                        "check the data directory's permissions");
  }
  return bytes.size();
}

} // namespace transitd::gtfs
