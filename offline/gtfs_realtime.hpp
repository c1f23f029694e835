#pragma once
// The realtime layer of a timetable: what GTFS-realtime says about today's
// trips, built beside the immutable timetable (never into it) and swapped
// whole, like the timetable itself, so a query sees one update or the
// next, never half of one.
//
// A trip running off its schedule on a day (delayed, with skipped stops,
// or added by the feed) runs in the layer instead: its scheduled trip on
// that day is masked in the timetable's pattern (as is a cancelled trip),
// and its realtime times go into a pattern of the layer. Realtime trips of
// one timetable pattern, day and served stops share layer patterns, split
// (as the timetable's are) so that none overtakes another; an added trip
// has one of its own. Routers scan the timetable's patterns and then the
// layer's (numbered after them): the layer costs about what the trips it
// holds would cost in the timetable.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "transitd/offline/gtfs_rt.hpp"
#include "transitd/offline/gtfs_rt_trip.hpp"
#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::gtfs {

class layer_builder;

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
  /// `realtime_layer::patterns`) and its rank there; `none` when
  /// cancelled.
  uint32_t pattern = none;
  uint32_t rank = 0;
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
  /// Patterns of trips sorted by departure, none overtaking another;
  /// `stops_begin`, `times_begin` and `trips_begin` index the vectors
  /// below (times trip-major, as the timetable's).
  std::vector<pattern> patterns;
  /// Each pattern's trips: indices into `trips`.
  std::vector<uint32_t> pattern_trips;
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
  /// The layer's rides between consecutive stops at their least seconds
  /// (routers' lower bounds take them beside the timetable's).
  hop_graph least;
  /// Unique to this layer among the process's layers (routers keep what
  /// they computed for a layer by it, not by its address).
  uint64_t serial = 0;
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
  /// Whether every trip of the timetable's `pattern` is replaced on
  /// `day` (routers then skip the pattern that day).
  bool all_replaced(uint32_t pattern, int32_t day) const {
    if (masked[pattern] == 0)
      return false;
    auto i = replaced_count_.find(key(pattern, day));
    return i != replaced_count_.end()
           && i->second == base->patterns[pattern].trip_count;
  }
  const pattern& layer_pattern(uint32_t router_pattern) const {
    return patterns[router_pattern - first_pattern];
  }
  const rt_trip& trip_of(uint32_t router_pattern, uint32_t rank) const {
    return trips[pattern_trips[layer_pattern(router_pattern).trips_begin
                               + rank]];
  }
  /// Where a trip's call at `position` lies in `times`, `scheduled` and
  /// `status`.
  std::size_t call_of(const rt_trip& trip, uint32_t position) const {
    const auto& p = patterns[trip.pattern];
    return p.times_begin + std::size_t{trip.rank} * p.stop_count + position;
  }

private:
  friend class layer_builder;
  static uint64_t key(uint32_t trip, int32_t day) {
    return (uint64_t{trip} << 32) | static_cast<uint32_t>(day);
  }
  std::unordered_map<uint64_t, uint32_t> by_instance_;
  /// Replaced trips by (timetable pattern, day).
  std::unordered_map<uint64_t, uint32_t> replaced_count_;
};

/// The layer of `updates` over `tt` (for two updates of one trip on one
/// day, the later one). `now` (seconds since the epoch) picks the service
/// day of an update that names no start date: the day on which the trip
/// runs nearest to `now`. The caller sets the timestamps, vehicles and
/// alerts.
std::shared_ptr<realtime_layer>
build_realtime(std::shared_ptr<const timetable> tt,
               const std::vector<gtfs_rt::trip_update>& updates, int64_t now);

/// A realtime source of one of a merged feed's sources (`source`, from 1,
/// as the `ID~N` ids count them) names stops, routes and trips by that
/// source's ids: where the merge gave one the source's number (an earlier
/// source had taken it), it is renamed here too, so that it finds that
/// source's stop, route or trip rather than the earlier one's.
void name_as_merged(const timetable& tt, std::size_t source,
                    std::vector<gtfs_rt::trip_update>& updates,
                    std::vector<gtfs_rt::vehicle_position>& vehicles,
                    std::vector<gtfs_rt::alert>& alerts);

/// "HH:MM:SS" (hours may pass 24) as seconds; -1 when malformed.
int32_t parse_clock_time(std::string_view text);

/// "YYYYMMDD" as days since 1970-01-01; nullopt when malformed.
std::optional<int32_t> parse_service_date(std::string_view text);

} // namespace transitd::gtfs
