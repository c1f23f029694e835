#include "transport/mcp.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <system_error>

#include <spdlog/spdlog.h>

#include "util/ids.hpp"
#include "messages/time.hpp"
#include "transport/json_rpc.hpp"
#include "transport/json_text.hpp"
#include "transport/logging.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

constexpr std::string_view sse_type = "text/event-stream";
constexpr std::string_view json_type = "application/json";

const std::vector<std::string> log_levels{
  "debug", "info", "notice", "warning", "error", "critical", "alert",
  "emergency"};

std::string lower(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

/// "host:port" / "[::1]:port" → "host" / "[::1]".
std::string strip_port(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    auto end = authority.find(']');
    return lower(authority.substr(0, end == std::string_view::npos
                                       ? authority.size()
                                       : end + 1));
  }
  return lower(authority.substr(0, authority.find(':')));
}

bool is_supported(std::string_view version) {
  const auto& versions = supported_protocol_versions();
  return std::find(versions.begin(), versions.end(), version)
         != versions.end();
}

std::string sse_event(std::string_view message) {
  std::string out = "event: message\ndata: ";
  out += message;
  out += "\n\n";
  return out;
}

std::string sse_event(const json::object& message) {
  return sse_event(json_text(message));
}

/// MCP log level (RFC 5424 names) → the spdlog level that reaches it.
spdlog::level::level_enum spdlog_level(std::string_view mcp_level) {
  if (mcp_level == "debug")
    return spdlog::level::debug;
  if (mcp_level == "info" || mcp_level == "notice")
    return spdlog::level::info;
  if (mcp_level == "warning")
    return spdlog::level::warn;
  if (mcp_level == "error")
    return spdlog::level::err;
  return spdlog::level::critical;
}

std::string_view mcp_level(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warning";
    case spdlog::level::err:
      return "error";
    default:
      return "critical";
  }
}

http_reply no_content(int status) {
  http_reply reply;
  reply.status = status;
  return reply;
}

} // namespace

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> versions{"2025-11-25", "2025-06-18",
                                                 "2025-03-26"};
  return versions;
}

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

std::string call_response_text(const json::value& id,
                               const tool_outcome& outcome) {
  // Written around the structured output serialised once; building the
  // envelope as a DOM would copy the output and serialise it twice.
  auto body = json_text(outcome.is_error ? outcome.error_body
                                         : outcome.structured);
  auto text = json_string(body);
  std::string out;
  out.reserve(body.size() + text.size() + 128);
  out += R"({"jsonrpc":"2.0","id":)";
  out += json::serialize(id);
  out += R"(,"result":{"content":[{"type":"text","text":)";
  out += text;
  out += "}]";
  if (outcome.is_error) {
    out += R"(,"isError":true}})";
  } else {
    out += R"(,"structuredContent":)";
    out += body;
    out += R"(,"isError":false}})";
  }
  return out;
}

namespace {

std::vector<std::string> tool_names(const tool_catalog& catalog) {
  std::vector<std::string> names;
  for (const auto& tool : catalog.tools())
    names.push_back(tool.name);
  return names;
}

} // namespace

endpoint::endpoint(endpoint_options options, const tool_catalog& catalog)
  : options_(std::move(options)),
    catalog_(catalog),
    metrics_(tool_names(catalog)) {
  call_log_tap::global();
  for (auto& host : options_.allowed_hosts)
    host = lower(host);
  for (auto& origin : options_.allowed_origins)
    origin = lower(origin);
}

std::size_t endpoint::session_count() const {
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  return sessions_.size();
}

void endpoint::cancel_all() {
  std::vector<std::shared_ptr<cancellation>> calls;
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    for (auto& [id, s] : sessions_)
      for (auto& [cancel, request_id] : s.in_flight)
        calls.push_back(cancel);
  }
  // Outside the lock: cancelling finishes a call, which takes it.
  for (auto& cancel : calls)
    cancel->cancel();
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
    principal = options_.tokens->principal_of(*token);
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
    auto reply = rpc_error_reply(401, nullptr, json_rpc::invalid_request,
                                 message);
    std::string challenge = "Bearer realm=\"transitd\"";
    if (options_.oauth)
      challenge += ", resource_metadata=\""
                   + oauth::validator::metadata_url(
                     options_.oauth->settings().resource)
                   + "\"";
    if (token)
      challenge += ", error=\"invalid_token\"";
    if (!problem.empty())
      challenge += ", error_description=\"" + problem + "\"";
    reply.headers.emplace_back("WWW-Authenticate", std::move(challenge));
    return reply;
  }
  who.principal = std::move(*principal);
  return std::nullopt;
}

