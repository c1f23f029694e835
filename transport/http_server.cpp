#include "transitd/transport/http_server.hpp"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <httplib.h>
#include <poll.h>
#include <openssl/ssl.h>

#include "transitd/net/connection_server.hpp"
#include "transitd/net/http_connection.hpp"

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

/// Sends an SSE reply's events as they arrive (chunked), on the
/// connection's own thread, watching the client meanwhile: a hang-up
/// cancels the call (`hangup`). The call always ends, by its deadline at
/// the latest, and closes the stream. False when the client is gone.
bool stream_events(const std::shared_ptr<mcp::event_stream>& stream,
                   const std::shared_ptr<mcp::cancellation>& hangup,
                   httplib::DataSink& sink) {
  auto* connection = http_connection::current();
  std::string part;
  for (;;) {
    bool more = stream->take(part);
    // Each event gets the usual time to go out, however long the call.
    if (connection != nullptr)
      connection->end_handler();
    if (!part.empty()
        && (!sink.write(part.data(), part.size())
            || (connection != nullptr && !connection->flush()))) {
      if (hangup)
        hangup->cancel();
      return false;
    }
    if (!more) {
      sink.done();
      return true;
    }
    pollfd fds[2] = {{stream->fd(), POLLIN, 0},
                     {connection != nullptr ? connection->fd() : -1,
                      POLLRDHUP, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      if (hangup)
        hangup->cancel();
      return false;
    }
    if ((fds[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
      if (hangup)
        hangup->cancel();
      return false;
    }
  }
}

void to_httplib(mcp::http_reply&& reply, httplib::Response& res,
                const std::shared_ptr<mcp::cancellation>& hangup = {}) {
  res.status = reply.status;
  for (const auto& [name, value] : reply.headers)
    res.set_header(name, value);
  if (reply.stream) {
    res.set_chunked_content_provider(
      reply.content_type,
      [stream = reply.stream, hangup](std::size_t, httplib::DataSink& sink) {
        return stream_events(stream, hangup, sink);
      });
    return;
  }
  if (!reply.content_type.empty()) {
    // What set_content does, without copying the body.
    res.set_header("Content-Type", reply.content_type);
    res.body = std::move(reply.body);
  }
}

/// The reply to one /mcp request, which may come from another thread while
/// the handler still runs, or after it has returned (deferred).
struct reply_slot {
  std::mutex mutex;
  std::condition_variable ready;
  /// Delivered while the handler ran: httplib sends it.
  std::optional<mcp::http_reply> early;
  /// Set when the handler has returned without a reply.
  std::shared_ptr<deferred_reply> late;
};

void deliver(reply_slot& slot, mcp::http_reply&& reply) {
  std::unique_lock<std::mutex> lock{slot.mutex};
  if (!slot.late) {
    slot.early = std::move(reply);
    lock.unlock();
    slot.ready.notify_all();
    return;
  }
  auto late = slot.late;
  lock.unlock();
  late->deliver(reply.status, reply.content_type, reply.headers, reply.body);
}

connection_limits limits_of(const http_server_options& o) {
  connection_limits limits;
  limits.read_timeout = std::chrono::seconds{o.read_timeout_seconds};
  limits.write_timeout = std::chrono::seconds{o.write_timeout_seconds};
  limits.request_timeout = std::chrono::seconds{o.request_timeout_seconds};
  // The request line (httplib allows 8 KiB) and the headers.
  limits.max_head_bytes = o.max_header_bytes + 8192;
  // A chunked body's framing: a size line per chunk.
  limits.max_unsized_body_bytes = o.max_body_bytes + 64 * 1024;
  return limits;
}

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

/// The JSON body httplib's error handler gives an error reply without one.
std::string error_body(int status) {
  std::string message
    = status == 413 ? "Payload Too Large"
    : status == 404 ? "Not Found"
    : status == 415 ? "Unsupported Media Type: request bodies must "
                      "not be compressed (Content-Encoding)"
                    : "HTTP error";
  return "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
         "\"message\":\""
         + message + "\"}}";
}

/// Hands an SSE reply's events to the event loop, which sends each as it
/// arrives: no worker waits for them. False without an event loop (or
/// without a stream): the caller sends them itself.
bool stream_on_loop(http_connection* connection, const mcp::http_reply& reply,
                    bool close,
                    const std::shared_ptr<mcp::cancellation>& hangup) {
  if (connection == nullptr || !reply.stream)
    return false;
  reply_source source;
  source.fd = reply.stream->fd();
  source.take = [stream = reply.stream](std::string& out) {
    return stream->take(out);
  };
  // A hang-up before the end cancels the call.
  source.abandon = [hangup] {
    if (hangup)
      hangup->cancel();
  };
  return connection->stream_reply(reply.status, reply.content_type,
                                  reply.headers, close, std::move(source));
}

/// Writes a reply on the direct route as httplib would have: whole, or
/// an SSE stream chunk by chunk as its events arrive (by the event loop
/// when there is one). False when the client is gone.
bool write_direct(http_connection& connection, mcp::http_reply&& reply,
                  bool close,
                  const std::shared_ptr<mcp::cancellation>& hangup) {
  if (!reply.stream) {
    if (reply.status >= 400 && reply.body.empty()) {
      reply.body = error_body(reply.status);
      reply.content_type = "application/json";
    }
    auto bytes = format_reply(reply.status, reply.content_type, reply.headers,
                              reply.body, close, connection.keep_alive());
    return connection.write(bytes.data(), bytes.size())
             == static_cast<ssize_t>(bytes.size())
           && connection.flush();
  }
  if (stream_on_loop(&connection, reply, close, hangup))
    return true; // the head goes out with the worker's flush
  auto head = format_reply(reply.status, reply.content_type, reply.headers,
                           {}, close, connection.keep_alive(), true);
  if (connection.write(head.data(), head.size())
        != static_cast<ssize_t>(head.size())
      || !connection.flush())
    return false;
  httplib::DataSink sink;
  bool ok = true;
  sink.write = [&connection, &ok](const char* data, std::size_t size) {
    std::string chunk;
    append_chunk(chunk, {data, size});
    ok = ok
         && connection.write(chunk.data(), chunk.size())
              == static_cast<ssize_t>(chunk.size());
    return ok;
  };
  sink.done = [&connection, &ok] {
    ok = ok && connection.write("0\r\n\r\n", 5) == 5;
  };
  sink.is_writable = [&connection] { return connection.is_writable(); };
  return stream_events(reply.stream, hangup, sink) && ok
         && connection.flush();
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
    server_(std::make_unique<connection_server>(
      limits_of(options_),
      std::chrono::seconds{options_.keep_alive_timeout_seconds},
      make_tls_context(options_))) {
  auto& svr = *server_;
  // Nagle's delay costs ~40 ms per keep-alive reply.
  svr.set_tcp_nodelay(true);
  auto threads = options_.threads;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_keep_alive_max_count(
    static_cast<size_t>(options_.keep_alive_max_requests));
  svr.set_connection_caps(options_.max_connections_per_client,
                          options_.max_connections);
  svr.set_bearer_challenge(options_.bearer_challenge);
  svr.set_payload_max_length(options_.max_body_bytes);
  // Replaces httplib's default (SO_REUSEPORT would let a stale server share
  // our port) and remembers the socket to deepen its backlog after bind.
  svr.set_socket_options([this](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd_ = fd;
  });
  // An /mcp request's handler returns without waiting for the reply of a
  // tool call: the thread that finishes the call writes it (deferred_reply)
  // while this one goes back to the connection.
  auto serve = [this](const httplib::Request& req, httplib::Response& res) {
    handler_scope handling;
    std::shared_ptr<mcp::cancellation> hangup;
    bool close = req.get_header_value("Connection") == "close";
    auto early = answer_mcp(from_httplib(req), close, hangup);
    if (!early)
      return;
    if (stream_on_loop(http_connection::current(), *early, close, hangup))
      return; // httplib's own reply is dropped
    to_httplib(std::move(*early), res, hangup);
  };
  // A plain POST /mcp (every tool call) skips httplib altogether.
  svr.set_direct_route(connection_server::direct_route{
    [](const request_head& head) {
      return head.method == "POST" && head.target == "/mcp";
    },
    [this](http_connection& connection, request_head&& head,
           std::string&& body, bool& closed) {
      handler_scope handling;
      bool client_close = false;
      for (const auto& [name, value] : head.headers)
        if (name == "connection" && value == "close")
          client_close = true;
      mcp::http_request request;
      request.method = std::move(head.method);
      request.headers = std::move(head.headers);
      request.body = std::move(body);
      std::shared_ptr<mcp::cancellation> hangup;
      auto early = answer_mcp(std::move(request), client_close, hangup);
      closed = client_close;
      if (!early)
        return true; // deferred: the call's end writes it
      bool close = client_close || connection.last_request()
                   || connection.closing();
      closed = close;
      return write_direct(connection, std::move(*early), close, hangup);
    }});
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
  route("/.well-known/oauth-protected-resource", routes_.resource_metadata);
  if (routes_.resource_metadata_path
      != "/.well-known/oauth-protected-resource")
    route(routes_.resource_metadata_path.c_str(), routes_.resource_metadata);
  svr.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"status\":\"ok\"}", "application/json");
  });
  svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty())
      return;
    res.set_content(error_body(res.status), "application/json");
  });
}

std::optional<mcp::http_reply>
http_server::answer_mcp(mcp::http_request request, bool close,
                        std::shared_ptr<mcp::cancellation>& hangup) {
  hangup = std::make_shared<mcp::cancellation>();
  request.hangup = hangup;
  auto slot = std::make_shared<reply_slot>();
  routes_.mcp(request, [slot](mcp::http_reply reply) {
    deliver(*slot, std::move(reply));
  });
  std::unique_lock<std::mutex> lock{slot->mutex};
  if (!slot->early) {
    auto* connection = http_connection::current();
    if (connection != nullptr)
      slot->late = connection->defer(close, [hangup] { hangup->cancel(); });
    if (slot->late)
      return std::nullopt;
    // Not deferrable (no connection of ours, or no descriptor left):
    // wait for the reply here.
    slot->ready.wait(lock, [&] { return slot->early.has_value(); });
  }
  return std::move(slot->early);
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

reactor_stats http_server::connection_stats() const {
  return server_ ? server_->stats() : reactor_stats{};
}

bool http_server::running() const {
  return server_ && server_->is_running();
}

void http_server::stop() {
  if (server_ && server_->is_running())
    server_->shut_down();
}

} // namespace transitd
