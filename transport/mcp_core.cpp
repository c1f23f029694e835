#include "transitd/transport/mcp_core.hpp"

#include <algorithm>
#include <cctype>

#include <spdlog/spdlog.h>

#include "transitd/transport/json_text.hpp"
#include "transitd/transport/logging.hpp"
#include "transitd/transport/views.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

std::vector<std::string> tool_names(const tool_catalog& catalog) {
  std::vector<std::string> names;
  for (const auto& tool : catalog.tools())
    names.push_back(tool.name);
  return names;
}

answer ok_answer(const json::object& message) {
  return make_answer(answer_kind::ok, message);
}

answer accepted() {
  answer out;
  out.kind = answer_kind::accepted;
  return out;
}

answer session_refusal(session_table::access access, const json::value& id) {
  if (access == session_table::access::unknown)
    return error_answer(answer_kind::unknown_session, id,
                        json_rpc::invalid_request, "Session not found");
  // A session is used only by the principal that opened it.
  return error_answer(answer_kind::forbidden, id, json_rpc::invalid_request,
                      "Forbidden: this session was opened with another "
                      "token");
}

} // namespace

core::core(core_options options, const tool_catalog& catalog)
  : options_(std::move(options)),
    catalog_(catalog),
    metrics_(tool_names(catalog)),
    sessions_(options_.max_sessions, options_.session_idle_timeout,
              options_.clock) {
  call_log_tap::global();
  json::object stamped;
  stamp_result(stamped);
  auto text = json_text(stamped); // {"resultType":...,"_meta":...}
  stateless_result_suffix_ = "," + text.substr(1, text.size() - 2);
}

void core::stamp_result(json::object& result) const {
  result["resultType"] = "complete";
  json::object meta;
  meta[meta_server_info] = json::object{{"name", options_.server_name},
                                        {"version", options_.server_version}};
  result["_meta"] = std::move(meta);
}

std::size_t core::session_count() const {
  return sessions_.size();
}

void core::cancel_all() {
  sessions_.cancel_all();
}

void core::handle(const json_rpc::message& message, const peer& from,
                  std::shared_ptr<reply_channel> reply) {
  // Which revision: a message that names its protocol version in
  // params._meta is 2026-07-28, stateless (even an `initialize`, which that
  // revision no longer has); an `initialize` without one opens a session of
  // an older revision; everything else belongs to such a session.
  std::optional<answer> now;
  if (is_stateless(message))
    now = handle_stateless(message, from, reply);
  else if (message.kind == json_rpc::message_kind::request
           && message.method == "initialize")
    now = initialize(message, from);
  else
    now = handle_session(message, from, reply);
  if (now)
    reply->done(std::move(*now));
}

answer core::close_session(const std::string& session_id,
                           const std::string& principal) {
  auto access = sessions_.close(session_id, principal);
  if (access != session_table::access::ok)
    return session_refusal(access, nullptr);
  answer out;
  out.kind = answer_kind::ok;
  return out;
}

std::optional<answer>
core::handle_session(const json_rpc::message& message, const peer& from,
                     std::shared_ptr<reply_channel>& reply) {
  if (from.session_id.empty())
    return error_answer(answer_kind::invalid, message.id,
                        json_rpc::invalid_request,
                        "No session: send initialize first (or "
                        "describe each request in params._meta, revision "
                          + std::string{stateless_protocol_version} + ")");
  auto access = sessions_.use(from.session_id, from.principal);
  if (access != session_table::access::ok)
    return session_refusal(access, message.id);
  switch (message.kind) {
    case json_rpc::message_kind::notification:
      if (message.method == "notifications/cancelled")
        if (auto it = message.params.find("requestId");
            it != message.params.end()) {
          auto key = json::serialize(it->value());
          if (sessions_.cancel_calls(from.session_id, key) > 0)
            spdlog::info("MCP request {} cancelled by the client", key);
        }
      // notifications/initialized and others need no action.
      return accepted();
    case json_rpc::message_kind::response:
      // We send no server-to-client requests; nothing waits on this.
      return accepted();
    default:
      return dispatch(from.session_id, message, from, reply);
  }
}

