#include "transport/http_server.hpp"

#include <cctype>
#include <cstdlib>
#include <memory>
#include <utility>
#include <stdexcept>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include <httplib.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/http_connection.hpp"

namespace transitd {

namespace {

std::string lower(std::string text) {
  // ASCII only: header names are tokens (and std::tolower consults the
  // locale for every character).
  for (auto& c : text)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return text;
}

void to_httplib(mcp::http_reply&& reply, httplib::Response& res) {
  res.status = reply.status;
  for (const auto& [name, value] : reply.headers)
    res.set_header(name, value);
  if (!reply.content_type.empty()) {
    // What set_content does, without copying the body.
    res.set_header("Content-Type", reply.content_type);
    res.body = std::move(reply.body);
  }
}

/// A probe that answers true once the client of the calling thread's
/// request has closed its connection (or reset it). A client that
/// half-closes (shuts down its sending side) while waiting counts as gone.
mcp::cancellation::peer_probe connection_probe() {
  auto* connection = http_connection::current();
  if (connection == nullptr)
    return {};
  int fd = connection->fd();
  return [fd] {
    pollfd p{fd, POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0)
      return false;
    return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
  };
}

/// Marks the calling thread's request as read for as long as its handler
/// runs: no request deadline meanwhile, then one for writing the reply.
class handler_scope {
public:
  handler_scope() : connection_(http_connection::current()) {
    if (connection_ != nullptr)
      connection_->begin_handler();
  }
  ~handler_scope() {
    if (connection_ != nullptr)
      connection_->end_handler();
  }
  handler_scope(const handler_scope&) = delete;
  handler_scope& operator=(const handler_scope&) = delete;

private:
  http_connection* connection_;
};

} // namespace

/// cpp-httplib's server with our connection loop: httplib accepts, queues
/// the socket on its thread pool and parses each request; the loop around
/// that (TLS, keep-alive, the per-request deadline and byte budget) is ours,
/// in http_connection.
class http_server::connection_server final : public httplib::Server {
public:
  connection_server(const http_server_options& options, SSL_CTX* tls)
    : tls_(tls), stop_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    limits_.read_timeout = std::chrono::seconds{options.read_timeout_seconds};
    limits_.write_timeout
      = std::chrono::seconds{options.write_timeout_seconds};
    limits_.request_timeout
      = std::chrono::seconds{options.request_timeout_seconds};
    // The request line (httplib allows 8 KiB) and the headers.
    limits_.max_head_bytes = options.max_header_bytes + 8192;
    keep_alive_ = std::chrono::seconds{options.keep_alive_timeout_seconds};
    if (stop_fd_ < 0)
      throw std::runtime_error("cannot create an eventfd: "
                               + std::string{std::strerror(errno)});
  }

  ~connection_server() override {
    if (tls_ != nullptr)
      SSL_CTX_free(tls_);
    ::close(stop_fd_);
  }

  /// Wakes every connection waiting for its next request, so stop() does
  /// not wait out their keep-alive.
  void wake_idle() {
    std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof(one));
  }

private:
  bool process_and_close_socket(socket_t sock) override {
    SSL* ssl = nullptr;
    if (tls_ != nullptr) {
      ssl = SSL_new(tls_);
      if (ssl == nullptr || SSL_set_fd(ssl, sock) != 1) {
        SSL_free(ssl);
        ::close(sock);
        return false;
      }
    }
    bool ok = false;
    {
      http_connection connection{sock, stop_fd_, limits_, ssl};
      http_connection::scope current{connection};
      connection.begin_request();
      auto remaining = keep_alive_max_count_;
      if (connection.handshake()
          && connection.await_request(limits_.read_timeout)) {
        for (;;) {
          connection.begin_request();
          bool closed = false;
          ok = process_request(connection, remaining == 1, closed, nullptr);
          ok = connection.flush() && ok;
          if (!ok || closed || --remaining == 0
              || svr_sock_ == INVALID_SOCKET
              || !connection.await_request(keep_alive_))
            break;
        }
      }
      connection.close_notify();
    }
    SSL_free(ssl);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  SSL_CTX* tls_;
  int stop_fd_;
  connection_limits limits_;
  std::chrono::milliseconds keep_alive_{30'000};
};

namespace {

/// The TLS context for --tls-cert/--tls-key, or null without them.
SSL_CTX* make_tls_context(const http_server_options& o) {
  if (o.tls_cert.empty() && o.tls_key.empty())
    return nullptr;
  auto fail = [&o](SSL_CTX* ctx) {
    SSL_CTX_free(ctx);
    return std::runtime_error("cannot load the TLS certificate \"" + o.tls_cert
                              + "\" and key \"" + o.tls_key
                              + "\" (PEM files, the key matching the "
                                "certificate)");
  };
  auto* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr)
    throw fail(ctx);
  // No protocol older than TLS 1.2, no compression.
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION);
  if (SSL_CTX_use_certificate_chain_file(ctx, o.tls_cert.c_str()) != 1
      || SSL_CTX_use_PrivateKey_file(ctx, o.tls_key.c_str(), SSL_FILETYPE_PEM)
           != 1
      || SSL_CTX_check_private_key(ctx) != 1)
    throw fail(ctx);
  return ctx;
}

