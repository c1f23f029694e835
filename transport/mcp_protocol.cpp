#include "transitd/transport/mcp_protocol.hpp"

#include <algorithm>

#include "transitd/transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> versions{"2025-11-25", "2025-06-18",
                                                 "2025-03-26"};
  return versions;
}

bool is_supported(std::string_view version) {
  const auto& versions = supported_protocol_versions();
  return std::find(versions.begin(), versions.end(), version)
         != versions.end();
}

bool is_legacy_version(std::string_view version) {
  return version == "2024-11-05" || is_supported(version);
}

const std::vector<std::string>& log_levels() {
  static const std::vector<std::string> levels{
    "debug", "info", "notice", "warning", "error", "critical", "alert",
    "emergency"};
  return levels;
}

bool is_log_level(std::string_view level) {
  const auto& levels = log_levels();
  return std::find(levels.begin(), levels.end(), level) != levels.end();
}

answer make_answer(answer_kind kind, const json::object& message) {
  answer out;
  out.kind = kind;
  out.message = json_text(message);
  return out;
}

answer error_answer(answer_kind kind, const json::value& id, int code,
                    std::string_view text) {
  return make_answer(kind, json_rpc::make_error(id, code, text));
}

std::variant<json_rpc::message, answer> parse_message(std::string_view text) {
  json::error_code error;
  auto parsed = json::parse(text, error);
  if (error)
    return error_answer(answer_kind::invalid, nullptr, json_rpc::parse_error,
                        "Parse error: " + error.message());
  if (parsed.is_array())
    return error_answer(answer_kind::invalid, nullptr,
                        json_rpc::invalid_request,
                        "Invalid Request: batches are not supported");
  if (!parsed.is_object())
    return error_answer(answer_kind::invalid, nullptr,
                        json_rpc::invalid_request,
                        "Invalid Request: expected a JSON object");
  auto message = json_rpc::classify(parsed.get_object());
  if (message.kind == json_rpc::message_kind::invalid)
    return error_answer(answer_kind::invalid, message.id,
                        json_rpc::invalid_request,
                        "Invalid Request: " + message.problem);
  return message;
}

bool is_stateless(const json_rpc::message& message) {
  auto meta = message.params.find("_meta");
  return meta != message.params.end() && meta->value().is_object()
         && meta->value().get_object().contains(meta_protocol_version);
}

answer stateless_refusal(answer_kind kind, const json::value& id, int code,
                         std::string_view text,
                         std::optional<json::value> data) {
  auto error = json_rpc::make_error(id, code, text, std::move(data));
  // 2026-07-28 ids are strings or integers: a notification's error (it
  // has no id) leaves the member out rather than send null.
  if (id.is_null())
    error.erase("id");
  return make_answer(kind, error);
}

std::variant<std::string, answer>
stateless_revision(const json_rpc::message& message) {
  const auto& meta = message.params.at("_meta").get_object();
  std::string missing;
  auto version = meta.find(meta_protocol_version);
  if (version == meta.end() || !version->value().is_string())
    missing = std::string{meta_protocol_version} + " (a string)";
  auto caps = meta.find(meta_client_capabilities);
  if (caps == meta.end() || !caps->value().is_object())
    missing += (missing.empty() ? "" : ", ")
               + std::string{meta_client_capabilities} + " (an object)";
  if (!missing.empty())
    return stateless_refusal(answer_kind::invalid, message.id,
                             json_rpc::invalid_params,
                             "Invalid params: missing _meta keys: " + missing);
  return std::string{version->value().get_string()};
}

std::string call_response_text(const json::value& id,
                               const tool_outcome& outcome,
                               std::string_view result_suffix) {
  // Written around the structured output serialised once; building the
  // envelope as a DOM would copy the output and serialise it twice.
  std::string rendered;
  if (outcome.is_error)
    rendered = json_text(outcome.error_body);
  else if (outcome.structured_text.empty())
    rendered = json_text(outcome.structured);
  const std::string& body = outcome.is_error || rendered.size() > 0
                              ? rendered
                              : outcome.structured_text;
  std::string out;
  // The text escapes every quote of the body: room for both, and more.
  out.reserve(body.size() * 2 + body.size() / 2 + result_suffix.size() + 128);
  out += R"({"jsonrpc":"2.0","id":)";
  append_json(out, id);
  out += R"(,"result":{"content":[{"type":"text","text":)";
  append_json_string(out, body);
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

} // namespace transitd::mcp