std::optional<answer>
core::handle_stateless(const json_rpc::message& message, const peer& from,
                       std::shared_ptr<reply_channel>& reply) {
  const auto& id = message.id;
  auto revision = stateless_revision(message);
  if (auto* refused = std::get_if<answer>(&revision))
    return std::move(*refused);
  const auto& version = std::get<std::string>(revision);
  if (version != stateless_protocol_version)
    return stateless_refusal(
      answer_kind::invalid, id, json_rpc::unsupported_protocol_version,
      "Unsupported protocol version " + version + ": this endpoint serves "
        + std::string{stateless_protocol_version}
        + " per request, and older revisions through initialize",
      json::object{{"supported", json::array{stateless_protocol_version}},
                   {"requested", version}});
  if (message.kind != json_rpc::message_kind::request) {
    // A transport with one client names the call to cancel (its ids are
    // its own); over HTTP a client cancels by closing the call's stream.
    if (from.cancels_by_id && message.method == "notifications/cancelled")
      if (auto it = message.params.find("requestId");
          it != message.params.end())
        sessions_.cancel_calls({}, json::serialize(it->value()));
    return accepted();
  }
  if (message.method == "server/discover")
    return ok_answer(discover(id));
  if (message.method == "tools/list")
    return ok_answer(list_tools(id, message.params, true));
  if (auto out = resources(message, true))
    return ok_answer(std::move(*out));
  if (message.method == "tools/call") {
    call_origin origin;
    const auto& meta = message.params.at("_meta").get_object();
    if (auto level = meta.find(meta_log_level);
        level != meta.end() && level->value().is_string()
        && is_log_level(level->value().get_string()))
      origin.log_level = std::string{level->value().get_string()};
    return call_tool(origin, message, from, reply);
  }
  // initialize, ping, logging/setLevel and resources/subscribe are gone in
  // 2026-07-28; prompts, completions and subscriptions are not offered
  // (server/discover says so).
  return stateless_refusal(answer_kind::not_found, id,
                           json_rpc::method_not_found,
                           "Method not found: " + message.method
                             + " (this server offers server/discover, "
                               "tools/list, tools/call, resources/list and "
                               "resources/read)");
}

json::object core::discover(const json::value& id) const {
  json::object result;
  result["supportedVersions"] = json::array{stateless_protocol_version};
  result["capabilities"] = capabilities(true);
  result["instructions"] = instructions();
  result["ttlMs"] = list_ttl_ms;
  result["cacheScope"] = "public";
  stamp_result(result);
  return json_rpc::make_result(id, std::move(result));
}

std::string core::instructions() const {
  return "Public transport departures, stops, geocoding and trip planning. "
         + options_.regions
         + " London journeys and station toilets via TfL. Call "
           "transit_coverage first: it says which provider covers which "
           "area, its id prefix, days and realtime health, and which tools "
           "answer there. Every result carries a correlationId; errors are "
           "tool results with isError and an error code.";
}

answer core::initialize(const json_rpc::message& message, const peer& from) {
  const auto& id = message.id;
  auto it = message.params.find("protocolVersion");
  if (it == message.params.end() || !it->value().is_string())
    return error_answer(answer_kind::invalid, id, json_rpc::invalid_params,
                        "Invalid params: initialize needs "
                        "\"protocolVersion\" (a string)");
  std::string requested{it->value().get_string()};
  // Negotiation: echo a version we speak, else offer our latest.
  auto version = is_supported(requested)
                   ? requested
                   : std::string{latest_protocol_version};
  auto session_id = sessions_.open(version, from.principal);
  if (!session_id)
    return error_answer(
      answer_kind::unavailable, id, json_rpc::internal_error,
      "Service Unavailable: all " + std::to_string(options_.max_sessions)
        + " sessions (max-sessions) have calls in flight; retry shortly");
  json::object result;
  result["protocolVersion"] = version;
  result["capabilities"] = capabilities(false);
  result["serverInfo"] = json::object{{"name", options_.server_name},
                                      {"title", "transitd: public transit"},
                                      {"version", options_.server_version}};
  result["instructions"] = instructions();
  auto out = ok_answer(json_rpc::make_result(id, std::move(result)));
  out.session_id = std::move(*session_id);
  spdlog::info("MCP session opened, protocol {}", version);
  return out;
}

