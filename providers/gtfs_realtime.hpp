#pragma once
// The realtime layer of a timetable: what GTFS-realtime says about today's
// trips, built beside the immutable timetable (never into it) and swapped
// whole, like the timetable itself, so a query sees one update or the
// next, never half of one.
//
// A trip running off its schedule on a day (delayed, with skipped stops,
// or added by the feed) becomes a pattern of its own in the layer: one
// trip, on that one service day, with its realtime times; skipped stops
// allow neither boarding nor alighting. Its scheduled trip on that day is
// masked in the timetable's pattern, as is a cancelled trip. Routers scan
// the timetable's patterns and then the layer's (numbered after them), so
// every pattern still holds trips that never overtake one another.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "providers/gtfs_rt.hpp"
#include "providers/gtfs_rt_trip.hpp"
#include "providers/gtfs_timetable.hpp"

namespace transitd::gtfs {

/// One trip on one service day as realtime has it.
struct rt_trip {
  /// The timetable's trip; `none` for a trip the feed added.
  uint32_t trip = none;
  uint32_t route = 0;
  /// The service day (an index into the timetable's days) and its origin.
  int32_t day = 0;
  int64_t origin = 0;
  bool cancelled = false;
  /// The layer's pattern carrying its realtime times (an index into
  /// `realtime_layer::patterns`); `none` when cancelled.
  uint32_t pattern = none;
  /// The feed's trip_id and, for an added trip, its headsign (the last
  /// stop's name when the feed gives none).
  std::string trip_id;
  std::string headsign;
  std::string vehicle;
};

/// What building a layer did with the updates, for logs and /metrics.
struct realtime_counts {
  std::size_t trip_updates = 0;
  /// Matched to a trip of the timetable on a day it runs.
  std::size_t matched = 0;
  std::size_t cancelled = 0;
  std::size_t added = 0;
  /// Trips the timetable does not know (or not on the day given), and
  /// added trips described too thinly to run (no route, fewer than two
  /// stops with times).
  std::size_t unmatched_trips = 0;
  /// Stop time updates that matched no call of their trip.
  std::size_t unmatched_stops = 0;
  /// REPLACEMENT, DUPLICATED and UNSCHEDULED trips, not applied.
  std::size_t not_applied = 0;
};

class realtime_layer {
public:
  /// The timetable this layer belongs to: applied only to that snapshot.
  std::shared_ptr<const timetable> base;
  /// The layer's pattern `i` is pattern `first_pattern + i` of a router.
  uint32_t first_pattern = 0;
  /// Patterns of one trip each; `stops_begin` and `times_begin` index the
  /// vectors below, `trips_begin` is the trip's index in `trips`.
  std::vector<pattern> patterns;
  std::vector<pattern_stop> pattern_stops;
  /// Realtime times, and the schedule's for the same calls (an added
  /// trip's are its realtime times).
  std::vector<stop_time> times;
  std::vector<stop_time> scheduled;
  /// gtfs_rt::call_status of each call.
  std::vector<gtfs_rt::call_status> status;
  /// The service day each pattern runs on.
  std::vector<int32_t> pattern_day;
  /// Per stop (CSR over the timetable's stops): where the layer's
  /// patterns call, with router pattern numbers.
  std::vector<uint32_t> calls_begin;
  std::vector<stop_call> calls;
  std::vector<rt_trip> trips;
  /// Per timetable pattern: whether a trip of it is cancelled or runs in
  /// the layer on some day.
  std::vector<uint8_t> masked;
  /// The largest delay and the largest advance of a departure (seconds,
  /// both >= 0), so a departures board scans wide enough.
  int32_t max_delay = 0;
  int32_t max_advance = 0;
  /// The oldest and newest header timestamps of the messages applied
  /// (seconds since the epoch).
  int64_t oldest = 0;
  int64_t newest = 0;
  realtime_counts counts;
  /// Vehicle positions and alerts of the same messages, as decoded.
  std::vector<gtfs_rt::vehicle_position> vehicles;
  std::vector<gtfs_rt::alert> alerts;

  /// The realtime state of a timetable trip on a day; null: none (the
  /// schedule stands).
  const rt_trip* find(uint32_t trip, int32_t day) const;
  /// Whether the timetable's trip (`rank` of `pattern`) does not run on
  /// `day` as scheduled: cancelled, or running in the layer instead.
  bool replaced(uint32_t pattern, uint32_t rank, int32_t day) const {
    return masked[pattern] != 0
           && by_instance_.count(key(base->pattern_trips
                                       [base->patterns[pattern].trips_begin
                                        + rank],
                                     day))
                != 0;
  }
  const pattern& layer_pattern(uint32_t router_pattern) const {
    return patterns[router_pattern - first_pattern];
  }
  const rt_trip& trip_of(uint32_t router_pattern) const {
    return trips[patterns[router_pattern - first_pattern].trips_begin];
  }

private:
  friend std::shared_ptr<realtime_layer>
  build_realtime(std::shared_ptr<const timetable>,
                 const std::vector<gtfs_rt::trip_update>&, int64_t);
  static uint64_t key(uint32_t trip, int32_t day) {
    return (uint64_t{trip} << 32) | static_cast<uint32_t>(day);
  }
  std::unordered_map<uint64_t, uint32_t> by_instance_;
};

/// The layer of `updates` over `tt` (for two updates of one trip on one
/// day, the later one). `now` (seconds since the epoch) picks the service
/// day of an update that names no start date: the day on which the trip
/// runs nearest to `now`. The caller sets the timestamps, vehicles and
/// alerts.
std::shared_ptr<realtime_layer>
build_realtime(std::shared_ptr<const timetable> tt,
               const std::vector<gtfs_rt::trip_update>& updates, int64_t now);

/// "HH:MM:SS" (hours may pass 24) as seconds; -1 when malformed.
int32_t parse_clock_time(std::string_view text);

/// "YYYYMMDD" as days since 1970-01-01; nullopt when malformed.
std::optional<int32_t> parse_service_date(std::string_view text);

} // namespace transitd::gtfs
