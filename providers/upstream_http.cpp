#include "providers/upstream_http.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace transitd {

int32_t parse_retry_after(std::string_view value, int64_t now_ms,
                          int32_t fallback) {
  if (value.empty())
    return fallback;
  if (std::all_of(value.begin(), value.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 6)
      return 86400;
    return std::max(1, std::atoi(std::string{value}.c_str()));
  }
  // HTTP-date, e.g. "Wed, 21 Oct 2015 07:28:00 GMT".
  std::tm tm{};
  std::string text{value};
  if (strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr)
    return fallback;
  auto at = static_cast<int64_t>(timegm(&tm));
  auto delta = at - now_ms / 1000;
  return static_cast<int32_t>(std::clamp<int64_t>(delta, 1, 86400));
}

failure classify_http_failure(const http_response& response,
                              std::string_view upstream_name) {
  std::string who{upstream_name};
  auto status = std::to_string(response.status);
  if (response.status == 429)
    return make_failure(ec::rate_limited,
                        who + " is throttling requests (HTTP 429)",
                        "wait retryAfter seconds before calling again",
                        parse_retry_after(response.retry_after,
                                          response.received_ms, 1));
  if (response.status == 401 || response.status == 403)
    return make_failure(ec::upstream_error,
                        who + " rejected the API key (HTTP " + status + ")",
                        "check the configured subscription key");
  if (response.status >= 500)
    return make_failure(ec::upstream_error,
                        who + " failed (HTTP " + status + ")",
                        "retry later");
  return make_failure(ec::upstream_error,
                      who + " answered HTTP " + status + " unexpectedly");
}

std::string sanitize_upstream_text(std::string_view text,
                                   std::size_t max_length) {
  std::string result;
  result.reserve(std::min(text.size(), max_length));
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      c = ' ';
    result.push_back(c);
  }
  if (result.size() > max_length) {
    auto cut = max_length;
    // Step back to a UTF-8 lead byte so no character is split.
    while (cut > 0 && (static_cast<unsigned char>(result[cut]) & 0xC0) == 0x80)
      --cut;
    result.resize(cut);
    result += "...";
  }
  return result;
}

} // namespace transitd

namespace transitd {

std::string redact_url(std::string_view url) {
  std::string out;
  auto rest = url;
  if (auto scheme_end = url.find("://"); scheme_end != std::string_view::npos) {
    out = std::string{url.substr(0, scheme_end + 3)};
    rest = url.substr(scheme_end + 3);
  }
  auto authority_end = rest.find_first_of("/?#");
  auto authority = rest.substr(0, authority_end);
  if (auto at = authority.rfind('@'); at != std::string_view::npos)
    authority = authority.substr(at + 1);
  out += authority;
  if (authority_end == std::string_view::npos)
    return out;
  rest = rest.substr(authority_end);
  auto query = rest.find_first_of("?#");
  out += rest.substr(0, query);
  if (query != std::string_view::npos)
    out += "?...";
  return out;
}

outcome<endpoint> split_url(std::string_view url) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return make_failure(ec::validation_error,
                        "URL \"" + redact_url(url)
                          + "\" lacks a scheme (http:// or https://)");
  auto scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https")
    return make_failure(ec::validation_error,
                        "URL \"" + redact_url(url)
                          + "\" must use http or https");
  auto host_begin = scheme_end + 3;
  auto path_begin = url.find('/', host_begin);
  endpoint result;
  result.origin = std::string{url.substr(0, path_begin)};
  if (result.origin.size() <= host_begin)
    return make_failure(ec::validation_error,
                        "URL \"" + redact_url(url) + "\" has no host");
  // The origin goes into error messages; credentials have their own
  // settings (DIGITRANSIT_API_KEY, TFL_API_KEY).
  if (result.origin.find('@', host_begin) != std::string::npos)
    return make_failure(ec::validation_error,
                        "URL \"" + redact_url(url)
                          + "\" must not carry user information "
                            "(user:password@); give API keys through "
                            "their own settings");
  result.path = path_begin == std::string_view::npos
                  ? std::string{}
                  : std::string{url.substr(path_begin)};
  while (!result.path.empty() && result.path.back() == '/')
    result.path.pop_back();
  return result;
}

} // namespace transitd
