#pragma once
// URLs of upstreams, through Boost.URL: split for the HTTP client, shown
// without secrets, and query values percent-encoded.

#include <string>
#include <string_view>

#include "transitd/messages/error.hpp"

namespace transitd {

/// An endpoint URL split for the HTTP client: "https://host:443" and
/// "/routing/v2/hsl/gtfs/v1".
struct endpoint {
  std::string origin;
  std::string path;
};

/// Splits an http(s) URL; a failure names what is wrong with it (the URL
/// shown as redact_url shows it). URLs with user information are refused:
/// API keys have settings of their own.
outcome<endpoint> split_url(std::string_view url);

/// A URL as logs and errors may show it: without user information
/// ("user:secret@") and with any query or fragment replaced by "?...",
/// where keys are often put ("?app_key=...").
std::string redact_url(std::string_view url);

/// `text` percent-encoded for a path segment or a query value: everything
/// but RFC 3986's unreserved characters.
std::string url_encode(std::string_view text);

} // namespace transitd
