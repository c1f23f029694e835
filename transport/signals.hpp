#pragma once
// Waiting for the daemon's stop signal, with a reminder while it waits (the
// hourly warning of an unauthenticated non-loopback bind).

#include <chrono>
#include <functional>

#include <csignal>

namespace transitd {

/// Waits for one of `signals` (blocked in the calling thread) and returns
/// its number. With a `reminder`, calls it each time `interval` passes
/// without a signal.
int wait_for_signal(const sigset_t& signals,
                    std::chrono::milliseconds interval,
                    const std::function<void()>& reminder);

} // namespace transitd
