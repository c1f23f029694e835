#pragma once
// The HTTP listener: cpp-httplib accepting and parsing (a plain POST /mcp
// is read and answered without it: connection_server's direct route), tuned for
// keep-alive load (TCP_NODELAY, a sized worker pool, a deep listen
// backlog), with our own connection handling (connection_server: an epoll
// loop holds connections while they are idle or sending, workers answer
// whole requests; TLS, deadlines, bounded reads), moving bytes to and from
// the MCP endpoint.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "transitd/net/connection_reactor.hpp"
#include "transitd/transport/mcp_http.hpp"

namespace httplib {
class Server;
}

namespace transitd {

class connection_server;

struct http_server_options {
  std::string bind = "127.0.0.1";
  /// 0 picks a free port.
  int port = 8080;
  /// Worker threads; a request holds one from when it has arrived whole
  /// until its reply is handed over (a tool call's reply comes later,
  /// without one).
  std::size_t threads = 128;
  /// Connections open at once from one client address, and in all; more
  /// are answered 503 and closed.
  std::size_t max_connections_per_client = 2048;
  std::size_t max_connections = 16'384;
  /// WWW-Authenticate of a 431 for an Authorization header too long (with
  /// authentication on).
  std::string bearer_challenge;
  std::size_t max_body_bytes = 1024 * 1024;
  int keep_alive_max_requests = 10000;
  int keep_alive_timeout_seconds = 30;
  /// Longest wait for the next bytes of a request, or to write a reply.
  int read_timeout_seconds = 10;
  int write_timeout_seconds = 10;
  /// Longest time from a request's first byte until all of it has arrived
  /// (and from the end of its handler until its reply is out): a client
  /// that trickles bytes cannot hold a worker thread longer than this.
  int request_timeout_seconds = 30;
  /// With 8 KiB for the request line, the bytes a request's head may take
  /// (the connection is closed beyond them; the MCP endpoint answers 431
  /// above its own, lower, header limit).
  std::size_t max_header_bytes = 16 * 1024;
  int listen_backlog = 1024;
  /// PEM certificate (chain) and private key: serve HTTPS. Both or none.
  std::string tls_cert;
  std::string tls_key;
};

/// Turns one request into a reply.
using http_handler = std::function<mcp::http_reply(const mcp::http_request&)>;
/// Turns one request into a reply that `done` receives, on this thread or
/// later on another (mcp::endpoint::handle): the HTTP thread does not wait
/// for it.
using async_http_handler =
  std::function<void(const mcp::http_request&, mcp::reply_sink done)>;

/// What the server answers besides /healthz; an empty handler is a 404.
struct http_routes {
  /// /mcp: POST, GET and DELETE.
  async_http_handler mcp;
  /// GET /metrics and GET /readyz.
  http_handler metrics;
  http_handler ready;
  /// GET /.well-known/oauth-protected-resource and, when the resource has
  /// a path, `resource_metadata_path` (RFC 9728: the well-known segment
  /// before the resource's path): with OAuth on.
  http_handler resource_metadata;
  std::string resource_metadata_path;
};

class http_server {
public:
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
  /// Whether run() is accepting connections.
  bool running() const;

  /// What the connection loop counts.
  reactor_stats connection_stats() const;

private:
  /// Hands `request` to the MCP route: its reply when it came at once,
  /// else nullopt, the reply deferred to the thread that finishes the
  /// call (`close`: the connection ends with it). `hangup` is cancelled
  /// when the client hangs up first.
  std::optional<mcp::http_reply>
  answer_mcp(mcp::http_request request, bool close,
             std::shared_ptr<mcp::cancellation>& hangup);

  http_server_options options_;
  http_routes routes_;
  std::unique_ptr<connection_server> server_;
  int listen_fd_ = -1;
};

} // namespace transitd
