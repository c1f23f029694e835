// The 2026-07-28 header mirrors of Streamable HTTP: MCP-Protocol-Version,
// Mcp-Method, Mcp-Name and a tool's Mcp-Param-* headers must say what the
// body says.

#include <cerrno>
#include <cstdlib>

#include "transitd/transport/http_fields.hpp"
#include "transitd/transport/mcp_http.hpp"

namespace json = boost::json;

namespace transitd::mcp {

std::optional<http_reply>
endpoint::check_mirrors(const http_request& request,
                        const json_rpc::message& message) const {
  auto refuse = [&](std::string text) {
    return to_http(stateless_refusal(answer_kind::invalid, message.id,
                                     json_rpc::header_mismatch, text));
  };
  // The request's own description first, then the standard headers that
  // mirror it (checked before the version, so that a mismatch is named as
  // one); the core checks the version.
  auto revision = stateless_revision(message);
  if (auto* refused = std::get_if<answer>(&revision))
    return to_http(std::move(*refused));
  const auto& version = std::get<std::string>(revision);
  auto header_version = trim_ows(request.header("mcp-protocol-version"));
  if (header_version.empty())
    return refuse("Header mismatch: MCP-Protocol-Version header required "
                  "(the body names " + version + ")");
  if (header_version != version)
    return refuse("Header mismatch: MCP-Protocol-Version header value '"
                  + std::string{header_version}
                  + "' does not match body value '" + version + "'");
  if (message.kind != json_rpc::message_kind::request)
    return std::nullopt;
  auto method = trim_ows(request.header("mcp-method"));
  if (method.empty())
    return refuse("Header mismatch: Mcp-Method header required (the body "
                  "names " + message.method + ")");
  if (method != message.method)
    return refuse("Header mismatch: Mcp-Method header value '"
                  + std::string{method} + "' does not match body value '"
                  + message.method + "'");
  const char* named = message.method == "tools/call"
                          || message.method == "prompts/get"
                        ? "name"
                      : message.method == "resources/read" ? "uri"
                                                            : nullptr;
  if (named != nullptr) {
    auto body_name = message.params.find(named);
    std::string expected = body_name != message.params.end()
                               && body_name->value().is_string()
                             ? std::string{body_name->value().get_string()}
                             : std::string{};
    auto raw = trim_ows(request.header("mcp-name"));
    auto decoded = decode_header_value(raw);
    if (raw.empty())
      return refuse("Header mismatch: Mcp-Name header required for "
                    + message.method);
    if (!decoded)
      return refuse("Header mismatch: Mcp-Name header is not valid "
                    "=?base64?...?= text");
    if (*decoded != expected)
      return refuse("Header mismatch: Mcp-Name header value '" + *decoded
                    + "' does not match body value '" + expected + "'");
  }
  // The Mcp-Param-* headers, once the version is known to be served.
  if (version == stateless_protocol_version
      && message.method == "tools/call")
    if (auto mismatch = check_param_headers(request, message.params))
      return refuse("Header mismatch: " + *mismatch);
  return std::nullopt;
}

std::optional<std::string>
endpoint::check_param_headers(const http_request& request,
                              const json::object& params) const {
  auto name = params.find("name");
  if (name == params.end() || !name->value().is_string())
    return std::nullopt; // the call itself says what is wrong
  const auto* spec = core_->catalog().find(name->value().get_string());
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

} // namespace transitd::mcp
