#include "transitd/offline/raptor_bounds.hpp"

#include <algorithm>

namespace transitd::gtfs {

void travel_bounds::start(
  const timetable& tt, const hop_graph* extra,
  const std::vector<std::pair<uint32_t, int32_t>>& seeds, bool toward,
  bool lazy) {
  const auto stop_count = tt.stops.size();
  tt_ = &tt;
  extra_ = extra != nullptr && extra->covers(stop_count) ? extra : nullptr;
  toward_ = toward;
  sweep_pending_
    = !lazy && extra_ == nullptr && tt.hierarchy.covers(stop_count);
  if (sweep_pending_) {
    seeds_ = seeds;
    seconds_.resize(stop_count, unreachable); // read below radius 0 only
    now_ = 0;
    in_wheel_ = 0;
    radius_ = 0;
    settled_ = 0;
    far_.clear();
    return;
  }
  seconds_.assign(stop_count, unreachable);
  slots_.resize(wheel);
  for (auto& slot : slots_)
    slot.clear();
  far_.clear();
  far_least_ = unreachable;
  now_ = 0;
  in_wheel_ = 0;
  radius_ = 0;
  settled_ = 0;
  for (auto [s, t] : seeds)
    if (s < seconds_.size())
      push(s, std::max<int64_t>(0, t));
}

// Inlined into `push`'s callers (every relaxed hop): a call's prologue
// was a third of its cost.
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline void travel_bounds::queue(uint32_t s, int32_t t) {
  seconds_[s] = t;
  if (t - now_ < wheel) {
    slots_[static_cast<std::size_t>(t) & (wheel - 1)].push_back(s);
    ++in_wheel_;
  } else {
    far_.emplace_back(t, s);
    far_least_ = std::min<int64_t>(far_least_, t);
  }
}

void travel_bounds::pull_far() {
  far_least_ = unreachable;
  std::size_t kept = 0;
  for (auto [t, s] : far_) {
    if (t != seconds_[s])
      continue; // reached shorter since (and queued then)
    if (t - now_ < wheel) {
      slots_[static_cast<std::size_t>(t) & (wheel - 1)].push_back(s);
      ++in_wheel_;
    } else {
      far_[kept++] = {t, s};
      far_least_ = std::min<int64_t>(far_least_, t);
    }
  }
  far_.resize(kept);
}

void travel_bounds::advance() {
  ++now_;
  if (now_ + wheel > far_least_)
    pull_far();
}

void travel_bounds::reach(int64_t radius) {
  if (radius <= radius_ || radius_ == unreachable)
    return;
  if (sweep_pending_) {
    sweep_pending_ = false;
    settled_ = sweep_.run(tt_->hierarchy, seeds_, toward_, seconds_,
                          unreachable);
    radius_ = unreachable;
    return;
  }
  const int64_t limit
    = std::min<int64_t>(radius, std::numeric_limits<int32_t>::max() - 1);
  auto step = [&](const hop_graph& g, uint32_t s, int32_t t) {
    const auto& begin = toward_ ? g.in_begin : g.out_begin;
    const auto* list = toward_ ? g.in.data() : g.out.data();
    for (auto i = begin[s], end = begin[s + 1]; i < end; ++i)
      push(list[i].stop, int64_t{t} + list[i].seconds);
  };
  for (;;) {
    if (in_wheel_ == 0) {
      if (far_.empty())
        break;
      // Nothing near: on to the least key further out.
      now_ = std::max(now_, far_least_);
      pull_far();
      if (in_wheel_ == 0)
        break; // only keys reached shorter since were left
    }
    // The next slot in use (each key below `now_ + wheel` is in the
    // wheel, so the first slot in use holds the least key).
    while (slots_[static_cast<std::size_t>(now_) & (wheel - 1)].empty())
      advance();
    if (now_ >= limit) {
      radius_ = static_cast<int32_t>(limit);
      return;
    }
    // Settle every stop at `now_` (a ride of 0 s adds to the slot).
    auto& slot = slots_[static_cast<std::size_t>(now_) & (wheel - 1)];
    const auto t = static_cast<int32_t>(now_);
    for (std::size_t k = 0; k < slot.size(); ++k) {
      auto s = slot[k];
      --in_wheel_;
      if (seconds_[s] != t)
        continue; // reached shorter since
      ++settled_;
      step(tt_->hops, s, t);
      if (extra_ != nullptr)
        step(*extra_, s, t);
    }
    slot.clear();
    advance();
  }
  radius_ = unreachable; // every stop that can reach the end is settled
}

} // namespace transitd::gtfs
