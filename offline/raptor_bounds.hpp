#pragma once
// Lower bounds on the travel time between every stop and a query's end,
// for pruning RAPTOR's labels (as nigiri and other one-to-one routers do):
// a label at stop s at time t cannot lead to an arrival before
// t + bound(s), so a label whose t + bound(s) is no better than the best
// arrival found so far is not written, and the patterns and footpaths
// behind it are not scanned.
//
// The bound is a shortest path (Dijkstra, from the end's stops) over a
// graph without time: between consecutive stops of a pattern the least
// seconds any of its trips takes, and the footpaths. Waiting, changing
// and the rules of pickup, drop-off and access are left out, which only
// lowers the bound, so pruning by it never loses a journey.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::gtfs {

/// The rides between consecutive stops of some patterns, each pair of
/// stops once, at the least seconds any trip takes between them; as CSR
/// both ways (into a stop, out of a stop).
struct ride_edges {
  struct edge {
    uint32_t stop = 0;
    int32_t seconds = 0;
  };
  /// `in[in_begin[s]..in_begin[s+1])`: the rides into s, from `stop`.
  std::vector<uint32_t> in_begin;
  std::vector<edge> in;
  /// `out[out_begin[s]..out_begin[s+1])`: the rides out of s, to `stop`.
  std::vector<uint32_t> out_begin;
  std::vector<edge> out;

  bool empty() const { return in.empty(); }
};

/// The ride edges of `count` patterns (their stops and trip-major times
/// indexed from `stops` and `times`) over `stop_count` stops.
ride_edges least_rides(std::size_t stop_count, const pattern* patterns,
                       std::size_t count, const pattern_stop* stops,
                       const stop_time* times);

/// The bounds of one query's end, with their scratch space; one per
/// router. Computed lazily: `start` seeds the search, `reach` settles the
/// stops nearer than a radius, and `at` is exact below the radius and the
/// radius itself beyond it (every stop not yet settled is at least that
/// far). A search that never needs a bound larger than its best journey
/// takes settles only the stops nearer than that.
class travel_bounds {
public:
  /// A stop from which the end cannot be reached at all.
  static constexpr int32_t unreachable = std::numeric_limits<int32_t>::max();

  /// Starts the bounds from `seeds` (the end's stops and the seconds
  /// between each and the end): seconds from each stop to the end
  /// (`toward`: forward searches) or from the end to each stop (arrive-by).
  /// `extra` (may be null, else kept until the next start) adds a realtime
  /// layer's rides. Footpaths longer than `max_walk` meters count unless
  /// listed by the agency, as in RAPTOR.
  void start(const timetable& tt, const ride_edges& rides,
             const ride_edges* extra,
             const std::vector<std::pair<uint32_t, int32_t>>& seeds,
             bool toward, double max_walk);
  /// Settles every stop nearer than `radius` seconds (`at` is then exact
  /// for them).
  void reach(int64_t radius);
  /// A lower bound of the seconds between stop `s` and the end.
  int32_t at(uint32_t s) const { return std::min(seconds_[s], radius_); }
  /// Stops settled since the start.
  std::size_t settled() const { return settled_; }

private:
  void push(uint32_t s, int32_t t);

  const timetable* tt_ = nullptr;
  const ride_edges* rides_ = nullptr;
  const ride_edges* extra_ = nullptr;
  bool toward_ = true;
  double max_walk_ = 0;
  /// Tentative seconds (exact once settled).
  std::vector<int32_t> seconds_;
  /// Every stop nearer than this is settled.
  int32_t radius_ = 0;
  std::size_t settled_ = 0;
  /// A radix heap (monotone: no key below the last popped): bucket i
  /// holds the keys whose highest bit differing from `last_` is bit i-1.
  std::vector<std::pair<int32_t, uint32_t>> buckets_[33];
  int32_t last_ = 0;
  std::size_t queued_ = 0;
};

} // namespace transitd::gtfs
