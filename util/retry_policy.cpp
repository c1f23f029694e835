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

circuit_breaker::circuit_breaker(int32_t threshold, int64_t cooldown_ms)
  : threshold_(std::max<int32_t>(1, threshold)),
    cooldown_ms_(std::max<int64_t>(1, cooldown_ms)) {
}

bool circuit_breaker::allow(int64_t now_ms) {
  if (!open_)
    return true;
  if (now_ms < open_until_ms_ || probe_out_)
    return false;
  probe_out_ = true;
  return true;
}

void circuit_breaker::on_success() {
  failures_ = 0;
  open_ = false;
  probe_out_ = false;
}

void circuit_breaker::on_failure(int64_t now_ms) {
  if (open_) {
    // The probe failed: another cooldown.
    probe_out_ = false;
    open_until_ms_ = now_ms + cooldown_ms_;
    return;
  }
  if (++failures_ >= threshold_) {
    open_ = true;
    open_until_ms_ = now_ms + cooldown_ms_;
    ++opened_;
  }
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
