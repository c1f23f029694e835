#pragma once
// The GTFS loader's insides, shared by its steps (offline/gtfs_load_*.cpp,
// offline/gtfs_build.cpp): one file read record by record, the rows kept
// raw until every source is read, and the builder that turns them into a
// timetable. Not installed for applications: include gtfs_reader.hpp.

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "transitd/offline/csv.hpp"
#include "transitd/offline/gtfs_reader.hpp"

namespace transitd::gtfs::detail {

// -- one file, by header ----------------------------------------------------------

/// Reads one file record by record; fields by column name.
class table_reader {
public:
  table_reader(feed_files& feed, std::string file, load_report& report,
               const std::atomic<bool>* cancel = nullptr)
    : feed_(feed), file_(std::move(file)), report_(report),
      reader_(feed.open(file_)), cancel_(cancel) {
  }

  /// Reads the header; a failure when it is missing or lacks `required`.
  std::optional<failure> start(std::initializer_list<const char*> required) {
    std::vector<std::string_view> names;
    if (!reader_.next(names))
      return problem("has no header line");
    header_ = csv_header{names};
    for (const auto* column : required)
      if (!header_.column(column))
        return problem(std::string{"lacks the required column "} + column);
    return std::nullopt;
  }

  std::optional<std::size_t> column(const char* name) const {
    return header_.column(name);
  }

  bool next() {
    if (cancel_ != nullptr && (++rows_ & 0xFFF) == 0 && cancel_->load()) {
      cancelled_ = true;
      return false;
    }
    return reader_.next(fields_);
  }
  /// A read error that ended the file early.
  std::optional<failure> finish() const {
    if (cancelled_)
      return problem("was not read: the load was cancelled");
    if (reader_.error())
      return problem(reader_.error()->message);
    return std::nullopt;
  }

  /// The field in `column` (trimmed; empty when absent).
  std::string_view get(const std::optional<std::size_t>& column) const {
    if (!column || *column >= fields_.size())
      return {};
    return trim_view(fields_[*column]);
  }

  /// Counts a skipped row and keeps a sample.
  void skip(std::string_view why) {
    ++report_.skipped_rows;
    if (report_.samples.size() < 10)
      report_.samples.push_back(file_ + ":" + std::to_string(reader_.line())
                                + ": " + std::string{why});
  }

  failure problem(const std::string& what) const {
    return make_failure(ec::data_not_available,
                        "GTFS " + feed_.describe() + ": " + file_ + " " + what,
                        "fix or replace the feed");
  }

private:
  feed_files& feed_;
  std::string file_;
  load_report& report_;
  csv_reader reader_;
  csv_header header_;
  std::vector<std::string_view> fields_;
  const std::atomic<bool>* cancel_;
  std::size_t rows_ = 0;
  bool cancelled_ = false;
};

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty())
    return false;
  if constexpr (std::is_floating_point_v<T>) {
    // from_chars for doubles is in libstdc++ 11+.
    auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size()
           && std::isfinite(out);
  } else {
    auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size();
  }
}

template <class T>
T number_or(std::string_view text, T fallback) {
  T value{};
  return parse_number(text, value) ? value : fallback;
}

// -- the builder ----------------------------------------------------------------------

struct raw_stop_time {
  uint32_t trip;
  uint32_t sequence;
  uint32_t stop;
  int32_t arrival;   // -1: not given
  int32_t departure; // -1: not given
  bool pickup;
  bool drop_off;
};

struct frequency {
  uint32_t trip;
  int32_t start;
  int32_t end;
  int32_t headway;
};

struct raw_transfer {
  uint32_t from;
  uint32_t to;
  int32_t type;
  int32_t seconds;
};

struct calendar_row {
  uint32_t service;
  uint8_t weekdays; // bit 0 = Monday
  int32_t start;
  int32_t end;
};

/// frequencies.txt may not expand into more trips than this.
constexpr std::size_t max_frequency_trips = 5'000'000;

/// shapes.txt: points read at most, each path simplified within this many
/// meters and to at most this many points, and points kept in all.
constexpr std::size_t max_shape_rows = 30'000'000;
constexpr double shape_tolerance_m = 2.0;
constexpr std::size_t max_shape_points = 2'000;
constexpr std::size_t max_shape_points_total = 6'000'000;

