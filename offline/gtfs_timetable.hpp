#pragma once
// The in-memory timetable of one or more GTFS feeds merged under one name:
// stops, routes and trips as the feeds give them, and the structures the
// router and the tools read (RAPTOR's route patterns with their trips
// sorted, service days, footpaths, a spatial grid). Built once by
// `load_gtfs` and never changed after: a refresh builds a new one.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd::gtfs {

inline constexpr uint32_t none = std::numeric_limits<uint32_t>::max();

/// Walking speed of every walk the router plans (access, egress,
/// footpaths): 1.2 m/s, about 4.3 km/h.
inline constexpr double walk_speed_mps = 1.2;

/// Seconds to walk `meters` at `walk_speed_mps`, rounded up.
int32_t walk_seconds(double meters);

/// The suffix a merged feed's `rank`-th source (from 1) gives an id of
/// its stop, route or trip that an earlier source took ("~2"): the one
/// spelling of the loader and of `name_as_merged`.
inline std::string merged_suffix(std::size_t rank) {
  return "~" + std::to_string(rank);
}

struct stop {
  /// The feed's stop_id (without the feed name).
  std::string id;
  std::string name;
  coordinate position;
  /// The parent station's index, or `none`.
  uint32_t parent = none;
  /// GTFS location_type: 0 stop/platform, 1 station, 2 entrance, ...
  uint8_t location_type = 0;
  std::string platform_code;
  /// GTFS wheelchair_boarding: 0 unknown, 1 possible, 2 not possible.
  uint8_t wheelchair_boarding = 0;
  /// IANA zone: stop_timezone, else the agency's.
  uint16_t zone = 0;
};

struct route {
  std::string id;
  std::string short_name;
  std::string long_name;
  int32_t route_type = 3;
  transit_mode mode = transit_mode::bus;
  /// route_color and route_text_color (RRGGBB); empty when not given.
  std::string color;
  std::string text_color;
};

struct trip {
  std::string id;
  uint32_t route = 0;
  std::string headsign;
  uint32_t service = 0;
  uint8_t direction = 0;
  /// GTFS wheelchair_accessible: 0 unknown, 1 yes, 2 no.
  uint8_t wheelchair = 0;
  /// Its shapes.txt path (index into `timetable::shape_begin`), or `none`.
  uint32_t shape = none;
};

/// A point of a shapes.txt path (single precision: about a meter, and
/// half the memory).
struct shape_point {
  float lat = 0;
  float lon = 0;
};

/// A RAPTOR route: trips of one service that call at the same stops in the
/// same order with the same pickup and drop-off rules, none overtaking
/// another, sorted by departure.
struct pattern {
  uint32_t stops_begin = 0; ///< into `pattern_stops`
  uint32_t stop_count = 0;
  uint32_t trips_begin = 0; ///< into `pattern_trips`
  uint32_t trip_count = 0;
  uint32_t times_begin = 0; ///< into `times`, trip-major
  uint16_t zone = 0;
  /// The service every trip of the pattern runs on.
  uint32_t service = 0;
};

/// One call of a trip at a stop: seconds after the service day's origin
/// (noon minus 12 hours, local), so past 24:00 for trips after midnight.
struct stop_time {
  int32_t arrival = 0;
  int32_t departure = 0;
};

/// A stop of a pattern and what a passenger may do there.
struct pattern_stop {
  uint32_t stop = 0;
  bool pickup = true;
  bool drop_off = true;
  /// stop_times.txt's stop_sequence (the same for every trip of the
  /// pattern: it is part of what groups them), for realtime updates.
  uint32_t sequence = 0;
};

