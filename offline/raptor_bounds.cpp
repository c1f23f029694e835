#include "transitd/offline/raptor_bounds.hpp"

#include <algorithm>

namespace transitd::gtfs {

ride_edges least_rides(std::size_t stop_count, const pattern* patterns,
                       std::size_t count, const pattern_stop* stops,
                       const stop_time* times) {
  struct ride {
    uint32_t from;
    uint32_t to;
    int32_t seconds;
  };
  std::vector<ride> all;
  for (std::size_t p = 0; p < count; ++p) {
    const auto& pat = patterns[p];
    if (pat.trip_count == 0 || pat.stop_count < 2)
      continue;
    const auto* ps = stops + pat.stops_begin;
    const auto* tm = times + pat.times_begin;
    for (uint32_t i = 0; i + 1 < pat.stop_count; ++i) {
      if (ps[i].stop == ps[i + 1].stop)
        continue;
      auto least = std::numeric_limits<int32_t>::max();
      for (uint32_t r = 0; r < pat.trip_count; ++r) {
        const auto* trip = tm + static_cast<std::size_t>(r) * pat.stop_count;
        least = std::min(least, trip[i + 1].arrival - trip[i].departure);
      }
      all.push_back({ps[i].stop, ps[i + 1].stop, std::max(0, least)});
    }
  }
  // Each pair of stops once, at its least.
  std::sort(all.begin(), all.end(), [](const ride& a, const ride& b) {
    return a.from != b.from   ? a.from < b.from
           : a.to != b.to     ? a.to < b.to
                              : a.seconds < b.seconds;
  });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const ride& a, const ride& b) {
                          return a.from == b.from && a.to == b.to;
                        }),
            all.end());
  ride_edges out;
  auto csr = [&](std::vector<uint32_t>& begin,
                 std::vector<ride_edges::edge>& edges, bool by_to) {
    begin.assign(stop_count + 1, 0);
    for (const auto& r : all)
      ++begin[(by_to ? r.to : r.from) + 1];
    for (std::size_t s = 0; s < stop_count; ++s)
      begin[s + 1] += begin[s];
    edges.resize(all.size());
    auto fill = begin;
    for (const auto& r : all)
      edges[fill[by_to ? r.to : r.from]++]
        = {by_to ? r.from : r.to, r.seconds};
  };
  csr(out.in_begin, out.in, true);
  csr(out.out_begin, out.out, false);
  return out;
}

namespace {

int bucket_of(int32_t key, int32_t last) {
  auto diff = static_cast<uint32_t>(key ^ last);
  return diff == 0 ? 0 : 32 - __builtin_clz(diff);
}

} // namespace

void travel_bounds::start(
  const timetable& tt, const ride_edges& rides, const ride_edges* extra,
  const std::vector<std::pair<uint32_t, int32_t>>& seeds, bool toward,
  double max_walk) {
  tt_ = &tt;
  rides_ = &rides;
  extra_ = extra;
  toward_ = toward;
  max_walk_ = max_walk;
  seconds_.assign(tt.stops.size(), unreachable);
  for (auto& b : buckets_)
    b.clear();
  last_ = 0;
  queued_ = 0;
  radius_ = 0;
  settled_ = 0;
  for (auto [s, t] : seeds)
    if (s < seconds_.size())
      push(s, std::max(0, t));
}

void travel_bounds::push(uint32_t s, int32_t t) {
  if (t >= seconds_[s])
    return;
  seconds_[s] = t;
  buckets_[bucket_of(t, last_)].emplace_back(t, s);
  ++queued_;
}

void travel_bounds::reach(int64_t radius) {
  if (radius <= radius_ || radius_ == unreachable)
    return;
  auto limit = static_cast<int32_t>(
    std::min<int64_t>(radius, std::numeric_limits<int32_t>::max() - 1));
  const auto& walk_begin = toward_ ? tt_->in_begin : tt_->out_begin;
  const auto& walks = toward_ ? tt_->in : tt_->out;
  auto ride_over = [&](const ride_edges& e, uint32_t s, int32_t t) {
    if (e.empty())
      return;
    const auto& begin = toward_ ? e.in_begin : e.out_begin;
    const auto& list = toward_ ? e.in : e.out;
    for (auto i = begin[s]; i < begin[s + 1]; ++i)
      push(list[i].stop, t + list[i].seconds);
  };
  while (queued_ > 0) {
    if (buckets_[0].empty()) {
      // The least key moves down every entry of the first bucket in use.
      int i = 1;
      while (buckets_[i].empty())
        ++i;
      auto& from = buckets_[i];
      last_ = std::min_element(from.begin(), from.end())->first;
      for (auto e : from)
        buckets_[bucket_of(e.first, last_)].push_back(e);
      from.clear();
    }
    if (last_ >= limit) {
      radius_ = limit;
      return;
    }
    // Settle every stop at `last_` (a ride of 0 s adds to the bucket).
    auto& now = buckets_[0];
    for (std::size_t k = 0; k < now.size(); ++k) {
      auto [t, s] = now[k];
      --queued_;
      if (t != seconds_[s])
        continue; // reached shorter since
      ++settled_;
      ride_over(*rides_, s, t);
      if (extra_ != nullptr)
        ride_over(*extra_, s, t);
      for (auto f = walk_begin[s]; f < walk_begin[s + 1]; ++f) {
        const auto& path = walks[f];
        if (path.meters > max_walk_ && !path.listed)
          continue;
        push(path.stop, t + path.seconds);
      }
    }
    now.clear();
  }
  radius_ = unreachable; // every stop that can reach the end is settled
}

} // namespace transitd::gtfs