struct source_keys;

/// How near a later merged source's stop must be to an earlier one of
/// the same id to be that stop. New York's bus feeds place a stop they
/// share up to 200 m apart (971 of the 1,085 later copies of their 1,044
/// shared ids; the others, ids reused by other agencies, lie a kilometre
/// or more away).
inline constexpr double same_stop_meters = 250;

struct builder {
  builder(const std::string& feed_name, const load_options& load)
    : name(feed_name), options(load) {
  }

  const std::string& name;
  const load_options& options;
  std::shared_ptr<timetable> out = std::make_shared<timetable>();
  load_report& report = out->report;

  std::unordered_map<std::string, uint32_t> stop_ids;
  /// The merged routes by their exposed ids.
  std::unordered_map<std::string, uint32_t> route_ids;
  /// The trips read so far (indices into `out->trips`), by their exposed
  /// ids: a later source's trip under an id taken gets its number.
  struct trip_id_hash {
    const timetable* tt;
    std::size_t operator()(uint32_t t) const {
      return std::hash<std::string>{}(tt->trips[t].id);
    }
  };
  struct trip_id_equal {
    const timetable* tt;
    bool operator()(uint32_t a, uint32_t b) const {
      return tt->trips[a].id == tt->trips[b].id;
    }
  };
  std::unordered_set<uint32_t, trip_id_hash, trip_id_equal> trip_ids{
    0, trip_id_hash{out.get()}, trip_id_equal{out.get()}};
  std::unordered_map<std::string, uint16_t> zone_ids;
  std::vector<raw_stop_time> stop_times;
  /// The agency zone of each trip's feed: stop_times are in it.
  std::vector<uint16_t> trip_zones;
  std::vector<frequency> frequencies;
  std::vector<raw_transfer> transfers;
  std::vector<calendar_row> calendars;
  std::vector<std::tuple<uint32_t, int32_t, bool>> exceptions;
  int32_t min_day = std::numeric_limits<int32_t>::max();
  int32_t max_day = std::numeric_limits<int32_t>::min();

  uint16_t zone(const std::string& tz) {
    auto [it, added] = zone_ids.emplace(tz, out->zones.size());
    if (added)
      out->zones.push_back(tz);
    return it->second;
  }

  std::optional<failure> read_source(feed_files& feed, std::size_t source);
  std::optional<failure> finish();

  // read_source, one file at a time (in this order: each reads the keys
  // of those before it).
  std::optional<failure> read_agency(feed_files& feed, uint16_t& agency_zone);
  /// `source`: the source's rank, which renames a stop id another
  /// source has already used ("ID~2"), unless it is the same stop (of the
  /// same location_type, within `same_stop_meters`).
  std::optional<failure> read_stops(feed_files& feed, source_keys& keys,
                                    uint16_t agency_zone, std::size_t source);
  /// Each stop's parent station, once all of the source's stops are read.
  void link_parents(const source_keys& keys,
                    const std::vector<std::pair<uint32_t, std::string>>&
                      parents);
  /// A route an earlier merged source defined the same (a city's bus
  /// feeds each listing every route, New York's) is that route; another
  /// under an id taken gets the source's number, as a stop does.
  std::optional<failure> read_routes(feed_files& feed, source_keys& keys,
                                     std::size_t source);
  std::optional<failure> read_calendar(feed_files& feed, source_keys& keys);
  std::optional<failure> read_calendar_dates(feed_files& feed,
                                             source_keys& keys);
  /// shapes.txt (optional): each path sorted by shape_pt_sequence and
  /// simplified; a file without its columns, or past the points budget, is
  /// skipped with a note (trips are then drawn through their stops).
  std::optional<failure> read_shapes(feed_files& feed, source_keys& keys);
  /// A trip id an earlier merged source took gets the source's number
  /// ("ID~2"), as a stop's does: trip ids name one trip (get_trip,
  /// realtime).
  std::optional<failure> read_trips(feed_files& feed, source_keys& keys,
                                    uint16_t agency_zone, std::size_t source);
  std::optional<failure> read_stop_times(feed_files& feed, source_keys& keys);
  std::optional<failure> read_frequencies(feed_files& feed,
                                          source_keys& keys);
  std::optional<failure> read_transfers(feed_files& feed, source_keys& keys);
  /// Optional and informative: a malformed one is ignored.
  void read_feed_info(feed_files& feed);
  /// translations.txt (the current form: table_name, field_name,
  /// language, translation, record_id or field_value): stop names, line
  /// names and headsigns; rows of other fields are ignored.
  std::optional<failure> read_translations(feed_files& feed,
                                           source_keys& keys);
  /// A service id of this source, numbered after the services before it.
  uint32_t service_of(source_keys& keys, std::string_view id);

