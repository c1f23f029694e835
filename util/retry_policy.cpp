#include "transitd/util/retry_policy.hpp"

#include <algorithm>

namespace transitd {

int64_t backoff_ceiling_ms(const retry_policy& policy, int32_t retry) {
  int64_t ceiling = policy.base_ms;
  for (int32_t i = 1; i < retry && ceiling < policy.cap_ms; ++i)
    ceiling *= 2;
  return std::min(ceiling, policy.cap_ms);
}

int64_t backoff_ms(const retry_policy& policy, int32_t retry, double unit) {
  unit = std::clamp(unit, 0.0, 1.0);
  return static_cast<int64_t>(unit
                              * static_cast<double>(
                                backoff_ceiling_ms(policy, retry)));
}

attempt_class classify_status(int status) noexcept {
  if (status == 429)
    return attempt_class::throttled;
  if (status >= 500)
    return attempt_class::failed;
  return attempt_class::answer;
}

attempt_class classify_failure(ec code) noexcept {
  switch (code) {
    case ec::network_error:
    case ec::upstream_timeout:
    case ec::upstream_error:
      return attempt_class::failed;
    default:
      return attempt_class::final;
  }
}

circuit_breaker::circuit_breaker(breaker_settings settings)
  : settings_(settings) {
  settings_.min_calls = std::max<int32_t>(1, settings_.min_calls);
  settings_.failure_rate_percent
    = std::clamp<int32_t>(settings_.failure_rate_percent, 1, 100);
  settings_.window_ms = std::max<int64_t>(1, settings_.window_ms);
  settings_.cooldown_ms = std::max<int64_t>(1, settings_.cooldown_ms);
}

bool circuit_breaker::allow(int64_t now_ms) {
  if (!open_)
    return true;
  if (now_ms < open_until_ms_ || probe_out_)
    return false;
  probe_out_ = true;
  return true;
}

void circuit_breaker::open(int64_t now_ms) {
  if (!open_)
    ++opened_;
  open_ = true;
  probe_out_ = false;
  open_until_ms_ = now_ms + settings_.cooldown_ms;
}

void circuit_breaker::record(const std::string& call, const std::string& query,
                             bool failed, int64_t now_ms, bool probe) {
  if (open_) {
    // Only the probe decides; calls let through before it opened do not.
    if (!probe)
      return;
    if (failed) {
      open(now_ms);
    } else {
      open_ = false;
      probe_out_ = false;
      window_.clear();
    }
    return;
  }
  while (!window_.empty()
         && window_.front().at_ms + settings_.window_ms <= now_ms)
    window_.pop_front();
  // One call, or one query, counts once: its latest outcome stands, and
  // it remembers every query it stands for.
  std::vector<std::string> queries;
  if (!query.empty())
    queries.push_back(query);
  auto same = [&](const outcome& o) {
    if (!call.empty() && o.call == call)
      return true;
    return !query.empty()
           && std::find(o.queries.begin(), o.queries.end(), query)
                != o.queries.end();
  };
  for (auto it = window_.begin(); it != window_.end();) {
    if (!same(*it)) {
      ++it;
      continue;
    }
    for (auto& q : it->queries)
      if (queries.size() < 4
          && std::find(queries.begin(), queries.end(), q) == queries.end())
        queries.push_back(std::move(q));
    it = window_.erase(it);
  }
  window_.push_back(outcome{call, std::move(queries), failed, now_ms});
  auto calls = window_.size();
  if (calls < static_cast<std::size_t>(settings_.min_calls))
    return;
  if (failures_in_window() * 100
      >= calls * static_cast<std::size_t>(settings_.failure_rate_percent)) {
    window_.clear();
    open(now_ms);
  }
}

std::size_t circuit_breaker::failures_in_window() const {
  return static_cast<std::size_t>(
    std::count_if(window_.begin(), window_.end(),
                  [](const outcome& o) { return o.failed; }));
}

void circuit_breaker::on_abandoned() {
  probe_out_ = false;
}

circuit_breaker::state circuit_breaker::current(int64_t now_ms) const {
  if (!open_)
    return state::closed;
  return now_ms < open_until_ms_ ? state::open : state::half_open;
}

int64_t circuit_breaker::retry_in_ms(int64_t now_ms) const {
  if (!open_ || now_ms >= open_until_ms_)
    return 0;
  return open_until_ms_ - now_ms;
}

const char* to_string(circuit_breaker::state s) noexcept {
  switch (s) {
    case circuit_breaker::state::closed:
      return "closed";
    case circuit_breaker::state::open:
      return "open";
    case circuit_breaker::state::half_open:
      return "half_open";
  }
  return "closed";
}

} // namespace transitd
