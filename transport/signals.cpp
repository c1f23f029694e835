#include "transitd/transport/signals.hpp"

#include <cerrno>

namespace transitd {

int wait_for_signal(const sigset_t& signals,
                    std::chrono::milliseconds interval,
                    const std::function<void()>& reminder) {
  if (!reminder) {
    int received = 0;
    while (sigwait(&signals, &received) != 0) {
    }
    return received;
  }
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(interval);
  timespec wait{static_cast<time_t>(seconds.count()),
                static_cast<long>((interval - seconds).count() * 1000000)};
  for (;;) {
    auto received = sigtimedwait(&signals, nullptr, &wait);
    if (received > 0)
      return received;
    if (errno == EAGAIN)
      reminder();
  }
}

} // namespace transitd
