#pragma once
// HTTP header values as MCP's Streamable HTTP binding reads them: pure
// functions, no sockets.

#include <optional>
#include <string>
#include <string_view>

namespace transitd::mcp {

std::string lower(std::string_view text);
/// "host:port" / "[::1]:port" → "host" / "[::1]", in lower case.
std::string strip_port(std::string_view authority);
/// Optional whitespace (RFC 9110 section 5.5) trimmed off a header value.
std::string_view trim_ows(std::string_view value);

/// What an Accept header admits of our two reply types.
struct accepted {
  bool json = false;
  bool sse = false;
};
accepted parse_accept(std::string_view header);

/// An Mcp-Name (or Mcp-Param-*) value: literal, or `=?base64?...?=` with
/// canonical padded base64 of UTF-8 text. nullopt when the encoding is
/// broken.
std::optional<std::string> decode_header_value(std::string_view value);

} // namespace transitd::mcp
