#include "transport/http_server.hpp"

#include <cctype>
#include <cstdlib>
#include <memory>
#include <utility>
#include <stdexcept>

#include <dirent.h>
#include <httplib.h>
#include <netdb.h>
#include <poll.h>
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

/// The numeric address and port of a socket address, as httplib reports
/// them in Request::remote_addr / remote_port.
std::pair<std::string, int> numeric(const sockaddr_storage& addr,
                                    socklen_t len) {
  char host[NI_MAXHOST];
  char port[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host,
                    sizeof(host), port, sizeof(port),
                    NI_NUMERICHOST | NI_NUMERICSERV)
      != 0)
    return {{}, -1};
  return {host, std::atoi(port)};
}

/// Whether `fd` is the TCP connection from remote_addr:remote_port to our
/// local_port.
bool is_connection(int fd, const std::string& remote_addr, int remote_port,
                   int local_port) {
  sockaddr_storage peer{};
  socklen_t len = sizeof(peer);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0)
    return false;
  if (numeric(peer, len) != std::make_pair(remote_addr, remote_port))
    return false;
  sockaddr_storage self{};
  len = sizeof(self);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) != 0)
    return false;
  return numeric(self, len).second == local_port;
}

/// The socket of the connection a request came on. cpp-httplib 0.11 hands
/// handlers no socket, so we look for the one whose endpoints match; the
/// pair (remote address and port, local port) names one TCP connection.
int find_connection(const std::string& remote_addr, int remote_port,
                    int local_port) {
  auto* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr)
    return -1;
  int found = -1;
  while (auto* entry = ::readdir(dir)) {
    char* end = nullptr;
    auto fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == ::dirfd(dir))
      continue;
    if (is_connection(static_cast<int>(fd), remote_addr, remote_port,
                      local_port)) {
      found = static_cast<int>(fd);
      break;
    }
  }
  ::closedir(dir);
  return found;
}

/// A probe that answers true once the client of `req` has closed its
/// connection (or reset it). The socket is looked up on first use only, so
/// quick calls never pay for it. A client that half-closes (shuts down its
/// sending side) while waiting counts as gone.
mcp::cancellation::peer_probe connection_probe(const httplib::Request& req) {
  struct state {
    std::string remote_addr;
    int remote_port;
    int local_port;
    int fd = -2; // -2: not looked up yet; -1: not found
  };
  auto s = std::make_shared<state>(
    state{req.remote_addr, req.remote_port, req.local_port});
  return [s] {
    if (s->fd == -2)
      s->fd = find_connection(s->remote_addr, s->remote_port, s->local_port);
    if (s->fd < 0)
      return false;
    pollfd p{s->fd, POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0)
      return false;
    return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
  };
}

} // namespace

http_server::http_server(http_server_options options, http_handler handler)
  : http_server(std::move(options), http_routes{std::move(handler), {}, {}}) {
}

namespace {

std::unique_ptr<httplib::Server> make_server(const http_server_options& o) {
  if (o.tls_cert.empty() && o.tls_key.empty())
    return std::make_unique<httplib::Server>();
  auto server = std::make_unique<httplib::SSLServer>(o.tls_cert.c_str(),
                                                     o.tls_key.c_str());
  if (!server->is_valid())
    throw std::runtime_error("cannot load the TLS certificate \"" + o.tls_cert
                             + "\" and key \"" + o.tls_key
                             + "\" (PEM files, the key matching the "
                               "certificate)");
  // No protocol older than TLS 1.2.
  SSL_CTX_set_min_proto_version(server->ssl_context(), TLS1_2_VERSION);
  return server;
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
    server_(make_server(options_)) {
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
    auto request = from_httplib(req);
    request.peer_closed = connection_probe(req);
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
  if (server_ && server_->is_running())
    server_->stop();
}

} // namespace transitd
