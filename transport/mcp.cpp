#include "transport/mcp.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <condition_variable>
#include <system_error>

#include <spdlog/spdlog.h>

#include "util/base64.hpp"
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

/// Optional whitespace (RFC 9110 section 5.5) trimmed off a header value.
std::string_view trim_ows(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  return value;
}

/// What an Accept header admits of our two reply types.
struct accepted {
  bool json = false;
  bool sse = false;
};

accepted parse_accept(std::string_view header) {
  accepted out;
  if (trim_ows(header).empty())
    return {true, true}; // no preference: anything
  std::size_t start = 0;
  while (start <= header.size()) {
    auto end = header.find(',', start);
    if (end == std::string_view::npos)
      end = header.size();
    auto item = header.substr(start, end - start);
    auto type = lower(trim_ows(item.substr(0, item.find(';'))));
    // A media range with q=0 is "not acceptable" (RFC 9110 12.4.2).
    auto params = lower(item.substr(std::min(item.size(), item.find(';'))));
    bool refused = false;
    if (auto q = params.find("q="); q != std::string::npos) {
      auto weight = params.substr(q + 2, params.find(';', q) - q - 2);
      refused = trim_ows(weight).find_first_of("123456789")
                == std::string_view::npos;
    }
    if (!refused) {
      if (type == "*/*" || type == "application/*" || type == json_type)
        out.json = true;
      if (type == "*/*" || type == "text/*" || type == sse_type)
        out.sse = true;
    }
    start = end + 1;
  }
  return out;
}

/// An Mcp-Name (or Mcp-Param-*) value: literal, or `=?base64?...?=` with
/// canonical padded base64 of UTF-8 text. nullopt when the encoding is
/// broken.
std::optional<std::string> decode_header_value(std::string_view value) {
  constexpr std::string_view prefix = "=?base64?";
  constexpr std::string_view suffix = "?=";
  if (value.size() < prefix.size() + suffix.size()
      || value.substr(0, prefix.size()) != prefix
      || value.substr(value.size() - suffix.size()) != suffix)
    return std::string{value};
  auto payload = value.substr(prefix.size(),
                              value.size() - prefix.size() - suffix.size());
  auto decoded = base64_decode(payload, base64_form::standard_padded);
  if (!decoded)
    return std::nullopt;
  const auto& out = *decoded;
  // UTF-8: well-formed sequences only.
  for (std::size_t i = 0; i < out.size();) {
    auto c = static_cast<unsigned char>(out[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3
                  : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > out.size())
      return std::nullopt;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(out[i + k]) >> 6) != 0x2)
        return std::nullopt;
    i += n;
  }
  return out;
}

bool is_legacy_version(std::string_view version) {
  return version == "2024-11-05" || is_supported(version);
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
                               const tool_outcome& outcome,
                               std::string_view result_suffix) {
  // Written around the structured output serialised once; building the
  // envelope as a DOM would copy the output and serialise it twice.
  auto body = json_text(outcome.is_error ? outcome.error_body
                                         : outcome.structured);
  auto text = json_string(body);
  std::string out;
  out.reserve(body.size() + text.size() + result_suffix.size() + 128);
  out += R"({"jsonrpc":"2.0","id":)";
  out += json::serialize(id);
  out += R"(,"result":{"content":[{"type":"text","text":)";
  out += text;
  out += "}]";
  if (outcome.is_error) {
    out += R"(,"isError":true)";
  } else {
    out += R"(,"structuredContent":)";
    out += body;
    out += R"(,"isError":false)";
  }
  out += result_suffix;
  out += "}}";
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
  json::object stamped;
  stamp_result(stamped);
  auto text = json_text(stamped); // {"resultType":...,"_meta":...}
  stateless_result_suffix_ = "," + text.substr(1, text.size() - 2);
}

