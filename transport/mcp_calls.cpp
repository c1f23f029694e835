// tools/call in the MCP core: the checks, the call's progress and log
// notifications, its deadline and cancellation, and its one response.

#include <algorithm>
#include <atomic>

#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"
#include "transitd/transport/json_text.hpp"
#include "transitd/transport/logging.hpp"
#include "transitd/transport/mcp_core.hpp"
#include "transitd/util/ids.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

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

/// notifications/progress, one per step as it happens: progress counts the
/// steps (0: the call was accepted).
class channel_progress final : public progress_sink {
public:
  channel_progress(std::shared_ptr<reply_channel> channel, json::value token)
    : channel_(std::move(channel)), token_(std::move(token)) {
  }

  void note(std::string_view message) const override {
    json::object p;
    p["progressToken"] = token_;
    p["progress"] = steps_.fetch_add(1, std::memory_order_relaxed);
    p["message"] = message;
    channel_->notify(json_text(
      json_rpc::make_notification("notifications/progress", std::move(p))));
  }

private:
  std::shared_ptr<reply_channel> channel_;
  json::value token_;
  mutable std::atomic<int64_t> steps_{0};
};

/// notifications/message for one log line about a call.
std::string log_message(const std::string& correlation_id,
                        const call_log_tap::line& line) {
  json::object m;
  m["level"] = mcp_level(line.level);
  m["logger"] = "transitd";
  json::object data;
  data["correlationId"] = correlation_id;
  data["message"] = line.message;
  m["data"] = std::move(data);
  return json_text(
    json_rpc::make_notification("notifications/message", std::move(m)));
}

answer params_error(const json::value& id, std::string text) {
  return make_answer(answer_kind::ok,
                     json_rpc::make_error(id, json_rpc::invalid_params, text));
}

} // namespace

struct core::call_record {
  std::string session_id;
  json::value id;
  std::string name;
  call_context context;
  std::shared_ptr<reply_channel> reply;
  std::optional<std::string> log_level;
  std::shared_ptr<cancellation> cancel;
  std::chrono::steady_clock::time_point started;
  /// A 2026-07-28 call: its result carries resultType and _meta.
  bool stateless = false;
  /// The tool answers once; a later answer is dropped.
  std::atomic<bool> answered{false};
};

std::optional<answer> core::check_call(const json_rpc::message& message,
                                       const peer& from,
                                       const tool_spec*& spec,
                                       const json::object*& arguments) const {
  const auto& id = message.id;
  const auto& params = message.params;
  auto name_it = params.find("name");
  if (name_it == params.end() || !name_it->value().is_string())
    return params_error(id, "Invalid params: tools/call needs \"name\"");
  std::string name{name_it->value().get_string()};
  spec = catalog_.find(name);
  if (spec == nullptr)
    return params_error(id, "Unknown tool: " + name);
  if (!spec->scope.empty() && from.scopes
      && std::find(from.scopes->begin(), from.scopes->end(), spec->scope)
           == from.scopes->end()) {
    auto refused = error_answer(answer_kind::forbidden, id,
                                json_rpc::invalid_request,
                                "Forbidden: " + name + " needs the scope \""
                                  + spec->scope
                                  + "\"; ask the authorization server for "
                                    "a token that carries it");
    refused.required_scope = spec->scope;
    return refused;
  }
  static const json::object no_arguments;
  arguments = &no_arguments;
  if (auto it = params.find("arguments"); it != params.end()) {
    if (!it->value().is_object())
      return params_error(id,
                          "Invalid params: \"arguments\" must be an object");
    arguments = &it->value().get_object();
    // Arguments are part of the message: only a larger one needs
    // measuring.
    if (auto size = from.message_bytes > options_.max_argument_bytes
                      ? json::serialize(*arguments).size()
                      : 0;
        size > options_.max_argument_bytes)
      return params_error(id, "Invalid params: \"arguments\" is "
                                + std::to_string(size) + " bytes; at most "
                                + std::to_string(options_.max_argument_bytes));
  }
  return std::nullopt;
}

std::optional<answer> core::call_tool(const call_origin& origin,
                                      const json_rpc::message& message,
                                      const peer& from,
                                      std::shared_ptr<reply_channel>& reply) {
  const tool_spec* spec = nullptr;
  const json::object* arguments = nullptr;
  if (auto refused = check_call(message, from, spec, arguments))
    return refused;
  return start_call(origin, message, from, *spec, *arguments, reply);
}