void endpoint::handle(const http_request& request, reply_sink done) {
  auto answer = [&]() -> std::optional<http_reply> {
    if (auto refused = check_headers(request))
      return refused;
    if (auto refused = check_origin(request))
      return refused;
    caller from;
    credentials who;
    if (auto refused = authenticate(request, who))
      return refused;
    from.principal = std::move(who.principal);
    from.scopes = std::move(who.scopes);
    from.hangup = request.hangup;
    from.body_bytes = request.body.size();
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

namespace {

/// A session is used only by the principal that opened it: its id is a
/// handle, not a credential.
std::optional<http_reply> foreign_session(const std::string& owner,
                                          const std::string& principal,
                                          const json::value& id) {
  if (owner == principal)
    return std::nullopt;
  return rpc_error_reply(403, id, json_rpc::invalid_request,
                         "Forbidden: this session was opened with another "
                         "token");
}

} // namespace

http_reply endpoint::handle_delete(const http_request& request,
                                   const caller& from) {
  auto id = std::string{request.header("mcp-session-id")};
  if (id.empty())
    return rpc_error_reply(400, nullptr, json_rpc::invalid_request,
                           "Bad Request: Mcp-Session-Id header required");
  std::vector<std::shared_ptr<cancellation>> calls;
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    auto it = sessions_.find(id);
    if (it == sessions_.end())
      return rpc_error_reply(404, nullptr, json_rpc::invalid_request,
                             "Session not found");
    if (auto refused = foreign_session(it->second.principal, from.principal,
                                       nullptr))
      return *refused;
    for (auto& [cancel, request_id] : it->second.in_flight)
      calls.push_back(cancel);
    sessions_.erase(it);
    spdlog::info("MCP session ended by client ({} open)", sessions_.size());
  }
  // Outside the lock: cancelling finishes a call, which takes it.
  for (auto& cancel : calls)
    cancel->cancel();
  return no_content(200);
}

std::optional<http_reply> endpoint::handle_post(const http_request& request,
                                                const caller& from,
                                                reply_sink& done) {
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
  json::error_code error;
  auto parsed = json::parse(request.body, error);
  if (error)
    return rpc_error_reply(400, nullptr, json_rpc::parse_error,
                           "Parse error: " + error.message());
  if (parsed.is_array())
    return rpc_error_reply(400, nullptr, json_rpc::invalid_request,
                           "Invalid Request: batches are not supported");
  if (!parsed.is_object())
    return rpc_error_reply(400, nullptr, json_rpc::invalid_request,
                           "Invalid Request: expected a JSON object");
  auto message = json_rpc::classify(parsed.get_object());
  if (message.kind == json_rpc::message_kind::invalid)
    return rpc_error_reply(400, message.id, json_rpc::invalid_request,
                           "Invalid Request: " + message.problem);
  if (message.kind == json_rpc::message_kind::request
      && message.method == "initialize")
    return initialize(message.id, message.params, from);
  // Everything else belongs to a session.
  auto session_id = std::string{request.header("mcp-session-id")};
  if (session_id.empty())
    return rpc_error_reply(400, message.id, json_rpc::invalid_request,
                           "Bad Request: Mcp-Session-Id header required");
  auto version = std::string{request.header("mcp-protocol-version")};
  if (version.empty())
    version = std::string{fallback_protocol_version};
  else if (!is_supported(version))
    return rpc_error_reply(400, message.id, json_rpc::invalid_request,
                           "Bad Request: unsupported MCP-Protocol-Version \""
                             + version + "\"");
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    auto it = sessions_.find(session_id);
    if (it == sessions_.end())
      return rpc_error_reply(404, message.id, json_rpc::invalid_request,
                             "Session not found");
    if (auto refused = foreign_session(it->second.principal, from.principal,
                                       message.id))
      return *refused;
    it->second.last_used = options_.clock();
  }
  switch (message.kind) {
    case json_rpc::message_kind::notification:
      notify(session_id, message.method, message.params);
      return no_content(202);
    case json_rpc::message_kind::response:
      // We send no server-to-client requests; nothing waits on this.
      return no_content(202);
    default:
      return dispatch(session_id, version, message.id, message.method,
                      message.params, from, done);
  }
}

