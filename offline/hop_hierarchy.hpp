#pragma once
// The lower bounds of raptor_bounds.hpp for every stop at once, from a
// contraction hierarchy of the timetable's hop graph (Geisberger et al.,
// 2008) swept as PHAST does (Delling et al., 2011): a search upward from
// the end's stops, then one pass over every stop from the highest rank
// down, each taking the least over the edges from the stops above it.
//
// A plan_trip's first search needs the bound of nearly every stop (its
// cutoff lies beyond most of the city), and a Dijkstra over the hop graph
// settles the stops in no order the memory knows: on every MTA feed
// merged it took about 1.4 ms a plan, a quarter of plan_trip. The sweep
// reads its edges in the order they lie.

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::gtfs {

/// Contracts `graph` (of `stop_count` stops): each stop in turn, the one
/// whose contraction adds the fewest edges first, with a shortcut between
/// two of its neighbours unless a path without it is as short (searched
/// within a few hundred stops: a shortcut too many costs a read, never a
/// wrong bound).
hop_hierarchy contract_hops(const hop_graph& graph, std::size_t stop_count);

/// The sweep's scratch space, kept by its caller between queries.
struct hierarchy_sweep {
  std::vector<int32_t> by_position;
  /// The upward search's keys, (seconds << 32 | position), least first.
  std::vector<uint64_t> heap;

  /// Seconds between every stop and `seeds` (stops, and the seconds
  /// between each and the end) over `h`: from each stop to the end
  /// (`toward`) or from the end to each stop, into `seconds` by stop
  /// (`unreachable` where none is). Returns how many
  /// stops are reachable.
  std::size_t run(const hop_hierarchy& h,
                  const std::vector<std::pair<uint32_t, int32_t>>& seeds,
                  bool toward, std::vector<int32_t>& seconds,
                  int32_t unreachable);
};

} // namespace transitd::gtfs
