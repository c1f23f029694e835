#include "transitd/transport/mcp_http.hpp"

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>

#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"
#include "transitd/transport/http_fields.hpp"
#include "transitd/transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

constexpr std::string_view sse_type = "text/event-stream";
constexpr std::string_view json_type = "application/json";

std::string sse_event(std::string_view message) {
  std::string out = "event: message\ndata: ";
  out += message;
  out += "\n\n";
  return out;
}

http_reply no_content(int status) {
  http_reply reply;
  reply.status = status;
  return reply;
}

/// A POST's replies: one JSON reply, or an SSE reply opened at once whose
/// events follow as the call runs, its answer last.
class http_channel final : public reply_channel {
public:
  http_channel(reply_sink done, std::function<http_reply(answer)> to_http)
    : done_(std::move(done)), to_http_(std::move(to_http)) {
  }

  bool open_stream() override {
    try {
      stream_ = std::make_shared<event_stream>();
    } catch (const std::system_error&) {
      return false; // no descriptor left
    }
    http_reply reply;
    reply.status = 200;
    reply.content_type = std::string{sse_type};
    reply.stream = stream_;
    done_(std::move(reply));
    return true;
  }

  void notify(std::string message) override {
    if (stream_)
      stream_->push(sse_event(message));
  }

  void done(answer result) override {
    if (stream_) {
      // The answer is the last event: a late notification from another
      // thread is dropped, not sent after it.
      stream_->close_with(result.message.empty()
                            ? std::string{}
                            : sse_event(result.message));
      return;
    }
    done_(to_http_(std::move(result)));
  }

private:
  reply_sink done_;
  std::function<http_reply(answer)> to_http_;
  std::shared_ptr<event_stream> stream_;
};

} // namespace

std::string_view http_request::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name)
      return value;
  return {};
}

http_reply json_reply(int status, const json::object& body) {
  http_reply reply;
  reply.status = status;
  reply.content_type = std::string{json_type};
  reply.body = json_text(body);
  return reply;
}

http_reply rpc_error_reply(int status, const json::value& id, int code,
                           std::string_view message) {
  return json_reply(status, json_rpc::make_error(id, code, message));
}

endpoint::endpoint(endpoint_options options, const tool_catalog& catalog)
  : endpoint(options, std::make_shared<mcp::core>(options, catalog)) {
}

endpoint::endpoint(endpoint_options options, std::shared_ptr<mcp::core> core)
  : options_(std::move(options)), core_(std::move(core)) {
  for (auto& host : options_.allowed_hosts)
    host = lower(host);
  for (auto& origin : options_.allowed_origins)
    origin = lower(origin);
}

http_reply endpoint::to_http(answer result) const {
  static constexpr int status[] = {200, 202, 400, 403, 404, 404, 503};
  if (result.kind == answer_kind::accepted)
    return no_content(202);
  http_reply reply;
  reply.status = status[static_cast<int>(result.kind)];
  // A cancelled call gets no response: an empty event stream.
  reply.content_type = std::string{result.message.empty() ? sse_type
                                                          : json_type};
  reply.body = std::move(result.message);
  if (result.kind == answer_kind::unavailable)
    reply.headers.emplace_back("Retry-After", "1");
  if (!result.session_id.empty())
    reply.headers.emplace_back("Mcp-Session-Id", result.session_id);
  if (!result.required_scope.empty()) {
    note_refusal(403, "a token without the scope the tool needs");
    // RFC 6750 section 3.1: 403 with the scope that would do.
    std::string challenge = "Bearer error=\"insufficient_scope\", scope=\""
                            + result.required_scope + "\"";
    if (options_.oauth)
      challenge += ", " + options_.oauth->challenge_parameter();
    reply.headers.emplace_back("WWW-Authenticate", std::move(challenge));
  }
  return reply;
}

bool endpoint::host_allowed(std::string_view host) const {
  for (const auto& allowed : options_.allowed_hosts)
    if (allowed == "*" || allowed == host)
      return true;
  return false;
}

bool endpoint::origin_allowed(std::string_view origin) const {
  auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos)
    return false; // "null" and other opaque origins
  auto authority = origin.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  if (authority.empty())
    return false;
  auto host = strip_port(authority);
  auto whole = lower(origin.substr(0, scheme_end + 3 + authority.size()));
  for (const auto& allowed : options_.allowed_origins)
    if (allowed == "*" || allowed == host || allowed == whole)
      return true;
  return false;
}

