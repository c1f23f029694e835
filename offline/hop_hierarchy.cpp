#include "transitd/offline/hop_hierarchy.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>

namespace transitd::gtfs {

namespace {

struct arc {
  uint32_t to;
  int32_t seconds;
};

/// The graph while it is contracted: each stop's arcs out and in, the
/// graph's own and the shortcuts added (to or from stops contracted since
/// as well: those are passed over).
struct contraction {
  std::vector<std::vector<arc>> out, in;
  std::vector<char> done;
  /// Neighbours contracted so far (spreads the contraction over the city).
  std::vector<int32_t> gone_near;
  // The witness search's scratch space.
  std::vector<int64_t> dist;
  std::vector<uint32_t> touched;
  /// Keys as (seconds << 32 | stop), least first: one compare a step.
  std::vector<uint64_t> heap;

  /// The witness search's reach: stops settled at most (a witness not
  /// found costs a shortcut more, never a wrong bound).
  static constexpr std::size_t settle_limit = 60;
  /// The stops a witness search looks for, and how many are left.
  std::vector<char> wanted;
  std::size_t wanted_left = 0;

  static void add(std::vector<arc>& list, uint32_t to, int32_t seconds) {
    for (auto& a : list)
      if (a.to == to) {
        a.seconds = std::min(a.seconds, seconds);
        return;
      }
    list.push_back({to, seconds});
  }

  /// Least seconds from `from` to the stops `wanted` within `limit`,
  /// avoiding `skip` and contracted stops (into `dist`; reset by `clear`).
  void witness(uint32_t from, uint32_t skip, int64_t limit) {
    // (Every key pushed is at most `limit`, two arcs' seconds: below
    // 2^32.)
    auto greater = std::greater<uint64_t>{};
    heap.clear();
    dist[from] = 0;
    touched.push_back(from);
    heap.push_back(from);
    std::size_t settled = 0;
    std::size_t left = wanted_left;
    while (!heap.empty() && settled < settle_limit && left > 0) {
      std::pop_heap(heap.begin(), heap.end(), greater);
      const auto key = heap.back();
      heap.pop_back();
      const auto d = static_cast<int64_t>(key >> 32);
      const auto x = static_cast<uint32_t>(key);
      if (d != dist[x])
        continue;
      if (d > limit)
        break;
      ++settled;
      if (wanted[x])
        --left;
      for (const auto& a : out[x]) {
        if (a.to == skip || done[a.to])
          continue;
        auto nd = d + a.seconds;
        if (nd <= limit && nd < dist[a.to]) {
          if (dist[a.to] == std::numeric_limits<int64_t>::max())
            touched.push_back(a.to);
          dist[a.to] = nd;
          heap.push_back(static_cast<uint64_t>(nd) << 32 | a.to);
          std::push_heap(heap.begin(), heap.end(), greater);
        }
      }
    }
  }
  void clear() {
    for (auto x : touched)
      dist[x] = std::numeric_limits<int64_t>::max();
    touched.clear();
  }

  /// The shortcuts contracting `v` needs (each u -> w through v with no
  /// path as short around it), into `found`.
  void shortcuts(uint32_t v,
                 std::vector<std::tuple<uint32_t, uint32_t, int32_t>>& found) {
    found.clear();
    int64_t longest_out = 0;
    wanted_left = 0;
    for (const auto& b : out[v])
      if (!done[b.to]) {
        longest_out = std::max<int64_t>(longest_out, b.seconds);
        if (!wanted[b.to]) {
          wanted[b.to] = 1;
          ++wanted_left;
        }
      }
    for (const auto& a : in[v]) {
      if (done[a.to])
        continue;
      const uint32_t u = a.to;
      witness(u, v, int64_t{a.seconds} + longest_out);
      for (const auto& b : out[v]) {
        if (done[b.to] || b.to == u)
          continue;
        const int64_t via = int64_t{a.seconds} + b.seconds;
        if (dist[b.to] <= via)
          continue;
        found.emplace_back(u, b.to,
                           static_cast<int32_t>(std::min<int64_t>(
                             via, std::numeric_limits<int32_t>::max() - 1)));
      }
      clear();
    }
    for (const auto& b : out[v])
      wanted[b.to] = 0;
  }

