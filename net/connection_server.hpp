#pragma once
// cpp-httplib's server with our connection loop. httplib accepts and
// parses each request but a plain one a direct route takes
// (set_direct_route: every tool call); everything around that is ours: an event loop
// (connection_reactor, epoll) holds every connection while it is idle, in
// its TLS handshake or sending its request, and hands each whole request
// to a worker of the pool `new_task_queue` makes (http_connection: TLS,
// the per-request deadline, the head byte budget). The daemon's listener
// (http_server) and the mock upstream both serve through it.
//
// Handlers that may run long (a tool call, the mock's added latency) hold a
// handler_scope: no request deadline while they work, then one for sending
// the reply.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <mutex>
#include <string>

#include <httplib.h>

#include "transitd/net/connection_reactor.hpp"
#include "transitd/net/http_connection.hpp"
#include "transitd/net/request_framing.hpp"

struct ssl_ctx_st;

namespace transitd {

class connection_server : public httplib::Server {
public:
  /// With `tls` (owned from here on) every connection is HTTPS.
  /// `keep_alive` is the longest wait for a connection's next request.
  /// Installs a pre-routing handler (ends the head's byte budget once the
  /// headers are in); replacing it would leave bodies counted as head.
  connection_server(connection_limits limits,
                    std::chrono::milliseconds keep_alive,
                    ssl_ctx_st* tls = nullptr);
  ~connection_server() override;

  connection_server(const connection_server&) = delete;
  connection_server& operator=(const connection_server&) = delete;

  /// Wakes every connection waiting for its next request and stops
  /// listening: returns at once; listen_after_bind() returns once the
  /// requests in progress are answered.
  void shut_down();

  /// Serves until shut_down(), then waits for the requests in progress
  /// (hides httplib's: the event loop starts and ends with it).
  bool listen_after_bind();

  /// Connections open at once from one client address, and in all.
  void set_connection_caps(std::size_t per_client, std::size_t total) {
    caps_per_client_ = per_client;
    caps_total_ = total;
  }
  /// The WWW-Authenticate challenge of a 431 for an Authorization header
  /// too long.
  void set_bearer_challenge(std::string challenge) {
    bearer_challenge_ = std::move(challenge);
  }

  /// What the event loop counts (zeros before it starts).
  reactor_stats stats() const;

  /// A route answered without httplib: a plain HTTP/1.1 request (a
  /// Content-Length body or none; no transfer or content coding, no
  /// Expect) that `accepts` takes is handed to `serve` whole, its line and
  /// headers read by parse_request_head; everything else goes through
  /// httplib. httplib's parsing, routing (a regex per route) and reply
  /// writing were a third of a cached tool call's CPU.
  struct direct_route {
    std::function<bool(const request_head&)> accepts;
    /// Writes or defers the reply on `connection`; returns whether the
    /// connection may serve another request and sets `closed` when the
    /// reply ends it (as httplib's process_request does).
    std::function<bool(http_connection& connection, request_head&& head,
                       std::string&& body, bool& closed)>
      serve;
  };
  /// Before listen_after_bind().
  void set_direct_route(direct_route route) {
    direct_ = std::move(route);
  }

private:
  bool process_and_close_socket(socket_t sock) override;
  /// The direct route's answer to the connection's request, or nullopt
  /// (nothing consumed) when httplib is to answer it.
  std::optional<bool> serve_direct(http_connection& connection,
                                   const framing_limits& framing,
                                   bool& closed);

  direct_route direct_;
  ssl_ctx_st* tls_;
  int stop_fd_;
  connection_limits limits_;
  std::chrono::milliseconds keep_alive_;
  std::size_t caps_per_client_ = 2048;
  std::size_t caps_total_ = 16'384;
  std::string bearer_challenge_;
  mutable std::mutex reactor_mutex_;
  std::shared_ptr<connection_reactor> reactor_;
  bool stopped_ = false;
};

/// Marks the calling thread's request as read for as long as its handler
/// runs: no request deadline meanwhile, then one for writing the reply.
/// Outside a connection_server's thread it does nothing.
class handler_scope {
public:
  handler_scope();
  ~handler_scope();
  handler_scope(const handler_scope&) = delete;
  handler_scope& operator=(const handler_scope&) = delete;

private:
  http_connection* connection_;
};

} // namespace transitd