std::optional<std::string>
endpoint::open_session(const std::string& protocol_version,
                       const std::string& principal) {
  auto id = make_secret_token();
  auto now = options_.clock();
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  if (sessions_.size() >= options_.max_sessions)
    evict_idle_locked(now);
  if (sessions_.size() >= options_.max_sessions) {
    // Still full: drop the least recently used session without calls.
    auto victim = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (it->second.in_flight.empty()
          && (victim == sessions_.end()
              || it->second.last_used < victim->second.last_used))
        victim = it;
    if (victim == sessions_.end())
      return std::nullopt; // every session has a call in flight
    sessions_.erase(victim);
  }
  session s;
  s.principal = principal;
  s.protocol_version = protocol_version;
  s.last_used = now;
  sessions_.emplace(id, std::move(s));
  return id;
}

void endpoint::evict_idle_locked(std::chrono::steady_clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second.in_flight.empty()
        && now - it->second.last_used > options_.session_idle_timeout)
      it = sessions_.erase(it);
    else
      ++it;
  }
}

http_reply endpoint::initialize(const json::value& id,
                                const json::object& params,
                                const caller& from) {
  std::string requested;
  if (auto it = params.find("protocolVersion");
      it != params.end() && it->value().is_string())
    requested = std::string{it->value().get_string()};
  else
    return rpc_error_reply(400, id, json_rpc::invalid_params,
                           "Invalid params: initialize needs "
                           "\"protocolVersion\" (a string)");
  // Negotiation: echo a version we speak, else offer our latest.
  auto version = is_supported(requested)
                   ? requested
                   : std::string{latest_protocol_version};
  auto session_id = open_session(version, from.principal);
  if (!session_id) {
    auto reply = rpc_error_reply(
      503, id, json_rpc::internal_error,
      "Service Unavailable: all " + std::to_string(options_.max_sessions)
        + " sessions (max-sessions) have calls in flight; retry shortly");
    reply.headers.emplace_back("Retry-After", "1");
    return reply;
  }
  json::object capabilities;
  capabilities["tools"] = json::object{{"listChanged", false}};
  capabilities["logging"] = json::object{};
  json::object result;
  result["protocolVersion"] = version;
  result["capabilities"] = std::move(capabilities);
  result["serverInfo"] = json::object{{"name", options_.server_name},
                                      {"title", "transitd: public transit"},
                                      {"version", options_.server_version}};
  result["instructions"]
    = "Public transport departures, stops, geocoding and trip planning. "
      + options_.regions
      + " London journeys and station toilets via TfL. Every result carries "
        "a correlationId; errors are tool results with isError and an "
        "error code.";
  auto reply = json_reply(200, json_rpc::make_result(id, std::move(result)));
  reply.headers.emplace_back("Mcp-Session-Id", *session_id);
  spdlog::info("MCP session opened, protocol {}", version);
  return reply;
}

void endpoint::notify(const std::string& session_id, const std::string& method,
                      const json::object& params) {
  if (method == "notifications/cancelled") {
    auto it = params.find("requestId");
    if (it == params.end())
      return;
    auto key = json::serialize(it->value());
    std::vector<std::shared_ptr<cancellation>> calls;
    {
      std::lock_guard<std::mutex> guard{sessions_mutex_};
      auto s = sessions_.find(session_id);
      if (s == sessions_.end())
        return;
      // A rare message: a walk over the session's calls in flight.
      for (auto& [cancel, request_id] : s->second.in_flight)
        if (request_id == key)
          calls.push_back(cancel);
    }
    // Outside the lock: cancelling finishes the call, which takes it.
    if (!calls.empty())
      spdlog::info("MCP request {} cancelled by the client", key);
    for (auto& cancel : calls)
      cancel->cancel();
  }
  // notifications/initialized and others need no action.
}