  // finish, step by step.
  using raw_times = std::vector<raw_stop_time>::iterator;
  /// Trips grouped by their stop sequence and rules, before they are
  /// split into patterns.
  struct shape {
    std::vector<pattern_stop> stops;
    std::vector<std::pair<uint32_t, std::vector<stop_time>>> trips;
  };
  struct shape_set {
    std::unordered_map<std::string, std::size_t> index;
    std::vector<shape> list;
  };
  /// A transfer between two stops: its seconds (`walk_time`: as long as
  /// the walk takes), or nullopt where it is not possible.
  using transfer_map
    = std::map<std::pair<uint32_t, uint32_t>, std::optional<int32_t>>;
  static constexpr int32_t walk_time = -1;
  /// Service days: the calendars' range cut at max_days, which services
  /// run on each, and each zone's day origins.
  std::optional<failure> build_days();
  /// Stops numbered along a Hilbert curve over their positions, so that
  /// stops near one another (a pattern's next stop, a footpath's end) sit
  /// near one another in every array indexed by stop: the router's labels
  /// and bounds are read stop after nearby stop. Everything read so far
  /// that names a stop follows.
  void renumber_stops();
  /// The stop times sorted by trip and sequence, and each trip's range.
  std::vector<std::pair<std::size_t, std::size_t>> trip_ranges();
  /// Times filled between timepoints; false (counted, sampled) when the
  /// trip has none at an end or goes back in time.
  bool usable_trip(uint32_t trip, raw_times begin, raw_times end);
  /// Trips into shapes, frequencies expanded.
  std::optional<failure> build_trips(shape_set& shapes);
  std::optional<failure> expand_frequencies(shape_set& shapes, uint32_t trip,
                                            raw_times begin, raw_times end);
  /// One trip (times moved by `shift`) into the shape of its stops, rules,
  /// zone and service.
  void add_trip(shape_set& shapes, uint32_t trip_index, raw_times begin,
                raw_times end, int32_t shift);
  /// Shapes into patterns: trips sorted, split so none overtakes.
  void build_patterns(shape_set& shapes);
  /// transfers.txt as overrides of the generated footpaths (a station's
  /// entry applies to its child stops; a stop's own entry wins).
  transfer_map transfer_overrides();
  void apply_transfers(const transfer_map& overrides);

  bool cancelled() const {
    return options.cancel && options.cancel->load();
  }
  failure cancelled_failure() const {
    return make_failure(ec::data_not_available,
                        "loading GTFS feed " + name + " was cancelled", "");
  }
  /// " (N rows skipped, e.g. FILE:LINE: why)" when rows were skipped.
  std::string skipped_note() const {
    if (report.skipped_rows == 0)
      return {};
    return " (" + std::to_string(report.skipped_rows) + " rows skipped"
           + (report.samples.empty() ? std::string{}
                                     : ", e.g. " + report.samples.front())
           + ")";
  }
};

/// Keys of one source, so ids may repeat between merged feeds.
struct source_keys {
  std::unordered_map<std::string, uint32_t> routes;
  std::unordered_map<std::string, uint32_t> trips;
  std::unordered_map<std::string, uint32_t> services;
  std::unordered_map<std::string, uint32_t> stops;
  std::unordered_map<std::string, uint32_t> shapes;
  uint32_t service_base = 0;
};

} // namespace transitd::gtfs::detail