std::shared_ptr<core::call_record>
core::new_call(const call_origin& origin, const json_rpc::message& message,
               const peer& from, const tool_spec& spec) const {
  auto call = std::make_shared<call_record>();
  auto& context = call->context;
  context.correlation_id = make_uuid_v4();
  // D17 (revised): variables belong to the authenticated principal;
  // without authentication the daemon serves one user, `local`, whatever
  // the revision or transport.
  context.principal = from.principal.empty() ? std::string{"local"}
                                             : from.principal;
  context.received_ms = now_ms();
  auto timeout = options_.tool_timeout_ms;
  if (auto t = options_.tool_timeouts_ms.find(spec.name);
      t != options_.tool_timeouts_ms.end())
    timeout = t->second;
  context.deadline_ms = context.received_ms + timeout;
  // A client that hangs up stops the work it started: nobody can receive
  // the answer (we keep no event log to resume from).
  call->cancel = from.hangup ? from.hangup : std::make_shared<cancellation>();
  call->session_id = origin.session_id;
  call->stateless = origin.session_id.empty();
  call->id = message.id;
  call->name = spec.name;
  return call;
}

bool core::open_notifications(call_record& call,
                              std::optional<json::value> progress_token,
                              const peer& from,
                              std::shared_ptr<reply_channel>& reply) {
  // A transport that cannot carry notifications gets none.
  if (!from.notifications) {
    progress_token.reset();
    call.log_level.reset();
  }
  // With a progress token or a log level, notifications go out as they
  // happen, the result last.
  if (!progress_token && !call.log_level)
    return true;
  if (!reply->open_stream())
    return false;
  auto& context = call.context;
  if (progress_token)
    context.progress = std::make_shared<channel_progress>(reply,
                                                          *progress_token);
  if (call.log_level)
    call_log_tap::global().listen(
      context.correlation_id, spdlog_level(*call.log_level),
      [reply, cid = context.correlation_id](const call_log_tap::line& line) {
        reply->notify(log_message(cid, line));
      });
  report_progress(context, "accepted: " + call.name);
  return true;
}

std::optional<answer> core::start_call(const call_origin& origin,
                                       const json_rpc::message& message,
                                       const peer& from, const tool_spec& spec,
                                       const json::object& arguments,
                                       std::shared_ptr<reply_channel>& reply) {
  std::optional<json::value> progress_token;
  if (auto meta = message.params.find("_meta");
      meta != message.params.end() && meta->value().is_object())
    if (auto token = meta->value().get_object().find("progressToken");
        token != meta->value().get_object().end())
      progress_token = token->value();
  auto call = new_call(origin, message, from, spec);
  auto level = sessions_.add_call(origin.session_id, call->cancel,
                                  json::serialize(message.id),
                                  origin.log_level);
  if (!level)
    return error_answer(answer_kind::unknown_session, message.id,
                        json_rpc::invalid_request, "Session not found");
  call->log_level = std::move(*level);
  auto& context = call->context;
  if (!open_notifications(*call, std::move(progress_token), from, reply)) {
    // No resources for them: the call fails here and leaves nothing behind.
    sessions_.forget_call(origin.session_id, call->cancel);
    spdlog::error("[{}] tools/call {}: no resources for the event stream",
                  context.correlation_id, spec.name);
    return make_answer(answer_kind::ok,
                       json_rpc::make_error(message.id,
                                            json_rpc::internal_error,
                                            "Internal error: no resources "
                                            "for the event stream; retry "
                                            "later"));
  }
  spdlog::info("[{}] tools/call {}", context.correlation_id, spec.name);
  metrics_.started();
  call->reply = reply;
  call->started = std::chrono::steady_clock::now();
  // A tool that throws is answered for.
  auto finish = [this, call](tool_outcome outcome) {
    if (call->answered.exchange(true))
      return;
    answer out;
    out.message = finish_call(*call, std::move(outcome));
    call->reply->done(std::move(out));
  };
  auto cancel = call->cancel;
  try {
    spec.run(arguments, context, cancel, finish);
  } catch (const std::exception& ex) {
    spdlog::error("[{}] {} threw: {}", context.correlation_id, spec.name,
                  ex.what());
    finish(error_outcome(make_failure(ec::internal_error,
                                      "internal error while running "
                                        + spec.name),
                         context.correlation_id));
  }
  return std::nullopt;
}

std::string core::finish_call(const call_record& call, tool_outcome outcome) {
  const auto& context = call.context;
  const auto& name = call.name;
  sessions_.forget_call(call.session_id, call.cancel);
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
  // notifications/cancelled: the call stops and sends no response.
  if (call.cancel->cancelled() || outcome.code == ec::cancelled)
    return {};
  return call_response_text(call.id, outcome,
                            call.stateless ? stateless_result_suffix_
                                           : std::string_view{});
}

} // namespace transitd::mcp
