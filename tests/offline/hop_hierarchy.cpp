// The hop graph's contraction hierarchy and its sweep: every stop's bound
// the same as a shortest path search gives it, both ways, on hand-made
// graphs (against a plain Bellman-Ford written here) and on real feeds
// (against the bounds' own Dijkstra), whatever the shortcuts.

#include "transitd/offline/hop_hierarchy.hpp"

#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "transitd/offline/raptor_bounds.hpp"
#include "support/fixture_feeds.hpp"

using namespace transitd;
using namespace transitd::gtfs;
using transitd::test::end_near;

namespace {

constexpr int32_t unreachable = travel_bounds::unreachable;

struct arc_in {
  uint32_t from, to;
  int32_t seconds;
};

/// A hop graph of `n` stops from its arcs (CSR both ways).
hop_graph graph_of(uint32_t n, const std::vector<arc_in>& arcs) {
  hop_graph g;
  g.out_begin.assign(n + 1, 0);
  g.in_begin.assign(n + 1, 0);
  for (const auto& a : arcs) {
    ++g.out_begin[a.from + 1];
    ++g.in_begin[a.to + 1];
  }
  for (uint32_t s = 0; s < n; ++s) {
    g.out_begin[s + 1] += g.out_begin[s];
    g.in_begin[s + 1] += g.in_begin[s];
  }
  g.out.resize(arcs.size());
  g.in.resize(arcs.size());
  auto out_at = g.out_begin;
  auto in_at = g.in_begin;
  for (const auto& a : arcs) {
    g.out[out_at[a.from]++] = {a.to, a.seconds};
    g.in[in_at[a.to]++] = {a.from, a.seconds};
  }
  return g;
}

/// The reference: Bellman-Ford from the seeds, over the arcs as they are
/// (`toward`: each stop's seconds to the seeds, over the arcs reversed).
std::vector<int64_t> reference(uint32_t n, const std::vector<arc_in>& arcs,
                               const std::vector<std::pair<uint32_t, int32_t>>&
                                 seeds,
                               bool toward) {
  const auto inf = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> d(n, inf);
  for (auto [s, t] : seeds)
    d[s] = std::min<int64_t>(d[s], t);
  for (uint32_t round = 0; round < n; ++round) {
    bool changed = false;
    for (const auto& a : arcs) {
      auto from = toward ? a.to : a.from;
      auto to = toward ? a.from : a.to;
      if (d[from] != inf && d[from] + a.seconds < d[to]) {
        d[to] = d[from] + a.seconds;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  return d;
}

} // namespace

TEST_CASE("hop hierarchy: the sweep's seconds are the shortest paths of "
          "hand-made graphs, both ways",
          "[raptor][bounds][hierarchy]") {
  std::mt19937 rng{11};
  int graphs = 0;
  std::size_t shortcuts = 0;
  for (uint32_t n : {1u, 2u, 5u, 12u, 40u, 150u}) {
    for (int variant = 0; variant < 4; ++variant) {
      // A street of stops both ways, random rides across it (some of 0
      // seconds, some twice between the same stops), and a few stops
      // reached by nothing.
      std::vector<arc_in> arcs;
      std::uniform_int_distribution<uint32_t> stop(0, n - 1);
      std::uniform_int_distribution<int32_t> seconds(0, 600);
      for (uint32_t s = 0; s + 1 < n; ++s)
        if (s % 7 != 6) {
          arcs.push_back({s, s + 1, seconds(rng)});
          arcs.push_back({s + 1, s, seconds(rng)});
        }
      for (uint32_t i = 0; i < n * (variant + 1); ++i) {
        auto a = stop(rng), b = stop(rng);
        if (a != b)
          arcs.push_back({a, b, variant == 3 ? 0 : seconds(rng)});
      }
      auto g = graph_of(n, arcs);
      auto h = contract_hops(g, n);
      REQUIRE(h.covers(n));
      shortcuts += h.up_out.size() + h.up_in.size();
      hierarchy_sweep sweep;
      for (int q = 0; q < 6; ++q) {
        std::vector<std::pair<uint32_t, int32_t>> seeds;
        for (int k = 0; k <= q % 3; ++k)
          seeds.emplace_back(stop(rng), seconds(rng) / 4);
        for (bool toward : {true, false}) {
          std::vector<int32_t> got;
          auto reached = sweep.run(h, seeds, toward, got, unreachable);
          auto want = reference(n, arcs, seeds, toward);
          REQUIRE(got.size() == n);
          std::size_t wrong = 0, reachable = 0;
          for (uint32_t s = 0; s < n; ++s) {
            auto expect = want[s] == std::numeric_limits<int64_t>::max()
                            ? int64_t{unreachable}
                            : want[s];
            reachable += expect != unreachable ? 1 : 0;
            wrong += got[s] != expect ? 1 : 0;
          }
          INFO("n " << n << " variant " << variant << " query " << q
                    << (toward ? " toward" : " from"));
          CHECK(wrong == 0);
          CHECK(reached == reachable);
        }
      }
      ++graphs;
    }
  }
  CHECK(graphs == 24);
  // The graphs needed shortcuts (else the sweep checked nothing but the
  // arcs themselves).
  CHECK(shortcuts > 0);
}

TEST_CASE("hop hierarchy: on real feeds, every stop's bound as the "
          "Dijkstra gives it",
          "[raptor][bounds][hierarchy]") {
  for (const auto* path : {"mta-subway-2026-09/mta-subway-gtfs.zip",
                           "caltrain-2023-09/caltrain-gtfs.zip"}) {
    auto tt = test::load_fixture_feed(path);
    REQUIRE(tt->hops.covers(tt->stops.size()));
    REQUIRE(tt->hierarchy.covers(tt->stops.size()));
    std::vector<uint32_t> routable;
    for (uint32_t s = 0; s < tt->stops.size(); ++s)
      if (tt->routable(s))
        routable.push_back(s);
    std::mt19937 rng{5};
    std::uniform_int_distribution<std::size_t> pick(0, routable.size() - 1);
    std::size_t compared = 0, reaching = 0;
    for (int q = 0; q < 8; ++q) {
      auto seeds = end_near(*tt, routable[pick(rng)], q < 4 ? 300 : 1500);
      for (bool toward : {true, false}) {
        travel_bounds swept, settled;
        swept.start(*tt, nullptr, seeds, toward);
        settled.start(*tt, nullptr, seeds, toward, true);
        swept.reach(1);
        settled.reach(std::numeric_limits<int64_t>::max());
        INFO(path << " query " << q << (toward ? " toward" : " from"));
        CHECK(swept.radius() == travel_bounds::unreachable);
        CHECK(swept.settled() == settled.settled());
        std::size_t wrong = 0;
        for (uint32_t s = 0; s < tt->stops.size(); ++s) {
          wrong += swept.at(s) != settled.at(s) ? 1 : 0;
          reaching += settled.at(s) != unreachable ? 1 : 0;
          ++compared;
        }
        CHECK(wrong == 0);
      }
    }
    // Most stops reach most ends: the comparison covers the network.
    CHECK(reaching > compared / 2);
  }
}

TEST_CASE("hop hierarchy: a graph without hops has none, and the bounds "
          "settle it lazily",
          "[raptor][bounds][hierarchy]") {
  hop_graph empty;
  CHECK_FALSE(contract_hops(empty, 3).covers(3));
  // A graph of other size than the timetable's is not contracted either.
  auto g = graph_of(2, {{0, 1, 5}});
  CHECK_FALSE(contract_hops(g, 3).covers(3));
  CHECK(contract_hops(g, 2).covers(2));
  // The sweep of a hierarchy skips seeds beyond its stops.
  auto h = contract_hops(g, 2);
  hierarchy_sweep sweep;
  std::vector<int32_t> got;
  CHECK(sweep.run(h, {{7, 0}, {1, 3}}, true, got, unreachable) == 2);
  CHECK(got == std::vector<int32_t>{8, 3});
  CHECK(sweep.run(h, {{1, 3}}, false, got, unreachable) == 1);
  CHECK(got == std::vector<int32_t>{unreachable, 3});
}
