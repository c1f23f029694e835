#pragma once
// cpp-httplib's server with our connection loop. httplib accepts, queues
// each socket on its thread pool and parses each request; the loop around
// that is ours (http_connection): TLS, keep-alive that waits in one poll
// instead of waking every 10 ms, the per-request deadline and the head
// byte budget. The daemon's listener (http_server) and the mock upstream
// both serve through it.
//
// Handlers that may run long (a tool call, the mock's added latency) hold a
// handler_scope: no request deadline while they work, then one for sending
// the reply.

#include <chrono>

#include <httplib.h>

#include "transitd/net/http_connection.hpp"

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
  /// listening: returns at once; run() (listen_after_bind) returns once the
  /// requests in progress are answered.
  void shut_down();

private:
  bool process_and_close_socket(socket_t sock) override;

  ssl_ctx_st* tls_;
  int stop_fd_;
  connection_limits limits_;
  std::chrono::milliseconds keep_alive_;
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