  /// Shortcuts added less arcs removed, plus the neighbours contracted.
  int64_t priority(uint32_t v,
                   std::vector<std::tuple<uint32_t, uint32_t, int32_t>>& found) {
    shortcuts(v, found);
    int64_t removed = 0;
    for (const auto& a : out[v])
      removed += done[a.to] ? 0 : 1;
    for (const auto& a : in[v])
      removed += done[a.to] ? 0 : 1;
    return static_cast<int64_t>(found.size()) - removed + gone_near[v];
  }
};

} // namespace

hop_hierarchy contract_hops(const hop_graph& graph, std::size_t stop_count) {
  hop_hierarchy h;
  if (!graph.covers(stop_count))
    return h;
  const auto n = static_cast<uint32_t>(stop_count);
  contraction c;
  c.out.resize(n);
  c.in.resize(n);
  c.done.assign(n, 0);
  c.gone_near.assign(n, 0);
  c.dist.assign(n, std::numeric_limits<int64_t>::max());
  c.wanted.assign(n, 0);
  for (uint32_t s = 0; s < n; ++s)
    for (auto i = graph.out_begin[s]; i < graph.out_begin[s + 1]; ++i) {
      const auto& hp = graph.out[i];
      if (hp.stop == s || hp.stop >= n)
        continue;
      auto seconds = std::max(0, hp.seconds);
      contraction::add(c.out[s], hp.stop, seconds);
      contraction::add(c.in[hp.stop], s, seconds);
    }

  // Least priority first; a stop's priority is computed again when it
  // comes up (its neighbours' contractions change it), and it is
  // contracted if it is still no worse than the next.
  using item = std::pair<int64_t, uint32_t>;
  std::priority_queue<item, std::vector<item>, std::greater<item>> queue;
  std::vector<std::tuple<uint32_t, uint32_t, int32_t>> added;
  for (uint32_t v = 0; v < n; ++v)
    queue.push({c.priority(v, added), v});
  std::vector<uint32_t> order;
  order.reserve(n);
  // Each stop's arcs up, recorded as it is contracted (by stop).
  std::vector<std::vector<arc>> up_out(n), up_in(n);
  while (!queue.empty()) {
    auto v = queue.top().second;
    queue.pop();
    if (c.done[v])
      continue;
    auto now = c.priority(v, added);
    if (!queue.empty() && now > queue.top().first) {
      queue.push({now, v});
      continue;
    }
    for (const auto& a : c.out[v])
      if (!c.done[a.to])
        up_out[v].push_back(a);
    for (const auto& a : c.in[v])
      if (!c.done[a.to])
        up_in[v].push_back(a);
    c.done[v] = 1;
    order.push_back(v);
    for (auto [u, w, seconds] : added) {
      contraction::add(c.out[u], w, seconds);
      contraction::add(c.in[w], u, seconds);
    }
    // The arcs to and from `v` leave its neighbours' lists.
    auto drop = [v](std::vector<arc>& list) {
      list.erase(std::remove_if(list.begin(), list.end(),
                                [v](const arc& a) { return a.to == v; }),
                 list.end());
    };
    for (const auto& a : up_out[v]) {
      ++c.gone_near[a.to];
      drop(c.in[a.to]);
    }
    for (const auto& a : up_in[v]) {
      ++c.gone_near[a.to];
      drop(c.out[a.to]);
    }
    c.out[v].clear();
    c.out[v].shrink_to_fit();
    c.in[v].clear();
    c.in[v].shrink_to_fit();
  }

  // Positions: the last contracted (the highest rank) first.
  h.stop_at.assign(order.rbegin(), order.rend());
  h.position_of.assign(n, 0);
  for (uint32_t p = 0; p < n; ++p)
    h.position_of[h.stop_at[p]] = p;
  auto flatten = [&](const std::vector<std::vector<arc>>& up,
                     std::vector<uint32_t>& begin, std::vector<hop>& list) {
    begin.assign(n + 1, 0);
    list.clear();
    for (uint32_t p = 0; p < n; ++p) {
      begin[p] = static_cast<uint32_t>(list.size());
      auto arcs = up[h.stop_at[p]];
      // In position order: the sweep reads the positions above in turn.
      std::sort(arcs.begin(), arcs.end(), [&](const arc& a, const arc& b) {
        return h.position_of[a.to] < h.position_of[b.to];
      });
      for (const auto& a : arcs)
        list.push_back({h.position_of[a.to], a.seconds});
    }
    begin[n] = static_cast<uint32_t>(list.size());
  };
  flatten(up_out, h.up_out_begin, h.up_out);
  flatten(up_in, h.up_in_begin, h.up_in);
  return h;
}

std::size_t hierarchy_sweep::run(
  const hop_hierarchy& h,
  const std::vector<std::pair<uint32_t, int32_t>>& seeds, bool toward,
  std::vector<int32_t>& seconds, int32_t unreachable) {
  const auto n = h.stop_at.size();
  by_position.assign(n, unreachable);
  int32_t* d = by_position.data();
  const int64_t cap = int64_t{unreachable} - 1;
  // Toward the end: the bounds are the reversed graph's distances from
  // the end, so the search goes up the arcs into each stop and the sweep
  // down the arcs out of it; from the end, the other way round.
  const auto& up_begin = toward ? h.up_in_begin : h.up_out_begin;
  const auto* up = toward ? h.up_in.data() : h.up_out.data();
  const auto& down_begin = toward ? h.up_out_begin : h.up_in_begin;
  const auto* down = toward ? h.up_out.data() : h.up_in.data();

  // (Keys are at most `cap`, below 2^31.)
  auto greater = std::greater<uint64_t>{};
  auto key = [](int64_t t, uint32_t p) {
    return static_cast<uint64_t>(t) << 32 | p;
  };
  heap.clear();
  for (auto [s, t] : seeds) {
    if (s >= n)
      continue;
    auto p = h.position_of[s];
    auto v = static_cast<int32_t>(std::min<int64_t>(std::max(0, t), cap));
    if (v < d[p]) {
      d[p] = v;
      heap.push_back(key(v, p));
      std::push_heap(heap.begin(), heap.end(), greater);
    }
  }
  // Upward from the seeds: a handful of stops at the top of the
  // hierarchy.
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    const auto top = heap.back();
    heap.pop_back();
    const auto t = static_cast<int64_t>(top >> 32);
    const auto p = static_cast<uint32_t>(top);
    if (t != d[p])
      continue;
    for (auto i = up_begin[p]; i < up_begin[p + 1]; ++i) {
      auto q = up[i].stop;
      auto nt = std::min<int64_t>(t + up[i].seconds, cap);
      if (nt < d[q]) {
        d[q] = static_cast<int32_t>(nt);
        heap.push_back(key(nt, q));
        std::push_heap(heap.begin(), heap.end(), greater);
      }
    }
  }
  // Down, every stop after all those above it.
  std::size_t reached = 0;
  // (In 64 bits and without a branch: a sum from a stop not reached is at
  // least `unreachable`, and so stays one; a sum as far, 68 years, would
  // too.)
  for (uint32_t p = 0; p < n; ++p) {
    int64_t best = d[p];
    for (auto i = down_begin[p]; i < down_begin[p + 1]; ++i)
      best = std::min(best, int64_t{d[down[i].stop]} + down[i].seconds);
    d[p] = static_cast<int32_t>(std::min<int64_t>(best, unreachable));
    reached += d[p] != unreachable ? 1 : 0;
  }
  seconds.resize(n);
  for (uint32_t p = 0; p < n; ++p)
    seconds[h.stop_at[p]] = d[p];
  return reached;
}

} // namespace transitd::gtfs
