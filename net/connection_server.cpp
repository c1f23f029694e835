#include "transitd/net/connection_server.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <openssl/ssl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace transitd {

connection_server::connection_server(connection_limits limits,
                                     std::chrono::milliseconds keep_alive,
                                     ssl_ctx_st* tls)
  : tls_(tls),
    stop_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
    limits_(limits),
    keep_alive_(keep_alive) {
  if (stop_fd_ < 0) {
    auto reason = std::string{std::strerror(errno)};
    if (tls_ != nullptr)
      SSL_CTX_free(tls_);
    throw std::runtime_error("cannot create an eventfd: " + reason);
  }
  // What httplib's replies advertise in Keep-Alive is the wait we keep.
  set_keep_alive_timeout(static_cast<time_t>(
    std::max<long long>(1, (keep_alive.count() + 999) / 1000)));
  // httplib routes once the headers are in, before it reads the body.
  set_pre_routing_handler([](const httplib::Request& req,
                             httplib::Response& res) {
    auto* connection = http_connection::current();
    if (connection != nullptr)
      connection->end_head(req.has_header("Content-Length")
                           && !req.has_header("Transfer-Encoding"));
    // httplib would inflate a compressed body without bound. The server's
    // error handler writes the 415's body.
    auto encoding = req.get_header_value("Content-Encoding");
    if (!encoding.empty() && encoding != "identity") {
      res.status = 415;
      if (connection != nullptr)
        connection->close_after_reply(); // its body is still unread
      return HandlerResponse::Handled;
    }
    return HandlerResponse::Unhandled;
  });
}

connection_server::~connection_server() {
  if (tls_ != nullptr)
    SSL_CTX_free(tls_);
  ::close(stop_fd_);
}

void connection_server::shut_down() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof(one));
  stop();
}

bool connection_server::process_and_close_socket(socket_t sock) {
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
    // The Keep-Alive header of replies written outside httplib (deferred).
    auto keep_alive = "timeout=" + std::to_string(keep_alive_timeout_sec_)
                      + ", max=" + std::to_string(keep_alive_max_count_);
    http_connection connection{sock, stop_fd_, limits_, ssl,
                               std::move(keep_alive)};
    http_connection::scope current{connection};
    connection.begin_request();
    auto remaining = keep_alive_max_count_;
    if (connection.handshake()
        && connection.await_request(limits_.read_timeout)) {
      for (;;) {
        connection.begin_request(remaining == 1);
        bool closed = false;
        ok = process_request(connection, remaining == 1, closed, nullptr);
        ok = connection.flush() && ok;
        if (!ok || closed || connection.closing() || --remaining == 0
            || svr_sock_ == INVALID_SOCKET) {
          // The last reply may still be on its way from another thread.
          ok = connection.settle() && ok;
          break;
        }
        if (!connection.await_request(keep_alive_))
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

handler_scope::handler_scope() : connection_(http_connection::current()) {
  if (connection_ != nullptr)
    connection_->begin_handler();
}

handler_scope::~handler_scope() {
  if (connection_ != nullptr)
    connection_->end_handler();
}

} // namespace transitd
