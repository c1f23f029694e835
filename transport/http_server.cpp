#include "transport/http_server.hpp"

#include <cctype>
#include <stdexcept>

#include <httplib.h>
#include <sys/socket.h>

namespace transitd {

namespace {

std::string lower(std::string text) {
  for (auto& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

void to_httplib(const mcp::http_reply& reply, httplib::Response& res) {
  res.status = reply.status;
  for (const auto& [name, value] : reply.headers)
    res.set_header(name, value);
  if (!reply.content_type.empty())
    res.set_content(reply.body, reply.content_type.c_str());
}

} // namespace

http_server::http_server(http_server_options options, mcp::endpoint& endpoint)
  : http_server(std::move(options),
                [&endpoint](const mcp::http_request& request) {
                  return endpoint.handle(request);
                }) {
}

http_server::http_server(http_server_options options, http_handler handler)
  : options_(std::move(options)),
    handler_(std::move(handler)),
    server_(std::make_unique<httplib::Server>()) {
  auto& svr = *server_;
  // Nagle's delay costs ~40 ms per keep-alive reply.
  svr.set_tcp_nodelay(true);
  auto threads = options_.threads;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_keep_alive_max_count(
    static_cast<size_t>(options_.keep_alive_max_requests));
  svr.set_keep_alive_timeout(options_.keep_alive_timeout_seconds);
  svr.set_read_timeout(options_.read_timeout_seconds, 0);
  svr.set_write_timeout(options_.write_timeout_seconds, 0);
  svr.set_payload_max_length(options_.max_body_bytes);
  // Replaces httplib's default (SO_REUSEPORT would let a stale server share
  // our port) and remembers the socket to deepen its backlog after bind.
  svr.set_socket_options([this](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd_ = fd;
  });
  auto serve = [this](const httplib::Request& req, httplib::Response& res) {
    mcp::http_request request;
    request.method = req.method;
    for (const auto& [name, value] : req.headers)
      request.headers.emplace_back(lower(name), value);
    request.body = req.body;
    to_httplib(handler_(request), res);
  };
  svr.Post("/mcp", serve);
  svr.Get("/mcp", serve);
  svr.Delete("/mcp", serve);
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
  if (server_ && server_->is_running())
    server_->stop();
}

} // namespace transitd