std::optional<http_reply>
endpoint::dispatch(const std::string& session_id, const std::string&,
                   const json::value& id, const std::string& method,
                   const json::object& params, const caller& from,
                   reply_sink& done) {
  if (method == "ping")
    return json_reply(200, json_rpc::make_result(id, json::object{}));
  if (method == "tools/list")
    return json_reply(200, list_tools(id, params));
  if (method == "tools/call")
    return call_tool(session_id, id, params, from, done);
  if (method == "logging/setLevel") {
    auto it = params.find("level");
    if (it == params.end() || !it->value().is_string()
        || std::find(log_levels.begin(), log_levels.end(),
                     it->value().get_string())
             == log_levels.end())
      return json_reply(200, json_rpc::make_error(
                               id, json_rpc::invalid_params,
                               "Invalid params: level must be one of debug, "
                               "info, notice, warning, error, critical, "
                               "alert, emergency"));
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    if (auto s = sessions_.find(session_id); s != sessions_.end())
      s->second.log_level = std::string{it->value().get_string()};
    return json_reply(200, json_rpc::make_result(id, json::object{}));
  }
  return json_reply(200, json_rpc::make_error(id, json_rpc::method_not_found,
                                              "Method not found: " + method));
}

json::object endpoint::list_tools(const json::value& id,
                                  const json::object& params) {
  std::size_t offset = 0;
  if (auto it = params.find("cursor"); it != params.end()) {
    // Cursors are opaque to clients; ours is the decimal offset.
    const auto& cursor = it->value();
    bool valid = cursor.is_string() && !cursor.get_string().empty();
    if (valid) {
      // At most 9 digits: no overflow, and far past any catalog's end.
      valid = cursor.get_string().size() <= 9;
      for (char c : cursor.get_string())
        valid = valid && std::isdigit(static_cast<unsigned char>(c));
    }
    if (valid)
      offset = std::stoul(std::string{cursor.get_string()});
    if (!valid || offset >= catalog_.tools().size())
      return json_rpc::make_error(id, json_rpc::invalid_params,
                                  "Invalid params: unknown cursor");
  }
  const auto& tools = catalog_.tools();
  auto end = std::min(tools.size(), offset + options_.tools_page_size);
  json::array page;
  for (auto i = offset; i < end; ++i)
    page.push_back(tool_catalog::definition(tools[i]));
  json::object result;
  result["tools"] = std::move(page);
  if (end < tools.size())
    result["nextCursor"] = std::to_string(end);
  return json_rpc::make_result(id, std::move(result));
}

namespace {

/// notifications/progress on a call's SSE stream, one per step as it
/// happens: progress counts the steps (0: the call was accepted).
class stream_progress final : public progress_sink {
public:
  stream_progress(std::shared_ptr<event_stream> stream, json::value token)
    : stream_(std::move(stream)), token_(std::move(token)) {
  }

  void note(std::string_view message) const override {
    json::object p;
    p["progressToken"] = token_;
    p["progress"] = steps_.fetch_add(1, std::memory_order_relaxed);
    p["message"] = message;
    stream_->push(sse_event(
      json_rpc::make_notification("notifications/progress", std::move(p))));
  }

private:
  std::shared_ptr<event_stream> stream_;
  json::value token_;
  mutable std::atomic<int64_t> steps_{0};
};

/// notifications/message for one log line about a call.
std::string log_event(const std::string& correlation_id,
                      const call_log_tap::line& line) {
  json::object m;
  m["level"] = mcp_level(line.level);
  m["logger"] = "transitd";
  json::object data;
  data["correlationId"] = correlation_id;
  data["message"] = line.message;
  m["data"] = std::move(data);
  return sse_event(
    json_rpc::make_notification("notifications/message", std::move(m)));
}

} // namespace