void endpoint::stamp_result(json::object& result) const {
  result["resultType"] = "complete";
  json::object meta;
  meta[meta_server_info] = json::object{{"name", options_.server_name},
                                        {"version", options_.server_version}};
  result["_meta"] = std::move(meta);
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
    for (auto& [cancel, request_id] : stateless_in_flight_)
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
    if (auto refused = check_headers(request))
      return refused;
    caller from;
    credentials who;
    // Over stdio the client started this process: no browser can reach
    // it, and its user is the one user.
    if (!request.stdio) {
      if (auto refused = check_origin(request))
        return refused;
      if (auto refused = authenticate(request, who))
        return refused;
    }
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
                                                const caller& caller_in,
                                                reply_sink& done) {
  // Accept: our replies are JSON, or SSE for calls that stream; a client
  // that admits neither can be sent nothing.
  auto accepts = parse_accept(request.header("accept"));
  if (!accepts.json && !accepts.sse)
    return rpc_error_reply(406, nullptr, json_rpc::invalid_request,
                           "Not Acceptable: Accept must admit "
                           "application/json or text/event-stream");
  caller from = caller_in;
  from.sse = accepts.sse;
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
  // Which revision: a message that names its protocol version in
  // params._meta is 2026-07-28, stateless (even an `initialize`, which that
  // revision no longer has); an `initialize` without one opens a session of
  // an older revision; everything else belongs to such a session.
  if (auto meta = message.params.find("_meta");
      meta != message.params.end() && meta->value().is_object()
      && meta->value().get_object().contains(meta_protocol_version))
    return handle_stateless(request, message, meta->value().get_object(),
                            from, done);
  if (message.kind == json_rpc::message_kind::request
      && message.method == "initialize")
    return initialize(message.id, message.params, from);
  if (auto header = trim_ows(request.header("mcp-protocol-version"));
      !header.empty() && !is_legacy_version(header)
      && message.kind == json_rpc::message_kind::request
      && request.header("mcp-session-id").empty())
    return rpc_error_reply(
      400, message.id, json_rpc::invalid_params,
      "Invalid params: missing _meta keys: "
        + std::string{meta_protocol_version} + ", "
        + std::string{meta_client_capabilities} + " (a "
        + std::string{header}
        + " request describes itself in params._meta; or send initialize "
          "for a session of an older revision)");
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

std::optional<http_reply>
endpoint::handle_stateless(const http_request& request,
                           const json_rpc::message& message,
                           const json::object& meta, const caller& from,
                           reply_sink& done) {
  const auto& id = message.id;
  bool is_request = message.kind == json_rpc::message_kind::request;
  auto refuse = [&](int status, int code, std::string text,
                    std::optional<json::value> data = {}) {
    auto error = json_rpc::make_error(id, code, text, std::move(data));
    // 2026-07-28 ids are strings or integers: a notification's error (it
    // has no id) leaves the member out rather than send null.
    if (id.is_null())
      error.erase("id");
    return json_reply(status, error);
  };
  // 1. The request's own description.
  std::string missing;
  auto version_it = meta.find(meta_protocol_version);
  if (!version_it->value().is_string())
    missing = std::string{meta_protocol_version} + " (a string)";
  auto caps = meta.find(meta_client_capabilities);
  if (caps == meta.end() || !caps->value().is_object())
    missing += (missing.empty() ? "" : ", ")
               + std::string{meta_client_capabilities} + " (an object)";
  if (!missing.empty())
    return refuse(400, json_rpc::invalid_params,
                  "Invalid params: missing _meta keys: " + missing);
  std::string version{version_it->value().get_string()};
  // 2. Standard headers mirror the body (and are checked before the
  // version, so that a mismatch is named as one). stdio has no headers.
  auto header_version = request.stdio
                          ? std::string_view{version}
                          : trim_ows(request.header("mcp-protocol-version"));
  if (header_version.empty())
    return refuse(400, json_rpc::header_mismatch,
                  "Header mismatch: MCP-Protocol-Version header required "
                  "(the body names " + version + ")");
  if (header_version != version)
    return refuse(400, json_rpc::header_mismatch,
                  "Header mismatch: MCP-Protocol-Version header value '"
                    + std::string{header_version}
                    + "' does not match body value '" + version + "'");
  if (is_request && !request.stdio) {
    auto method_header = trim_ows(request.header("mcp-method"));
    if (method_header.empty())
      return refuse(400, json_rpc::header_mismatch,
                    "Header mismatch: Mcp-Method header required (the body "
                    "names " + message.method + ")");
    if (method_header != message.method)
      return refuse(400, json_rpc::header_mismatch,
                    "Header mismatch: Mcp-Method header value '"
                      + std::string{method_header}
                      + "' does not match body value '" + message.method
                      + "'");
    const char* named = message.method == "tools/call"
                            || message.method == "prompts/get"
                          ? "name"
                        : message.method == "resources/read" ? "uri"
                                                              : nullptr;
    if (named != nullptr) {
      auto body_name = message.params.find(named);
      std::string expected
        = body_name != message.params.end()
              && body_name->value().is_string()
            ? std::string{body_name->value().get_string()}
            : std::string{};
      auto raw = trim_ows(request.header("mcp-name"));
      auto decoded = decode_header_value(raw);
      if (raw.empty())
        return refuse(400, json_rpc::header_mismatch,
                      "Header mismatch: Mcp-Name header required for "
                        + message.method);
      if (!decoded)
        return refuse(400, json_rpc::header_mismatch,
                      "Header mismatch: Mcp-Name header is not valid "
                      "=?base64?...?= text");
      if (*decoded != expected)
        return refuse(400, json_rpc::header_mismatch,
                      "Header mismatch: Mcp-Name header value '" + *decoded
                        + "' does not match body value '" + expected + "'");
    }
  }
  // 3. The revision.
  if (version != stateless_protocol_version)
    return refuse(400, json_rpc::unsupported_protocol_version,
                  "Unsupported protocol version " + version
                    + ": this endpoint serves "
                    + std::string{stateless_protocol_version}
                    + " per request, and older revisions through initialize",
                  json::object{{"supported",
                                json::array{stateless_protocol_version}},
                               {"requested", version}});
  // The Mcp-Param-* headers, once the version is known to be served.
  if (is_request && !request.stdio && message.method == "tools/call")
    if (auto mismatch = check_param_headers(request, message.params))
      return refuse(400, json_rpc::header_mismatch,
                    "Header mismatch: " + *mismatch);
  if (!is_request) {
    // Over HTTP a client cancels by closing the call's stream; over stdio
    // it names the call (ids are its own: one client per process).
    if (request.stdio && message.method == "notifications/cancelled")
      if (auto it = message.params.find("requestId");
          it != message.params.end())
        cancel_stateless(json::serialize(it->value()));
    return no_content(202);
  }
  // 4. The method.
  if (message.method == "server/discover")
    return json_reply(200, discover(id));
  if (message.method == "tools/list")
    return json_reply(200, list_tools(id, message.params, true));
  if (message.method == "tools/call") {
    call_origin origin;
    origin.sse = from.sse;
    if (auto level = meta.find(meta_log_level);
        level != meta.end() && level->value().is_string()
        && std::find(log_levels.begin(), log_levels.end(),
                     level->value().get_string())
             != log_levels.end())
      origin.log_level = std::string{level->value().get_string()};
    return call_tool(origin, id, message.params, from, done);
  }
  // initialize, ping, logging/setLevel and resources/subscribe are gone in
  // 2026-07-28; prompts, resources, completions and subscriptions are not
  // offered (server/discover says so).
  return refuse(404, json_rpc::method_not_found,
                "Method not found: " + message.method
                  + " (this server offers server/discover, tools/list and "
                    "tools/call)");
}

std::optional<std::string>
endpoint::check_param_headers(const http_request& request,
                              const json::object& params) const {
  auto name = params.find("name");
  if (name == params.end() || !name->value().is_string())
    return std::nullopt; // the call itself says what is wrong
  const auto* spec = catalog_.find(name->value().get_string());
  if (spec == nullptr)
    return std::nullopt;
  const json::object* arguments = nullptr;
  if (auto a = params.find("arguments");
      a != params.end() && a->value().is_object())
    arguments = &a->value().get_object();
  for (const auto& member : spec->input.members) {
    if (member.mcp_header.empty())
      continue;
    auto header_name = "Mcp-Param-" + member.mcp_header;
    auto raw = request.header(lower(header_name));
    std::optional<std::string> decoded;
    if (!raw.empty()) {
      decoded = decode_header_value(trim_ows(raw));
      if (!decoded)
        return header_name + " header is not valid =?base64?...?= text";
    }
    const json::value* value = nullptr;
    if (arguments)
      if (auto v = arguments->find(member.name); v != arguments->end())
        value = &v->value();
    if (value == nullptr || value->is_null())
      continue; // nothing to mirror
    std::string expected;
    if (value->is_string())
      expected = std::string{value->get_string()};
    else if (value->is_bool())
      expected = value->get_bool() ? "true" : "false";
    else if (value->is_int64() || value->is_uint64())
      expected = json::serialize(*value);
    else
      continue; // the argument check names the wrong type
    if (!decoded)
      return header_name + " header required (the body sets \""
             + member.name + "\")";
    if (value->is_int64() || value->is_uint64()) {
      // Integers compare as numbers ("07" is 7).
      const char* begin = decoded->c_str();
      char* end = nullptr;
      errno = 0;
      auto number = std::strtoll(begin, &end, 10);
      if (!decoded->empty() && end == begin + decoded->size() && errno == 0
          && std::to_string(number) == expected)
        continue;
    }
    if (*decoded != expected)
      return header_name + " header value '" + *decoded
             + "' does not match body value '" + expected + "'";
  }
  return std::nullopt;
}

json::object endpoint::discover(const json::value& id) const {
  json::object result;
  result["supportedVersions"] = json::array{stateless_protocol_version};
  result["capabilities"] = json::object{{"tools", json::object{}}};
  result["instructions"] = instructions();
  result["ttlMs"] = list_ttl_ms;
  result["cacheScope"] = "public";
  stamp_result(result);
  return json_rpc::make_result(id, std::move(result));
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

std::string endpoint::instructions() const {
  return "Public transport departures, stops, geocoding and trip planning. "
         + options_.regions
         + " London journeys and station toilets via TfL. Every result "
           "carries a correlationId; errors are tool results with isError "
           "and an error code.";
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
  result["instructions"] = instructions();
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
    return json_reply(200, list_tools(id, params, false));
  if (method == "tools/call")
    return call_tool(call_origin{session_id, std::nullopt, from.sse}, id,
                     params, from, done);
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
                                  const json::object& params,
                                  bool stateless) {
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
  if (stateless) {
    // The list is fixed for the daemon's configuration and the same for
    // every caller.
    result["ttlMs"] = list_ttl_ms;
    result["cacheScope"] = "public";
    stamp_result(result);
  }
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
  /// A 2026-07-28 call: its result carries resultType and _meta.
  bool stateless = false;
  /// The tool answers once; a later answer is dropped.
  std::atomic<bool> answered{false};
};

std::optional<http_reply> endpoint::call_tool(const call_origin& origin,
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
      challenge += ", " + options_.oauth->challenge_parameter();
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
  context.principal = from.principal.empty() ? std::string{"local"}
                                             : from.principal;
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
  const auto& session_id = origin.session_id;
  std::optional<std::string> log_level = origin.log_level;
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    if (session_id.empty()) {
      stateless_in_flight_.emplace(cancel, std::move(key));
    } else {
      auto s = sessions_.find(session_id);
      if (s == sessions_.end())
        return rpc_error_reply(404, id, json_rpc::invalid_request,
                               "Session not found");
      s->second.in_flight.emplace(cancel, std::move(key));
      log_level = s->second.log_level;
    }
  }
  // A client that takes JSON only gets no notifications.
  if (!origin.sse) {
    progress_token.reset();
    log_level.reset();
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
      forget_call(session_id, cancel);
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
  call->stateless = session_id.empty();
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
  forget_call(call.session_id, call.cancel);
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
  return call_response_text(call.id, outcome,
                            call.stateless ? stateless_result_suffix_
                                           : std::string_view{});
}

void endpoint::cancel_stateless(const std::string& request_id) {
  std::vector<std::shared_ptr<cancellation>> calls;
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    for (auto& [cancel, id] : stateless_in_flight_)
      if (id == request_id)
        calls.push_back(cancel);
  }
  // Outside the lock: cancelling finishes the call, which takes it.
  for (auto& cancel : calls)
    cancel->cancel();
}

void endpoint::forget_call(const std::string& session_id,
                           const std::shared_ptr<cancellation>& cancel) {
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  if (session_id.empty())
    stateless_in_flight_.erase(cancel);
  else if (auto s = sessions_.find(session_id); s != sessions_.end())
    s->second.in_flight.erase(cancel);
}

} // namespace transitd::mcp
