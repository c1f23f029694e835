#pragma once
// HTTP_CLIENT workers: detached actors (one thread each) that perform the
// blocking outbound HTTP calls, so the scheduler's threads never block on a
// socket. Each keeps one connection per origin alive for reuse. A worker
// makes exactly one attempt per message; retries, limits and the breaker
// live in UPSTREAM_GATE, which owns the workers.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"

namespace httplib {
class Client;
}

namespace transitd {

/// Lets UPSTREAM_GATE abort the request a worker is blocked in (a cancelled
/// call): shuts the connection down from another thread.
class http_abort {
public:
  /// Called by the worker around a blocking request.
  void begin(httplib::Client* client);
  void end();
  /// Aborts the request in progress, if any; returns whether there was one.
  bool abort();
  /// How many requests abort() has aborted.
  std::size_t aborted() const;

private:
  mutable std::mutex mutex_;
  httplib::Client* active_ = nullptr;
  std::size_t aborted_ = 0;
};

struct http_worker {
  http_client_actor actor;
  std::shared_ptr<http_abort> abort;
};

/// The most bytes an upstream response body may take (a TfL journey
/// answer is 0.1-2 MB); past it the attempt fails as UPSTREAM_ERROR.
constexpr std::size_t default_max_response_bytes = 32 * 1024 * 1024;

/// The clock an attempt's timeout as a whole runs on; empty: the steady
/// clock. Tests pass one they move forward instead of sleeping.
using http_client_clock = std::function<std::chrono::steady_clock::time_point()>;

/// Spawns one detached HTTP client worker. Each attempt also ends at its
/// timeout as a whole (httplib bounds only each wait for bytes).
http_worker spawn_http_client(
  caf::actor_system& system,
  std::size_t max_response_bytes = default_max_response_bytes,
  http_client_clock clock = {});

} // namespace transitd