std::optional<http_reply>
endpoint::check_origin(const http_request& request) const {
  auto host = request.header("host");
  if (host.empty())
    return rpc_error_reply(400, nullptr, json_rpc::invalid_request,
                           "Bad Request: missing Host header");
  if (!host_allowed(strip_port(host)))
    return rpc_error_reply(403, nullptr, json_rpc::invalid_request,
                           "Forbidden: Host \"" + std::string{host}
                             + "\" is not allowed");
  auto origin = request.header("origin");
  if (!origin.empty() && !origin_allowed(origin))
    return rpc_error_reply(403, nullptr, json_rpc::invalid_request,
                           "Forbidden: Origin \"" + std::string{origin}
                             + "\" is not allowed");
  return std::nullopt;
}

std::optional<http_reply> endpoint::screen(const http_request& request) const {
  if (auto refused = check_headers(request))
    return refused;
  auto refused = check_origin(request);
  if (refused && refused->status == 403)
    note_refusal(403, "Host or Origin not allowed");
  return refused;
}

void endpoint::note_refusal(int status, std::string_view why) const {
  auto& total = status == 401 ? refused_401_ : refused_403_;
  auto& last = status == 401 ? logged_401_ms_ : logged_403_ms_;
  auto& unlogged = status == 401 ? unlogged_401_ : unlogged_403_;
  ++total;
  auto now = now_ms();
  auto before = last.load();
  if (now - before < 1000 || !last.compare_exchange_strong(before, now)) {
    ++unlogged;
    return;
  }
  auto more = unlogged.exchange(0);
  if (more > 0)
    spdlog::warn("HTTP {}: {} ({} more since the last report)", status, why,
                 more);
  else
    spdlog::warn("HTTP {}: {}", status, why);
}

std::optional<http_reply>
endpoint::check_headers(const http_request& request) const {
  std::size_t bytes = 0;
  for (const auto& [name, value] : request.headers)
    bytes += name.size() + value.size();
  if (request.headers.size() > options_.max_headers
      || bytes > options_.max_header_bytes)
    return rpc_error_reply(431, nullptr, json_rpc::invalid_request,
                           "Request Header Fields Too Large: at most "
                             + std::to_string(options_.max_headers)
                             + " headers and "
                             + std::to_string(options_.max_header_bytes)
                             + " bytes");
  return std::nullopt;
}

std::optional<http_reply>
endpoint::authenticate(const http_request& request, credentials& who) const {
  who = credentials{};
  if (!authenticating())
    return std::nullopt;
  auto token = bearer_token(request.header("authorization"));
  std::optional<std::string> principal;
  std::string problem;
  if (token && options_.tokens)
    if (auto name = options_.tokens->principal_of(*token))
      principal = "user:" + *name;
  if (token && !principal && options_.oauth) {
    auto checked = options_.oauth->validate(*token);
    if (auto* id = std::get_if<oauth::identity>(&checked)) {
      principal = id->principal;
      who.scopes = id->scopes;
    } else {
      problem = std::get<oauth::refusal>(checked).description;
    }
  }
  if (!principal) {
    std::string message
      = !token ? "Unauthorized: send \"Authorization: Bearer TOKEN\""
        : problem.empty()
          ? "Unauthorized: the bearer token is not valid"
          : "Unauthorized: the bearer token is not valid: " + problem;
    note_refusal(401, !token ? "no bearer token" : "a bearer token refused");
    auto reply = rpc_error_reply(401, nullptr, json_rpc::invalid_request,
                                 message);
    std::string challenge = "Bearer realm=\"transitd\"";
    if (options_.oauth)
      challenge += ", " + options_.oauth->challenge_parameter();
    // Why is said in the body only: the header's quoted strings must not
    // carry text taken from the token.
    if (token)
      challenge += ", error=\"invalid_token\"";
    reply.headers.emplace_back("WWW-Authenticate", std::move(challenge));
    return reply;
  }
  who.principal = std::move(*principal);
  return std::nullopt;
}

void endpoint::handle(const http_request& request, reply_sink done) {
  auto answer = [&]() -> std::optional<http_reply> {
    if (auto refused = screen(request))
      return refused;
    credentials who;
    if (auto refused = authenticate(request, who))
      return refused;
    peer from;
    from.principal = std::move(who.principal);
    from.scopes = std::move(who.scopes);
    from.hangup = request.hangup;
    from.message_bytes = request.body.size();
    if (request.method == "POST")
      return handle_post(request, from, done);
    if (request.method == "DELETE")
      return handle_delete(request, from);
    // No server-initiated stream: every response rides on its POST.
    auto reply = rpc_error_reply(405, nullptr, json_rpc::invalid_request,
                                 "Method Not Allowed: use POST (or DELETE "
                                 "to end a session)");
    reply.headers.emplace_back("Allow", "POST, DELETE");
    return reply;
  }();
  if (answer)
    done(std::move(*answer));
}

