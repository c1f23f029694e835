#pragma once
// The HTTP listener: cpp-httplib tuned for keep-alive load (TCP_NODELAY, a
// sized thread pool, a deep listen backlog, bounded bodies and timeouts),
// moving bytes to and from the MCP endpoint.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "transport/mcp.hpp"

namespace httplib {
class Server;
}

namespace transitd {

struct http_server_options {
  std::string bind = "127.0.0.1";
  /// 0 picks a free port.
  int port = 8080;
  /// Worker threads; each keep-alive connection holds one while open.
  std::size_t threads = 128;
  std::size_t max_body_bytes = 1024 * 1024;
  int keep_alive_max_requests = 10000;
  int keep_alive_timeout_seconds = 30;
  int read_timeout_seconds = 10;
  int write_timeout_seconds = 10;
  int listen_backlog = 1024;
  /// PEM certificate (chain) and private key: serve HTTPS. Both or none.
  std::string tls_cert;
  std::string tls_key;
};

/// Turns one request into a reply (the MCP endpoint, or a fixed body for
/// the benchmark floor).
using http_handler = std::function<mcp::http_reply(const mcp::http_request&)>;

/// What the server answers besides /healthz; an empty handler is a 404.
struct http_routes {
  /// /mcp: POST, GET and DELETE.
  http_handler mcp;
  /// GET /metrics and GET /readyz.
  http_handler metrics;
  http_handler ready;
};

class http_server {
public:
  /// Serves `handler` on /mcp, with /healthz (the benchmark floor).
  http_server(http_server_options options, http_handler handler);
  /// Serves every route given. Throws std::runtime_error when the TLS
  /// certificate or key cannot be loaded.
  http_server(http_server_options options, http_routes routes);
  ~http_server();

  /// Binds the socket; returns the port (useful with port 0). Throws
  /// std::runtime_error naming the address when binding fails.
  int bind();

  /// Serves until stop(); call after bind().
  void run();

  void stop();

private:
  http_server_options options_;
  http_routes routes_;
  std::unique_ptr<httplib::Server> server_;
  int listen_fd_ = -1;
};

} // namespace transitd
