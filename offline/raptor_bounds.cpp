#include "transitd/offline/raptor_bounds.hpp"

#include <algorithm>

namespace transitd::gtfs {

namespace {

int bucket_of(int32_t key, int32_t last) {
  auto diff = static_cast<uint32_t>(key ^ last);
  return diff == 0 ? 0 : 32 - __builtin_clz(diff);
}

} // namespace

void travel_bounds::start(
  const timetable& tt, const hop_graph* extra,
  const std::vector<std::pair<uint32_t, int32_t>>& seeds, bool toward) {
  const auto stop_count = tt.stops.size();
  tt_ = &tt;
  extra_ = extra != nullptr && extra->covers(stop_count) ? extra : nullptr;
  toward_ = toward;
  seconds_.assign(stop_count, unreachable);
  for (auto& b : buckets_)
    b.clear();
  last_ = 0;
  queued_ = 0;
  radius_ = 0;
  settled_ = 0;
  for (auto [s, t] : seeds)
    if (s < seconds_.size())
      push(s, std::max<int64_t>(0, t));
}

void travel_bounds::queue(uint32_t s, int32_t t) {
  seconds_[s] = t;
  buckets_[bucket_of(t, last_)].emplace_back(t, s);
  ++queued_;
}

void travel_bounds::reach(int64_t radius) {
  if (radius <= radius_ || radius_ == unreachable)
    return;
  auto limit = static_cast<int32_t>(
    std::min<int64_t>(radius, std::numeric_limits<int32_t>::max() - 1));
  auto step = [&](const hop_graph& g, uint32_t s, int32_t t) {
    const auto& begin = toward_ ? g.in_begin : g.out_begin;
    const auto* list = toward_ ? g.in.data() : g.out.data();
    for (auto i = begin[s], end = begin[s + 1]; i < end; ++i)
      push(list[i].stop, int64_t{t} + list[i].seconds);
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
      step(tt_->hops, s, t);
      if (extra_ != nullptr)
        step(*extra_, s, t);
    }
    now.clear();
  }
  radius_ = unreachable; // every stop that can reach the end is settled
}

} // namespace transitd::gtfs
