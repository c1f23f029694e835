#include "actors/rate_limiter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <caf/local_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace transitd {

token_bucket::token_bucket(double rate, double burst)
  : rate_(rate), burst_(std::max(1.0, burst)), tokens_(burst_) {
}

void token_bucket::refill(int64_t now_ms) {
  if (!started_) {
    started_ = true;
    last_ms_ = now_ms;
    return;
  }
  if (now_ms <= last_ms_)
    return;
  tokens_ = std::min(burst_, tokens_
                               + rate_ * static_cast<double>(now_ms - last_ms_)
                                   / 1000.0);
  last_ms_ = now_ms;
}

int64_t token_bucket::try_take(int64_t now_ms) {
  refill(now_ms);
  if (tokens_ >= 1) {
    tokens_ -= 1;
    return 0;
  }
  if (rate_ <= 0)
    return 60'000;
  auto wait = static_cast<int64_t>(std::ceil((1 - tokens_) * 1000.0 / rate_));
  return std::max<int64_t>(1, wait);
}

rate_limits::rate_limits(const std::vector<rate_limit>& limits) {
  for (const auto& limit : limits) {
    if (limit.rate <= 0)
      continue;
    auto& e = entries_[limit.key];
    e.has_bucket = true;
    e.bucket = token_bucket{limit.rate,
                            limit.burst > 0 ? limit.burst : limit.rate};
  }
}

permit rate_limits::acquire(const std::string& key, int64_t now_ms) {
  auto it = entries_.find(key);
  if (it == entries_.end())
    return {};
  auto& e = it->second;
  if (e.hold_until_ms > now_ms) {
    ++e.refused;
    return {false, e.hold_until_ms - now_ms};
  }
  if (e.has_bucket) {
    if (auto wait = e.bucket.try_take(now_ms); wait > 0) {
      ++e.refused;
      return {false, wait};
    }
  }
  ++e.granted;
  return {};
}

void rate_limits::hold(const std::string& key, int64_t until_ms) {
  auto& e = entries_[key];
  e.hold_until_ms = std::max(e.hold_until_ms, until_ms);
}

bool rate_limits::limited(const std::string& key) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.has_bucket;
}

counters rate_limits::snapshot() const {
  counters result;
  for (const auto& [key, e] : entries_) {
    result.add(key + ".granted", e.granted);
    result.add(key + ".refused", e.refused);
  }
  return result;
}

int64_t clock_ms(caf::local_actor* self) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

std::string tool_key(const std::string& tool) {
  return "tool:" + tool;
}

std::string upstream_key(const std::string& upstream) {
  return "upstream:" + upstream;
}

rate_limiter_actor::behavior_type
rate_limiter(rate_limiter_actor::stateful_pointer<rate_limiter_state> self,
             std::vector<rate_limit> limits) {
  self->state.limits = rate_limits{limits};
  return {
    [self](const acquire_permit& request) {
      return self->state.limits.acquire(request.key, clock_ms(self));
    },
    [self](const hold_off& request) {
      self->state.limits.hold(request.key,
                              clock_ms(self) + request.duration_ms);
    },
    [self](get_counters) { return self->state.limits.snapshot(); },
  };
}

} // namespace transitd