/// Eight bytes: RAPTOR reads a stop's footpaths after every ride, and
/// they are two of the timetable's largest arrays.
struct footpath {
  /// The most seconds and meters a footpath holds: longer ones (only ever
  /// an agency's, in transfers.txt) are held at these.
  static constexpr int64_t max_seconds = 65535;
  static constexpr int64_t max_meters = 32767;
  footpath() : meters(0), listed(0) {}
  footpath(uint32_t to, int64_t walk_seconds, int64_t walk_meters,
           bool agency = false)
    : stop(to),
      seconds(static_cast<uint16_t>(std::clamp<int64_t>(walk_seconds, 0,
                                                        max_seconds))),
      meters(static_cast<uint16_t>(std::clamp<int64_t>(walk_meters, 0,
                                                       max_meters))),
      listed(agency ? 1 : 0) {}
  uint32_t stop = 0;
  uint16_t seconds = 0;
  /// Meters walked (great-circle).
  uint16_t meters : 15;
  /// The agency's own connection (transfers.txt): a rider's walk limit
  /// does not bound it.
  uint16_t listed : 1;
};
static_assert(sizeof(footpath) == 8);

/// A step of the graph lower bounds of travel time are computed over
/// (raptor_bounds.hpp): to (or from) `stop` in at least `seconds`.
struct hop {
  uint32_t stop = 0;
  int32_t seconds = 0;
};

/// Steps between stops at their least seconds, each pair of stops once:
/// rides between consecutive stops of a pattern (the fastest of its
/// trips) and, in a timetable's `hops`, its footpaths thinned for the
/// bounds (see `timetable::index_hops`). CSR
/// both ways: `in[in_begin[s]..in_begin[s+1])`
/// are the steps into s (`stop`: where they come from), `out` those out
/// of s.
struct hop_graph {
  std::vector<uint32_t> in_begin;
  std::vector<hop> in;
  std::vector<uint32_t> out_begin;
  std::vector<hop> out;
  /// Whether it is a graph of `stop_count` stops (not left empty).
  bool covers(std::size_t stop_count) const {
    return in_begin.size() == stop_count + 1
           && out_begin.size() == stop_count + 1;
  }
};

/// A hop graph's contraction hierarchy (hop_hierarchy.hpp), its stops numbered by rank from
/// the highest (sweep order). Built from the graph alone; the bounds are
/// the graph's shortest paths, exactly.
struct hop_hierarchy {
  /// The stop at each position, and each stop's position.
  std::vector<uint32_t> stop_at;
  std::vector<uint32_t> position_of;
  /// Per position v (CSR), the edges between v and the positions above it
  /// (lower numbers: higher ranks), the graph's own and the shortcuts:
  /// `up_out` the edges v -> u, `up_in` the edges u -> v (`stop`: u's
  /// position).
  std::vector<uint32_t> up_out_begin;
  std::vector<hop> up_out;
  std::vector<uint32_t> up_in_begin;
  std::vector<hop> up_in;

  /// Whether it is a hierarchy of `stop_count` stops (not left empty).
  bool covers(std::size_t stop_count) const {
    return stop_at.size() == stop_count && position_of.size() == stop_count
           && up_out_begin.size() == stop_count + 1
           && up_in_begin.size() == stop_count + 1;
  }
};

/// Where a pattern calls at a stop.
struct stop_call {
  uint32_t pattern = 0;
  uint32_t position = 0;
};

/// A day of service in a zone: which day and when it starts.
struct service_day {
  /// Index into the feed's day range.
  int32_t day = 0;
  /// Epoch seconds of the day's origin (noon minus 12 h, local).
  int64_t origin = 0;
};

/// What loading reported: counts and skipped rows.
struct load_report {
  std::size_t stops = 0;
  std::size_t routes = 0;
  std::size_t trips = 0;
  std::size_t stop_times = 0;
  std::size_t patterns = 0;
  std::size_t footpaths = 0;
  std::size_t frequency_trips = 0;
  std::size_t skipped_rows = 0;
  /// Up to a few "file:line: what" samples of skipped rows.
  std::vector<std::string> samples;
  /// First and last day of service (YYYY-MM-DD), from the calendars.
  std::string first_day;
  std::string last_day;
  /// Whether the calendars' range was cut to `load_options::max_days`
  /// around `anchor_day` (then the timetable holds for that anchor only).
  bool window_cut = false;
  int32_t anchor_day = 0;
};