struct endpoint::call_record {
  std::string session_id;
  json::value id;
  std::string name;
  call_context context;
  /// The SSE reply's events (calls with progress or log notifications).
  std::shared_ptr<event_stream> stream;
  std::optional<std::string> log_level;
  std::shared_ptr<cancellation> cancel;
  std::chrono::steady_clock::time_point started;
  /// The tool answers once; a later answer is dropped.
  std::atomic<bool> answered{false};
};

std::optional<http_reply> endpoint::call_tool(const std::string& session_id,
                                              const json::value& id,
                                              const json::object& params,
                                              const caller& from,
                                              reply_sink& done) {
  auto name_it = params.find("name");
  if (name_it == params.end() || !name_it->value().is_string())
    return json_reply(200, json_rpc::make_error(
                             id, json_rpc::invalid_params,
                             "Invalid params: tools/call needs \"name\""));
  auto name = std::string{name_it->value().get_string()};
  const auto* spec = catalog_.find(name);
  if (spec == nullptr)
    return json_reply(200, json_rpc::make_error(id, json_rpc::invalid_params,
                                                "Unknown tool: " + name));
  if (!spec->scope.empty() && from.scopes
      && std::find(from.scopes->begin(), from.scopes->end(), spec->scope)
           == from.scopes->end()) {
    // RFC 6750 section 3.1: 403 with the scope that would do.
    auto reply = rpc_error_reply(403, id, json_rpc::invalid_request,
                                 "Forbidden: " + name + " needs the scope \""
                                   + spec->scope
                                   + "\"; ask the authorization server for "
                                     "a token that carries it");
    std::string challenge = "Bearer error=\"insufficient_scope\", scope=\""
                            + spec->scope + "\"";
    if (options_.oauth)
      challenge += ", resource_metadata=\""
                   + oauth::validator::metadata_url(
                     options_.oauth->settings().resource)
                   + "\"";
    reply.headers.emplace_back("WWW-Authenticate", std::move(challenge));
    return reply;
  }
  static const json::object no_arguments;
  const json::object* arguments = &no_arguments;
  if (auto it = params.find("arguments"); it != params.end()) {
    if (!it->value().is_object())
      return json_reply(200, json_rpc::make_error(
                               id, json_rpc::invalid_params,
                               "Invalid params: \"arguments\" must be an "
                               "object"));
    arguments = &it->value().get_object();
    // Arguments are part of the body: only a larger body needs measuring.
    if (auto size = from.body_bytes > options_.max_argument_bytes
                      ? json::serialize(*arguments).size()
                      : 0;
        size > options_.max_argument_bytes)
      return json_reply(200, json_rpc::make_error(
                               id, json_rpc::invalid_params,
                               "Invalid params: \"arguments\" is "
                                 + std::to_string(size)
                                 + " bytes; at most "
                                 + std::to_string(options_.max_argument_bytes)));
  }
  std::optional<json::value> progress_token;
  if (auto meta = params.find("_meta");
      meta != params.end() && meta->value().is_object()) {
    const auto& m = meta->value().get_object();
    if (auto token = m.find("progressToken"); token != m.end())
      progress_token = token->value();
  }
  call_context context;
  context.correlation_id = make_uuid_v4();
  // D17 (revised): variables belong to the authenticated principal;
  // without authentication the daemon serves one user, `local`, whatever
  // the revision or transport.
  context.principal = authenticating() ? "user:" + from.principal
                                       : std::string{"local"};
  context.received_ms = now_ms();
  auto timeout = options_.tool_timeout_ms;
  if (auto t = options_.tool_timeouts_ms.find(name);
      t != options_.tool_timeouts_ms.end())
    timeout = t->second;
  context.deadline_ms = context.received_ms + timeout;
  // A client that hangs up stops the work it started: nobody can receive
  // the answer (we keep no event log to resume from).
  auto cancel = from.hangup ? from.hangup : std::make_shared<cancellation>();
  auto key = json::serialize(id);
  std::optional<std::string> log_level;
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    auto s = sessions_.find(session_id);
    if (s == sessions_.end())
      return rpc_error_reply(404, id, json_rpc::invalid_request,
                             "Session not found");
    s->second.in_flight.emplace(cancel, std::move(key));
    log_level = s->second.log_level;
  }
  // With a progress token or a log level the reply is an SSE stream that
  // starts now: each step and log line goes out as it happens, the result
  // last.
  std::shared_ptr<event_stream> stream;
  if (progress_token || log_level) {
    try {
      stream = std::make_shared<event_stream>();
    } catch (const std::system_error& ex) {
      // No descriptor left: the call fails here and leaves nothing behind.
      {
        std::lock_guard<std::mutex> guard{sessions_mutex_};
        if (auto s = sessions_.find(session_id); s != sessions_.end())
          s->second.in_flight.erase(cancel);
      }
      spdlog::error("[{}] tools/call {}: {}", context.correlation_id, name,
                    ex.what());
      return json_reply(200, json_rpc::make_error(
                               id, json_rpc::internal_error,
                               "Internal error: no resources for the event "
                               "stream; retry later"));
    }
  }
  if (progress_token)
    context.progress = std::make_shared<stream_progress>(stream,
                                                         *progress_token);
  if (log_level)
    call_log_tap::global().listen(
      context.correlation_id, spdlog_level(*log_level),
      [stream, cid = context.correlation_id](const call_log_tap::line& line) {
        stream->push(log_event(cid, line));
      });
  spdlog::info("[{}] tools/call {}", context.correlation_id, name);
  metrics_.started();
  auto call = std::make_shared<call_record>();
  call->session_id = session_id;
  call->id = id;
  call->name = name;
  call->context = context;
  call->stream = stream;
  call->log_level = std::move(log_level);
  call->cancel = cancel;
  call->started = std::chrono::steady_clock::now();
  if (stream) {
    http_reply reply;
    reply.status = 200;
    reply.content_type = std::string{sse_type};
    reply.stream = stream;
    done(std::move(reply));
    report_progress(context, "accepted: " + name);
  }
  // A tool that throws is answered for.
  auto finish = [this, call,
                 done = stream ? reply_sink{} : std::move(done)](
                  tool_outcome outcome) {
    if (call->answered.exchange(true))
      return;
    auto response = finish_call(*call, std::move(outcome));
    if (call->stream) {
      // The result is the last event: a late progress note from another
      // thread is dropped, not sent after it.
      call->stream->close_with(response.empty() ? std::string{}
                                                : sse_event(response));
      return;
    }
    http_reply reply;
    reply.status = 200;
    reply.content_type = std::string{response.empty() ? sse_type : json_type};
    reply.body = std::move(response);
    done(std::move(reply));
  };
  try {
    spec->run(*arguments, context, cancel, finish);
  } catch (const std::exception& ex) {
    spdlog::error("[{}] {} threw: {}", context.correlation_id, name,
                  ex.what());
    finish(error_outcome(make_failure(ec::internal_error,
                                      "internal error while running " + name),
                         context.correlation_id));
  }
  return std::nullopt;
}

std::string endpoint::finish_call(const call_record& call,
                                  tool_outcome outcome) {
  const auto& context = call.context;
  const auto& name = call.name;
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    if (auto s = sessions_.find(call.session_id); s != sessions_.end())
      s->second.in_flight.erase(call.cancel);
  }
  metrics_.finished();
  metrics_.record(name, outcome.code,
                  std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - call.started)
                    .count());
  auto elapsed = now_ms() - context.received_ms;
  if (outcome.is_error)
    spdlog::info("[{}] {} failed in {} ms: {}", context.correlation_id, name,
                 elapsed, to_wire(outcome.code));
  else
    spdlog::info("[{}] {} answered in {} ms", context.correlation_id, name,
                 elapsed);
  // The log lines went out as they were logged; stop listening.
  if (call.log_level)
    call_log_tap::global().take(context.correlation_id);
  // notifications/cancelled: the call stops and sends no response (an SSE
  // stream closes without one).
  if (call.cancel->cancelled() || outcome.code == ec::cancelled)
    return {};
  return call_response_text(call.id, outcome);
}

} // namespace transitd::mcp
