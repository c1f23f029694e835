#pragma once
// A second router for checking RAPTOR: the Connection Scan Algorithm
// (Dibbelt, Pajor, Strasser, Wagner 2013), written independently of
// offline/raptor.cpp, with labels per number of vehicles. It shares only
// the timetable data and the definitions of walking (access and egress to
// stops within the walk bound at walk_speed_mps, the timetable's footpaths
// no longer than the bound or listed in transfers.txt, the change time
// where one alights).

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::test {

class csa_reference {
public:
  struct connection {
    int64_t departure;
    int64_t arrival;
    uint32_t from;
    uint32_t to;
    uint32_t trip; // instance: pattern trip on one service day
    bool pickup;
    bool drop_off;
  };

  /// What realtime changes of one trip on one day, as the reference
  /// applies it: cancelled, every call moved by `delay`, calls at the
  /// positions `skipped` neither boarded nor left.
  struct trip_change {
    bool cancelled = false;
    int32_t delay = 0;
    std::vector<bool> skipped;
  };
  /// By (trip, service day index).
  using changes = std::map<std::pair<uint32_t, int32_t>, trip_change>;

  /// Connections of every trip running on the service days around `when`,
  /// changed by `realtime` when given.
  csa_reference(const gtfs::timetable& tt, int64_t when,
                const changes* realtime = nullptr)
    : tt_(tt) {
    uint32_t instance = 0;
    for (uint32_t p = 0; p < tt.patterns.size(); ++p) {
      const auto& pat = tt.patterns[p];
      for (const auto& day : tt.days_around(pat.zone, when))
        for (uint32_t r = 0; r < pat.trip_count; ++r) {
          auto trip_index = tt.pattern_trips[pat.trips_begin + r];
          const auto& trip = tt.trips[trip_index];
          if (!tt.runs_on(trip.service, day.day))
            continue;
          const trip_change* change = nullptr;
          if (realtime != nullptr) {
            auto found = realtime->find({trip_index, day.day});
            if (found != realtime->end())
              change = &found->second;
          }
          if (change != nullptr && change->cancelled)
            continue;
          auto shift = day.origin + (change != nullptr ? change->delay : 0);
          auto served = [&](uint32_t i) {
            return change == nullptr || change->skipped.empty()
                   || !change->skipped[i];
          };
          for (uint32_t i = 0; i + 1 < pat.stop_count; ++i) {
            const auto& a = tt.pattern_stops[pat.stops_begin + i];
            const auto& b = tt.pattern_stops[pat.stops_begin + i + 1];
            connections_.push_back(
              {shift + tt.time_at(pat, r, i).departure,
               shift + tt.time_at(pat, r, i + 1).arrival, a.stop, b.stop,
               instance, a.pickup && served(i), b.drop_off && served(i + 1)});
          }
          ++instance;
        }
    }
    trips_ = instance;
    std::sort(connections_.begin(), connections_.end(),
              [](const connection& a, const connection& b) {
                return a.departure != b.departure ? a.departure < b.departure
                                                  : a.arrival < b.arrival;
              });
  }

  static constexpr int64_t never = std::numeric_limits<int64_t>::max();

  /// Earliest arrival at `to` with at most k vehicles, for k = 0..rides
  /// (k = 0: walking straight there, or never).
  std::vector<int64_t> earliest(const coordinate& from, const coordinate& to,
                                int64_t time, int32_t rides,
                                int32_t max_walk) const {
    const auto n = tt_.stops.size();
    const auto K = static_cast<std::size_t>(rides);
    // ready[k][s]: earliest boarding at s with at most k vehicles so far.
    std::vector<std::vector<int64_t>> ready(K + 1,
                                            std::vector<int64_t>(n, never));
    std::vector<std::vector<char>> on(K + 1, std::vector<char>(trips_, 0));
    std::vector<int64_t> egress(n, -1);
    std::vector<int64_t> best(K + 1, never);
    auto direct = distance_m(from, to);
    if (direct <= max_walk)
      for (auto& b : best)
        b = time + gtfs::walk_seconds(direct);
    for (uint32_t s = 0; s < n; ++s) {
      if (!tt_.routable(s))
        continue;
      auto d = distance_m(from, tt_.stops[s].position);
      if (d <= max_walk)
        for (std::size_t k = 0; k <= K; ++k)
          ready[k][s] = time + gtfs::walk_seconds(d);
      auto e = distance_m(to, tt_.stops[s].position);
      if (e <= max_walk)
        egress[s] = gtfs::walk_seconds(e);
    }
    auto improve_ready = [&](std::size_t k, uint32_t s, int64_t t) {
      for (auto j = k; j <= K; ++j)
        ready[j][s] = std::min(ready[j][s], t);
    };
    auto first = std::lower_bound(
      connections_.begin(), connections_.end(), time,
      [](const connection& c, int64_t t) { return c.departure < t; });
    for (auto group = first; group != connections_.end();) {
      // Nothing leaving after the latest of the per-k bests improves any.
      if (K >= 1 && group->departure >= best[1])
        break;
      auto end = group;
      while (end != connections_.end() && end->departure == group->departure)
        ++end;
      // Connections leaving at the same second may feed each other
      // (zero-length hops): scan the group until nothing changes.
      for (bool changed = true; changed;) {
        changed = false;
        for (auto c = group; c != end; ++c)
          for (std::size_t k = 1; k <= K; ++k) {
            if (!on[k][c->trip] && c->pickup
                && ready[k - 1][c->from] <= c->departure) {
              on[k][c->trip] = 1;
              changed = true;
            }
            if (!on[k][c->trip] || !c->drop_off)
              continue;
            auto arrival = c->arrival;
            auto change = arrival + tt_.change_seconds[c->to];
            if (change < ready[k][c->to]) {
              improve_ready(k, c->to, change);
              changed = true;
            }
            for (auto f = tt_.out_begin[c->to]; f < tt_.out_begin[c->to + 1];
                 ++f) {
              const auto& path = tt_.out[f];
              if ((path.meters <= max_walk || path.listed)
                  && arrival + path.seconds < ready[k][path.stop]) {
                improve_ready(k, path.stop, arrival + path.seconds);
                changed = true;
              }
            }
            if (egress[c->to] >= 0)
              for (auto j = k; j <= K; ++j)
                best[j] = std::min(best[j], arrival + egress[c->to]);
          }
      }
      group = end;
    }
    return best;
  }

  /// One-to-all: the earliest arrival at every stop with at most k
  /// vehicles (k = 0..rides), by vehicle where it may be left or on foot
  /// (from the point, or along a footpath after a ride); `never` when not
  /// by `limit`.
  std::vector<std::vector<int64_t>> arrivals(const coordinate& from,
                                             int64_t time, int32_t rides,
                                             int32_t max_walk,
                                             int64_t limit) const {
    const auto n = tt_.stops.size();
    const auto K = static_cast<std::size_t>(rides);
    std::vector<std::vector<int64_t>> ready(K + 1,
                                            std::vector<int64_t>(n, never));
    std::vector<std::vector<int64_t>> arrive(K + 1,
                                             std::vector<int64_t>(n, never));
    std::vector<std::vector<char>> on(K + 1, std::vector<char>(trips_, 0));
    for (uint32_t s = 0; s < n; ++s) {
      if (!tt_.routable(s))
        continue;
      auto d = distance_m(from, tt_.stops[s].position);
      if (d <= max_walk)
        for (std::size_t k = 0; k <= K; ++k)
          ready[k][s] = arrive[k][s] = time + gtfs::walk_seconds(d);
    }
    auto improve = [&](std::vector<std::vector<int64_t>>& label,
                       std::size_t k, uint32_t s, int64_t t) {
      bool better = t < label[k][s];
      for (auto j = k; j <= K; ++j)
        label[j][s] = std::min(label[j][s], t);
      return better;
    };
    auto first = std::lower_bound(
      connections_.begin(), connections_.end(), time,
      [](const connection& c, int64_t t) { return c.departure < t; });
    for (auto group = first;
         group != connections_.end() && group->departure <= limit;) {
      auto end = group;
      while (end != connections_.end() && end->departure == group->departure)
        ++end;
      for (bool changed = true; changed;) {
        changed = false;
        for (auto c = group; c != end; ++c)
          for (std::size_t k = 1; k <= K; ++k) {
            if (!on[k][c->trip] && c->pickup
                && ready[k - 1][c->from] <= c->departure) {
              on[k][c->trip] = 1;
              changed = true;
            }
            if (!on[k][c->trip] || !c->drop_off)
              continue;
            improve(arrive, k, c->to, c->arrival);
            changed = improve(ready, k, c->to,
                              c->arrival + tt_.change_seconds[c->to])
                      || changed;
            for (auto f = tt_.out_begin[c->to]; f < tt_.out_begin[c->to + 1];
                 ++f) {
              const auto& path = tt_.out[f];
              if (path.meters > max_walk && !path.listed)
                continue;
              improve(arrive, k, path.stop, c->arrival + path.seconds);
              changed = improve(ready, k, path.stop,
                                c->arrival + path.seconds)
                        || changed;
            }
          }
      }
      group = end;
    }
    for (auto& per_k : arrive)
      for (auto& t : per_k)
        if (t > limit)
          t = never;
    return arrive;
  }

private:
  const gtfs::timetable& tt_;
  std::vector<connection> connections_;
  uint32_t trips_ = 0;
};

} // namespace transitd::test