class timetable {
public:
  std::string name;
  std::vector<std::string> zones;
  /// agency.txt's agency_name of every feed merged, once each.
  std::vector<std::string> agencies;
  /// The feed's own language: feed_info.txt's feed_lang, else agency.txt's
  /// agency_lang (lower case; empty when it names none).
  std::string language;
  /// The languages translations.txt gives (lower case, sorted).
  std::vector<std::string> languages;
  /// translations.txt: per language, each text as the feed writes it (a
  /// stop's name, a line's long or short name, a headsign) in that
  /// language.
  std::map<std::string, std::unordered_map<std::string, std::string>>
    translations;
  /// Whether translations.txt gives `language`.
  bool translates(std::string_view language) const;
  /// `text` in `language` when translations.txt has it, else `text`.
  std::string_view translated(std::string_view text,
                              std::string_view language) const;
  std::vector<stop> stops;
  std::vector<route> routes;
  std::vector<trip> trips;
  std::vector<pattern> patterns;
  std::vector<pattern_stop> pattern_stops;
  std::vector<uint32_t> pattern_trips;
  std::vector<stop_time> times;
  /// Per stop, CSR: where patterns call (`calls_begin[s]..[s+1]`).
  std::vector<uint32_t> calls_begin;
  std::vector<stop_call> calls;
  /// Per stop, CSR: footpaths out of and into the stop (other stops),
  /// shortest first (RAPTOR stops at the first that cannot help).
  std::vector<uint32_t> out_begin;
  std::vector<footpath> out;
  std::vector<uint32_t> in_begin;
  std::vector<footpath> in;
  /// Per stop: seconds needed to change vehicles there (transfers.txt's
  /// min_transfer_time from the stop to itself or its station), else 0.
  std::vector<int32_t> change_seconds;
  /// The rides between consecutive stops at their least seconds, and the
  /// footpaths thinned: one is left out when the kept ones walk between
  /// its stops in at most 1.25 times its seconds, and the kept ones count
  /// their seconds divided by 1.25, so no footpath is shorter than the
  /// hops between its stops (derived: built with the patterns, and kept
  /// in a snapshot, as thinning takes longer than reading them).
  hop_graph hops;
  /// `hops` contracted, for the bounds of every stop at once (derived:
  /// built with `hops`, at a build and after reading a snapshot).
  hop_hierarchy hierarchy;
  /// Per call (`calls`), what a passenger may do there: `may_board`,
  /// `may_alight` (derived, at a build and after reading a snapshot;
  /// RAPTOR reads it beside the call instead of the pattern's stop).
  static constexpr uint8_t may_board = 1;
  static constexpr uint8_t may_alight = 2;
  std::vector<uint8_t> call_rules;
  /// Children of each station (CSR).
  std::vector<uint32_t> children_begin;
  std::vector<uint32_t> children;
  /// Days: `first_day` is days since 1970-01-01; service `s` runs on day
  /// `d` when `runs[s * day_count + d]`.
  int32_t first_day = 0;
  int32_t day_count = 0;
  std::vector<uint8_t> runs;
  /// Per zone, per day (plus one day either side): the day's origin.
  std::vector<std::vector<int64_t>> day_origins;
  /// Each stop's name folded by `fold_name`, for name search.
  std::vector<std::string> folded_names;
  /// shapes.txt, each path simplified when read (`max_shape_points`):
  /// shape `k` is `shape_points[shape_begin[k]..shape_begin[k+1])`.
  std::vector<uint32_t> shape_begin{0};
  std::vector<shape_point> shape_points;
  /// The stops' bounding box, the service area.
  region area;
  load_report report;

  const stop_time& time_at(const pattern& p, uint32_t trip_rank,
                           uint32_t position) const {
    return times[p.times_begin + trip_rank * p.stop_count + position];
  }
  bool runs_on(uint32_t service, int32_t day) const {
    return day >= 0 && day < day_count
           && runs[static_cast<std::size_t>(service) * day_count + day] != 0;
  }
  /// The origin of day `day` (may be -1 or day_count) in `zone`.
  int64_t origin(uint16_t zone, int32_t day) const {
    return day_origins[zone][static_cast<std::size_t>(day + 1)];
  }
  /// The service days whose trips can run at `epoch` (the day before, for
  /// trips past midnight; the day itself; the day after, for origins
  /// before midnight across a DST change), inside the feed's range.
  std::vector<service_day> days_around(uint16_t zone, int64_t epoch) const;