http_reply endpoint::handle(const http_request& request) {
  struct waiter {
    std::mutex mutex;
    std::condition_variable ready;
    std::optional<http_reply> reply;
  };
  auto w = std::make_shared<waiter>();
  handle(request, [w](http_reply reply) {
    {
      std::lock_guard<std::mutex> guard{w->mutex};
      w->reply = std::move(reply);
    }
    w->ready.notify_all();
  });
  std::unique_lock<std::mutex> lock{w->mutex};
  // Every call ends (by its deadline at the latest): no bound needed here.
  w->ready.wait(lock, [&] { return w->reply.has_value(); });
  auto reply = std::move(*w->reply);
  lock.unlock();
  if (reply.stream) {
    reply.body = reply.stream->drain();
    reply.stream.reset();
  }
  return reply;
}

http_reply endpoint::handle_delete(const http_request& request,
                                   const peer& from) {
  auto id = std::string{request.header("mcp-session-id")};
  if (id.empty())
    return rpc_error_reply(400, nullptr, json_rpc::invalid_request,
                           "Bad Request: Mcp-Session-Id header required");
  return to_http(core_->close_session(id, from.principal));
}

std::optional<http_reply> endpoint::handle_post(const http_request& request,
                                                peer& from,
                                                reply_sink& done) {
  // Accept: our replies are JSON, or SSE for calls that stream; a client
  // that admits neither can be sent nothing.
  auto accepts = parse_accept(request.header("accept"));
  if (!accepts.json && !accepts.sse)
    return rpc_error_reply(406, nullptr, json_rpc::invalid_request,
                           "Not Acceptable: Accept must admit "
                           "application/json or text/event-stream");
  from.notifications = accepts.sse;
  auto content_type = lower(request.header("content-type"));
  if (content_type.compare(0, json_type.size(), json_type) != 0)
    return rpc_error_reply(415, nullptr, json_rpc::invalid_request,
                           "Unsupported Media Type: Content-Type must be "
                           "application/json");
  if (request.body.size() > options_.max_body_bytes)
    return rpc_error_reply(413, nullptr, json_rpc::invalid_request,
                           "Payload Too Large: at most "
                             + std::to_string(options_.max_body_bytes)
                             + " bytes");
  auto parsed = parse_message(request.body);
  if (auto* refused = std::get_if<answer>(&parsed))
    return to_http(std::move(*refused));
  const auto& message = std::get<json_rpc::message>(parsed);
  if (auto refused = check_message(request, message, from))
    return refused;
  core_->handle(message, from,
                std::make_shared<http_channel>(
                  std::move(done),
                  [this](answer result) { return to_http(std::move(result)); }));
  return std::nullopt;
}

std::optional<http_reply>
endpoint::check_message(const http_request& request,
                        const json_rpc::message& message, peer& from) const {
  if (is_stateless(message))
    return check_mirrors(request, message);
  bool is_request = message.kind == json_rpc::message_kind::request;
  if (is_request && message.method == "initialize")
    return std::nullopt;
  auto version = trim_ows(request.header("mcp-protocol-version"));
  if (!version.empty() && !is_legacy_version(version) && is_request
      && request.header("mcp-session-id").empty())
    return rpc_error_reply(
      400, message.id, json_rpc::invalid_params,
      "Invalid params: missing _meta keys: "
        + std::string{meta_protocol_version} + ", "
        + std::string{meta_client_capabilities} + " (a "
        + std::string{version}
        + " request describes itself in params._meta; or send initialize "
          "for a session of an older revision)");
  // Everything else belongs to a session.
  from.session_id = std::string{request.header("mcp-session-id")};
  if (from.session_id.empty())
    return rpc_error_reply(400, message.id, json_rpc::invalid_request,
                           "Bad Request: Mcp-Session-Id header required");
  if (!version.empty() && !is_supported(version))
    return rpc_error_reply(400, message.id, json_rpc::invalid_request,
                           "Bad Request: unsupported MCP-Protocol-Version \""
                             + std::string{version} + "\"");
  return std::nullopt;
}

} // namespace transitd::mcp
