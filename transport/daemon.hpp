#pragma once
// The daemon's composition: settings → components. One function wires the
// demo upstream, the actor system, the engine, the gateway, the MCP
// endpoint, /metrics and /readyz, and the HTTP server; the daemon's main
// and the end-to-end test harness both use it, so the tests exercise the
// real mapping from settings to components.

#include <memory>
#include <string>

#include "transitd/transport/config.hpp"

namespace caf {
class actor_system;
class actor_system_config;
} // namespace caf

namespace transitd {

struct engine;
class gateway;
class http_server;
class ops_endpoints;

namespace mcp {
class core;
class endpoint;
class stdio_server;
class tool_catalog;
} // namespace mcp

namespace mock {
class mock_upstream;
} // namespace mock

class daemon {
public:
  /// Builds every component and binds the listener (port 0 picks one).
  /// Providers with neither a key nor an explicit URL (all with --demo)
  /// run on an embedded mock upstream started here. Throws
  /// std::runtime_error naming what failed (demo upstream, data directory,
  /// variable store, TLS files, the address).
  daemon(daemon_config config, const env_lookup& env);
  /// stop(), then frees everything in order.
  ~daemon();
  daemon(const daemon&) = delete;
  daemon& operator=(const daemon&) = delete;

  /// Serves until stop(); on the calling thread.
  void run();
  /// Stops accepting connections; run() returns. Idempotent.
  void stop_listening();
  /// Cancels every call in flight (they answer as cancelled).
  void cancel_calls();
  /// stop_listening(), cancel_calls(), then the gateway, the engine and
  /// the demo upstream. Idempotent.
  void stop();

  /// Whether run() is serving (stop_listening() before that stops
  /// nothing).
  bool running() const;
  /// The port the listener is bound to.
  int port() const {
    return port_;
  }
  /// The settings as used: demo URLs filled in.
  const daemon_config& config() const {
    return config_;
  }
  /// The embedded demo upstream, or null when every provider is live.
  mock::mock_upstream* demo_upstream() const {
    return demo_.get();
  }
  caf::actor_system& system();
  transitd::engine& engine();
  mcp::endpoint& endpoint();

private:
  /// Everything past the engine: gateway, endpoint, ops, HTTP server.
  void wire(const std::string& station_dir, bool routing_demo,
            bool geocoding_demo, bool tfl_demo);

  daemon_config config_;
  std::unique_ptr<mock::mock_upstream> demo_;
  std::unique_ptr<caf::actor_system_config> caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  /// Detached threads the actor system runs of its own (await_detached_stopped).
  std::size_t own_detached_ = 0;
  std::unique_ptr<transitd::engine> engine_;
  std::unique_ptr<gateway> gateway_;
  std::unique_ptr<mcp::tool_catalog> catalog_;
  std::shared_ptr<mcp::core> core_;
  std::unique_ptr<mcp::endpoint> endpoint_;
  std::unique_ptr<ops_endpoints> ops_;
  std::unique_ptr<http_server> server_;
  /// --stdio: standard input and output instead of server_.
  std::unique_ptr<mcp::stdio_server> stdio_;
  int port_ = 0;
  bool stopped_ = false;
};

} // namespace transitd
