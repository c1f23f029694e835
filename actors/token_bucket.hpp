#pragma once
// A token bucket on an explicit clock (milliseconds), so tests drive time.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace transitd {

class token_bucket {
public:
  /// `rate` tokens per second, holding at most `burst`; starts full.
  token_bucket(double rate = 10, double burst = 10)
    : rate_(rate), burst_(std::max(1.0, burst)), tokens_(burst_) {
  }

  /// Takes one token at `now_ms`; false when empty, with `retry_after_s`
  /// set to the whole seconds until one is back (at least 1).
  bool try_take(int64_t now_ms, int32_t& retry_after_s) {
    refill(now_ms);
    if (tokens_ >= 1) {
      tokens_ -= 1;
      return true;
    }
    double wait_s = rate_ > 0 ? (1 - tokens_) / rate_ : 60;
    retry_after_s = static_cast<int32_t>(std::max(1.0, std::ceil(wait_s)));
    return false;
  }

private:
  void refill(int64_t now_ms) {
    if (last_ms_ != 0 && now_ms > last_ms_)
      tokens_ = std::min(burst_,
                         tokens_ + rate_ * static_cast<double>(now_ms - last_ms_)
                                     / 1000.0);
    if (now_ms > last_ms_)
      last_ms_ = now_ms;
  }

  double rate_;
  double burst_;
  double tokens_;
  int64_t last_ms_ = 0;
};

} // namespace transitd