mcp::http_request from_httplib(const httplib::Request& req) {
  mcp::http_request request;
  request.method = req.method;
  for (const auto& [name, value] : req.headers)
    request.headers.emplace_back(lower(name), value);
  request.body = req.body;
  return request;
}

} // namespace

http_server::http_server(http_server_options options, http_routes routes)
  : options_(std::move(options)),
    routes_(std::move(routes)),
    server_(std::make_unique<connection_server>(options_,
                                                make_tls_context(options_))) {
  auto& svr = *server_;
  // Nagle's delay costs ~40 ms per keep-alive reply.
  svr.set_tcp_nodelay(true);
  auto threads = options_.threads;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_keep_alive_max_count(
    static_cast<size_t>(options_.keep_alive_max_requests));
  svr.set_payload_max_length(options_.max_body_bytes);
  // httplib routes once the headers are in, before it reads the body.
  svr.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
    if (auto* connection = http_connection::current())
      connection->end_head();
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Replaces httplib's default (SO_REUSEPORT would let a stale server share
  // our port) and remembers the socket to deepen its backlog after bind.
  svr.set_socket_options([this](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd_ = fd;
  });
  auto serve = [this](const httplib::Request& req, httplib::Response& res) {
    handler_scope handling;
    auto request = from_httplib(req);
    request.peer_closed = connection_probe();
    to_httplib(routes_.mcp(request), res);
  };
  svr.Post("/mcp", serve);
  svr.Get("/mcp", serve);
  svr.Delete("/mcp", serve);
  auto route = [&svr](const char* path, const http_handler& handler) {
    if (!handler)
      return;
    svr.Get(path, [&handler](const httplib::Request& req,
                             httplib::Response& res) {
      handler_scope handling;
      to_httplib(handler(from_httplib(req)), res);
    });
  };
  route("/metrics", routes_.metrics);
  route("/readyz", routes_.ready);
  svr.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"status\":\"ok\"}", "application/json");
  });
  svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty())
      return;
    std::string message = res.status == 413 ? "Payload Too Large"
                          : res.status == 404 ? "Not Found"
                                              : "HTTP error";
    res.set_content("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
                    "-32600,\"message\":\""
                      + message + "\"}}",
                    "application/json");
  });
}

http_server::~http_server() {
  stop();
}

int http_server::bind() {
  auto port = options_.port == 0
                ? server_->bind_to_any_port(options_.bind.c_str())
                : (server_->bind_to_port(options_.bind.c_str(), options_.port)
                     ? options_.port
                     : -1);
  if (port < 0)
    throw std::runtime_error("cannot listen on " + options_.bind + ":"
                             + std::to_string(options_.port)
                             + " (address in use or not available)");
  // httplib listens with a backlog of 5; bursts of new connections would
  // overflow it.
  if (listen_fd_ >= 0)
    ::listen(listen_fd_, options_.listen_backlog);
  return port;
}

void http_server::run() {
  server_->listen_after_bind();
}

void http_server::stop() {
  if (server_ && server_->is_running()) {
    server_->wake_idle();
    server_->stop();
  }
}

} // namespace transitd
