#pragma once
// The operator's endpoints beside /mcp: GET /metrics (Prometheus text) and
// GET /readyz (readiness: station data loaded, store answering, providers
// configured). /healthz (liveness) is the HTTP server's own.

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>

#include "transitd/actors/engine.hpp"
#include "transitd/transport/mcp_http.hpp"
#include "transitd/transport/metrics.hpp"

namespace transitd {

struct ops_options {
  /// With authentication on, /metrics needs a bearer token too.
  bool metrics_auth = true;
  /// Each provider and how it is served ("live", "demo", "no key: ..."),
  /// reported by /readyz.
  std::vector<std::pair<std::string, std::string>> providers;
  /// How long a scrape or a readiness check waits for the actors.
  std::chrono::milliseconds timeout{1000};
  /// The HTTP connection loop's counts (none under stdio).
  std::function<reactor_stats()> connections;
};

class ops_endpoints {
public:
  ops_endpoints(caf::actor_system& system, transitd::engine engine,
                const mcp::endpoint& endpoint, ops_options options);

  mcp::http_reply metrics(const mcp::http_request& request) const;
  mcp::http_reply ready(const mcp::http_request& request) const;

private:
  std::vector<std::pair<std::string, int64_t>> collect_counters() const;

  caf::actor_system& system_;
  transitd::engine engine_;
  const mcp::endpoint& endpoint_;
  ops_options options_;
};

} // namespace transitd