  /// A stop by the feed's stop_id.
  std::optional<uint32_t> find_stop(std::string_view id) const;
  /// A trip by the feed's trip_id ("ID@SECONDS" for a frequencies.txt
  /// trip starting SECONDS after the day's origin).
  std::optional<uint32_t> find_trip(std::string_view id) const;
  /// A route by the feed's route_id.
  std::optional<uint32_t> find_route(std::string_view id) const;
  /// Where each trip runs: its pattern and rank there (`none` for a trip
  /// that none holds, one skipped while loading).
  std::vector<uint32_t> trip_pattern;
  std::vector<uint32_t> trip_rank;
  /// Stops (routable ones, that patterns call at) within `radius` meters,
  /// with their distance, nearest first.
  std::vector<std::pair<uint32_t, double>>
  stops_near(const coordinate& center, double radius,
             bool routable_only = true) const;
  /// The stop nearest `center` within `radius` meters (the first of the
  /// nearest, as `stops_near` orders them), without listing the others.
  std::optional<uint32_t> nearest_stop(const coordinate& center,
                                       double radius,
                                       bool routable_only = true) const;
  /// The zone of the stop nearest `center` within `radius` meters, else
  /// the first zone; at once when the timetable has one zone.
  uint16_t zone_near(const coordinate& center, double radius,
                     bool routable_only = true) const;
  /// Whether a pattern calls at the stop.
  bool routable(uint32_t stop) const {
    return calls_begin[stop + 1] > calls_begin[stop];
  }
  /// The modes of the routes calling at a stop or, for a station, at its
  /// children.
  std::vector<transit_mode> modes_at(uint32_t stop) const;
  /// The routes calling at a stop or, for a station, at its children,
  /// by line name.
  std::vector<uint32_t> routes_at(uint32_t stop) const;
  /// The stop itself, and the children of a station.
  std::vector<uint32_t> stop_and_children(uint32_t stop) const;
  /// Headsign of a trip: trip_headsign, else its last stop's name.
  std::string_view headsign(uint32_t pattern, uint32_t trip_rank) const;
  /// What passengers read on the vehicle: route_short_name, else long name.
  std::string_view line_name(uint32_t route) const;

  // Built by `finish`.
  void finish(double footpath_radius);
  /// Rebuilds the lookups by id and the spatial grid from the tables (a
  /// timetable read from a snapshot).
  void reindex();
  /// Builds `hops` and `call_rules` from the patterns, their times and
  /// the footpaths.
  void index_hops();
  /// Builds `call_rules` from the calls and the patterns' stops (a
  /// snapshot keeps `hops`).
  void index_call_rules();

private:
  friend struct timetable_builder;
  struct grid_key_hash {
    std::size_t operator()(int64_t k) const noexcept {
      return std::hash<int64_t>{}(k);
    }
  };
  std::unordered_map<std::string, uint32_t> stop_index_;
  /// Trip numbers sorted by id (the first of equal ids first).
  std::vector<uint32_t> trip_order_;
  std::unordered_map<std::string, uint32_t> route_index_;
  std::unordered_map<int64_t, std::vector<uint32_t>, grid_key_hash> grid_;
  void build_grid();
  /// Calls `visit(stop, meters)` for each stop within `radius` meters.
  template <class Visit>
  void visit_near(const coordinate& center, double radius,
                  bool routable_only, Visit&& visit) const;
  int64_t cell_of(const coordinate& c) const;
};

/// The hops of `count` patterns (their stops and trip-major times indexed
/// from `stops` and `times`) over `stop_count` stops.
hop_graph least_hops(std::size_t stop_count, const pattern* patterns,
                     std::size_t count, const pattern_stop* stops,
                     const stop_time* times);

/// Lower case, Latin accents removed ("Töölö" → "toolo", "ß" → "ss"),
/// punctuation as spaces, runs of spaces as one: for matching names.
std::string fold_name(std::string_view text);

} // namespace transitd::gtfs
