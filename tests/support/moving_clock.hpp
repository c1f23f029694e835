#pragma once
// A steady clock that tests move forward instead of sleeping: pass
// function() where a component takes its clock (connection_limits::clock),
// then advance() it past a deadline.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace transitd::test {

struct moving_clock {
  std::shared_ptr<std::atomic<int64_t>> offset_ms
    = std::make_shared<std::atomic<int64_t>>(0);

  void advance(std::chrono::milliseconds by) const {
    *offset_ms += by.count();
  }

  std::function<std::chrono::steady_clock::time_point()> function() const {
    return [offset = offset_ms] {
      return std::chrono::steady_clock::now()
             + std::chrono::milliseconds{offset->load()};
    };
  }
};

} // namespace transitd::test
