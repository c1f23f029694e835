#pragma once
// HTTP_CLIENT workers: detached actors (one thread each) that perform the
// blocking outbound HTTP calls, so the scheduler's threads never block on a
// socket. Each keeps one connection per origin alive for reuse. A worker
// makes exactly one attempt per message; retries, limits and the breaker
// live in UPSTREAM_GATE, which owns the workers.

#include <memory>
#include <mutex>

#include <caf/fwd.hpp>

#include "actors/interfaces.hpp"

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

private:
  std::mutex mutex_;
  httplib::Client* active_ = nullptr;
};

struct http_worker {
  http_client_actor actor;
  std::shared_ptr<http_abort> abort;
};

/// Spawns one detached HTTP client worker.
http_worker spawn_http_client(caf::actor_system& system);

} // namespace transitd
