#pragma once
// HTTP_CLIENT workers: detached actors (one thread each) that perform the
// blocking outbound HTTP calls through the one outbound path
// (net/http_fetch), so the scheduler's threads never block on a socket.
// Each keeps one connection per origin alive for reuse; UPSTREAM_GATE
// aborts the request a worker is blocked in through its `http_abort`. A
// worker makes exactly one attempt per message; retries, limits and the
// breaker live in UPSTREAM_GATE, which owns the workers.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"
#include "transitd/net/http_fetch.hpp"

namespace transitd {

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
