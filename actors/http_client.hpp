#pragma once
// HTTP_CLIENT workers: detached actors (one thread each) that perform the
// blocking outbound HTTP calls, so the scheduler's threads never block on a
// socket. Each keeps one connection per origin alive for reuse.

#include <cstddef>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/interfaces.hpp"

namespace transitd {

/// Spawns one detached HTTP client worker.
http_client_actor spawn_http_client(caf::actor_system& system);

/// A fixed set of workers used round-robin by one provider. A provider's
/// concurrency towards its upstream is bounded by the pool size.
class http_client_pool {
public:
  http_client_pool() = default;
  http_client_pool(caf::actor_system& system, std::size_t size);

  /// The next worker, round-robin. The pool must not be empty.
  const http_client_actor& next();

  const std::vector<http_client_actor>& workers() const {
    return workers_;
  }

private:
  std::vector<http_client_actor> workers_;
  std::size_t next_ = 0;
};

} // namespace transitd