std::optional<answer> core::dispatch(const std::string& session_id,
                                     const json_rpc::message& message,
                                     const peer& from,
                                     std::shared_ptr<reply_channel>& reply) {
  const auto& id = message.id;
  const auto& method = message.method;
  if (method == "ping")
    return ok_answer(json_rpc::make_result(id, json::object{}));
  if (method == "tools/list")
    return ok_answer(list_tools(id, message.params, false));
  if (method == "tools/call")
    return call_tool(call_origin{session_id, std::nullopt}, message, from,
                     reply);
  if (method == "logging/setLevel")
    return set_log_level(session_id, message);
  if (auto out = resources(message, false))
    return ok_answer(std::move(*out));
  return ok_answer(json_rpc::make_error(id, json_rpc::method_not_found,
                                        "Method not found: " + method));
}

answer core::set_log_level(const std::string& session_id,
                           const json_rpc::message& message) {
  auto it = message.params.find("level");
  if (it == message.params.end() || !it->value().is_string()
      || !is_log_level(it->value().get_string()))
    return ok_answer(json_rpc::make_error(
      message.id, json_rpc::invalid_params,
      "Invalid params: level must be one of debug, info, notice, warning, "
      "error, critical, alert, emergency"));
  sessions_.set_log_level(session_id, std::string{it->value().get_string()});
  return ok_answer(json_rpc::make_result(message.id, json::object{}));
}

json::object core::list_tools(const json::value& id,
                              const json::object& params,
                              bool stateless) const {
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

json::object core::capabilities(bool stateless) const {
  json::object out;
  if (stateless) {
    out["tools"] = json::object{};
    out["resources"] = json::object{};
  } else {
    out["tools"] = json::object{{"listChanged", false}};
    out["resources"] = json::object{{"listChanged", false},
                                    {"subscribe", false}};
    out["logging"] = json::object{};
  }
  out["extensions"] = json::object{
    {ui_extension,
     json::object{{"mimeTypes", json::array{view_mime_type}}}}};
  return out;
}

std::optional<json::object>
core::resources(const json_rpc::message& message, bool stateless) const {
  const auto& id = message.id;
  const auto& method = message.method;
  if (method != "resources/list" && method != "resources/templates/list"
      && method != "resources/read")
    return std::nullopt;
  json::object result;
  if (method == "resources/read") {
    auto it = message.params.find("uri");
    if (it == message.params.end() || !it->value().is_string())
      return json_rpc::make_error(id, json_rpc::invalid_params,
                                  "Invalid params: resources/read needs "
                                  "\"uri\" (a string)");
    const auto* v = find_view(it->value().get_string());
    if (v == nullptr) {
      std::string known;
      for (const auto& each : views())
        known += (known.empty() ? "" : ", ") + each.uri;
      // A resource not found: -32602 with data.uri in 2026-07-28
      // (SEP-2164), -32002 in the session revisions.
      return json_rpc::make_error(
        id, stateless ? json_rpc::invalid_params : -32002,
        "Resource not found: " + std::string{it->value().get_string()}
          + " (this server has " + known + ")",
        json::object{{"uri", it->value()}});
    }
    result["contents"] = json::array{resource_contents(*v)};
  } else {
    if (auto it = message.params.find("cursor");
        it != message.params.end())
      // One page holds them all: no cursor is ever handed out.
      return json_rpc::make_error(id, json_rpc::invalid_params,
                                  "Invalid params: unknown cursor");
    if (method == "resources/list") {
      json::array list;
      for (const auto& v : views())
        list.push_back(resource_entry(v));
      result["resources"] = std::move(list);
    } else {
      result["resourceTemplates"] = json::array{};
    }
  }
  if (stateless) {
    // Compiled in: the same for every caller while the daemon runs.
    result["ttlMs"] = list_ttl_ms;
    result["cacheScope"] = "public";
    stamp_result(result);
  }
  return json_rpc::make_result(id, std::move(result));
}

} // namespace transitd::mcp
