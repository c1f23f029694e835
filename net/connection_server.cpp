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
  std::lock_guard<std::mutex> lock{reactor_mutex_};
  stopped_ = true;
  if (reactor_)
    reactor_->stop();
}

namespace {

/// httplib's accept loop hands each socket here: the event loop takes it
/// at once, so the accept thread never waits.
struct inline_queue final : httplib::TaskQueue {
  void enqueue(std::function<void()> fn) override {
    fn();
  }
  void shutdown() override {
  }
};

} // namespace

bool connection_server::listen_after_bind() {
  reactor_options options;
  options.limits = limits_;
  options.keep_alive = keep_alive_;
  options.max_requests = keep_alive_max_count_;
  options.max_connections_per_client = caps_per_client_;
  options.max_connections = caps_total_;
  options.framing.max_head = limits_.max_head_bytes;
  options.framing.max_body = payload_max_length_;
  options.framing.max_chunked = limits_.max_unsized_body_bytes;
  options.bearer_challenge = bearer_challenge_;
  options.stop_fd = stop_fd_;
  // The workers come from the pool the owner configured.
  std::unique_ptr<httplib::TaskQueue> workers{new_task_queue()};
  auto framing = options.framing;
  auto serve = [this, framing](http_connection& connection, bool last,
                               bool& closed) {
    connection.begin_request(last);
    if (direct_.serve)
      if (auto served = serve_direct(connection, framing, closed))
        return *served;
    return process_request(connection, last, closed, nullptr);
  };
  {
    std::lock_guard<std::mutex> lock{reactor_mutex_};
    if (stopped_)
      return false;
    reactor_ = std::make_shared<connection_reactor>(
      options, std::move(serve), std::move(workers), tls_);
  }
  new_task_queue = [] { return new inline_queue; };
  auto ok = httplib::Server::listen_after_bind();
  std::shared_ptr<connection_reactor> reactor;
  {
    std::lock_guard<std::mutex> lock{reactor_mutex_};
    reactor = reactor_;
  }
  reactor->stop();
  reactor->join();
  return ok;
}

std::optional<bool>
connection_server::serve_direct(http_connection& connection,
                                const framing_limits& framing, bool& closed) {
  auto bytes = connection.unread();
  auto frame = frame_request(bytes, framing);
  if (frame.what != request_framing::verdict::complete
      || frame.expects_continue || frame.head_size == 0)
    return std::nullopt;
  auto head = parse_request_head(bytes.substr(0, frame.head_size));
  if (!head || head->version != "HTTP/1.1")
    return std::nullopt;
  for (const auto& [name, value] : head->headers)
    if (name == "transfer-encoding" || name == "content-encoding"
        || name == "expect")
      return std::nullopt;
  if (!direct_.accepts(*head))
    return std::nullopt;
  std::string body{bytes.substr(frame.head_size, frame.size - frame.head_size)};
  connection.skip(frame.size);
  connection.end_head(true);
  return direct_.serve(connection, std::move(*head), std::move(body), closed);
}

reactor_stats connection_server::stats() const {
  std::lock_guard<std::mutex> lock{reactor_mutex_};
  return reactor_ ? reactor_->stats() : reactor_stats{};
}

bool connection_server::process_and_close_socket(socket_t sock) {
  std::shared_ptr<connection_reactor> reactor;
  {
    std::lock_guard<std::mutex> lock{reactor_mutex_};
    reactor = reactor_;
  }
  if (!reactor) {
    ::close(sock);
    return false;
  }
  reactor->add(sock);
  return true;
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
