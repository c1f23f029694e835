#pragma once
// Lower bounds on the travel time between every stop and a query's end,
// for pruning RAPTOR's labels (as nigiri and other one-to-one routers do):
// a label at stop s at time t cannot lead to an arrival before
// t + bound(s), so a label whose t + bound(s) is no better than the best
// arrival found so far is not written, and the patterns and footpaths
// behind it are not scanned.
//
// The bound is a shortest path (Dijkstra, from the end's stops) over a
// graph without time, the timetable's `hops`: between consecutive stops
// of a pattern the least seconds any of its trips takes, and the
// footpaths (whatever the rider's walk limit), thinned so that every
// footpath is matched by a walk over the kept ones no longer than it,
// with a realtime layer's rides beside them. Waiting, changing and the
// rules of pickup, drop-off, access and walking distance are left out,
// which only lowers the bound, so pruning by it never loses a journey.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "transitd/offline/gtfs_timetable.hpp"
#include "transitd/offline/hop_hierarchy.hpp"

namespace transitd::gtfs {

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
  /// (`toward`: forward searches) or from the end to each stop (arrive-by),
  /// over the timetable's rides and footpaths (`hops`), and `extra` (may be
  /// null: a realtime layer's rides). All are kept until the next start.
  /// Without `extra`, and unless `lazy` is asked for, the first `reach`
  /// computes every stop's bound at once from the timetable's
  /// `hierarchy` (hop_hierarchy.hpp) when it has one.
  void start(const timetable& tt, const hop_graph* extra,
             const std::vector<std::pair<uint32_t, int32_t>>& seeds,
             bool toward, bool lazy = false);
  /// Settles every stop nearer than `radius` seconds (`at` is then exact
  /// for them).
  void reach(int64_t radius);
  /// A lower bound of the seconds between stop `s` and the end.
  int32_t at(uint32_t s) const { return std::min(seconds_[s], radius_); }
  /// What `at` reads, for a loop to hold in registers: `at(s)` is
  /// `min(seconds()[s], radius())`, until the next `reach`.
  const int32_t* seconds() const { return seconds_.data(); }
  int32_t radius() const { return radius_; }
  /// Stops settled since the start.
  std::size_t settled() const { return settled_; }

private:
  /// `s` reached in `t` seconds: queued when that is shorter (`t` in 64
  /// bits: a sum of steps, capped below `unreachable`).
  void push(uint32_t s, int64_t t) {
    if (t < seconds_[s])
      queue(s, static_cast<int32_t>(
                 std::min<int64_t>(t, int64_t{unreachable} - 1)));
  }
  void queue(uint32_t s, int32_t t);

  const timetable* tt_ = nullptr;
  /// Every bound to be computed by the hierarchy's sweep at the next
  /// `reach` (from `seeds_`).
  bool sweep_pending_ = false;
  std::vector<std::pair<uint32_t, int32_t>> seeds_;
  hierarchy_sweep sweep_;
  const hop_graph* extra_ = nullptr;
  bool toward_ = true;
  /// Tentative seconds (exact once settled).
  std::vector<int32_t> seconds_;
  /// Every stop nearer than this is settled.
  int32_t radius_ = 0;
  std::size_t settled_ = 0;
  /// A bucket queue (Dial's; keys are whole seconds and never fall below
  /// the last settled): a wheel of one-second slots for the keys within
  /// `wheel` seconds of `now_`, each slot the stops queued at that key,
  /// and the few keys further out (long rides) in `far_` until the wheel
  /// reaches them.
  static constexpr int64_t wheel = 4096;
  std::vector<std::vector<uint32_t>> slots_;
  std::vector<std::pair<int32_t, uint32_t>> far_;
  /// The least key in `far_` (unreachable: none).
  int64_t far_least_ = unreachable;
  /// Every key below is settled.
  int64_t now_ = 0;
  std::size_t in_wheel_ = 0;
  /// Moves the keys of `far_` the wheel now reaches into it.
  void pull_far();
  /// On to the next second, pulling in what the wheel then reaches.
  void advance();
};

} // namespace transitd::gtfs
