#pragma once
// RAPTOR (Delling, Pajor, Werneck: "Round-Based Public Transit Routing",
// 2012) over a `gtfs::timetable`: round k finds the earliest arrival with
// at most k vehicles, so the result is Pareto-optimal over arrival time and
// transfers. Arrive-by queries run the same rounds backward in time.
//
// Walking is defined once for every query: access and egress to stops
// within `max_walk_meters` (great-circle, at `walk_speed_mps`), footpaths
// between stops from the timetable no longer than `max_walk_meters`, and a
// stop's change time before boarding again where one alighted.

#include <atomic>
#include <cstdint>
#include <vector>

#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::gtfs {

class realtime_layer;

struct journey_request {
  coordinate from;
  coordinate to;
  /// Epoch seconds: leave at (or arrive by, with `arrive_by`).
  int64_t time = 0;
  bool arrive_by = false;
  int32_t max_transfers = 4;
  int32_t max_walk_meters = 1500;
  /// Skip trips marked inaccessible and stops marked not boardable.
  bool wheelchair = false;
  /// Read before every round: once set, the search ends early and its
  /// result is incomplete (its caller no longer wants it).
  const std::atomic<bool>* stop = nullptr;
  /// Realtime of the router's timetable: cancelled trips are not boarded,
  /// skipped stops not served, and trips run on their realtime times (as
  /// the layer's patterns, numbered after the timetable's). Null, or a
  /// layer of another timetable: the schedule.
  const realtime_layer* realtime = nullptr;
};

struct journey_leg {
  bool transit = false;
  /// Stops; `none` for the origin or destination point.
  uint32_t from_stop = none;
  uint32_t to_stop = none;
  int64_t start = 0;
  int64_t end = 0;
  /// Transit legs: the pattern, the trip's rank in it and the positions.
  /// A pattern from `first_pattern` on is the realtime layer's.
  uint32_t pattern = 0;
  uint32_t trip_rank = 0;
  uint32_t board = 0;
  uint32_t alight = 0;
  /// Meters: walked, or along the stops ridden.
  int32_t meters = 0;
};

struct journey {
  std::vector<journey_leg> legs;
  int64_t departure = 0;
  int64_t arrival = 0;
  /// Vehicles boarded.
  int32_t rides = 0;
};

/// A router with its scratch space; one per thread.
class raptor {
public:
  explicit raptor(const timetable& tt);

  /// The Pareto set over (arrival, rides) for one departure (or, arrive-by,
  /// over (departure, rides) for one arrival), sorted by arrival. Includes a
  /// walk-only journey when the points are within walking distance.
  std::vector<journey> route(const journey_request& request);

private:
  template <bool Backward>
  std::vector<journey> run(const journey_request& request);

  /// Router pattern `p`: the timetable's, or the realtime layer's after
  /// them; its stops and its trips' times.
  const pattern& pattern_at(uint32_t p) const;
  const pattern_stop* stops_of(uint32_t p) const;
  const stop_time* times_of(uint32_t p) const;
  journey_leg transit_leg(uint32_t pattern, uint32_t rank, int64_t origin,
                          uint32_t board, uint32_t alight) const;

  const timetable& tt_;
  /// The layer of the query running (null: none).
  const realtime_layer* rt_ = nullptr;
  uint32_t first_layer_pattern_ = 0;
  std::size_t rounds_ = 0;
  std::vector<int64_t> ride_;
  std::vector<int64_t> ready_;
  std::vector<int64_t> best_ride_;
  std::vector<int64_t> best_ready_;
  struct ride_parent {
    uint32_t pattern;
    uint32_t trip_rank;
    int64_t origin;
    uint32_t from_pos; // where the trip was caught in the scan
    uint32_t to_pos;   // where the label was set
  };
  struct ready_parent {
    uint32_t stop; // the stop ridden to (the same stop for a change)
    int32_t seconds;
    int32_t meters;
  };
  std::vector<ride_parent> ride_parent_;
  std::vector<ready_parent> ready_parent_;
  std::vector<int32_t> target_walk_;
  std::vector<uint32_t> target_stops_;
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> queue_pos_;
  std::vector<uint32_t> queued_;
  std::vector<char> marked_;
  std::vector<char> ride_marked_;
  std::vector<uint8_t> active_;
};

/// How far from the asked time the later searches of `plan_journeys` look.
inline constexpr int64_t later_search_window = 2 * 3600;

/// Up to `count` journeys: the Pareto set of `request`, then of later
/// departures (earlier arrivals, arrive-by) leaving within
/// `later_search_window` of the asked time, until `count` are found or
/// four searches ran. Sorted by arrival; duplicates removed; with more
/// than `count`, the earliest arrivals (arrive-by: the latest departures).
std::vector<journey> plan_journeys(raptor& router,
                                   const journey_request& request,
                                   std::size_t count);

} // namespace transitd::gtfs
